"""Crossref and xdata inheritance: the fields an entry gets from the entries it names.

BibTeX copies every field a child lacks from its ``crossref`` parent; biblatex does
too, and also gives an ``@in...`` child the parent's ``title`` as its ``booktitle``
(``@periodical``: as its ``journaltitle``). ``xdata`` entries lend their fields as
they are. A parent that is only a container (a proceedings volume, a collection, a
periodical, an xdata entry) is cited through its children, not placed on its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace

from surveytool.model import Paper, frozen_mapping

#: Parent types whose title becomes a child's booktitle (biblatex's default inheritance).
_BOOK_LIKE = frozenset(
    {"book", "mvbook", "collection", "mvcollection", "proceedings", "mvproceedings", "reference", "mvreference"}
)
#: Entry types that exist only to lend fields: never cited, never placed.
LENDERS_ONLY = frozenset({"xdata"})
#: Entry types that, named as a parent, are the volume their children appeared in rather than a work of their own.
CONTAINERS = frozenset(
    {"proceedings", "mvproceedings", "collection", "mvcollection", "periodical", "reference", "mvreference", "mvbook"}
)


def named_parents(paper: Paper) -> list[tuple[str, str]]:
    """(field, key as written) of each entry ``paper`` inherits from: its crossref, then its xdata entries."""
    names = [("crossref", paper.fields.get("crossref", ""))]
    names.extend(("xdata", n) for n in paper.fields.get("xdata", "").split(","))
    return [(field, n.strip()) for field, n in names if n.strip()]


def _named(paper: Paper) -> list[str]:
    """The keys (lower case) ``paper`` inherits from."""
    return [key.lower() for _, key in named_parents(paper)]


def parent_names(paper: Paper) -> tuple[str, ...]:
    """The names (lower case) of the entries ``paper`` inherits from, as its crossref and xdata write them."""
    return tuple(_named(paper))


def names_of(paper: Paper) -> list[str]:
    """The names (lower case) a crossref or xdata may give ``paper`` by: its key and aliases (biblatex ``ids``)."""
    names = (paper.key, *paper.aliases, *paper.fields.get("ids", "").split(","))
    return [name.strip().lower() for name in names if name.strip()]


def by_key(papers: Iterable[Paper]) -> dict[str, Paper]:
    """Papers by key and alias (biblatex ``ids``) in lower case, as a crossref names them; the first of a key wins."""
    found: dict[str, Paper] = {}
    for paper in papers:
        for name in names_of(paper):
            found.setdefault(name, paper)
    return found


def inherited_fields(paper: Paper, index: Mapping[str, Paper]) -> set[str]:
    """The names of the fields ``paper`` has, its own and those its parents lend it (through chains too)."""
    return {name for name, value in paper.fields.items() if value.strip()} | _lent(paper, index).keys()


def _lent(paper: Paper, index: Mapping[str, Paper], keep_own: Iterable[str] = ()) -> dict[str, str]:
    """The fields ``paper``'s parents lend it, the nearest first (a proceedings' or periodical's title as the
    child's booktitle or journal too), but for those named in ``keep_own``."""
    lent: dict[str, str] = {}
    seen = {paper.key.lower()}
    pending = _named(paper)
    while pending:
        name = pending.pop(0)
        parent = index.get(name)
        if parent is None or name in seen:
            continue
        seen.add(name)
        title = parent.fields.get("title", "").strip()
        if title and parent.entry_type in _BOOK_LIKE:
            lent.setdefault("booktitle", title)
        if title and parent.entry_type == "periodical":
            lent.setdefault("journal", title)
            lent.setdefault("journaltitle", title)
        for field, value in parent.fields.items():
            if value.strip() and field not in keep_own:
                lent.setdefault(field, value)
        pending.extend(_named(parent))
    return lent


def borrows_or_only_lends(paper: Paper) -> bool:
    """Whether ``paper`` names a parent, or is an @xdata entry (which the chapter never cites). A volume no entry
    names is a work like any other."""
    return bool(named_parents(paper)) or paper.entry_type in LENDERS_ONLY


def with_lent_fields(papers: Sequence[Paper]) -> list[Paper]:
    """``papers`` as readers see them: each child with the fields its parents lend and it lacks (a year, a
    booktitle from a proceedings' title), for what prints them (the chapter, exports). The .bib keeps the
    inheritance to BibTeX and biblatex."""
    if not any(named_parents(p) for p in papers):
        return list(papers)
    index = by_key(papers)
    return [_lent_to(p, index) if named_parents(p) else p for p in papers]


def _lent_to(paper: Paper, index: Mapping[str, Paper]) -> Paper:
    own = {name for name, value in paper.fields.items() if value.strip()}
    lent = {n: v for n, v in _lent(paper, index, ("title", "crossref", "xdata", "ids")).items() if n not in own}
    return replace(paper, fields=frozen_mapping({**paper.fields, **lent})) if lent else paper


def cited_through_children(papers: Sequence[Paper]) -> set[str]:
    """Keys (lower case) of the entries that are no work of their own: the volumes other entries name as their
    crossref or xdata parent (``CONTAINERS``), and every ``@xdata`` entry."""
    found = {p.key.lower() for p in papers if p.entry_type in LENDERS_ONLY}
    named = {name for paper in papers for name in _named(paper)}
    if named:
        index = by_key(papers)
        found |= {p.key.lower() for name in named if (p := index.get(name)) is not None and p.entry_type in CONTAINERS}
    return found


#: How many entries of a loop a finding names before it says how many more there are.
LOOP_SHOWN = 6


def inheritance_loops(papers: Sequence[Paper]) -> list[tuple[list[tuple[Paper, str]], int]]:
    """The loops of entries that inherit from one another (A crossref B and B crossref A; A crossref A; longer
    ones, through xdata too), names matched as ``by_key`` matches them: each as its first ``LOOP_SHOWN`` entries,
    (entry, the field that names the next), and its length. A loop starts at its entry read first, or, when an
    entry read before all of them leads into it, at the entry that one reaches it by.

    One walk of every entry's parents without recursion, in time linear in the entries and the names they write:
    a loop is found where the walk meets an entry it is still below.
    """
    if not any(named_parents(p) for p in papers):
        return []
    index = by_key(papers)
    position = {id(p): i for i, p in enumerate(papers)}

    def parents(at: int) -> Iterator[tuple[str, int]]:
        for field, name in named_parents(papers[at]):
            if (parent := index.get(name.lower())) is not None:
                yield field, position[id(parent)]

    done: set[int] = set()
    loops: list[tuple[list[tuple[Paper, str]], int]] = []
    for root in sorted(range(len(papers)), key=lambda i: _read_at(papers[i])):
        if root in done:
            continue
        walk = [(root, parents(root))]
        depth = {root: 0}  # the entries the walk is below, by their place in it
        taken: list[str] = []  # the field by which each entry of the walk names the next
        while walk:
            at, pending = walk[-1]
            field, parent = next(pending, ("", -1))
            if parent < 0:
                walk.pop()
                del depth[at]
                done.add(at)
                if taken:
                    taken.pop()
            elif parent in depth:
                start = depth[parent]
                shown = [w for w, _ in walk[start : start + LOOP_SHOWN]]
                fields = [*taken[start : start + LOOP_SHOWN], field][: len(shown)]
                loops.append(([(papers[i], f) for i, f in zip(shown, fields, strict=True)], len(walk) - start))
            elif parent not in done:
                depth[parent] = len(walk)
                taken.append(field)
                walk.append((parent, parents(parent)))
    return loops


def _read_at(paper: Paper) -> tuple[str, int]:
    return min(((s.path, s.line) for s in paper.sources), default=("", 0))
