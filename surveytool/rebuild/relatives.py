"""The entries a change reaches through crossref and xdata, read again so that a patch can rebuild them too.

A child prints what its parents lend (a year, a proceedings' title as its
booktitle), and a volume is cited only through its children. So an edit of a
parent changes its children's views and entries.json objects, and an edit of a
child can change whether its volume is cited. A patch reads every entry linked
to a changed one (through chains, both ways) again from its unchanged chunk and
rebuilds the whole family, as a build in full sees it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Container, Iterable, Sequence

from surveytool.analysis.tagging.tagger import TAGGING_FINDINGS
from surveytool.bibtex.crossref import names_of, parent_names
from surveytool.model import Finding, Paper
from surveytool.rebuild.bib_reading import ChunkRun
from surveytool.rebuild.snapshot import EntryRecord, SourceLayout


def relatives(
    records: Sequence[EntryRecord], gone: Sequence[EntryRecord], new: Sequence[Paper]
) -> list[EntryRecord] | None:
    """The records, but ``gone``, linked to ``gone`` or ``new`` by a crossref or xdata name, directly or through others.

    None when a name a family member inherits from is held by two entries: which one lends then depends on
    the order of every entry, which only a build in full knows.
    """
    if not any(r.parents for r in records) and not any(parent_names(p) for p in new):
        return []  # no entry inherits from another: a change reaches none
    named_by: dict[str, list[EntryRecord]] = defaultdict(list)
    holders: dict[str, list[EntryRecord]] = defaultdict(list)
    for record in records:
        for name in record.parents:
            named_by[name].append(record)
        for name in record.names:
            holders[name].append(record)
    left_out = {record.key for record in gone}
    pending = [(r.names, r.parents) for r in gone] + [(tuple(names_of(p)), parent_names(p)) for p in new]
    found: dict[str, EntryRecord] = {}
    while pending:
        names, parents = pending.pop()
        for name in names:
            pending.extend(_join(named_by[name], left_out, found))
        for name in parents:
            pending.extend(_join(holders[name], left_out, found))
    family = [*found.values()]
    held = Counter(name for r in family for name in r.names)
    held.update(name for p in new for name in names_of(p))
    named = {name for r in family for name in r.parents} | {name for p in new for name in parent_names(p)}
    return None if any(held[name] > 1 for name in named) else family


def _join(
    linked: Iterable[EntryRecord], left_out: set[str], found: dict[str, EntryRecord]
) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    joined = [r for r in linked if r.key not in left_out and r.key not in found]
    found.update((r.key, r) for r in joined)
    return [(r.names, r.parents) for r in joined]


def read_again(family: Sequence[EntryRecord], layouts: Sequence[SourceLayout], tags_field: str) -> list[Paper] | None:
    """Each entry of ``family`` read again from its chunk, unchanged in one of ``layouts``; None if one was not
    read alone from one plain entry, or reads as another key."""
    where: dict[str, tuple[SourceLayout, int] | None] = {}
    for layout in layouts:
        for index, chunk in enumerate(layout.chunks):
            where[chunk] = None if chunk in where else (layout, index)  # a chunk twice: which one is unknown
    texts: dict[str, str] = {}
    found = []
    for record in family:
        place = where.get(record.chunk)  # none for "", an entry merged from several records
        if place is None or not place[0].lone_entries[place[1]]:
            return None
        layout, index = place
        if layout.display not in texts:
            texts[layout.display] = layout.source.decode("utf-8", "surrogatepass")
        text = texts[layout.display]
        end = layout.starts[index + 1] if index + 1 < len(layout.starts) else len(text)
        run = ChunkRun(text, layout.starts[index], end, layout.lines[index], layout.display, tags_field)
        if run.keys != [record.chunk] or not run.holds_one_plain_entry(0):
            return None
        document = run.read(0, dict(layout.macros))
        if len(document.papers) != 1 or document.blocks or document.papers[0].key != record.key:
            return None
        found.append(document.papers[0])
    return found


def placed_anew(finding: Finding, keys: Container[str]) -> bool:
    """Whether ``finding`` is one that tagging gives an entry of ``keys`` it has to place: of the family's findings,
    the only kind its edit can change (a volume named by no child any more is placed like any entry)."""
    return finding.check in TAGGING_FINDINGS and finding.key in keys
