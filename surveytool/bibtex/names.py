"""BibTeX name lists -> name parts, by bibtexparser's splitter (BibTeX's own rules, braces respected)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bibtexparser.middlewares.names import InvalidNameError, parse_single_name_into_parts

_AND = re.compile(r"\s+and\s+", re.IGNORECASE)


@dataclass(frozen=True)
class PersonName:
    """One name as BibTeX reads it; each part still LaTeX. ``corporate``: one brace group, never split."""

    first: str = ""
    von: str = ""
    last: str = ""
    jr: str = ""
    corporate: bool = False


def _is_one_group(name: str) -> bool:
    """True when ``name`` is a single brace group from its first character to its last."""
    if not (name.startswith("{") and name.endswith("}")):
        return False
    depth = 0
    for index, char in enumerate(name):
        depth += (char == "{") - (char == "}")
        if depth == 0 and index < len(name) - 1:
            return False
    return True


def split_names(value: str) -> list[PersonName]:
    """The people of an ``author`` or ``editor`` value (LaTeX, without enclosing braces); "others" is left out."""
    people: list[PersonName] = []
    for name in _persons(value):
        name = " ".join(name.split())
        if not name or name.lower() == "others":
            continue
        if _is_one_group(name):
            people.append(PersonName(last=name[1:-1], corporate=True))
            continue
        try:
            parts = parse_single_name_into_parts(name, strict=False)
        except InvalidNameError:  # too many commas: keep it whole rather than guess
            people.append(PersonName(last=name, corporate=True))
            continue
        people.append(PersonName(" ".join(parts.first), " ".join(parts.von), " ".join(parts.last), " ".join(parts.jr)))
    return people


def _persons(value: str) -> list[str]:
    """The names of a name list, split at each "and" between spaces outside braces, as BibTeX splits them.

    bibtexparser's splitter drops a backslash and the character after it when they follow an "and":
    ``... and \\v{S}ima`` became ``{S}ima``, so every author after the first lost such an accent.
    """
    names: list[str] = []
    start = scanned = depth = 0
    for match in _AND.finditer(value):
        depth += value.count("{", scanned, match.start()) - value.count("}", scanned, match.start())
        scanned = match.start()
        if depth == 0:
            names.append(value[start : match.start()])
            start = match.end()
    names.append(value[start:])
    return names


#: The fields natbib's styles build a citation label from, which LaTeX reads as ``\\bibitem[label]``.
_LABEL_FIELDS = frozenset({"author", "editor", "key", "organization"})
_NAME_FIELDS = frozenset({"author", "editor", "translator", "bookauthor", "editora", "editorb", "editorc"})
# A name part opening with one of these in braces, more after it: biber writes the character it prints (a brace,
# a backslash, a caret, a tilde) raw into the .bbl as the part's initial, and LaTeX stops ("Extra }"); for \_ it
# writes a backslash, which ends the line there and prints "bibinitperiod".
_SPECIAL_FIRST = re.compile(
    r"(?<![^\s,{~\"-])\{\\(textbrace(?:left|right)|textbackslash|textascii(?:circum|tilde)|_)\}"
    r"((?:[^\s,{}~-]|\{[^{}]*\})+)(?![^\s,}~-])"
)


def _initial_safe(found: re.Match[str]) -> str:
    command = "textunderscore" if found[1] == "_" else found[1]
    return f"{{\\{command}{{}}{found[2]}}}"


def label_safe(field: str, value: str, dialect: str = "bibtex") -> str:
    """``value`` (a raw BibTeX value of ``field``) with each ``]`` outside its inner braces braced, in the fields a
    label is made of: in ``\\bibitem[Sm]ith(2020)]`` it would end the label, and a key after it would take over
    another entry's citation. For biber (``dialect`` biblatex), a name part opening with ``{\\textbraceright}`` (or
    another command printing a TeX special) takes the rest of the part into its braces, ``{\\textbraceright{}x}``,
    ``{\\_}x`` spelled ``{\\textunderscore{}x}``: biber's initial is then its first letter. Not for BibTeX, whose
    initial of ``{\\textbraceright}x`` is "}." already, and to which the group, a lowercase letter after its
    command, is a "von" part: it printed "}x Trent" in full, in natbib's citation label too."""
    if dialect == "biblatex" and field in _NAME_FIELDS and "\\" in value:
        value = _SPECIAL_FIRST.sub(_initial_safe, value)
    if field not in _LABEL_FIELDS or "]" not in value:
        return value
    out, depth = [], 0
    bare = 1 if value.startswith("{") else 0  # the depth of the value's own text: inside its braces, or its quotes
    for char in value:
        depth += (char == "{") - (char == "}")
        out.append("{]}" if char == "]" and depth <= bare else char)
    return "".join(out)
