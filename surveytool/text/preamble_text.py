"""Raw special characters in a @preamble, as TeX reads them there.

BibTeX writes a @preamble at the top of the ``.bbl``, where LaTeX typesets it: a raw ``&`` stops the document
("Misplaced alignment tab character"), a ``%`` hides the rest of the line, a ``_`` or ``^`` outside math and a
``$`` whose math never closes stop it too. A ``#`` is a macro's parameter only in a definition's body, and only
up to the number of arguments it declares: ``\\newcommand{\\x}[1]{#2}`` stops the document ("Illegal parameter
number"). A field's specials are ``unescaped-special``; a @preamble's are offences like a command outside the
allowlist, and are written to print.
"""

from __future__ import annotations

import re

from surveytool.text.latex_context import group_end, paired_dollars

_SPECIALS = frozenset("&%#_^$")
_INTERESTING = re.compile(r"[&%#_^$\\{}]")
_DEFINITION = re.compile(
    r"\\(?:(?:new|provide)command\*?\s*(?:\{\s*\\(?:[^\W\d_]|@)+\s*\}|\\(?:[^\W\d_]|@)+)"
    r"\s*(?:\[\s*(?P<count>\d+)\s*\])?(?:\s*\[[^\]{}]*\])?"
    r"|def\s*\\(?:[^\W\d_]|@)+(?P<parameters>[^{}]*))\s*(?=\{)"
)
_PARAMETER = re.compile(r"#(?:#|(\d))")
# LaTeX stops at a definition of ten or more parameters ("You already have nine parameters").
_TOO_MANY = re.compile(r"\[\s*\d\d")
_REASONS = {
    "&": "LaTeX stops at a raw '&' (an alignment tab outside a table)",
    "%": "LaTeX reads a raw '%' as a comment and drops the rest of the line",
    "#": "a '#' that is no parameter of the definition around it stops LaTeX (Illegal parameter number)",
    "_": "LaTeX stops at a raw '_' outside math (a subscript)",
    "^": "LaTeX stops at a raw '^' outside math (a superscript)",
    "$": "LaTeX stops at a '$' whose math does not close in its group",
    "9": "LaTeX stops at a definition of more than nine parameters",
}


def may_hold_specials(value: str) -> bool:
    return any(char in value for char in _SPECIALS) or _TOO_MANY.search(value) is not None


def definition_parameters(value: str, inert: set[int] | frozenset[int] = frozenset()) -> set[int]:
    """Where the ``#`` of each parameter a definition declares and uses stand: in a ``\\def``'s parameter text
    (``#1#2``, numbered in order) and in a body (``#1`` up to the count it declares, ``##``).

    ``inert``: where offences start; a definition written to print defines nothing, and its ``#`` prints too.
    """
    if "#" not in value:
        return set()
    kept: set[int] = set()
    outer_end = -1
    for definition in _DEFINITION.finditer(value):
        if definition.start() in inert or definition.start() < outer_end:
            continue  # TeX checks each # of a nested definition against the outer one's parameters, when it reads it
        count = int(definition.group("count") or 0)
        parameters = definition.group("parameters")
        if parameters is not None:
            numbered = [m for m in _PARAMETER.finditer(parameters) if m.group(1)]
            if [int(m.group(1)) for m in numbered] != list(range(1, len(numbered) + 1)):
                continue  # \def\x#2{...}: TeX stops at the parameter text itself
            count = len(numbered)
            kept.update(definition.start("parameters") + m.start() for m in numbered)
        body_end = outer_end = group_end(value, definition.end())
        # A ## is a nested definition's #; anywhere else in a body it typesets a # where the macro is used.
        nested = [
            (m.start(), group_end(value, m.end())) for m in _DEFINITION.finditer(value, definition.end(), body_end)
        ]
        for match in _PARAMETER.finditer(value, definition.end(), body_end):
            if match.group(1) is None and any(start < match.start() < end for start, end in nested):
                kept.update((match.start(), match.start() + 1))
            elif match.group(1) is not None and 1 <= int(match.group(1)) <= count <= 9:
                kept.add(match.start())
    return kept


def preamble_specials(value: str, skip: set[int]) -> list[tuple[int, int, str, str]]:
    """(start, end, character, reason) of each raw special of a @preamble's TeX text that stops or cuts it.

    ``skip``: where offences already found start (a ``^^`` is one: TeX's character notation).
    """
    if not may_hold_specials(value):
        return []
    found: list[tuple[int, int, str, str]] = []
    for definition in _DEFINITION.finditer(value) if _TOO_MANY.search(value) else ():
        if int(definition.group("count") or 0) > 9 and definition.start() not in skip:
            command = re.match(r"\\[a-z]+\*?", value[definition.start() :]).group()  # type: ignore[union-attr]
            found.append((definition.start(), definition.start() + len(command), command, _REASONS["9"]))
    dollars = paired_dollars(value)
    parameters = definition_parameters(value, skip)
    math = False
    depth = 0
    math_groups: list[int] = []  # the depths of the \ensuremath arguments around
    index = 0
    while (at := _INTERESTING.search(value, index)) is not None:
        index, char = at.start(), at.group()
        if char == "\\":
            name = re.match(r"(?:[^\W\d_]|@)+", value[index + 1 : index + 40])
            if name and name.group() == "ensuremath" and value[index + 11 :].lstrip().startswith("{"):
                math_groups.append(depth + 1)
            index += 1 + (len(name.group()) if name else 1)  # a control word, or the character it escapes
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            if math_groups and math_groups[-1] == depth:
                math_groups.pop()
            depth = max(depth - 1, 0)
        elif char == "$" and index in dollars:
            math = not math
            index += dollars[index]
            continue
        elif value.startswith("^^", index) or index in skip:
            index += 2 if value.startswith("^^", index) else 1
            continue
        elif char in "&%$" or (char == "#" and index not in parameters) or (char in "_^" and not (math or math_groups)):
            found.append((index, index + 1, char, _REASONS[char]))
        index += 1
    return sorted(found)
