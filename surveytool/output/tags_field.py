"""Writing the tags field into a user's entry: the whole value replaced, or a field added in the entry's layout.

The field is found with the reader's own delimiter rules (``bibtex/field_spans.py``), so a value written as
a ``#`` concatenation (``{MoE} # {, data_parallel}``) is replaced whole: replacing its first piece alone left
the old tags after the new ones, and the next run found them again. A piece that is an @string macro is
not written over (see ``tags_macro``).
"""

from __future__ import annotations

import re
from collections.abc import Container, Sequence

from surveytool.bibtex.field_spans import FieldSpan, field_spans
from surveytool.bibtex.values import MONTH_MACROS, macro_names
from surveytool.output.field_layout import name_and_equals
from surveytool.text.line_ends import LINE_BREAK, newline_of

_HEADER = re.compile(r"\s*@\w+\s*[{(]\s*[^,\s]*\s*,")
_PADDED = re.compile(r"\t=|[ \t]{2}=")


def _named(raw: str, field: str) -> bool:
    """Whether ``field``'s name occurs in ``raw`` at all: most entries given tags have no tags field yet, and
    then neither its span nor what reads field by field need be found."""
    return field.lower() in raw.lower()


def _tags_span(raw: str, field: str) -> FieldSpan | None:
    """The tags field of the entry ``raw``; its name is the last line of the span's name (a ``%`` line may
    stand before it)."""
    if not _named(raw, field):
        return None
    for span in field_spans(raw):
        name = raw[span.start : span.value_start].split("=", 1)[0].strip()
        if name.lower() == field.lower():
            return span
    return None


def tags_macro(raw: str, field: str, macros: Container[str]) -> str | None:
    """The @string macro (one of ``macros``, lower case, or a month) the tags field of ``raw`` uses, if any.

    Such a field is left as it is: the macro may hold the tags of other entries too, so writing the ids
    over it in one entry would quietly fork the list, and its definition is the user's to change. A bare
    word no @string defines is the user's way of writing one tag (``sections = MoE``): it is written over.
    """
    span = _tags_span(raw, field)
    if span is None:
        return None
    return next((name for name in macro_names(span.value(raw)) if name in macros or name in MONTH_MACROS), None)


def set_tags_field(raw: str, field: str, tags: Sequence[str], newline: str = "\n") -> str | None:
    """``raw`` with the tags field's whole value (every ``#`` piece) set to ``tags``, or a tags field added;
    None when a field of that name may stand past what reads field by field: adding one could write a second.

    The tags are joined as the field joined them: ", " as JabRef writes groups and many users write tags,
    else ",".

    A line added ends as most of the entry's lines do (in a file that mixes endings, the entry's own), or
    with ``newline`` (the file's) in an entry of one line.
    """
    span = _tags_span(raw, field)
    if span is not None:
        separator = ", " if ", " in span.value(raw) else ","
        return raw[: span.value_start] + "{" + separator.join(tags) + "}" + raw[span.value_end :]
    value = ",".join(tags)
    if _named(raw, field):
        spans = field_spans(raw)
        unread = raw[spans[-1].value_end if spans else _header_end(raw) :]
        if re.search(rf"(?:^|[\s,]){re.escape(field)}\s*=", unread, re.IGNORECASE):
            return None  # the field may stand where the reading stopped: a second would be written
    header = _HEADER.match(raw)
    if header is None:  # an entry with no fields: @misc{key}
        closing = raw.rstrip().rstrip("})")
        newline = newline_of(raw, newline)
        return closing + f",{newline}  {field} = {{{value}}}{newline}" + raw[len(closing) :].lstrip(",")
    after = raw[header.end() :]
    if LINE_BREAK.match(after):
        indent = LINE_BREAK.sub("", after, count=1)
        indent = indent[: len(indent) - len(indent.lstrip(" \t"))] or "  "
        # Its fields are read only when a name is padded before its "=": most entries are not lined up.
        fields = [(s.start, s.value_start) for s in field_spans(raw)] if _PADDED.search(raw) else []
        named = name_and_equals(raw, fields, field, indent)
        return raw[: header.end()] + newline_of(raw, newline) + indent + named + f"{{{value}}}," + after
    return raw[: header.end()] + f" {field} = {{{value}}}," + after


def _header_end(raw: str) -> int:
    header = _HEADER.match(raw)
    if header is not None:
        return header.end()
    opening = re.match(r"\s*@\w+\s*[{(]\s*[^,\s{}()]*", raw)
    return opening.end() if opening else 0
