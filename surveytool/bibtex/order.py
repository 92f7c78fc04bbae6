"""The order entries are written in: by key, with the entries others name in ``crossref`` after them.

BibTeX lets an entry inherit from its ``crossref`` parent only when the parent
comes after it in the file; biber does not mind, and a parent after all the
others keeps the file in key order otherwise. DBLP's keys put a proceedings
volume (``DBLP:conf/osdi/2020``) before its papers, so key order alone loses
every inherited booktitle.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence

from surveytool.bibtex.crossref import cited_through_children
from surveytool.model import Paper

SORT_ORDERS = ("key", "section")


def crossref_target(paper: Paper) -> str:
    """The key an entry names in ``crossref``, lower-cased (BibTeX matches keys ignoring case); "" for none."""
    return paper.fields.get("crossref", "").strip().lower()


def crossref_levels(links: Iterable[tuple[str, str]], volumes: Collection[str] = ()) -> dict[str, int]:
    """Lower-cased key -> how many levels of children it has below it (0, left out, for an entry no one names).

    ``links``: (an entry's key, the key it names in crossref or ""). Written by increasing level, every
    child comes before its parent, also where a parent has a parent of its own (a volume in a series).
    Entries whose crossrefs go round in a loop have no such order: the loop is written from its volume
    (one of ``volumes``, lower-cased keys, else the entry most entries name), last, so that the paper
    naming it inherits from it as meant, whichever key sorts first.
    """
    children: dict[str, list[str]] = {}
    for key, target in links:
        if target:
            children.setdefault(target, []).append(key.lower())
    levels: dict[str, int] = {}
    # In a fixed order: a cycle's levels must not depend on the file's order. A walk without recursion, as deep as
    # the longest chain (or loop) of crossrefs: an entry on the walk's path counts 0 below itself, so a cycle
    # (check's crossref-loop) ends it.
    for parent in sorted(children, key=lambda name: (name not in volumes, -len(children[name]), name)):
        if parent in levels:
            continue
        path: list[tuple[str, Iterator[str], list[int]]] = [(parent, iter(sorted(children[parent])), [0])]
        on_path = {parent}
        while path:
            key, pending, deepest = path[-1]
            child = next(pending, None)
            if child is None:
                path.pop()
                on_path.discard(key)
                levels[key] = 1 + deepest[0]
                if path:
                    path[-1][2][0] = max(path[-1][2][0], levels[key])
            elif child in children and child not in on_path and child not in levels:
                path.append((child, iter(sorted(children[child])), [0]))
                on_path.add(child)
            else:
                deepest[0] = max(deepest[0], levels.get(child, 0) if child not in on_path else 0)
    return levels


def writing_order(key: str, levels: dict[str, int]) -> tuple[int, str]:
    return (levels.get(key.lower(), 0) if levels else 0, key)


def crossref_loop(links: Iterable[tuple[str, str]]) -> bool:
    """Whether the crossrefs of ``links`` (as for ``crossref_levels``) go round in a loop somewhere."""
    target = {key.lower(): parent for key, parent in links if parent}
    done: set[str] = set()
    for start in target:
        walk: set[str] = set()
        key = start
        while key in target and key not in done and key not in walk:
            walk.add(key)
            key = target[key]
        if key in walk:
            return True
        done |= walk
    return False


def _levels(papers: Sequence[Paper]) -> dict[str, int]:
    links = [(p.key, crossref_target(p)) for p in papers]
    return crossref_levels(links, volumes(papers) if crossref_loop(links) else ())


def volumes(papers: Sequence[Paper]) -> set[str]:
    """The keys (lower case) of the volumes the chapter cites only through their children (untagged; see
    ``crossref.cited_through_children``), as a rebuild's records keep them: ``cited`` false."""
    lenders = cited_through_children(papers)
    return {p.key.lower() for p in papers if not p.tags and p.key.lower() in lenders}


def in_bibtex_order(papers: Iterable[Paper]) -> list[Paper]:
    """By key, crossref parents after their children."""
    papers = list(papers)
    levels = _levels(papers)
    return sorted(papers, key=lambda p: writing_order(p.key, levels))


def sort_papers(papers: Iterable[Paper], order: str = "key", section_ids: Sequence[str] = ()) -> list[Paper]:
    """By key, or by primary section in taxonomy order, then year, then key; crossref parents after their
    children in either."""
    papers = list(papers)
    if order != "section":
        return in_bibtex_order(papers)
    levels = _levels(papers)
    rank = {s: i for i, s in enumerate(section_ids)}
    return sorted(
        papers,
        key=lambda p: (
            writing_order(p.key, levels)[0],
            rank.get(p.primary_section or "", len(rank)),
            p.year or "9999",
            p.key,
        ),
    )
