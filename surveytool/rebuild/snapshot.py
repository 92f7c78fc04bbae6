"""What a build leaves for the next one to patch (``patch.py``): each entry's origin, claims and output text spans.

Written beside the memos (``memo.py``) after a build whose sources are all
.bib files. Each entry of the outputs is one record, in the order they are written (``bibtex.order``):

- the chunk it was read from (its digest), when it is one entry alone in its chunk;
- its identities and the keys it claims (its own, its pins), for telling
  whether a changed entry could merge with, or take a key from, another;
- the length of its text in the .bib and in entries.json, so that those files
  can be cut and spliced without being formatted again;
- its chapter view, and the characters of its .bib text that LaTeX has no spelling for.

Records are plain tuples, the fastest values for a sealed file (``sealed.py``) to load.
"""

from __future__ import annotations

import contextlib
import hashlib
from bisect import bisect_right
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from surveytool.analysis.tagging.self_training import Taught
from surveytool.bibtex.crossref import names_of, parent_names
from surveytool.bibtex.order import crossref_target
from surveytool.model import Finding, Paper, SourceLocation
from surveytool.rebuild.bib_reading import ChunkLayout
from surveytool.rebuild.memo import CACHE_CHECK, BuildCache, code_stamp, finding_from_plain, finding_to_plain

if TYPE_CHECKING:
    from surveytool.output.chapter_view import PaperView
    from surveytool.pipeline import Survey
    from surveytool.rebuild.trace import Trace

SNAPSHOT_FILE = "snapshot.marshal"


class EntryRecord(NamedTuple):
    key: str
    chunk: str  # digest of the chunk it alone was read from; "" when merged from several or read otherwise
    identities: tuple[str, ...]  # of the entry as read and as written (merge.identities)
    claims: tuple[str, ...]  # keys it holds or could take, lowered: its key, its own key, keys pinned to its identities
    bib_length: int  # bytes of its .bib text (UTF-8), the blank line after it included
    json_length: int  # bytes of its entries.json object
    view: tuple  # its chapter.PaperView
    declared: tuple[str, ...]  # latex.declared_chars of its .bib text
    crossref: str  # the key it names in crossref, lower-cased ("" for none): its parent is written last
    cited: bool  # whether the chapter cites it: not a volume or @xdata entry cited through its children
    parents: tuple[str, ...]  # the names it inherits from (crossref, xdata), lower-cased: an edit there changes it
    names: tuple[str, ...]  # the names a crossref or xdata may give it by, lower-cased (``crossref.names_of``)


class SourceLayout(NamedTuple):
    display: str
    source: bytes  # the text read, as UTF-8: a rebuild compares the new text with it to find what changed
    chunks: tuple[str, ...]
    starts: tuple[int, ...]
    lines: tuple[int, ...]
    lone_entries: tuple[bool, ...]
    macros: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Snapshot:
    environment: str  # digest of everything but the .bib texts that the outputs depend on (patch.environment_digest)
    sources: tuple[SourceLayout, ...]
    records: tuple[EntryRecord, ...]  # in the order the .bib and entries.json list them (``bibtex.order``)
    findings: tuple[tuple[str, tuple], ...]  # (digest of the chunk it is about or "", finding_record)
    bib_head: int  # bytes of the .bib before its first entry (kept blocks)
    head_declared: tuple[str, ...]
    written: tuple[str, ...]  # content digests of the .bib and entries.json written (content_digest)
    taught: Taught  # what the library's sure entries taught the tagger's second pass (``self_training.py``)


class DataFilesLayout(NamedTuple):
    """Where each entry's text sits in the .bib and entries.json just written (``data_files_layout``).

    Made where those files are written, a forked child in a large build: it crosses as a plain tuple.
    """

    bib_head: int
    bib_lengths: tuple[int, ...]
    json_lengths: tuple[int, ...]
    declared: tuple[tuple[str, ...], ...]
    head_declared: tuple[str, ...]


def content_digest(data: bytes) -> str:
    """What a patch compares an output with: a hand edit that keeps a file's size and time still changes it."""
    return hashlib.sha256(data).hexdigest()


def file_digests(*paths: Path) -> tuple[str, ...]:
    """The ``content_digest`` of each file, or () if one cannot be read."""
    try:
        return tuple(content_digest(path.read_bytes()) for path in paths)
    except OSError:
        return ()


def bibliography_layout(pieces: Sequence[str], entries: int, declared: Sequence[str]) -> tuple | None:
    """The .bib's part of a ``DataFilesLayout``, from ``bibliography_pieces`` of ``entries`` papers (None for none).

    Taken before entries.json is made, so that the .bib's pieces can be let go first.
    """
    if not entries:
        return None
    head, bib_entries = pieces[:-entries], pieces[-entries:]
    chars = [(code, chr(int(code, 16))) for code in declared]

    def found_in(piece: str) -> tuple[str, ...]:
        return tuple(code for code, char in chars if char in piece) if chars and not piece.isascii() else ()

    # The last entry's blank line after it was dropped: the file ends in one newline.
    lengths = (*map(_size, bib_entries[:-1]), _size(bib_entries[-1]) + 1)
    return (
        sum(map(_size, head)),
        lengths,
        tuple(map(found_in, bib_entries)),
        tuple(sorted({c for piece in head for c in found_in(piece)})),
    )


def data_files_layout(bibliography: tuple | None, json_pieces: Sequence[str]) -> DataFilesLayout | None:
    """The layout of the data files: the .bib's part (``bibliography_layout``) and ``entries_json_pieces``."""
    if bibliography is None:
        return None
    head, bib_lengths, declared, head_declared = bibliography
    records = json_pieces[1:-1]  # between "[\n" and "]\n", each followed by ",\n" but the last by "\n"
    json_lengths = (*(_size(p) - 2 for p in records[:-1]), _size(records[-1]) - 1)
    return DataFilesLayout(head, bib_lengths, json_lengths, declared, head_declared)


def _size(piece: str) -> int:
    """Bytes of a piece in UTF-8."""
    return len(piece) if piece.isascii() else len(piece.encode("utf-8"))


def take_snapshot(
    survey: Survey,
    trace: Trace,
    displays: Sequence[str],
    views: Sequence[PaperView],
    uncited: Container[str],
    written: DataFilesLayout,
    stamps: tuple[str, ...],
    environment: str,
) -> Snapshot | None:
    """The snapshot of a build in full, or None when its sources are not all .bib files read with a memo.
    ``views`` are those of every paper, in order; ``uncited`` the keys of those the chapter does not cite."""
    layouts = source_layouts(displays, trace.layouts)
    if layouts is None or not trace.readable:
        return None
    by_display = {layout.display: layout for layout in layouts}
    records = []
    for index, paper in enumerate(survey.papers):
        facts = trace.facts[paper.key]
        records.append(
            EntryRecord(
                paper.key,
                chunk_of(by_display, paper),
                facts.identities,
                facts.claims,
                written.bib_lengths[index],
                written.json_lengths[index],
                tuple(views[index]),
                written.declared[index],
                crossref_target(paper),
                paper.key not in uncited,
                parent_names(paper),
                tuple(names_of(paper)),
            )
        )
    findings = [f for f in survey.findings if f.check != CACHE_CHECK]
    return Snapshot(
        environment,
        layouts,
        tuple(records),
        findings_plain(by_display, findings),
        written.bib_head,
        written.head_declared,
        stamps,
        trace.taught,
    )


def chunk_of(layouts: dict[str, SourceLayout], paper: Paper) -> str:
    """The digest of the chunk a paper alone was read from, or "" (merged from several records, or not from a .bib)."""
    return _chunk_at(layouts, paper.sources[0], lone=True) if len(paper.sources) == 1 else ""


def finding_chunk(layouts: dict[str, SourceLayout], finding: Finding) -> str:
    """The digest of the chunk a finding is located in, or ""."""
    return _chunk_at(layouts, finding.location, lone=False)


def _chunk_at(layouts: dict[str, SourceLayout], where: SourceLocation | None, lone: bool) -> str:
    layout = layouts.get(where.path) if where is not None else None
    if layout is None or where is None:
        return ""
    index = bisect_right(layout.lines, where.line - 1) - 1
    return layout.chunks[index] if index >= 0 and (layout.lone_entries[index] or not lone) else ""


def source_layouts(displays: Iterable[str], layouts: Iterable[ChunkLayout | None]) -> tuple[SourceLayout, ...] | None:
    """Each source's layout, or None when one was not a .bib read with a memo."""
    found = []
    for display, layout in zip(displays, layouts, strict=True):
        if layout is None:
            return None
        found.append(
            SourceLayout(
                display, layout.source, layout.keys, layout.starts, layout.lines, layout.lone_entries, layout.macros
            )
        )
    return tuple(found)


def findings_plain(layouts: dict[str, SourceLayout], findings: Iterable[Finding]) -> tuple[tuple[str, tuple], ...]:
    return tuple((finding_chunk(layouts, f), finding_record(f)) for f in findings)


def finding_record(finding: Finding) -> tuple:
    """A finding as plain data with the places its message names, which a patch renumbers when their lines move."""
    places = None if finding.places is None else tuple((where.path, where.line) for where in finding.places)
    return (*finding_to_plain(finding), places)


def finding_from_record(data: tuple) -> Finding:
    *plain, places = data
    finding = finding_from_plain(tuple(plain))
    if places is None:
        return finding
    return replace(finding, places=tuple(SourceLocation(path, line) for path, line in places))


def save_snapshot(folder: Path, snapshot: Snapshot) -> None:
    """Written whole or not at all; a snapshot that cannot be written only makes the next rebuild slower."""
    BuildCache(folder).keep(
        SNAPSHOT_FILE,
        code_stamp(),
        (
            snapshot.environment,
            tuple(tuple(s) for s in snapshot.sources),
            tuple(tuple(r) for r in snapshot.records),
            snapshot.findings,
            snapshot.bib_head,
            snapshot.head_declared,
            snapshot.written,
            snapshot.taught.to_plain(),
        ),
    )


def load_snapshot(memos: BuildCache) -> Snapshot | None:
    """The last build's snapshot in the folder of ``memos``, or None (none, not to be trusted, or written by other code)."""
    data = memos.load(SNAPSHOT_FILE, code_stamp())
    if data is None:
        return None
    try:
        environment, sources, records, findings, bib_head, head_declared, written, taught = data
        return Snapshot(
            environment,
            tuple(SourceLayout(*s) for s in sources),
            tuple(EntryRecord(*r) for r in records),
            findings,
            bib_head,
            head_declared,
            written,
            Taught.from_plain(taught),
        )
    except (ValueError, TypeError):
        return None


def forget_snapshot(folder: Path) -> None:
    """Removed when a build cannot leave one: a stale snapshot must never be patched."""
    with contextlib.suppress(OSError):
        if not folder.is_symlink():  # a link could lead out of the out folder
            (folder / SNAPSHOT_FILE).unlink()


class OutputSpans:
    """An output file as a head and one span per entry, end to end, in the order they are written.

    Every entry of the .bib ends in a blank line (the last one lost its own) and
    every object of entries.json in ",\n" (the last one in "\n]\n"); ``_patch``
    gives each file with that ending restored.
    """

    def __init__(self, text: bytes, head: int, lengths: dict[str, int]):
        self._text, self._head = text, head
        self._spans: dict[str, tuple[int, int]] = {}
        at = head
        for key, length in lengths.items():
            self._spans[key] = (at, at + length)
            at += length
        self.valid = at == len(text)

    def text(self, key: str) -> bytes:
        start, end = self._spans[key]
        return self._text[start:end]

    def respliced(self, records: Sequence[EntryRecord], replaced: dict[str, bytes]) -> bytes:
        """The head and the spans of ``records`` in their order: old ones in runs as long as they stay, ``replaced`` as given."""
        pieces: list[bytes] = []
        run = (0, self._head)
        for record in records:
            if record.key in replaced:
                pieces.extend((self._text[run[0] : run[1]], replaced[record.key]))
                run = (0, 0)
                continue
            start, end = self._spans[record.key]
            if start != run[1]:
                pieces.append(self._text[run[0] : run[1]])
                run = (start, start)
            run = (run[0], end)
        pieces.append(self._text[run[0] : run[1]])
        return b"".join(pieces)
