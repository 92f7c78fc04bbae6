"""BibTeX text -> records, chunk by chunk. The only module that imports bibtexparser.

Plain entries are read by ``bibtex_scan.py``, which gives what bibtexparser's
splitter would, faster; every other chunk goes through bibtexparser. Reading
uses an explicit, empty parse stack: values stay exactly as written
(braces, quotes, ``@string`` macros, ``#`` concatenations) so that they can be
written back unchanged; plain text for matching is derived on the side
(``bibtex_values.py``). ``bibtex_write.py`` writes .bib text.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from itertools import groupby
from typing import Any, Protocol

import bibtexparser
from bibtexparser import model

from surveytool.bibtex.scan import scan_plain_entry
from surveytool.bibtex.values import (
    EXACTLY_DECODED,
    bibtex_value_offences,
    macros_with_commands,
    split_tags,
    string_block_value,
    uses_any,
    value_to_text,
)
from surveytool.bibtex.writer import tidy_text
from surveytool.model import Finding, Origin, Paper, RawBlock, Severity, SourceLocation, frozen_mapping
from surveytool.parallel import run_beside
from surveytool.rebuild.memo import (
    digest_text,
    finding_from_plain,
    finding_to_plain,
    location_from_plain,
    location_to_plain,
    read_paper_from_plain,
    read_paper_to_plain,
)
from surveytool.text.latex import block_offences, describe_offences, usable_key
from surveytool.text.latex_allowlist import allowlist_digest


@dataclass(frozen=True)
class ChunkLayout:
    """How a file was cut into chunks: what a later build compares to find the entries that changed (``patch.py``)."""

    source: bytes  # the text read, as UTF-8 (a quarter of the memory of a str with one character beyond U+FFFF)
    keys: tuple[str, ...]  # each chunk's digest (``_chunk_key``)
    starts: tuple[int, ...]  # each chunk's offset in the text
    lines: tuple[int, ...]  # each chunk's first line, 0-based
    macros: tuple[tuple[str, str], ...]  # the file's macro table: (name in lower case, raw value)
    lone_entries: tuple[bool, ...]  # whether the chunk gave one paper and nothing else to write


@dataclass(frozen=True)
class BibDocument:
    papers: tuple[Paper, ...]
    blocks: tuple[RawBlock, ...]
    findings: tuple[Finding, ...]
    # How the text was read (with a memo only: chunk digests are computed for it), not what it holds.
    layout: ChunkLayout | None = dataclasses.field(default=None, compare=False, repr=False)


@contextmanager
def _quiet_bibtexparser():
    # bibtexparser logs failed blocks itself; we report them as findings instead.
    # Its loggers (bibtexparser.splitter, ...) inherit the level of this parent.
    logger = logging.getLogger("bibtexparser")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


class ChunkMemo(Protocol):
    """Where read_bibtex keeps the result of each chunk of a file (``memo.py``), keyed by content."""

    def peek(self, key: str) -> Any: ...

    def get(self, key: str) -> Any: ...

    def put(self, key: str, value: Any) -> None: ...


#: A block start at the beginning of a line (after spaces). bibtexparser ends any block still
#: open there, so the text from one such start to the next reads the same alone as in its file:
#: that is what lets a rebuild re-read only the chunks that changed.
_CHUNK_START = re.compile(r"[^\S\n]*@\w*[ \t]*[{(]")
# The same after a newline: a literal first character lets the regex engine skip ahead fast.
_CHUNK_START_AFTER_NEWLINE = re.compile(r"\n[^\S\n]*@\w*[ \t]*[{(]")


@dataclass(frozen=True)
class _Chunk:
    start: int  # offsets of its text in the file's text
    end: int
    line: int  # 0-based line of its first character in the file
    parser_line: int  # the same line as bibtexparser counts it: it skips a newline after a backslash
    follower: str  # the next chunk's first line up to its block's delimiter ("" at the end of the file)


def _chunks(text: str) -> list[_Chunk]:
    first = _CHUNK_START.match(text)
    starts = [(0, first.group() if first else "")]
    starts.extend((m.start() + 1, m.group()[1:]) for m in _CHUNK_START_AFTER_NEWLINE.finditer(text))
    starts = _outside_comments(text, starts)
    chunks: list[_Chunk] = []
    line = parser_line = 0
    for index, (start, _) in enumerate(starts):
        end, follower = starts[index + 1] if index + 1 < len(starts) else (len(text), "")
        if chunks and text.endswith("\\\n", 0, start):
            # bibtexparser does not count the newline before this start, so the chunk before ends on
            # the line this one starts on: blocks could not be told apart by line. Keep them as one.
            last = chunks.pop()
            chunks.append(_Chunk(last.start, end, last.line, last.parser_line, follower))
        else:
            chunks.append(_Chunk(start, end, line, parser_line, follower))
        newlines = text.count("\n", start, end)
        line += newlines
        parser_line += newlines - text.count("\\\n", start, end)
    return chunks


#: A ``@comment`` block's start: like biber and JabRef, its balanced braces hold text, even entries
#: (a user's way to switch one off), where bibtexparser would end it at the next line's ``@``.
_COMMENT_START = re.compile(r"[^\S\n]*@comment[ \t]*[{(]", re.IGNORECASE)


def _comment_end(text: str, start: int) -> int | None:
    """The end of the balanced ``@comment{...}`` (or ``(...)``) starting at ``start``; None if it is none or never closes."""
    opening = _COMMENT_START.match(text, start)
    if opening is None:
        return None
    opener = text[opening.end() - 1]
    closer = "}" if opener == "{" else ")"
    depth = 1
    for match in re.finditer(re.escape(opener) + "|" + re.escape(closer), text[opening.end():]):
        depth += 1 if match.group() == opener else -1
        if depth == 0:
            return opening.end() + match.end()
    return None


def _outside_comments(text: str, starts: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The chunk starts that are not inside a ``@comment`` block's braces."""
    if "@c" not in text and "@C" not in text:
        return starts
    kept: list[tuple[int, str]] = []
    comment_end = -1
    for start, group in starts:
        if start < comment_end:
            continue
        kept.append((start, group))
        if group.lstrip()[1:2] in ("c", "C"):
            comment_end = _comment_end(text, start) or -1
    return kept


#: Where a @string block may start: the chunks holding one are read first, since a macro may be
#: used above its definition. A superset is harmless (a chunk read early is not read again).
_STRING_START = re.compile(r"@\s*string\s*[{(]", re.IGNORECASE)
#: Chunks parsed per bibtexparser run: the blocks of one run are alive at once.
_RUN_LENGTH = 512
#: Below this many characters to read, a second process costs more than it saves.
PARALLEL_FROM_CHARS = 1 << 20
#: This process's share of a shared read: the child also encodes its half, and this process decodes it.
_OWN_SHARE = 0.55


def read_bibtex(text: str, path: str, tags_field: str = "sections", memo: ChunkMemo | None = None) -> BibDocument:
    """Read BibTeX text; every block becomes a paper, a kept raw block, or both plus a finding.

    With a ``memo``, chunks (a block and the free text after it) read before are
    taken from it, and only the others go through bibtexparser. A large read is
    shared with a forked child (``forked.py``).
    """
    chunks = _chunks(text)
    keys = [_chunk_key(text, chunk, path, tags_field) for chunk in chunks] if memo is not None else []
    # A cached chunk: (its @string definitions, digest of the macro table it was decoded with,
    # its first line then, its document as plain data).
    cached = [memo.peek(key) for key in keys] if memo is not None else [None] * len(chunks)
    missing = [i for i, hit in enumerate(cached) if hit is None]
    early = _parse_chunks(text, chunks, [i for i in missing if _STRING_START.search(text, chunks[i].start, chunks[i].end)
                                         and _comment_end(text, chunks[i].start) is None])
    strings = [hit[0] if hit is not None else _string_definitions(early.get(i, ())) for i, hit in enumerate(cached)]
    table = _macro_table(d for definitions in strings for d in definitions)
    table_digest = digest_text(repr(sorted(table.items())))
    stale = [i for i, hit in enumerate(cached) if hit is None or hit[1] != table_digest]
    fresh = _read_chunks_beside(text, chunks, stale, early, path, table, tags_field)
    documents: list[BibDocument] = []
    for index, chunk in enumerate(chunks):
        if index in fresh:
            document, plain = fresh.pop(index)
            if memo is not None:
                plain = plain if plain is not None else _document_to_plain(document)
                memo.put(keys[index], (strings[index], table_digest, chunk.line, plain))
        else:
            hit = memo.get(keys[index])  # type: ignore[union-attr]  # only cached chunks are not fresh
            document = _document_from_plain(hit[3], chunk.line - hit[2])
        documents.append(document)
    layout = None if memo is None else ChunkLayout(
        text.encode("utf-8", "surrogatepass"), tuple(keys), tuple(c.start for c in chunks),
        tuple(c.line for c in chunks), tuple(table.items()), tuple(len(d.papers) == 1 and not d.blocks for d in documents))
    return replace(_assemble(documents), layout=layout)


class ChunkRun:
    """The chunks of ``text[start:end]`` as ``read_bibtex`` cuts the whole text, for reading them alone.

    ``start`` and ``end`` must be chunk starts in the whole text (or its end), and
    ``first_line`` the line ``start`` is on: a rebuild cuts only the part that changed (``patch.py``).
    """

    def __init__(self, text: str, start: int, end: int, first_line: int, path: str, tags_field: str = "sections"):
        self.text, self.path, self.tags_field = text, path, tags_field
        follower = _CHUNK_START.match(text, end)
        cut = _chunks(text[start:end])
        self._chunks = [_Chunk(c.start + start, c.end + start, c.line + first_line, c.parser_line, c.follower)
                        for c in cut]
        if self._chunks:  # the last one is followed by the next chunk of the whole text
            last = self._chunks[-1]
            self._chunks[-1] = _Chunk(last.start, last.end, last.line, last.parser_line, follower.group() if follower else "")
        self.keys = [_chunk_key(text, chunk, path, tags_field) for chunk in self._chunks]
        self.starts = [chunk.start for chunk in self._chunks]
        self.lines = [chunk.line for chunk in self._chunks]

    def holds_one_plain_entry(self, index: int) -> bool:
        """Whether the chunk is an entry (and free text) that no other chunk's reading depends on."""
        chunk = self._chunks[index]
        return not _STRING_START.search(self.text, chunk.start, chunk.end) \
            and scan_plain_entry(self.text[chunk.start:chunk.end]) is not None

    def read(self, index: int, macros: Mapping[str, str]) -> BibDocument:
        """The document of a chunk that holds one plain entry, as reading the whole file gives it (``macros``: its table)."""
        ((_, document),) = _read_chunks(self.text, self._chunks, [index], {}, self.path, macros, self.tags_field)
        return document


def _read_chunks_beside(text: str, chunks: list[_Chunk], indices: list[int], early: dict[int, list],
                        path: str, table: Mapping[str, str], tags_field: str) -> dict[int, tuple[BibDocument, tuple | None]]:
    """Chunk index -> (its document, the same as plain data when it came from the child, else None).

    A large read is cut in two at a chunk boundary; a forked child reads the second part.
    """
    def read(part: list[int]) -> list[tuple[int, BibDocument]]:
        return list(_read_chunks(text, chunks, part, early, path, table, tags_field))

    size = sum(chunks[i].end - chunks[i].start for i in indices)
    if size < PARALLEL_FROM_CHARS or len(indices) < 2:
        return {index: (document, None) for index, document in read(indices)}
    own, cut = 0, 0
    while cut < len(indices) - 1 and own < size * _OWN_SHARE:
        own += chunks[indices[cut]].end - chunks[indices[cut]].start
        cut += 1
    mine, theirs = run_beside(lambda: [(i, _document_to_plain(d)) for i, d in read(indices[cut:])],
                              lambda: read(indices[:cut]))
    fresh: dict[int, tuple[BibDocument, tuple | None]] = {index: (document, None) for index, document in mine}
    for index, plain in theirs:
        fresh[index] = (_document_from_plain(plain, 0), plain)
    return fresh


def _read_chunks(text: str, chunks: list[_Chunk], indices: list[int], early: dict[int, list], path: str,
                 table: Mapping[str, str], tags_field: str) -> Iterator[tuple[int, BibDocument]]:
    """The documents of the chunks at ``indices``, parsed a bounded run at a time (``early``: parsed already)."""
    for first in range(0, len(indices), _RUN_LENGTH):
        run = indices[first:first + _RUN_LENGTH]
        to_read = [i for i in run if i not in early]
        scanned = {i: blocks for i in to_read if (blocks := _scan_chunk(text, chunks[i])) is not None}
        parsed = _parse_chunks(text, chunks, [i for i in to_read if i not in scanned])
        for index in run:
            # Taken out as they are read: each run's blocks are freed as they become records.
            blocks = scanned.pop(index) if index in scanned else parsed.pop(index) if index in parsed else early[index]
            yield index, _read_chunk(blocks, text, chunks[index], path, table, tags_field)


def _scan_chunk(text: str, chunk: _Chunk) -> list[tuple[int, model.Block]] | None:
    """The blocks of a chunk holding one plain entry, as bibtexparser makes them (bibtex_scan.py); else None.

    Lines are relative to the chunk's first, counted as bibtexparser counts them.
    Fields get no start line: nothing here uses one.
    """
    source = text[chunk.start:chunk.end]
    block: model.Block
    comment_end = _comment_end(source, 0)
    if comment_end is not None:
        raw = source[:comment_end].strip()
        opening = _COMMENT_START.match(raw)
        block, end = model.ExplicitComment(raw[opening.end():-1], raw=raw), comment_end  # type: ignore[union-attr]
    else:
        entry = scan_plain_entry(source)
        if entry is None:
            return None
        fields = [model.Field(name, value) for name, value in entry.fields]
        block, end = model.Entry(entry.entry_type, entry.key, fields, raw=entry.raw), entry.end
    blocks: list[tuple[int, model.Block]] = [(0, block)]
    # The free text after the block, as bibtexparser's implicit comment: it starts on the line of the
    # closing brace, skips leading blank lines (counting them) and drops trailing space.
    rest = source[end:]
    comment = rest.lstrip()
    if comment:
        skipped = len(rest) - len(comment)
        line = source.count("\n", 0, end) - source.count("\\\n", 0, end) + rest.count("\n", 0, skipped)
        comment = comment.rstrip()
        blocks.append((line, model.ImplicitComment(comment=comment, raw=comment)))
    return blocks


def _chunk_key(text: str, chunk: _Chunk, path: str, tags_field: str) -> str:
    return digest_text(text[chunk.start:chunk.end], chunk.follower, path, tags_field, allowlist_digest())


def _parse_chunks(text: str, chunks: list[_Chunk], wanted: list[int]) -> dict[int, list[tuple[int, model.Block]]]:
    """Chunk index -> its blocks, each with its line relative to the chunk (as bibtexparser counts).

    Adjacent chunks are parsed together, as one bibtexparser run. A run that
    stops before the end of the file is followed by the next block's start, so
    that an unclosed last block fails as it does in the file.
    """
    found: dict[int, list[tuple[int, model.Block]]] = {i: [] for i in wanted}
    for first, last in _runs(wanted):
        run = chunks[first:last + 1]
        run_text = text[run[0].start:run[-1].end]
        if run[-1].follower:
            run_text += run[-1].follower
        with _quiet_bibtexparser():
            library = bibtexparser.parse_string(run_text, parse_stack=[])
        del run_text
        starts = [c.parser_line - run[0].parser_line for c in run]
        # Where the next chunk's start, added above, begins: its blocks are not this run's.
        end = chunks[last + 1].parser_line - run[0].parser_line if last + 1 < len(chunks) else None
        for block in library.blocks:
            error = getattr(block, "error", None)
            if isinstance(error, BaseException):
                # Its traceback holds the parser's frame, which holds the whole library: a cycle
                # that would keep every block of the file alive until the cycle collector ran.
                error.__traceback__ = None
            line = block.start_line or 0
            if end is not None and line >= end:
                continue
            if isinstance(block, model.DuplicateBlockKeyBlock):
                block = block.ignore_error_block  # duplicates are found across the whole file in _assemble
            position = bisect_right(starts, line) - 1
            found[first + position].append((line - starts[position], block))
    return found


def _runs(indices: list[int]) -> Iterator[tuple[int, int]]:
    """(first, last) of each run of consecutive indices."""
    for _, run in groupby(enumerate(indices), key=lambda pair: pair[1] - pair[0]):
        members = [index for _, index in run]
        yield members[0], members[-1]


def _string_definitions(blocks: list[tuple[int, model.Block]]) -> tuple[tuple[str, str], ...]:
    return tuple((b.key, b.value) for _, b in blocks if isinstance(b, model.String))


def _macro_table(definitions: Iterable[tuple[str, str]]) -> dict[str, str]:
    """Macro name (lower case) -> raw value; a repeated name keeps its first definition, as bibtexparser does."""
    seen: set[str] = set()
    table: dict[str, str] = {}
    for key, value in definitions:
        if key not in seen:
            seen.add(key)
            table[key.lower()] = value
    return table


def _read_chunk(blocks: list[tuple[int, model.Block]], text: str, chunk: _Chunk, path: str,
                strings: Mapping[str, str], tags_field: str) -> BibDocument:
    papers: list[Paper] = []
    kept: list[RawBlock] = []
    findings: list[Finding] = []
    lines: list[str] | None = None
    absorbed: set[int] = set()
    for index, (line, block) in enumerate(blocks):
        if index in absorbed:
            continue
        where = SourceLocation(path, chunk.line + line + 1)
        if isinstance(block, model.Entry):
            papers.append(_entry_to_paper(block, where, strings, tags_field))
            findings.extend(_dangerous_fields(papers[-1], where, strings))
            if not usable_key(block.key):
                findings.append(Finding("unusable-key", Severity.ERROR, f"key '{block.key}' cannot be used in \\cite",
                                        where, "rename it with letters, digits and - _ : . / only", block.key))
        elif isinstance(block, model.String):
            kept.append(RawBlock("string", f"@string{{{block.key} = {block.value}}}", where, block.key))
        elif isinstance(block, model.Preamble):
            kept.append(RawBlock("preamble", f"@preamble{{{block.value}}}", where))
        elif isinstance(block, model.ExplicitComment):
            # As written: its case (@Comment) and its last newline (JabRef's metadata) are the user's.
            raw = block.raw.strip() if block.raw and block.raw.lstrip().startswith("@") else f"@comment{{{block.comment}}}"
            kept.append(RawBlock("comment", raw, where))
        elif isinstance(block, model.ImplicitComment):
            if block.comment.strip():
                kept.append(RawBlock("comment", tidy_text(block.comment), where))
        elif isinstance(block, model.ParsingFailedBlock):
            lines = lines if lines is not None else text[chunk.start:chunk.end].splitlines(keepends=True)
            region, swallowed = _failed_region(blocks, index, lines)
            absorbed.update(swallowed)
            if isinstance(block, model.DuplicateFieldKeyBlock):
                findings.append(Finding(
                    "duplicate-field", Severity.ERROR,
                    f"entry has the field(s) {', '.join(sorted(block.duplicate_keys))} twice; it is kept verbatim",
                    where, "delete one of the repeated fields",
                ))
            else:
                reason = getattr(block.error, "abort_reason", None) or str(block.error)
                findings.append(Finding(
                    "bibtex-syntax", Severity.ERROR,
                    f"this block could not be parsed: {reason.strip()}; it is kept verbatim in the output",
                    where, "check for an unbalanced brace or a missing comma",
                ))
            kept.append(RawBlock("failed", region, where))
    for raw_block in kept:
        findings.extend(_dangerous_block(raw_block, strings))
    return BibDocument(tuple(papers), tuple(kept), tuple(findings))


def _document_to_plain(document: BibDocument) -> tuple:
    return (tuple(read_paper_to_plain(p) for p in document.papers),
            tuple((b.kind, b.text, location_to_plain(b.location), b.key) for b in document.blocks),
            tuple(finding_to_plain(f) for f in document.findings))


def _document_from_plain(data: tuple, shift: int) -> BibDocument:
    """A chunk's document as cached, moved down ``shift`` lines (up if negative)."""
    papers, blocks, findings = data
    return BibDocument(tuple(read_paper_from_plain(p, shift) for p in papers),
                       tuple(RawBlock(kind, text, location_from_plain(where, shift), key) for kind, text, where, key in blocks),
                       tuple(finding_from_plain(f, shift) for f in findings))


def _assemble(documents: list[BibDocument]) -> BibDocument:
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
                    findings.append(_duplicate_string(block.key, first, block.location))
                    block = RawBlock("failed", block.text, block.location)
            blocks.append(block)
    findings.sort(key=lambda f: f.location.line if f.location else 0)
    return BibDocument(tuple(papers), tuple(blocks), tuple(findings))


def _duplicate_string(name: str, first_line: int, where: SourceLocation) -> Finding:
    first = SourceLocation(where.path, first_line)
    return Finding("duplicate-key", Severity.WARNING,
                   f"@string '{name}' is defined again here (first at {first}); surveytool uses the first "
                   "definition and writes this one back as it is", where, "delete or rename one of the definitions", name,
                   (first,))


def _dangerous_fields(paper: Paper, where: SourceLocation, strings: Mapping[str, str]) -> list[Finding]:
    """Fields whose LaTeX, as TeX reads it (macros expanded, ``#`` parts joined, ``^^`` decoded), leaves the allowlist."""
    values = paper.latex_fields.values()
    joined = "".join(values)
    if "\\" not in joined and "^" not in joined:
        # Joined pieces without a backslash or a caret make none: only a macro holding one could bring a command.
        with_commands = macros_with_commands(strings)
        if not with_commands or not any(uses_any(value, with_commands) for value in values):
            return []
    found = []
    for name, value in sorted(paper.latex_fields.items()):
        tex, offences = bibtex_value_offences(value, strings)
        if offences:
            found.append(Finding("dangerous-macro", Severity.ERROR,
                                 f"field '{name}' of '{paper.key}' has LaTeX outside the allowlist: {describe_offences(offences, tex)}",
                                 where, _ALLOW_HINT, paper.key))
    return found


_ALLOW_HINT = ("written to print literally; delete it, or if you trust it allow the command in surveytool.toml: "
               "[latex] allow = [\"\\\\name\"]")


def _dangerous_block(block: RawBlock, strings: Mapping[str, str]) -> list[Finding]:
    """A @preamble (as TeX reads it), or a @comment or failed block, whose inside BibTeX still reads."""
    if block.kind == "preamble":
        tex, offences = bibtex_value_offences(block.text[len("@preamble{"):-1], strings, preamble=True)
        what = "@preamble"
    elif block.kind == "string":
        tex, offences = bibtex_value_offences(string_block_value(block), strings)
        what = f"@string '{block.key}' (fields that use it are written to print it literally)"
    elif block.kind in ("comment", "failed"):
        tex = block.text
        offences = block_offences(tex, comment=block.kind == "comment")
        what = "block" if block.kind == "failed" else "comment (BibTeX reads the commands after an @ in it)"
    else:
        return []
    if not offences:
        return []
    return [Finding("dangerous-macro", Severity.ERROR, f"{what} has LaTeX outside the allowlist: {describe_offences(offences, tex)}",
                    block.location, _ALLOW_HINT)]


def _failed_region(blocks: list[tuple[int, model.Block]], index: int, lines: list[str]) -> tuple[str, list[int]]:
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


def _entry_to_paper(entry: model.Entry, where: SourceLocation, strings: Mapping[str, str], tags_field: str) -> Paper:
    latex: dict[str, str] = {}
    plain: dict[str, str] = {}
    tags: tuple[str, ...] = ()
    tags_field = tags_field.lower()
    for field in entry.fields:
        name = field.key.lower()
        value = field.value if isinstance(field.value, str) else str(field.value)
        if name == tags_field:
            tags = split_tags(value_to_text(value, strings))
            continue
        latex[name] = value
        plain[name] = value_to_text(value, strings, exact=name in EXACTLY_DECODED)
    return Paper(
        origin=Origin.BIBTEX,
        sources=(where,),
        fields=frozen_mapping(plain),
        latex_fields=frozen_mapping(latex),
        entry_type=entry.entry_type.lower(),
        key=entry.key,
        raw=entry.raw or "",
        explicit_tags=tags,
    )


