"""Reading .bib sources for a build: each chunk's document kept in a memo, a large read shared with a forked child.

A chunk (``bibtex/chunks.py``) reads alone as it reads in its file, so a chunk whose text,
path and macro table are unchanged since the last build is taken from the memo, moved to
its new line. The layout of each file (``ChunkLayout``) is what the next build compares to
find the entries that changed (``changes.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from surveytool.bibtex.chunks import (
    CHUNK_START,
    STRING_START,
    Chunk,
    cut_chunks,
    parse_chunks,
    read_apart,
    string_chunks,
)
from surveytool.bibtex.reader import BibDocument, assemble, macro_table, read_chunks, string_definitions
from surveytool.bibtex.scan import scan_plain_entry
from surveytool.digest import digest_text
from surveytool.model import RawBlock, SourceLocation
from surveytool.parallel import CHARS_PER_ENTRY, run_beside, worth_sharing
from surveytool.rebuild.memo import (
    Memo,
    finding_from_plain,
    finding_to_plain,
    location_to_plain,
    read_paper_from_plain,
    read_paper_to_plain,
)
from surveytool.text.latex_allowlist import allowlist_digest


@dataclass(frozen=True)
class ChunkLayout:
    """How a file was cut into chunks: what a later build compares to find the entries that changed (``patch.py``)."""

    source: bytes  # the text read, as UTF-8 (a quarter of the memory of a str with one character beyond U+FFFF)
    keys: tuple[str, ...]  # each chunk's digest (``chunk_key``)
    starts: tuple[int, ...]  # each chunk's offset in the text
    lines: tuple[int, ...]  # each chunk's first line, 0-based
    macros: tuple[tuple[str, str], ...]  # the file's macro table: (name in lower case, raw value)
    lone_entries: tuple[bool, ...]  # whether the chunk gave one paper and nothing else to write


#: This process's share of a shared read: the child also encodes its half, and this process decodes it.
_OWN_SHARE = 0.55


class ReusingBibReader:
    """``read_bibtex`` for a build: chunks read before are taken from ``memo``, and a large read is shared
    with a forked child. With a memo, ``layouts`` keeps how each file was cut (path -> layout)."""

    def __init__(self, memo: Memo | None = None):
        self.memo = memo
        self.layouts: dict[str, ChunkLayout] = {}

    def __call__(self, text: str, path: str, tags_field: str = "sections") -> BibDocument:
        memo = self.memo
        chunks = cut_chunks(text)
        keys = [chunk_key(text, chunk, path, tags_field) for chunk in chunks] if memo is not None else []
        # A cached chunk: (its @string definitions, digest of the macro table it was decoded with,
        # its first line then, its document as plain data).
        cached = [memo.peek(key) for key in keys] if memo is not None else [None] * len(chunks)
        missing = [i for i, hit in enumerate(cached) if hit is None]
        early = parse_chunks(text, chunks, string_chunks(text, chunks, missing))
        strings = [hit[0] if hit is not None else string_definitions(early.get(i, [])) for i, hit in enumerate(cached)]
        table = macro_table(d for definitions in strings for d in definitions)
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
                assert memo is not None  # only cached chunks are not fresh
                hit = memo.get(keys[index])
                document = _document_from_plain(hit[3], chunk.line - hit[2])
            documents.append(document)
        if memo is not None:
            self.layouts[path] = ChunkLayout(
                text.encode("utf-8", "surrogatepass"),
                tuple(keys),
                tuple(c.start for c in chunks),
                tuple(c.line for c in chunks),
                tuple(table.items()),
                tuple(len(d.papers) == 1 and not d.blocks for d in documents),
            )
        return assemble(documents)


class ChunkRun:
    """The chunks of ``text[start:end]`` as ``read_bibtex`` cuts the whole text, for reading them alone.

    ``start`` and ``end`` must be chunk starts in the whole text (or its end), and
    ``first_line`` the line ``start`` is on: a rebuild cuts only the part that changed (``patch.py``).
    """

    def __init__(self, text: str, start: int, end: int, first_line: int, path: str, tags_field: str = "sections"):
        self.text, self.path, self.tags_field = text, path, tags_field
        follower = CHUNK_START.match(text, end)
        cut = cut_chunks(text[start:end])
        self._chunks = [
            Chunk(c.start + start, c.end + start, c.line + first_line, c.parser_line, c.follower) for c in cut
        ]
        if self._chunks:  # the last one is followed by the next chunk of the whole text
            last = self._chunks[-1]
            self._chunks[-1] = Chunk(
                last.start, last.end, last.line, last.parser_line, follower.group() if follower else ""
            )
        self.keys = [chunk_key(text, chunk, path, tags_field) for chunk in self._chunks]
        self.starts = [chunk.start for chunk in self._chunks]
        self.lines = [chunk.line for chunk in self._chunks]

    def holds_one_plain_entry(self, index: int) -> bool:
        """Whether the chunk is an entry (and free text) that no other chunk's reading depends on."""
        chunk = self._chunks[index]
        return (
            not STRING_START.search(self.text, chunk.start, chunk.end)
            and scan_plain_entry(self.text[chunk.start : chunk.end]) is not None
            and not read_apart(self.text, chunk)
        )

    def read(self, index: int, macros: Mapping[str, str]) -> BibDocument:
        """The document of a chunk that holds one plain entry, as reading the whole file gives it (``macros``: its table)."""
        ((_, document),) = read_chunks(self.text, self._chunks, [index], {}, self.path, macros, self.tags_field)
        return document


def _read_chunks_beside(
    text: str,
    chunks: list[Chunk],
    indices: list[int],
    early: dict[int, list],
    path: str,
    table: Mapping[str, str],
    tags_field: str,
) -> dict[int, tuple[BibDocument, tuple | None]]:
    """Chunk index -> (its document, the same as plain data when it came from the child, else None).

    A large read is cut in two at a chunk boundary; a forked child reads the second part.
    """

    def read(part: list[int]) -> list[tuple[int, BibDocument]]:
        return list(read_chunks(text, chunks, part, early, path, table, tags_field))

    size = sum(chunks[i].end - chunks[i].start for i in indices)
    if len(indices) < 2 or not worth_sharing(size / CHARS_PER_ENTRY):
        return {index: (document, None) for index, document in read(indices)}
    own, cut = 0, 0
    while cut < len(indices) - 1 and own < size * _OWN_SHARE:
        own += chunks[indices[cut]].end - chunks[indices[cut]].start
        cut += 1
    mine, theirs = run_beside(
        lambda: [(i, _document_to_plain(d)) for i, d in read(indices[cut:])], lambda: read(indices[:cut])
    )
    fresh: dict[int, tuple[BibDocument, tuple | None]] = {index: (document, None) for index, document in mine}
    for index, plain in theirs:
        fresh[index] = (_document_from_plain(plain, 0), plain)
    return fresh


def chunk_key(text: str, chunk: Chunk, path: str, tags_field: str) -> str:
    return digest_text(text[chunk.start : chunk.end], chunk.follower, path, tags_field, allowlist_digest())


def _document_to_plain(document: BibDocument) -> tuple:
    return (
        tuple(read_paper_to_plain(p) for p in document.papers),
        tuple((b.kind, b.text, location_to_plain(b.location), b.key) for b in document.blocks),
        tuple(finding_to_plain(f) for f in document.findings),
    )


def _document_from_plain(data: tuple, shift: int) -> BibDocument:
    """A chunk's document as cached, moved down ``shift`` lines (up if negative)."""
    papers, blocks, findings = data
    return BibDocument(
        tuple(read_paper_from_plain(p, shift) for p in papers),
        tuple(
            RawBlock(kind, text, SourceLocation(where[0], where[1] + shift), key) for kind, text, where, key in blocks
        ),
        tuple(finding_from_plain(f, shift) for f in findings),
    )
