"""Field-level edits of one entry's text as the user wrote it: every byte not edited stays.

An entry is read into the spans of its fields (name, value) as the reader reads it (``bibtex/field_spans.py``),
so a value with nested braces, quotes or ``#`` concatenations is found whole; an entry BibTeX would read
otherwise is not edited. A new field is
written after the last one, in the entry's layout: its indent, its ``name = value`` spacing,
its line ends.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from surveytool.bibtex.field_spans import ENTRY_HEADER, FieldSpan, field_spans
from surveytool.bibtex.value_braces import inner_quotes, quoted_plain_braces, value_lone_braces
from surveytool.output.field_layout import name_and_equals
from surveytool.text.line_ends import line_start, newline_of

# The reader takes a "%" remark line before a name as part of it ("% note\n  year"): a field added by its plain
# name ("year") would then be there twice.
_PLAIN_NAME = re.compile(r"[^\s=,{}()#\"]+")


def _plain_spans(raw: str) -> list[FieldSpan] | None:
    """The fields of the entry ``raw`` as the reader finds them (``bibtex/field_spans.py``); None unless every
    field reads and only its closing delimiter follows the last: an edit is made in one plain entry or not at all."""
    header = ENTRY_HEADER.match(raw)
    if header is None:
        return None
    spans = field_spans(raw)
    if any(not _PLAIN_NAME.fullmatch(s.name) or _misread(s.value(raw)) for s in spans):
        return None
    at = spans[-1].value_end if spans else header.end()
    while at < len(raw) and (raw[at].isspace() or raw[at] == ","):
        at += 1
    closing = "}" if header.group("open") == "{" else ")"
    return spans if raw[at : at + 1] == closing and not raw[at + 1 :].strip() else None


def _misread(value: str) -> bool:
    """Whether BibTeX reads ``value`` otherwise than the reader (a lone ``\\{``, a brace its quotes do not pair,
    a ``\\"`` between quotes): the fields after it are not where the reader found them, so none is edited."""
    return bool(value_lone_braces(value) or quoted_plain_braces(value) or inner_quotes(value))


def entry_type_span(raw: str) -> tuple[int, int] | None:
    header = ENTRY_HEADER.match(raw)
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
    spans = _plain_spans(raw)
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
        replacements.append((old.start, old.value_end, named + pending.pop(renamed[1])))
    for name in list(pending):
        if name in by_name:
            span = by_name[name]
            replacements.append((span.value_start, span.value_end, pending.pop(name)))
    if pending:
        if not spans:
            return None
        newline, indent = _layout(raw, spans)
        last = spans[-1].value_end
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
