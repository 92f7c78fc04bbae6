"""BibTeX text -> records: papers, the blocks kept as written, and findings. The only module that imports bibtexparser's model.

Values are kept as written (braces, quotes, ``@string`` macros, ``#`` concatenations) so that they can be written
back unchanged; plain text for matching is derived on the side (``values.py``). ``writer.py`` writes .bib text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from bibtexparser import model

from surveytool.bibtex.bidi_controls import bidi_findings, block_bidi_findings
from surveytool.bibtex.chunks import Chunk, cut_chunks, parse_chunks, scan_chunk, string_chunks
from surveytool.bibtex.field_spans import field_location, field_name, written_field
from surveytool.bibtex.field_syntax import (
    bibtex_name,
    commented_entry,
    failed_block_finding,
    fields_as_read,
    first_of_each,
    free_text_block,
    key_findings,
    repeated_field_findings,
    syntax_findings,
)
from surveytool.bibtex.linked_fields import address_findings, linked_offences
from surveytool.bibtex.scan import PlainEntry
from surveytool.bibtex.string_names import duplicate_string, string_block
from surveytool.bibtex.value_braces import brace_findings, has_quoted_braces, offences_and_hint, quote_findings
from surveytool.bibtex.values import (
    EXACTLY_DECODED,
    bibtex_value_offences,
    macros_with_commands,
    split_tags,
    string_block_value,
    uses_any,
    value_to_text,
    written_value_offences,
)
from surveytool.bibtex.writer import tidy_text
from surveytool.model import Finding, Origin, Paper, RawBlock, Severity, SourceLocation, frozen_mapping
from surveytool.text.latex import block_offences, without_control_chars
from surveytool.text.latex_context import may_nest_too_deep


@dataclass(frozen=True)
class BibDocument:
    papers: tuple[Paper, ...]
    blocks: tuple[RawBlock, ...]
    findings: tuple[Finding, ...]


#: Chunks parsed per bibtexparser run: the blocks of one run are alive at once.
RUN_LENGTH = 512


def read_bibtex(text: str, path: str, tags_field: str = "sections") -> BibDocument:
    """Read BibTeX text; every block becomes a paper, a kept raw block, or both plus a finding."""
    chunks = cut_chunks(text)
    every = list(range(len(chunks)))
    # A macro may be used above its definition: the chunks that define one are parsed first.
    early = parse_chunks(text, chunks, string_chunks(text, chunks, every))
    table = macro_table(d for index in every for d in string_definitions(early.get(index, [])))
    return assemble([document for _, document in read_chunks(text, chunks, every, early, path, table, tags_field)])


def read_chunks(
    text: str,
    chunks: list[Chunk],
    indices: list[int],
    early: dict[int, list],
    path: str,
    table: Mapping[str, str],
    tags_field: str,
) -> Iterator[tuple[int, BibDocument]]:
    """The documents of the chunks at ``indices``, parsed a bounded run at a time (``early``: parsed already)."""
    for first in range(0, len(indices), RUN_LENGTH):
        run = indices[first : first + RUN_LENGTH]
        to_read = [i for i in run if i not in early]
        scanned = {i: blocks for i in to_read if (blocks := scan_chunk(text, chunks[i])) is not None}
        parsed = parse_chunks(text, chunks, [i for i in to_read if i not in scanned])
        for index in run:
            # Taken out as they are read: each run's blocks are freed as they become records.
            blocks = scanned.pop(index) if index in scanned else parsed.pop(index) if index in parsed else early[index]
            yield index, _read_chunk(blocks, text, chunks[index], path, table, tags_field)


def string_definitions(blocks: list[tuple[int, model.Block]]) -> tuple[tuple[str, str], ...]:
    return tuple((b.key, b.value) for _, b in blocks if isinstance(b, model.String))


def macro_table(definitions: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Macro name (lower case) -> raw value; a repeated name keeps its first definition, as bibtexparser does."""
    seen: set[str] = set()
    table: dict[str, str] = {}
    for key, value in definitions:
        if key not in seen:
            seen.add(key)
            table[key.lower()] = value
    return table


def _read_chunk(
    blocks: Sequence[tuple[int, model.Block | PlainEntry]],
    text: str,
    chunk: Chunk,
    path: str,
    strings: Mapping[str, str],
    tags_field: str,
) -> BibDocument:
    papers: list[Paper] = []
    kept: list[RawBlock] = []
    findings: list[Finding] = []
    lines: list[str] | None = None
    absorbed: set[int] = set()
    for index, (line, block) in enumerate(blocks):
        if index in absorbed:
            continue
        where = SourceLocation(path, chunk.line + line + 1)
        if isinstance(block, model.DuplicateFieldKeyBlock):  # an entry to BibTeX, which reads a field's first value
            block = block.ignore_error_block or block
        if isinstance(block, (model.Entry, PlainEntry)):
            paper, suspects, dropped = _entry_to_paper(block, where, strings, tags_field)
            papers.append(paper)
            findings.extend([*_dangerous_fields(paper, strings), *bidi_findings(paper), *address_findings(paper)])
            if dropped:  # the values BibTeX ignores, on the line of the repeat: another reader may take one
                repeats = repeated_field_findings(paper, [name for name, _ in dropped])
                findings.extend(repeats.values())
                for name, value in dropped:
                    ignored = _dangerous_fields(replace(paper, latex_fields=frozen_mapping({name: value})), strings)
                    hint = "delete this value: BibTeX ignores it, the .bib surveytool writes leaves it out, another reader may take it"
                    findings.extend(replace(f, location=repeats[name].location, hint=hint) for f in ignored)
            findings.extend(syntax_findings(paper, suspects) if suspects else ())
            findings.extend(key_findings(block.key, paper.raw, where))
        elif isinstance(block, model.String):
            string, renamed = string_block(block.key, block.value, where)
            kept.append(string)
            findings.extend([renamed] if renamed else ())
        elif isinstance(block, model.Preamble):
            kept.append(RawBlock("preamble", f"@preamble{{{without_control_chars(block.value)}}}", where))
        elif isinstance(block, model.ExplicitComment):
            findings.extend([entry_inside] if (entry_inside := commented_entry(block.comment, where)) else ())
            # As written: its case (@Comment) and its last newline (JabRef's metadata) are the user's.
            raw = (
                block.raw.strip()
                if block.raw and block.raw.lstrip().startswith("@")
                else f"@comment{{{block.comment}}}"
            )
            kept.append(RawBlock("comment", raw, where))
        elif isinstance(block, model.ImplicitComment):
            free, finding = free_text_block(block.comment, where)
            kept.extend([free] if free else ())
            findings.extend([finding] if finding else ())
        elif isinstance(block, model.ParsingFailedBlock):
            lines = lines if lines is not None else text[chunk.start : chunk.end].splitlines(keepends=True)
            region, swallowed = _failed_region(blocks, index, lines)
            absorbed.update(swallowed)
            findings.append(failed_block_finding(block.error, where))
            kept.append(RawBlock("failed", region, where))
    for raw_block in kept:
        findings.extend([*_dangerous_block(raw_block, strings), *block_bidi_findings(raw_block)])
    return BibDocument(tuple(papers), tuple(kept), tuple(findings))


def assemble(documents: list[BibDocument]) -> BibDocument:
    """The chunks' documents as one, with @string names defined twice reported (entry keys: ``key_fates.py``)."""
    papers: list[Paper] = []
    blocks: list[RawBlock] = []
    findings: list[Finding] = []
    string_lines: dict[str, int] = {}
    for document in documents:
        findings.extend(document.findings)
        papers.extend(document.papers)
        for block in document.blocks:
            if block.kind == "string":
                first = string_lines.setdefault(block.key, block.location.line)
                if first != block.location.line:
                    # A second definition is kept as written, as text: BibTeX would reject it.
                    findings.append(duplicate_string(block.key, first, block.location))
                    block = RawBlock("failed", block.text, block.location)
            blocks.append(block)
    findings.sort(key=lambda f: f.location.line if f.location else 0)
    return BibDocument(tuple(papers), tuple(blocks), tuple(findings))


def _dangerous_fields(paper: Paper, strings: Mapping[str, str]) -> list[Finding]:
    """Fields whose LaTeX, as TeX reads it (macros expanded, ``#`` parts joined, ``^^`` decoded), leaves the allowlist,
    and fields whose braces BibTeX counts otherwise than they were written (``value_braces.py``)."""
    values = paper.latex_fields.values()
    joined = "".join(values)
    commands = "\\" in joined or "^" in joined or may_nest_too_deep(joined)
    if not commands:
        # Joined pieces without a backslash or a caret make none: only a macro holding one could bring a command.
        with_commands = macros_with_commands(strings)
        commands = bool(with_commands) and any(uses_any(value, with_commands) for value in values)
    fields = list(paper.latex_fields.items())
    if not commands:  # only braces in quotes to look at, in the few values that may have them
        if '"' not in joined:
            return []
        fields = [(n, v) for n, v in fields if '"' in v and ("{" in v or "}" in v)]
    found: list[Finding] = []
    entry = min(paper.sources)
    for name, value in sorted(fields):
        quoted = '"' in value and has_quoted_braces(value)
        read = written_value_offences if quoted else bibtex_value_offences
        tex, offences = linked_offences(name, *read(value, strings)) if commands else ("", [])
        braces = quoted or "\\{" in value or "\\}" in value
        if not (offences or braces or '\\"' in value):
            continue
        what = f"field '{written_field(paper.raw, name)}' of '{paper.key}'"  # as Web of Science's Title is written
        field: list[Finding] = []
        if offences:
            listed, hint = offences_and_hint(offences, tex, value)
            message = f"{what} has LaTeX outside the allowlist: {listed}"
            field.append(Finding("dangerous-macro", Severity.ERROR, message, entry, hint, paper.key))
        if braces:
            field.extend(brace_findings(value, what, entry, paper.key, not offences))
        if '\\"' in value and not offences:  # a value printed literally is written in braces anyway
            field.extend(quote_findings(value, what, entry, paper.key))
        if field:  # the field's own line, a wild entry spreads over many: found only for a finding (it costs a scan)
            where = field_location(paper, name)
            found.extend(replace(finding, location=where) for finding in field)
    return found


def _dangerous_block(block: RawBlock, strings: Mapping[str, str]) -> list[Finding]:
    """A @preamble (as TeX reads it), or a @comment or failed block, whose inside BibTeX still reads;
    a @preamble or @string whose braces BibTeX counts otherwise than they were written."""
    written = named = ""  # a comment or a failed block is not one value: block_offences reads its braces as BibTeX does
    if block.kind == "preamble":
        written = block.text[len("@preamble{") : -1]
        tex, offences = written_value_offences(written, strings, preamble=True)
        what = named = "@preamble"
    elif block.kind == "string":
        written = string_block_value(block)
        tex, offences = written_value_offences(written, strings)
        named = f"@string '{block.key}'"
        what = named + " (a .bib surveytool writes prints it literally, and the fields that use it)"
    elif block.kind in ("comment", "failed"):
        tex = block.text
        offences = block_offences(tex)
        what = "block" if block.kind == "failed" else "comment (BibTeX reads the commands after an @ in it)"
    else:
        return []
    found = []
    if offences:
        listed, hint = offences_and_hint(offences, tex, written)
        found.append(
            Finding(
                "dangerous-macro",
                Severity.ERROR,
                f"{what} has LaTeX outside the allowlist: {listed}",
                block.location,
                hint,
            )
        )
    found.extend(brace_findings(written, named, block.location, escaped=not offences))
    if named and not offences:
        found.extend(quote_findings(written, named, block.location))
    return found


def _failed_region(
    blocks: Sequence[tuple[int, model.Block | PlainEntry]], index: int, lines: list[str]
) -> tuple[str, list[int]]:
    """The text of a failed block up to the next block that parsed, and the comment blocks inside it.

    After an aborted block the parser reads the rest of it as free text; kept
    apart, the two would be written (and read back) differently each time.
    """
    end = index + 1
    while end < len(blocks) and isinstance(blocks[end][1], model.ImplicitComment):
        end += 1
    start_line = blocks[index][0]
    stop_line = blocks[end][0] if end < len(blocks) else len(lines)
    # The reported start can be the last line of the block before; the block begins at its "@".
    while start_line < stop_line - 1 and not lines[start_line].lstrip().startswith("@"):
        start_line += 1
    region = tidy_text("".join(lines[start_line:stop_line]))
    return region or (blocks[index][1].raw or ""), list(range(index + 1, end))


def _entry_to_paper(
    entry: model.Entry | PlainEntry, where: SourceLocation, strings: Mapping[str, str], tags_field: str
) -> tuple[Paper, list[tuple[str, str]], list[tuple[str, str]]]:
    """The entry as a paper, its fields (name, value as read) that BibTeX may read otherwise (``field_syntax``), and
    the later values of a field named twice, which BibTeX ignores (``first_of_each``)."""
    latex: dict[str, str] = {}
    plain: dict[str, str] = {}
    tags: tuple[str, ...] = ()
    suspects: list[tuple[str, str]] = []
    if isinstance(entry, PlainEntry):
        written = entry.fields
    else:
        written = [(f.key, f.value if isinstance(f.value, str) else str(f.value)) for f in entry.fields]
    fields, dropped = first_of_each(written)
    tags_name = tags_field.lower()
    for key, value in fields_as_read(fields, suspects):
        name = key.lower() if "%" not in key else field_name(key)
        if name is None or not bibtex_name(name):  # commented out, or no name (syntax_findings reports both)
            continue
        if name == tags_name:
            tags = split_tags(value_to_text(value, strings))
            continue
        latex[name] = value
        plain[name] = value_to_text(value, strings, exact=name in EXACTLY_DECODED)
    return (
        Paper(
            origin=Origin.BIBTEX,
            sources=(where,),
            fields=frozen_mapping(plain),
            latex_fields=frozen_mapping(latex),
            entry_type=entry.entry_type.lower(),
            key=entry.key,
            raw=entry.raw or "",
            explicit_tags=tags,
        ),
        suspects,
        dropped,
    )
