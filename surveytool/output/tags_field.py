"""Writing the tags field into a user's entry: the whole value replaced, or a field added in the entry's layout.

The field is found with the reader's own delimiter rules (``bibtex/field_spans.py``), so a value written as
a ``#`` concatenation (``{MoE} # {, data_parallel}``) is replaced whole: replacing its first piece alone left
the old tags after the new ones, and the next run found them again. A piece that is an @string macro is
not written over (see ``tags_macro``).
"""

from __future__ import annotations

import re
from collections.abc import Container, Mapping, Sequence
from dataclasses import replace

from surveytool.analysis.section_names import canonical_section
from surveytool.analysis.tagging.user_tags import AGAIN, tags_location
from surveytool.bibtex.field_spans import ENTRY_HEADER, FieldSpan, field_spans
from surveytool.bibtex.filing_names import names_added, separator_of
from surveytool.bibtex.values import (
    MONTH_MACROS,
    macro_names,
    split_concatenation,
    split_tags,
    string_block_value,
    value_to_text,
)
from surveytool.errors import InputError
from surveytool.model import Finding, Paper, RawBlock, SourceLocation, Taxonomy
from surveytool.output.field_layout import name_and_equals
from surveytool.text.line_ends import LINE_BREAK, newline_of

_PADDED = re.compile(r"\t=|[ \t]{2}=")
#: An entry's fields from its first line on, as most are written: a lower-case name, " = ", a value.
_PLAIN_FIELDS = re.compile(r"(?:\r\n?|\n)[ \t]*[a-z][a-z0-9_-]* = ")
#: A name BibTeX reads as a field's: "sec tions" or "" is none, and a field written so breaks the entry.
_FIELD_NAME = re.compile(r"[^\s\"#%'(),={}]+")


def require_field_name(field: str) -> None:
    """Stop (InputError, exit 2) at a tags field no BibTeX entry can hold (``--tags-field ""``): no tag is
    read from it, and one written would be `` = {moe},`` in the user's file."""
    if not _FIELD_NAME.fullmatch(field):
        raise InputError(
            f"--tags-field {field!r} is no name a BibTeX field can have",
            hint="name a field such as sections, groups or keywords: no space, and none of \" # % ' ( ) , = { }",
        )


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
        if span.written_name(raw).lower() == field.lower():
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


def macro_tag_hints(
    findings: Sequence[Finding], papers: Sequence[Paper], field: str, taxonomy: Taxonomy, blocks: Sequence[RawBlock]
) -> list[Finding]:
    """``findings`` with the hint of each tag-variant of an entry whose tags field uses an @string saying where the
    tag is written: the hint "write the id; check --fix does this" sent the user to a literal the field does not
    hold, and check --fix leaves such a field as it is (``tags_macro``)."""
    definitions: dict[str, RawBlock] = {}
    for block in blocks:
        if block.kind == "string" and block.key:
            definitions.setdefault(block.key.lower(), block)  # the first definition, as the reader uses
    if not definitions or not any(f.check == "tag-variant" for f in findings):
        return list(findings)
    strings = {name: string_block_value(block) for name, block in definitions.items()}
    variant_keys = {f.key for f in findings if f.check == "tag-variant"}
    entries: dict[tuple[str, SourceLocation | None], Paper] = {
        (p.key, tags_location(p)): p for p in papers if p.key in variant_keys and p.raw and not p.tags_at
    }
    mended = []
    for finding in findings:
        paper = entries.get((finding.key or "", finding.location)) if finding.check == "tag-variant" else None
        tag = (
            next((t for t in paper.explicit_tags if finding.message.startswith(f"tag '{t}' ")), None) if paper else None
        )
        again = finding.message.endswith(AGAIN)
        hint = _variant_hint(paper, tag, field, taxonomy, strings, definitions, again) if paper and tag else None
        mended.append(replace(finding, hint=hint) if hint else finding)
    return mended


def _variant_hint(
    paper: Paper,
    tag: str,
    field: str,
    taxonomy: Taxonomy,
    strings: Mapping[str, str],
    definitions: Mapping[str, RawBlock],
    again: bool = False,
) -> str | None:
    """Where ``tag`` of ``paper``'s tags field is written when the field uses an @string, for a hint; else None.
    ``again``: the tag names a section the field named before it, and one of them is to go."""
    span = _tags_span(paper.raw, field)
    pieces = split_concatenation(span.value(paper.raw)) if span else []
    used = [piece.lower() for piece in pieces if piece.lower() in definitions]
    if not used:
        return None
    wanted = canonical_section(tag, taxonomy) or tag
    entry = min(paper.sources)

    def named(name: str) -> str:
        where = definitions[name].location
        return f"@string '{name}' at " + (f"line {where.line}" if where.path == entry.path else str(where))

    # The piece the tag is read from: a tag spread over two pieces is in neither.
    source = next((p for p in pieces if tag in split_tags(value_to_text(p, strings))), None)
    if source is not None and source.lower() in definitions and not again:
        return f"'{tag}' comes from {named(source.lower())}, which other entries may share: write '{wanted}' there"
    which = "; ".join(named(name) for name in dict.fromkeys(used))
    mend = "keep one" if again else f"write '{wanted}'"
    return f"{mend} in the {field} field yourself: check --fix leaves a field that uses {which} as it is"


def set_tags_field(raw: str, field: str, tags: Sequence[str], newline: str = "\n") -> str | None:
    """``raw`` with the tags field's whole value (every ``#`` piece) set to ``tags``, or a tags field added;
    None when a field of that name may stand past what reads field by field: adding one could write a second.

    The tags are joined as the field joined them: by "; " or ";" in a field that joins its tags by
    semicolons alone (``{Memory; pipeline-parallel}``), else by ", " as JabRef writes groups and many users
    write tags, or ",".

    A line added ends as most of the entry's lines do (in a file that mixes endings, the entry's own), or
    with ``newline`` (the file's) in an entry of one line.
    """
    require_field_name(field)
    span = _tags_span(raw, field)
    if span is not None:
        return raw[: span.value_start] + "{" + separator_of(span.value(raw)).join(tags) + "}" + raw[span.value_end :]
    value = ",".join(tags)
    if _named(raw, field):
        spans = field_spans(raw)
        unread = raw[spans[-1].value_end if spans else _header_end(raw) :]
        if re.search(rf"(?:^|[\s,]){re.escape(field)}\s*=", unread, re.IGNORECASE):
            return None  # the field may stand where the reading stopped: a second would be written
    header = ENTRY_HEADER.match(raw)
    if header is None:  # an entry with no fields: @misc{key}
        closing = raw.rstrip().rstrip("})")
        newline = newline_of(raw, newline)
        comma = "" if closing.rstrip().endswith(",") else ","  # a key the header does not read, fields after it
        return closing + f"{comma}{newline}  {field} = {{{value}}}{newline}" + raw[len(closing) :].lstrip(",")
    after = raw[header.end() :]
    if LINE_BREAK.match(after):
        indent = LINE_BREAK.sub("", after, count=1)
        indent = indent[: len(indent) - len(indent.lstrip(" \t"))] or "  "
        # Its fields are read only when they are not all "name = value" (padded before an "=", "name={value}" as
        # Google Scholar and IEEE write, "TITLE = "): most entries are written so, and need no reading.
        spans = field_spans(raw) if _PADDED.search(raw) or not _PLAIN_FIELDS.match(after) else []
        upper = bool(spans) and all(raw[s.start : s.start + len(s.name)].isupper() for s in spans)
        named = name_and_equals(
            raw, [(s.start, s.value_start) for s in spans], field.upper() if upper else field, indent
        )
        return raw[: header.end()] + newline_of(raw, newline) + indent + named + f"{{{value}}}," + after
    return raw[: header.end()] + f" {field} = {{{value}}}," + after


def add_tags(raw: str, field: str, kept: Sequence[str], added: Sequence[str], newline: str = "\n") -> str | None:
    """``raw`` with ``added`` written after the names its tags field holds (``kept``, as read), whose every byte
    stays: the field is shared with a reference manager (JabRef's groups), whose group names are the user's.

    The names are added to the value's last literal, joined as it joins them (``filing_names.names_added``, as
    the .bib bib -o writes joins them; JabRef writes ", "); a field with none is added as
    ``set_tags_field`` adds one. A value that does not end with a literal (``groups = MoE``) is written anew.
    """
    require_field_name(field)
    span = _tags_span(raw, field)
    value = span.value(raw).rstrip() if span else ""
    if span is None or not value.endswith(("}", '"')):
        return set_tags_field(raw, field, [*kept, *added], newline)
    last = split_concatenation(value)[-1] if "#" in value else value
    start = len(value) - len(last) + 1  # just after its opening delimiter
    end, joined = names_added(value[start:-1], added)
    at = span.value_start + start + end
    return raw[:at] + joined + raw[at:]


def _header_end(raw: str) -> int:
    header = ENTRY_HEADER.match(raw)
    if header is not None:
        return header.end()
    opening = re.match(r"\s*@\w+\s*[{(]\s*[^,\s{}()]*", raw)
    return opening.end() if opening else 0
