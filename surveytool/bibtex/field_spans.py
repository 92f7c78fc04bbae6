"""Where each field sits in an entry's text: for findings that name a field's line and edits that touch only it.

The reader keeps values, not offsets; checks and fixes that point at one field
find it again in the entry's text (``Paper.raw``) with the delimiter rules the
reader applies (``scan.py``): inside braces only braces count and a brace after
a backslash is text; inside quotes only a quote counts, unless a backslash or a
``{`` is before it; ``#`` joins parts; a field's name is all up to its ``=``
(a ``%`` line before it too, as the reader takes it).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from surveytool.bibtex.brace_bounds import COUNTED_BY_TEX
from surveytool.model import Paper, SourceLocation


class FieldSpan(NamedTuple):
    name: str  # lower case
    start: int  # the name's first character
    value_start: int
    value_end: int  # just after the value's last part

    def value(self, raw: str) -> str:
        return raw[self.value_start : self.value_end]

    def written_name(self, raw: str) -> str:
        """The field's name as the entry writes it (``ISSN``, where ``name`` is ``issn``)."""
        return raw[self.start : self.value_start].split("=", 1)[0].strip()


# The entry's type, its opening delimiter and its key up to the comma, as the reader splits them (a key may hold
# spaces): every edit of an entry starts after this.
ENTRY_HEADER = re.compile(r"\s*@\s*(?P<type>\w*)\s*(?P<open>[{(])[^{}\",=]*,")
_NAME = re.compile(r"[^{}\",=]+(?<![\s\\])")
_WHITE = " \t\r\n"
_BARE = re.compile(r"[^\s,#{}\"()]+")
# A backslash and the character after it are one token: \{ and \" are text, as bibtexparser reads them, and in
# \\{ and \\" the mark counts, as BibTeX reads it (line_breaks.py has bibtexparser read it so).
_BRACE = re.compile(r"\\.|[{}]", re.S)
# A group nested four deep at most, read as _BRACE reads it, in C; possessive, so that it fails fast where it fails.
_IN_GROUP = r"(?:[^{}\\]++|\\.)*+"
for _ in range(3):
    _IN_GROUP = r"(?:[^{}\\]++|\\.|\{" + _IN_GROUP + r"\})*+"
_GROUP = re.compile(r"\{" + _IN_GROUP + r"\}", re.S)
# Between quotes, a quote ends the piece unless it is bibtexparser's {"} (a quote after \{ ends it: "\{" # "x").
_QUOTED_REST = re.compile(r'(?:[^"\\]++|\\.|(?<=\{)"(?=\}))*+"', re.S)
# An entry holding a mark after \\ (COUNTED_BY_TEX) was read as BibTeX reads it, masked or alike by both readers:
# there every brace counts, \\} too ({a\\\\{b\\}} is one value), and a quote ends a piece only outside braces.
_BIBTEX_MARK = re.compile(r'[{}"]')


def written_key(raw: str) -> str:
    """The key of the entry ``raw`` as its file writes it ("" if its header does not read)."""
    header = ENTRY_HEADER.match(raw)
    return raw[header.end("open") : header.end() - 1].strip() if header else ""


def field_spans(raw: str) -> list[FieldSpan]:
    """The fields of the entry ``raw`` in order; those up to the first that does not read, if one does not."""
    header = ENTRY_HEADER.match(raw)
    if header is None:
        return []
    spans: list[FieldSpan] = []
    position = header.end()
    bibtex = COUNTED_BY_TEX.search(raw) is not None
    while True:
        position = _skip(raw, position, _WHITE + ",")
        name = _NAME.match(raw, position)
        if name is None:
            return spans
        equals = _skip(raw, name.end(), _WHITE)
        if raw[equals : equals + 1] != "=":
            return spans
        value_start = _skip(raw, equals + 1, _WHITE)
        end = value_end(raw, value_start, bibtex)
        if end is None:
            return spans
        # A name that spans lines has a "%" remark before it; the field starts on its own last line.
        last_line = name.group().rfind("\n") + 1
        start = _skip(raw, name.start() + last_line, _WHITE) if last_line else name.start()
        named = field_name(name.group())
        if named is not None:  # not a field commented out whole
            spans.append(FieldSpan(named, start, value_start, end))
        position = end


def field_name(key: str) -> str | None:
    """The field a name as bibtexparser reads it stands for: the name itself; the name on its last line after
    lines of ``%`` remarks; None for a field commented out whole (``% doi = {...}``): BibTeX has no comments
    inside an entry (``field_syntax.py`` reports them)."""
    if "%" not in key:
        return key.lower()
    last = key.rsplit("\n", 1)[-1].strip()
    return None if not last or last.startswith("%") else last.lower()


def _skip(raw: str, position: int, characters: str) -> int:
    while position < len(raw) and raw[position] in characters:
        position += 1
    return position


def value_end(raw: str, position: int, bibtex: bool | None = None) -> int | None:
    """The end of the value starting at ``position`` (parts joined by ``#``), or None if it does not read;
    ``bibtex``: its marks count as BibTeX counts them (by default, where ``raw`` holds a mark after ``\\\\``)."""
    bibtex = COUNTED_BY_TEX.search(raw) is not None if bibtex is None else bibtex
    while True:
        end = _part_end(raw, position, bibtex)
        if end is None:
            return None
        after = _skip(raw, end, _WHITE)
        if raw[after : after + 1] != "#":
            return end
        position = _skip(raw, after + 1, _WHITE)


def _part_end(raw: str, position: int, bibtex: bool) -> int | None:
    opening = raw[position : position + 1]
    if opening in '{"' and bibtex:
        depth = 0
        for match in _BIBTEX_MARK.finditer(raw, position + 1):
            if match.group() == "{":
                depth += 1
            elif depth:
                depth -= match.group() == "}"
            elif match.group() == opening.replace("{", "}"):
                return match.end()
            elif match.group() == "}":
                return None  # BibTeX stops: unbalanced braces
        return None
    if opening == "{":
        return _group_end(raw, position)
    if opening == '"':
        closing = _QUOTED_REST.match(raw, position + 1)
        return closing.end() if closing else None
    bare = _BARE.match(raw, position)
    return bare.end() if bare else None


def _group_end(raw: str, position: int) -> int | None:
    """Just after the brace that closes the one at ``position``."""
    group = _GROUP.match(raw, position)  # in C, for groups nested no deeper than _GROUP reads
    if group is not None:
        return group.end()
    depth = 0
    for match in _BRACE.finditer(raw, position):
        if match.group()[0] == "\\":
            continue
        depth += 1 if match.group() == "{" else -1
        if depth == 0:
            return match.end()
    return None


def line_in(raw: str, offset: int, first_line: int) -> int:
    """The line of ``offset`` in ``raw``, an entry that starts on ``first_line``."""
    return first_line + raw.count("\n", 0, offset)


def field_location(paper: Paper, field: str) -> SourceLocation:
    """Where ``field`` of ``paper`` is written; the entry's start if it cannot be found in its text."""
    start = min(paper.sources)
    span = next((s for s in field_spans(paper.raw) if s.name == field), None)
    return start if span is None else SourceLocation(start.path, line_in(paper.raw, span.start, start.line))


def written_field(raw: str, field: str) -> str:
    """``field`` (lower case) as the entry ``raw`` writes it where BibTeX reads it, at its first name (``ISSN``);
    ``field`` itself if its text does not hold it."""
    return next((s.written_name(raw) for s in field_spans(raw) if s.name == field), field)


def literal_inner(value: str) -> tuple[int, str] | None:
    """(offset, text) inside a value that is one braced or quoted string; None for a macro, number or ``#`` join."""
    if len(value) < 2 or (value[0], value[-1]) not in (("{", "}"), ('"', '"')):
        return None
    if _part_end(value, 0, COUNTED_BY_TEX.search(value) is not None) != len(value):
        return None
    return 1, value[1:-1]
