"""Raw ``&``, ``%``, ``#``, ``_``, ``^`` and ``$`` in .bib values, common in hand-written and Google Scholar files.

BibTeX copies a value into the ``.bbl`` as it is, and LaTeX reads a raw ``&`` as an alignment tab (outside
a table the document stops: "Misplaced alignment tab character &"), a raw ``%`` as a comment that hides
the rest of the line (``title = {50% faster training}`` prints "50"), a raw ``#`` as a macro parameter
("C# code" stops the document), a raw ``_`` or ``^`` outside math as a script and a ``$`` whose math never
closes as math to the end ("Missing $ inserted"). The ``.bib`` surveytool writes spells them ``\\&``, ``\\%``,
``\\#``, ``\\_``, ``\\^{}`` and ``\\$``; ``unescaped-special`` reports them in a user's file. Fields that hold
addresses or identifiers keep them, and so do the arguments of ``\\url``, ``\\href`` (its address), ``\\doi`` and
``\\cite`` but for ``%`` and ``#``, which end or break an argument. A ``#`` between the pieces of a value joins
them, and a ``_`` there is part of a macro's name: only characters inside braces or quotes are text.
"""

from __future__ import annotations

import re

from surveytool.bibtex.values import FILING_FIELDS, VERBATIM_FIELDS
from surveytool.text.latex_context import paired_dollars

#: Fields whose values are addresses, paths or identifiers: a ``%`` or ``&`` there is part of them.
# Besides addresses and identifiers: the fields reference managers file entries by (JabRef's groups, Mendeley's
# folders), which no style prints; a backslash there would rename the group.
LITERAL_FIELDS = VERBATIM_FIELDS | FILING_FIELDS | frozenset({"file", "pdf", "crossref", "xdata"})
# Commands whose (first) argument is read as written: an address, a DOI, citation keys. A % or # there still
# ends the argument or stops the document inside another command's argument (biblatex puts each field in one).
_VERBATIM_ARGUMENT = frozenset({"url", "href", "doi", "cite", "citet", "citep"})
_INTERESTING = re.compile(r'[&%#_\\{}"$^]')
# Commands whose argument is text, in math too (``$\\text{a_b}$``: there a raw ``_`` stops the document).
_TEXT_ARGUMENT = frozenset("text textrm textsf texttt textnormal textbf textit textup textsl textsc mbox hbox".split())
_CONTROL_WORD = re.compile(r"[A-Za-z]+")

#: The fields BibTeX's standard styles (and natbib's) print: a raw special there stops the document.
_PRINTED = frozenset(
    "address author booktitle chapter edition editor howpublished institution journal month note number "
    "organization pages publisher school series title type volume year isbn issn".split()
)
# A value that starts with an address (a link, perhaps with a label after it: "https://x.org/a_b.pdf PDF").
_ADDRESS = re.compile(r'[{"]?\s*(?:[a-z][a-z0-9+.-]*://|www\.)', re.IGNORECASE)


def escaped_in(field: str, value: str = "") -> bool:
    """Whether the .bib surveytool writes escapes raw specials in ``field``'s ``value``: not in an address or
    identifier field, nor in a field no style prints that starts with an address (``downloads = {https://...}``)."""
    if field in LITERAL_FIELDS:
        return False
    return field in _PRINTED or not _ADDRESS.match(value)


def raw_specials(value: str) -> list[int]:
    """Where ``value`` (a raw .bib value, or LaTeX) holds an ``&``, ``%``, ``#``, ``_``, ``^`` or ``$`` that LaTeX
    would not print.

    Not one after a backslash (``\\&``; but ``\\\\&`` is a line break and a raw ``&``); in the argument of the
    commands that read it as written, only a ``%`` or ``#``; a ``_`` or ``^`` in math (``$x_i$``,
    ``\\ensuremath{x^2}``) is a script, a ``$`` is one when the math it opens does not close in its group, a
    ``^^`` is TeX's character notation (the allowlist's), and a ``#`` or ``_`` outside braces and quotes belongs to
    the .bib's syntax.
    """
    # Six searches for one character each are faster than one for any of them, and most values have none.
    if not ("&" in value or "%" in value or "#" in value or "_" in value or "^" in value or "$" in value):
        return []
    found: list[int] = []
    depth, quoted, math = 0, False, False
    dollars = paired_dollars(value)
    groups: list[tuple[int, bool]] = []  # the depth of each \ensuremath or text argument around, and if it is math
    math_depth = 0  # where the math a $ opened opened
    index = 0
    # Only the characters that matter are visited: most values hold none but a few letters apart.
    while (at := _INTERESTING.search(value, index)) is not None:
        index, char = at.start(), at.group()
        text = depth > 0 or quoted
        # Math where a $ opened it inside the innermost \ensuremath or text argument, else as that argument is.
        in_math = (math and (not groups or math_depth >= groups[-1][0])) or (bool(groups) and groups[-1][1])
        if char in "&%" or (char == "#" and text) or (char in "_^" and text and not in_math):
            if value.startswith("^^", index):
                index += 2
                continue
            found.append(index)
        elif char == "$":
            if index in dollars:
                math, math_depth = not math, depth
                index += dollars[index]
                continue
            if text:
                found.append(index)
        elif char == "\\":
            name = _CONTROL_WORD.match(value, index + 1)
            name_end = name.end() if name else index + 1
            command = value[index + 1 : name_end]
            if command in _VERBATIM_ARGUMENT:
                index = _address_end(value, name_end)
                found.extend(_raw_in(value, name_end, index, "%#"))
                continue
            if (command == "ensuremath" or command in _TEXT_ARGUMENT) and value[name_end:].lstrip().startswith("{"):
                groups.append((depth + 1, command == "ensuremath"))
            index = max(name_end, index + 2)  # a control word, or a backslash and the character it escapes
            continue
        elif char == "{":
            depth += 1
        elif char == "}":
            if groups and groups[-1][0] == depth:
                groups.pop()
            depth = max(depth - 1, 0)
        elif char == '"' and depth == 0:
            quoted = not quoted
        index += 1
    return found


def _raw_in(value: str, start: int, end: int, chars: str) -> list[int]:
    """Where ``chars`` are in ``value[start:end]`` without a backslash before them."""
    found: list[int] = []
    index = start
    while index < end:
        if value[index] == "\\":
            index += 2
            continue
        if value[index] in chars:
            found.append(index)
        index += 1
    return found


#: How the .bib surveytool writes spells each: a backslash before it; a caret alone is an accent, on nothing.
_SPELLED = {"^": "\\^{}"}


def spelled(char: str) -> str:
    """How ``char``, a raw special, is written to print (``\\%``, ``\\^{}``)."""
    return _SPELLED.get(char, "\\" + char)


def _address_end(value: str, start: int) -> int:
    """The index after the braced argument that starts at ``start`` (spaces before it skipped); ``start`` if none."""
    opening = start
    while opening < len(value) and value[opening] in " \t\r\n":
        opening += 1
    if opening >= len(value) or value[opening] != "{":
        return start
    depth = 0
    for index in range(opening, len(value)):
        depth += (value[index] == "{") - (value[index] == "}")
        if depth == 0:
            return index + 1
    return len(value)


def escaped_specials(value: str, positions: list[int] | None = None) -> str:
    """``value`` with each of ``positions`` (by default every ``raw_specials``) spelled to print (``spelled``);
    ``value`` itself when there is none."""
    positions = raw_specials(value) if positions is None else positions
    if not positions:
        return value
    pieces: list[str] = []
    last = 0
    for position in positions:
        pieces += [value[last:position], spelled(value[position])]
        last = position + 1
    pieces.append(value[last:])
    return "".join(pieces)
