"""A rebuild that patches the last build when only a few plain .bib entries changed.

The last build's snapshot (``snapshot.py``) says where each entry came from,
which identities and keys it holds, and where its text sits in the .bib and
entries.json. Suppose every source is a .bib file and nothing else changed
(options, taxonomy, catalogs, lock file, the .bib and entries.json written).
Suppose too that each chunk that changed (``changes.py``), before and after,
is one plain entry sharing no identity and no key with any other entry. Then
a full build would merge, key and tag every other entry as the last build did,
but for the entries a changed one lends to or borrows from (crossref, xdata):
those are read again and rebuilt with it (``relatives.py``).
The new outputs are the last ones with the changed entries cut out or spliced
in, and the entries below a change moved to their new lines (entries.json,
the chapter and findings print them).

Anything else, and ``patch_last_build`` returns None: the build runs in full.
A test compares the two on random edits."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import NamedTuple

from surveytool.analysis.key_lock import load_pins, read_lock_text
from surveytool.analysis.keys import identity_of, unwritable_key
from surveytool.analysis.merge import identities
from surveytool.bibtex.crossref import names_of, parent_names, with_lent_fields
from surveytool.bibtex.fields import bibtex_entry, macros_of
from surveytool.bibtex.format_options import STANDARD, BibFormat
from surveytool.bibtex.order import crossref_levels, crossref_loop, crossref_target, writing_order
from surveytool.digest import digest_text
from surveytool.errors import SurveyToolError
from surveytool.model import Finding, Paper, Taxonomy
from surveytool.output.chapter_view import PaperView, paper_view, uncited_keys
from surveytool.output.entries_json import entry_json
from surveytool.pipeline import Options, catalog_paths, finding_order, options_taxonomy
from surveytool.rebuild.bib_reading import ChunkRun
from surveytool.rebuild.changes import MAX_CHANGED_CHUNKS, Move, changed_chunks, moved_source
from surveytool.rebuild.memo import BuildCache
from surveytool.rebuild.moves import moved_finding, moved_json
from surveytool.rebuild.patch_tagging import tag_read_again
from surveytool.rebuild.relatives import placed_anew, read_again, relatives
from surveytool.rebuild.snapshot import (
    EntryRecord,
    OutputSpans,
    Snapshot,
    SourceLayout,
    content_digest,
    finding_from_record,
    finding_record,
    load_snapshot,
)
from surveytool.rebuild.trace import claims_of
from surveytool.regular_files import Unusable, read_regular
from surveytool.resources import default_taxonomy
from surveytool.sealed import MAX_CACHE_FILE
from surveytool.text.latex import declared_chars
from surveytool.text.latex_allowlist import allowlist_digest


@dataclass(frozen=True)
class Patched:
    """The outputs of a patched build, but for the LaTeX (rendered from ``views`` as in a full build)."""

    snapshot: Snapshot  # for the next build, once its environment and file stamps are filled in
    bibliography: bytes  # UTF-8, as written
    entries_json: bytes
    views: tuple[PaperView, ...]
    findings: tuple[Finding, ...]
    pins: dict[str, str]
    taxonomy: Taxonomy
    changed: int  # entries read and tagged anew: those changed and their crossref/xdata family

    @property
    def chapter_views(self) -> tuple[PaperView, ...]:
        """The views of the entries the chapter cites (``views`` and the snapshot's records are in one order)."""
        return tuple(view for view, record in zip(self.views, self.snapshot.records, strict=True) if record.cited)

    @property
    def declared(self) -> list[str]:
        return sorted({*self.snapshot.head_declared, *(c for r in self.snapshot.records for c in r.declared)})


def environment_digest(options: Options, dialect: str, lock_text: str, fmt: BibFormat = STANDARD) -> str:
    """What the outputs depend on besides the .bib texts: options, taxonomy, catalogs, the key pins, the .bib's layout."""

    def text(path: Path) -> str:
        try:
            return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "\0missing"

    return digest_text(
        repr(options),
        dialect,
        repr(fmt),
        text(options.taxonomy or default_taxonomy()),
        text(options.config) if options.config else "",
        *(text(path) for path in catalog_paths(options)),
        lock_text,
        allowlist_digest(),
    )


def patch_last_build(
    options: Options,
    bib_path: Path,
    json_path: Path,
    dialect: str,
    memos: BuildCache,
    fmt: BibFormat = STANDARD,
) -> Patched | None:
    """The last build patched to the sources as they are now, or None when only a full build gives the right result.

    ``memos`` is the build cache of ``options``: it says why a snapshot it holds is not used.
    """
    if options.build_cache is None or options.online or options.overrides or options.lock_file is None:
        return None
    snapshot = load_snapshot(memos)
    if snapshot is None or not snapshot.records:
        return None
    try:
        lock_text = read_lock_text(options.lock_file)
        # Regular files only: a link to /dev/zero would never end.
        old_bib, old_json = read_regular(bib_path, MAX_CACHE_FILE, True), read_regular(json_path, MAX_CACHE_FILE, True)
    except (OSError, SurveyToolError, Unusable):
        return None  # the build in full says what is wrong, or replaces them
    if (content_digest(old_bib), content_digest(old_json)) != snapshot.written:
        return None  # changed since the last build wrote them
    if environment_digest(options, dialect, lock_text, fmt) != snapshot.environment:
        return None
    changes = changed_chunks(options, snapshot.sources)
    if changes is None:
        return None
    layouts, removed, added, moves = changes
    return _patch(options, snapshot, layouts, removed, added, moves, old_bib, old_json, (dialect, fmt))


class _Added(NamedTuple):
    paper: Paper  # as read
    chunk: str
    identities: tuple[str, ...]
    claims: tuple[str, ...]


def _patch(
    options: Options,
    snapshot: Snapshot,
    layouts: tuple[SourceLayout, ...],
    removed: set[str],
    added: list[tuple[ChunkRun, int, dict[str, str]]],
    moves: list[Move],
    old_bib: bytes,
    old_json: bytes,
    written_as: tuple[str, BibFormat],
) -> Patched | None:
    by_chunk = {r.chunk: r for r in snapshot.records if r.chunk} if removed else {}
    looked_up = [by_chunk.get(chunk) for chunk in removed]
    gone = [record for record in looked_up if record is not None]
    if len(gone) < len(looked_up):
        return None
    read: list[tuple[Paper, str, tuple[Finding, ...]]] = []
    for run, index, macros in added:
        document = run.read(index, macros)
        if len(document.papers) != 1 or document.blocks:
            return None
        read.append((document.papers[0], run.keys[index], document.findings))
    # Entries a changed one lends to or borrows from print differently too: read again, they are rebuilt with it.
    family = relatives(snapshot.records, gone, [paper for paper, _, _ in read])
    if family is None or len(family) + len(read) + len(gone) > MAX_CHANGED_CHUNKS:
        return None
    again = read_again(family, layouts, options.tags_field) if family else []
    if again is None:
        return None
    counted = gone or read  # nothing to count when nothing changed
    identity_counts = Counter(i for r in snapshot.records for i in r.identities) if counted else Counter()
    claim_counts = Counter(k for r in snapshot.records for k in r.claims) if counted else Counter()
    for record in gone:
        # An entry that shared an identity or a key with another changed how that one was merged or keyed.
        if any(identity_counts[i] != 1 for i in record.identities) or any(claim_counts[k] != 1 for k in record.claims):
            return None
        identity_counts.subtract(record.identities)
        claim_counts.subtract(record.claims)

    pins = dict(load_pins(options.lock_file)) if options.lock_file else {}
    # The family's text is unchanged, so are its findings; but whether a volume is placed may have changed.
    family_chunks, family_keys = {r.chunk for r in family}, {r.key for r in family}
    findings = []
    for chunk, kept in snapshot.findings:
        if chunk in removed or (chunk in family_chunks and placed_anew(finding_from_record(kept), family_keys)):
            continue
        moved = moved_finding(kept, moves)
        if moved is None:
            return None  # its message names a line it does not say which: a full build says it anew
        findings.append((chunk, moved))
    news = [_Added(paper, r.chunk, r.identities, r.claims) for r, paper in zip(family, again, strict=True)]
    for paper, chunk, read_findings in read:
        found = tuple(identities(paper))
        identity = identity_of(paper, found)
        claims = claims_of(paper, paper, found, identity, pins)
        if not paper.key or any(identity_counts[i] for i in found) or any(claim_counts[k] for k in claims):
            return None  # it would merge with another entry, or take a key another holds or claims
        if unwritable_key(paper.key):
            return None  # a build in full writes it under a key of its own
        identity_counts.update(found)
        claim_counts.update(claims)
        pins.setdefault(identity, paper.key)  # its own key, as keys.assign_keys gives it
        news.append(_Added(paper, chunk, found, claims))
        findings.extend((chunk, finding_record(f)) for f in read_findings)

    taxonomy = options_taxonomy(options)
    gone_keys, read_papers = {r.key for r in gone}, [p for p, _, _ in read]
    tagging = tag_read_again(options, taxonomy, snapshot.taught, gone_keys, [n.paper for n in news], read_papers)
    if tagging is None:
        return None
    tagged, tag_findings, taught = tagging
    chunk_of_key = {new.paper.key: new.chunk for new in news}
    findings.extend(
        (chunk_of_key.get(f.key or "", ""), finding_record(f))
        for f in tag_findings
        if f.key not in family_keys or placed_anew(f, family_keys)
    )
    # The @string definitions the .bib is written with, as a full build gathers them from every source.
    macros = macros_of(definition for layout in layouts for definition in layout.macros)
    spliced = _splice(
        snapshot,
        {r.key for r in [*gone, *family]},
        list(zip(tagged, news, strict=True)),
        moves,
        old_bib,
        old_json,
        options.tags_field,
        written_as,
        macros,
    )
    if spliced is None:
        return None
    bibliography, entries, records, views = spliced
    patched = replace(snapshot, sources=layouts, records=records, findings=tuple(findings), taught=taught)
    return Patched(
        patched,
        bibliography,
        entries,
        views,
        tuple(sorted((finding_from_record(f) for _, f in findings), key=finding_order)),
        dict(sorted(pins.items())),
        taxonomy,
        len(news),
    )


def _splice(
    snapshot: Snapshot,
    gone: set[str],
    tagged: list[tuple[Paper, _Added]],
    moves: list[Move],
    old_bib: bytes,
    old_json: bytes,
    tags_field: str,
    written_as: tuple[str, BibFormat],
    macros: Mapping[str, str],
) -> tuple[bytes, bytes, tuple[EntryRecord, ...], tuple[PaperView, ...]] | None:
    """The .bib and entries.json with the entries ``gone`` (keys) cut out, the ``tagged`` ones put in and those
    below a change moved; the records and views of the entries they list. None if they are not the files of the snapshot."""
    bib = OutputSpans(old_bib + b"\n", snapshot.bib_head, {r.key: r.bib_length for r in snapshot.records})
    objects = OutputSpans(old_json[:-3] + b",\n", 2, {r.key: r.json_length + 2 for r in snapshot.records})
    if not (bib.valid and objects.valid and old_json.endswith(b"\n]\n")):
        return None
    new_bib: dict[str, bytes] = {}
    new_json: dict[str, bytes] = {}
    kept = []
    for record in snapshot.records:
        if record.key in gone:
            continue
        view = PaperView(*record.view)
        sources = tuple(moved_source(s, moves) for s in view.sources) if moves else view.sources
        if sources != view.sources:  # its entries.json object and chapter paragraph name its lines
            line = moved_json(objects.text(record.key)[:-2], moves) + b",\n"
            new_json[record.key] = line
            view = view._replace(sources=sources)
            record = record._replace(view=tuple(view), json_length=len(line) - 2)
        kept.append((record, view))
    papers = [paper for paper, _ in tagged]
    uncited = uncited_keys(papers)  # the new ones and every entry they lend to or borrow from: the whole family
    for (paper, new), shown in zip(tagged, with_lent_fields(papers), strict=True):
        text = bibtex_entry(paper, tags_field, written_as[0], macros, written_as[1]) + "\n"
        new_bib[paper.key] = text.encode("utf-8")
        new_json[paper.key] = entry_json(shown).encode("utf-8") + b",\n"
        view = paper_view(shown)
        kept.append(
            (
                EntryRecord(
                    paper.key,
                    new.chunk,
                    new.identities,
                    new.claims,
                    len(new_bib[paper.key]),
                    len(new_json[paper.key]) - 2,
                    tuple(view),
                    tuple(declared_chars(text)),
                    crossref_target(paper),
                    paper.key not in uncited,
                    parent_names(paper),
                    tuple(names_of(paper)),
                ),
                view,
            )
        )
    links = [(record.key, record.crossref) for record, _ in kept]
    # A loop is written from its volume, as ``order.volumes`` (a build in full) finds it.
    volumes = {record.key.lower() for record, _ in kept if not record.cited} if crossref_loop(links) else set()
    levels = crossref_levels(links, volumes)
    kept.sort(key=lambda pair: writing_order(pair[0].key, levels))
    records = tuple(record for record, _ in kept)
    # The last entry of the .bib without its blank line; the last object of entries.json closing the list.
    return (
        bib.respliced(records, new_bib)[:-1],
        objects.respliced(records, new_json)[:-2] + b"\n]\n",
        records,
        tuple(view for _, view in kept),
    )


#: Checks whose messages name the place of a second entry (a duplicate's), besides their own location.
