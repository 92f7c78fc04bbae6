"""A .bib text cut into chunks that each read alone as they read in the file, and parsed a run at a time.

A chunk is a block and the free text after it, up to the next block that starts a line.
Plain entries are read by ``scan.py``, which gives what bibtexparser's splitter would,
faster; every other chunk goes through bibtexparser, with an explicit, empty parse stack:
values stay exactly as written so that they can be written back unchanged.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import groupby

import bibtexparser
from bibtexparser import model

from surveytool.bibtex.brace_bounds import (
    ESCAPED_MARK,
    Reading,
    bibtex_blocks,
    parser_reads_on,
    read_otherwise,
    readings,
)
from surveytool.bibtex.line_breaks import masked_line_breaks, unmasked
from surveytool.bibtex.quoted_blocks import quoted_block
from surveytool.bibtex.scan import PlainEntry, scan_plain_entry
from surveytool.bibtex.spaced_heads import entry_as_written, may_hold_spaced_heads, readable
from surveytool.bibtex.values import split_concatenation


@contextmanager
def quiet_bibtexparser():
    # bibtexparser logs failed blocks itself; we report them as findings instead.
    # Its loggers (bibtexparser.splitter, ...) inherit the level of this parent.
    logger = logging.getLogger("bibtexparser")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


#: A block start at the beginning of a line (after spaces). bibtexparser ends any block still
#: open there, so the text from one such start to the next reads the same alone as in its file:
#: that is what lets a rebuild re-read only the chunks that changed.
#: BibTeX reads line breaks around the type too (``spaced_heads.py``).
CHUNK_START = re.compile(r"[^\S\n]*@(?:[ \t]*\w*[ \t]*|\s*\w+\s*)[{(]")


# The same after a newline: a literal first character lets the regex engine skip ahead fast.
_CHUNK_START_AFTER_NEWLINE = re.compile(r"\n[^\S\n]*@(?:[ \t]*\w*[ \t]*|\s*\w+\s*)[{(]")


@dataclass(frozen=True)
class Chunk:
    start: int  # offsets of its text in the file's text
    end: int
    line: int  # 0-based line of its first character in the file
    parser_line: int  # the same line as bibtexparser counts it: it skips a newline after a backslash
    follower: str  # the next chunk's first line up to its block's delimiter ("" at the end of the file)


def cut_chunks(text: str) -> list[Chunk]:
    first = CHUNK_START.match(text)
    starts = [(0, first.group() if first else "")]
    starts.extend((m.start() + 1, m.group()[1:]) for m in _CHUNK_START_AFTER_NEWLINE.finditer(text))
    starts = _outside_comments(text, starts)
    chunks: list[Chunk] = []
    line = parser_line = 0
    for index, (start, _) in enumerate(starts):
        end, follower = starts[index + 1] if index + 1 < len(starts) else (len(text), "")
        if chunks and text.endswith("\\\n", 0, start):
            # bibtexparser does not count the newline before this start, so the chunk before ends on
            # the line this one starts on: blocks could not be told apart by line. Keep them as one.
            last = chunks.pop()
            chunks.append(Chunk(last.start, end, last.line, last.parser_line, follower))
        else:
            chunks.append(Chunk(start, end, line, parser_line, follower))
        newlines = text.count("\n", start, end)
        line += newlines
        parser_line += newlines - text.count("\\\n", start, end)
    return chunks


#: A ``@comment`` block's start: like biber and JabRef, its balanced braces hold text, even entries
#: (a user's way to switch one off), where bibtexparser would end it at the next line's ``@``.
_COMMENT_START = re.compile(r"[^\S\n]*@\s*comment\s*[{(]", re.IGNORECASE)


def comment_end(text: str, start: int) -> int | None:
    """The end of the balanced ``@comment{...}`` (or ``(...)``) starting at ``start``; None if it is none or never closes."""
    opening = _COMMENT_START.match(text, start)
    if opening is None:
        return None
    opener = text[opening.end() - 1]
    closer = "}" if opener == "{" else ")"
    depth = 1
    for match in re.finditer(re.escape(opener) + "|" + re.escape(closer), text[opening.end() :]):
        depth += 1 if match.group() == opener else -1
        if depth == 0:
            return opening.end() + match.end()
    return None


def _outside_comments(text: str, starts: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The chunk starts that are not inside a ``@comment`` block's braces."""
    if "@c" not in text and "@C" not in text and not may_hold_spaced_heads(text):
        return starts
    kept: list[tuple[int, str]] = []
    inside_until = -1
    for start, group in starts:
        if start < inside_until:
            continue
        kept.append((start, group))
        if group.lstrip()[1:].lstrip()[:1] in ("c", "C"):
            inside_until = comment_end(text, start) or -1
    return kept


#: Where a @string block may start: the chunks holding one are read first, since a macro may be
#: used above its definition. A superset is harmless (a chunk read early is not read again).
STRING_START = re.compile(r"@\s*string\s*[{(]", re.IGNORECASE)


def parse_chunks(text: str, chunks: list[Chunk], wanted: list[int]) -> dict[int, list[tuple[int, model.Block]]]:
    """Chunk index -> its blocks, each with its line relative to the chunk (as bibtexparser counts).

    Adjacent chunks are parsed together, as one bibtexparser run. A run that
    stops before the end of the file is followed by the next block's start, so
    that an unclosed last block fails as it does in the file.
    """
    found: dict[int, list[tuple[int, model.Block]]] = {i: [] for i in wanted}
    for first, last in _runs(wanted):
        run = chunks[first : last + 1]
        run_text = text[run[0].start : run[-1].end]
        if run[-1].follower:
            run_text += run[-1].follower
        spaced = may_hold_spaced_heads(run_text)
        if spaced:  # @ misc{k, ...: bibtexparser reads it as @misc  {k, ...
            run_text = readable(run_text, [c.start - run[0].start for c in run] + [run[-1].end - run[0].start])
        with quiet_bibtexparser():
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
            if isinstance(block, model.DuplicateBlockKeyBlock) and block.ignore_error_block is not None:
                block = block.ignore_error_block  # duplicates are found across the whole file in assemble
            position = bisect_right(starts, line) - 1
            if spaced and line == starts[position]:
                block = entry_as_written(block, text, run[position].start)
            found[first + position].append((line - starts[position], block))
    for index in wanted:
        if apart := read_apart(text, chunks[index]) or _read_quoted(text, chunks[index], found[index]):
            found[index] = apart
    return found


def _read_quoted(text: str, chunk: Chunk, blocks: list[tuple[int, model.Block]]) -> list[tuple[int, model.Block]]:
    """The chunk's blocks where bibtexparser ends its @string or @preamble at a brace between quotes
    (``quoted_blocks.py``): the block with its whole value, then the free text after it; [] where it does not."""
    source = text[chunk.start : chunk.end]
    read = quoted_block(source)
    if read is None:
        return []
    raw = source[: read.end].strip()
    first = blocks[0][1] if blocks and blocks[0][0] == 0 else None
    # Only where bibtexparser ended the block early, at a "}": one it runs on at a "{" fails, and is kept as a comment.
    if not isinstance(first, (model.String, model.Preamble)) or first.raw == raw:
        return []
    block: model.Block
    if read.kind == "string":
        block = model.String(key=read.key, value=read.value, raw=raw)
    else:
        block = model.Preamble(value=read.value, raw=raw)
    return [(0, block), *_free_text(source, read.end)]


def read_apart(text: str, chunk: Chunk) -> list[tuple[int, model.Block]]:
    """The chunk's blocks where bibtexparser, reading it with the others, does not read them as BibTeX does: read
    again with each brace or quote after ``\\\\`` counted (``line_breaks.py``), or else one failed block
    (``brace_bounds.py``); [] where it does."""
    if not ESCAPED_MARK.search(text, chunk.start, chunk.end):
        return []
    source = text[chunk.start : chunk.end]
    read = readings(source)
    error = read_otherwise(source, chunk.line + 1, bool(chunk.follower), read)
    if error is None:
        return _read_by_bibtex(source, read)
    masked = masked_line_breaks(source)
    if masked is not None and read_otherwise(masked, chunk.line + 1, bool(chunk.follower)) is None:
        blocks = _read_masked(masked, chunk)
        if _as_bibtex_reads(blocks, source):
            return blocks
    return [(0, model.ParsingFailedBlock(error, 0, source))]


def _read_by_bibtex(source: str, read: tuple[Reading, Reading]) -> list[tuple[int, model.Block]]:
    """The chunk's @string or @preamble as BibTeX reads it, where bibtexparser reads on past its end
    (``parser_reads_on``), if its value is one piece the checks and the writer read as BibTeX does: braced, or quoted
    without braces (they read the mark after a backslash in a quoted piece's braces, and the pieces of a ``#`` joined
    value, as bibtexparser does); else [], and the chunk is refused as before. So is an entry: ``bib --in-place``
    finds its fields with bibtexparser's rules (``field_spans.py``), and would edit another field than BibTeX reads."""
    found = parser_reads_on(source, read)
    if found is None or found[2] not in ("string", "preamble"):
        return []
    at, end, kind, _, ((name, value),) = found
    if len(split_concatenation(value)) > 1 or (value[:1] == '"' and ("{" in value or "}" in value)):
        return []
    raw = source[at:end]
    block = model.String(key=name, value=value, raw=raw) if kind == "string" else model.Preamble(value=value, raw=raw)
    line = source.count("\n", 0, at) - source.count("\\\n", 0, at)
    return [(line, block), *_free_text(source, end)]


def _read_masked(masked: str, chunk: Chunk) -> list[tuple[int, model.Block]]:
    source = masked + chunk.follower
    with quiet_bibtexparser():
        library = bibtexparser.parse_string(readable(source, [0, len(masked)]), parse_stack=[])
    # The follower's blocks are the next chunk's: they start on the line after this chunk's last, as counted.
    end = masked.count("\n") - masked.count("\\\n")
    blocks = [(block.start_line or 0, unmasked(block)) for block in library.blocks if (block.start_line or 0) < end]
    return [(line, entry_as_written(block, source, 0) if line == 0 else block) for line, block in blocks]


def _as_bibtex_reads(blocks: list[tuple[int, model.Block]], source: str) -> bool:
    """Whether bibtexparser read every block of the masked chunk, and the same blocks with the same values BibTeX
    reads in it: where BibTeX stops at an error, bibtexparser reads on otherwise, and it ends a quoted value at
    its next quote where BibTeX reads on inside braces (``"{x\\\\"}"``), which loses the fields after it."""
    read: list[tuple[str, str, list[tuple[str, str]]]] = []
    for _, block in blocks:
        if isinstance(block, model.ParsingFailedBlock):
            return False
        if isinstance(block, model.Entry):
            fields = [(f.key.lower(), f.value) for f in block.fields]
            read.append((block.entry_type.lower(), block.key, fields))
        elif isinstance(block, model.String):
            read.append(("string", "", [(block.key.lower(), block.value)]))
        elif isinstance(block, model.Preamble):
            read.append(("preamble", "", [("preamble", block.value.strip())]))
    return read == bibtex_blocks(source)


def _runs(indices: list[int]) -> Iterator[tuple[int, int]]:
    """(first, last) of each run of consecutive indices."""
    for _, run in groupby(enumerate(indices), key=lambda pair: pair[1] - pair[0]):
        members = [index for _, index in run]
        yield members[0], members[-1]


def scan_chunk(text: str, chunk: Chunk) -> Sequence[tuple[int, model.Block | PlainEntry]] | None:
    """The blocks of a chunk holding one plain entry, as bibtexparser makes them (``scan.py``); else None.

    Lines are relative to the chunk's first, counted as bibtexparser counts them. The entry is the scanner's own
    (its fields as (name, value) pairs, what the reader takes of bibtexparser's): no objects made per field.
    """
    if apart := read_apart(text, chunk):
        return apart
    source = text[chunk.start : chunk.end]
    block: model.Block | PlainEntry
    closed_at = comment_end(source, 0)
    if closed_at is not None:
        raw = source[:closed_at].strip()
        opening = _COMMENT_START.match(raw)
        block, end = model.ExplicitComment(raw[opening.end() : -1], raw=raw), closed_at  # type: ignore[union-attr]
    else:
        entry = scan_plain_entry(source)
        if entry is None:
            return None
        block, end = entry, entry.end
    return [(0, block), *_free_text(source, end)]


def _free_text(source: str, end: int) -> list[tuple[int, model.Block]]:
    """The free text after the block that ends at ``end``, as bibtexparser's implicit comment: it starts on the line
    of the closing brace, skips leading blank lines (counting them) and drops trailing space."""
    rest = source[end:]
    comment = rest.lstrip()
    if not comment:
        return []
    skipped = len(rest) - len(comment)
    line = source.count("\n", 0, end) - source.count("\\\n", 0, end) + rest.count("\n", 0, skipped)
    comment = comment.rstrip()
    return [(line, model.ImplicitComment(comment=comment, raw=comment))]


def string_chunks(text: str, chunks: list[Chunk], indices: list[int]) -> list[int]:
    """The chunks among ``indices`` that may define a macro (a superset: reading one early is harmless)."""
    return [
        i
        for i in indices
        if STRING_START.search(text, chunks[i].start, chunks[i].end) and comment_end(text, chunks[i].start) is None
    ]
