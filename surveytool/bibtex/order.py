"""The order entries are written in: by key, with the entries others name in ``crossref`` last.

BibTeX lets an entry inherit from its ``crossref`` parent only when the parent
comes after it in the file; biber does not mind, and a parent after all the
others keeps the file in key order otherwise. DBLP's keys put a proceedings
volume (``DBLP:conf/osdi/2020``) before its papers, so key order alone loses
every inherited booktitle.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from surveytool.model import Paper

SORT_ORDERS = ("key", "section")


def crossref_target(paper: Paper) -> str:
    """The key an entry names in ``crossref``, lower-cased (BibTeX matches keys ignoring case); "" for none."""
    return paper.fields.get("crossref", "").strip().lower()


def parent_keys(targets: Iterable[str]) -> frozenset[str]:
    return frozenset(t for t in targets if t)


def is_parent(key: str, parents: Collection[str]) -> bool:
    return bool(parents) and key.lower() in parents


def in_bibtex_order(papers: Iterable[Paper]) -> list[Paper]:
    """By key, crossref parents after every other entry."""
    papers = list(papers)
    parents = parent_keys(crossref_target(p) for p in papers)
    return sorted(papers, key=lambda p: (is_parent(p.key, parents), p.key))


def sort_papers(papers: Iterable[Paper], order: str = "key", section_ids: Sequence[str] = ()) -> list[Paper]:
    """By key, or by primary section in taxonomy order, then year, then key; crossref parents last in either."""
    papers = list(papers)
    if order != "section":
        return in_bibtex_order(papers)
    parents = parent_keys(crossref_target(p) for p in papers)
    rank = {s: i for i, s in enumerate(section_ids)}
    return sorted(
        papers,
        key=lambda p: (
            is_parent(p.key, parents),
            rank.get(p.primary_section or "", len(rank)),
            p.year or "9999",
            p.key,
        ),
    )
