"""Field-level edits of one entry's text as the user wrote it: every byte not edited stays.

An entry is read into the spans of its fields (name, value) with BibTeX's own delimiters, so
a value with nested braces, quotes or ``#`` concatenations is found whole. A new field is
written after the last one, in the entry's layout: its indent, its ``name = value`` spacing,
its line ends.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from surveytool.output.field_layout import name_and_equals
from surveytool.text.line_ends import line_start, newline_of

_HEADER = re.compile(r"\s*@(?P<type>[A-Za-z]+)\s*(?P<open>[{(])\s*[^,\s]*\s*,")
_NAME = re.compile(r"[^\s=,{}()#\"]+")
_BARE = re.compile(r"[^\s,#{}()\"]+")


@dataclass(frozen=True)
class FieldSpan:
    name: str  # lowercase
    start: int  # where the name starts
    value_start: int
    end: int  # just after the value


def _value_end(raw: str, at: int) -> int | None:
    """The end of the value part starting at ``at`` (braced, quoted or bare), or None if it is not one."""
    if at >= len(raw):
        return None
    if raw[at] in '{"':
        closing = "}" if raw[at] == "{" else '"'
        depth = 0
        for index in range(at + 1, len(raw)):
            char = raw[index]
            if char == "{":
                depth += 1
            elif char == "}" and (depth > 0 or closing == '"'):
                depth -= 1
                if depth < 0:
                    return None
            elif char == closing and depth == 0:
                return index + 1
        return None
    bare = _BARE.match(raw, at)
    return bare.end() if bare else None


def field_spans(raw: str) -> list[FieldSpan] | None:
    """The fields of the entry ``raw``, in order; None when it is not one plain entry."""
    header = _HEADER.match(raw)
    if header is None:
        return None
    closing = "}" if header.group("open") == "{" else ")"
    spans: list[FieldSpan] = []
    at = header.end()
    while True:
        while at < len(raw) and (raw[at].isspace() or raw[at] == ","):
            at += 1
        if at >= len(raw):
            return None
        if raw[at] == closing:
            return spans if not raw[at + 1 :].strip() else None
        name = _NAME.match(raw, at)
        if name is None:
            return None
        equals = re.compile(r"\s*=\s*").match(raw, name.end())
        if equals is None:
            return None
        value_start = end = equals.end()
        while True:
            part = _value_end(raw, end)
            if part is None:
                return None
            end = part
            joined = re.compile(r"\s*#\s*").match(raw, end)
            if joined is None:
                break
            end = joined.end()
        spans.append(FieldSpan(name.group().lower(), at, value_start, end))
        at = end


def entry_type_span(raw: str) -> tuple[int, int] | None:
    header = _HEADER.match(raw)
    return header.span("type") if header else None


def with_entry_type(raw: str, entry_type: str) -> str:
    """``raw`` as an entry of ``entry_type``, written in the case the user wrote the old type in."""
    span = entry_type_span(raw)
    if span is None:
        return raw
    old = raw[span[0] : span[1]]
    new = entry_type.upper() if old.isupper() else entry_type.capitalize() if old[:1].isupper() else entry_type
    return raw[: span[0]] + new + raw[span[1] :]


def _layout(raw: str, spans: Sequence[FieldSpan]) -> tuple[str, str]:
    """(line end or a space, indent) as the entry writes them."""
    for span in reversed(spans):
        start = line_start(raw, span.start)
        if start and not raw[start : span.start].strip():
            return newline_of(raw), raw[start : span.start]
    return " ", ""  # an entry on one line stays on one line


def edit_fields(
    raw: str,
    values: Sequence[tuple[str, str]],
    renamed: tuple[str, str] | None = None,
    entry_type: str | None = None,
) -> str | None:
    """``raw`` with each (name, enclosed value) of ``values`` set: an existing field's value replaced
    in place, a new field added after the last; ``renamed`` (old, new) writes the new field where the
    old one stood. None when ``raw`` cannot be read as one plain entry."""
    spans = field_spans(raw)
    if spans is None:
        return None
    by_name = {span.name: span for span in spans}
    # New names in the case the entry writes its names in (TITLE = ..., as some exports do).
    upper = bool(spans) and all(raw[s.start : s.start + len(s.name)].isupper() for s in spans)
    pending = {name.upper() if upper else name: value for name, value in values}
    by_name.update({name.upper(): span for name, span in by_name.items()} if upper else {})
    if renamed is not None and upper:
        renamed = (renamed[0], renamed[1].upper())
    replacements: list[tuple[int, int, str]] = []
    fields = [(span.start, span.value_start) for span in spans]
    if renamed is not None and renamed[0] != renamed[1] and renamed[0] in by_name and renamed[1] in pending:
        old = by_name[renamed[0]]
        named = name_and_equals(raw, fields, renamed[1], raw[line_start(raw, old.start) : old.start])
        replacements.append((old.start, old.end, named + pending.pop(renamed[1])))
    for name in list(pending):
        if name in by_name:
            span = by_name[name]
            replacements.append((span.value_start, span.end, pending.pop(name)))
    if pending:
        if not spans:
            return None
        newline, indent = _layout(raw, spans)
        last = spans[-1].end
        comma = re.compile(r"[ \t]*,").match(raw, last)
        lines = (
            f"{newline}{indent}{name_and_equals(raw, fields, name, indent)}{value}" for name, value in pending.items()
        )
        added = "".join(f"{line}," if comma else f",{line}" for line in lines)
        where = comma.end() if comma else last
        replacements.append((where, where, added))
    for start, end, text in sorted(replacements, reverse=True):
        raw = raw[:start] + text + raw[end:]
    return with_entry_type(raw, entry_type) if entry_type else raw
