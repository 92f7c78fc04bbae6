"""Raw ``&`` and ``%`` in .bib values, common in hand-written and Google Scholar files.

BibTeX copies a value into the ``.bbl`` as it is, and LaTeX reads a raw ``&`` as an alignment tab (outside
a table the document stops: "Misplaced alignment tab character &") and a raw ``%`` as a comment that hides
the rest of the line (``title = {50% faster training}`` prints "50"). The ``.bib`` surveytool writes spells
them ``\\&`` and ``\\%``; ``unescaped-special`` reports them in a user's file. Fields that hold addresses or
identifiers, and the address in ``\\url{...}`` or ``\\href{...}``, keep them: there they are meant, and
those commands read them as written.
"""

from __future__ import annotations

from surveytool.bibtex.values import VERBATIM_FIELDS

#: Fields whose values are addresses, paths or identifiers: a ``%`` or ``&`` there is part of them.
LITERAL_FIELDS = VERBATIM_FIELDS | frozenset({"file", "pdf", "crossref", "xdata"})
_LINK_COMMANDS = ("url", "href")


def escaped_in(field: str) -> bool:
    """Whether the .bib surveytool writes escapes raw ``&`` and ``%`` in ``field``'s value: not in an address or
    identifier field, nor in a field commented out TeX-style (``% note = {...}``, which the reader keeps in the
    name), written back as it was."""
    return field not in LITERAL_FIELDS and not field.rsplit("\n", 1)[-1].lstrip().startswith("%")


def raw_specials(value: str) -> list[int]:
    """Where ``value`` (a raw .bib value, or LaTeX) holds an ``&`` or a ``%`` that LaTeX would not print.

    Not one after a backslash (``\\&``; but ``\\\\&`` is a line break and a raw ``&``), nor one in the first
    argument of ``\\url`` or ``\\href``.
    """
    if "&" not in value and "%" not in value:
        return []
    found: list[int] = []
    index = 0
    while index < len(value):
        char = value[index]
        if char in "&%":
            found.append(index)
        elif char == "\\":
            name_end = index + 1
            while name_end < len(value) and value[name_end].isalpha():
                name_end += 1
            if value[index + 1 : name_end] in _LINK_COMMANDS:
                index = _address_end(value, name_end)
                continue
            index = max(name_end, index + 2)  # a control word, or a backslash and the character it escapes
            continue
        index += 1
    return found


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
    """``value`` with a backslash before each of ``positions`` (by default every ``raw_specials``); ``value``
    itself when there is none."""
    positions = raw_specials(value) if positions is None else positions
    if not positions:
        return value
    pieces: list[str] = []
    last = 0
    for position in positions:
        pieces += [value[last:position], "\\"]
        last = position
    pieces.append(value[last:])
    return "".join(pieces)
