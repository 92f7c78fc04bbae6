"""De-duplication: papers that share an identity become one paper. Linear in the input.

Identities are hash keys (DOI, arXiv id, normalized title, snippet
fingerprint); papers sharing one are merged with a union-find, so no pair of
papers is ever compared except those already in the same bucket.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence

from .identifiers import arxiv_id_of_doi, normalize_arxiv, normalize_doi
from .models import Origin, Paper, frozen_mapping
from .textnorm import abstract_similarity, normalize, opening_words, shingles

# Enough words to tell two abstracts apart; fewer and a shared opening could merge them.
_SNIPPET_WORDS = 30
_MIN_TITLE_WORDS = 3
#: Two snippets at least this similar (see textnorm.abstract_similarity) are one paper.
NEAR_DUPLICATE = 0.9
_NEAR_WORDS = 60
_NEAR_CANDIDATES = 3
_MIN_SHARED_SHINGLES = 3
_MAX_POSTINGS = 50  # a four-word run in more abstracts than this is boilerplate, not evidence
# Origins whose metadata is preferred when merging, best first.
_ORIGIN_RANK = {Origin.BIBTEX: 0, Origin.CSL_JSON: 1, Origin.IDENTIFIER: 2, Origin.ANCHOR: 3, Origin.SNIPPET: 4}


def first_author_surname(paper: Paper) -> str:
    if not paper.authors:
        return ""
    name = paper.authors[0]
    surname = name.split(",")[0] if "," in name else name.split()[-1] if name.split() else ""
    return normalize(surname).replace(" ", "")


def identities(paper: Paper) -> list[str]:
    """The hash keys under which ``paper`` is the same work as another paper."""
    keys: list[str] = []
    doi = paper.fields.get("doi")
    if doi:
        keys.append("doi:" + normalize_doi(doi))
        arxiv_from_doi = arxiv_id_of_doi(doi)
        if arxiv_from_doi:
            keys.append("arxiv:" + arxiv_from_doi)
    for field in ("eprint", "arxiv"):
        arxiv = normalize_arxiv(paper.fields.get(field, ""))
        if arxiv:
            keys.append("arxiv:" + arxiv)
    title = paper.fields.get("title")
    if title and (paper.resolution is not None or not paper.truncated):
        normalized = normalize(title)
        if len(normalized.split()) >= _MIN_TITLE_WORDS:
            keys.append("title:" + normalized)
    fingerprint = snippet_fingerprint(paper)
    if fingerprint:
        keys.append("snippet:" + fingerprint)
    return keys


class IdentityCache:
    """``identities(paper)``, computed once per paper object: merging and the key pins both need them,
    and most papers come out of merging as the same objects that went in."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[Paper, list[str]]] = {}

    def __call__(self, paper: Paper) -> list[str]:
        known = self._known.get(id(paper))
        if known is not None and known[0] is paper:  # the paper is held here, so its id is not reused
            return known[1]
        found = identities(paper)
        self._known[id(paper)] = (paper, found)
        return found


def snippet_fingerprint(paper: Paper) -> str | None:
    """A short hash of an abstract's opening words: equal for near-exact copies."""
    abstract = paper.fields.get("abstract")
    if not abstract:
        return None
    words = opening_words(abstract, _SNIPPET_WORDS)
    if len(words) < 8:
        return None
    return hashlib.sha1(" ".join(words).encode()).hexdigest()[:12]


def _compatible(a: Paper, b: Paper) -> bool:
    """Same title is the same work only if first authors and years do not disagree."""
    surname_a, surname_b = first_author_surname(a), first_author_surname(b)
    if surname_a and surname_b and surname_a != surname_b:
        return False
    year_a, year_b = a.fields.get("year", ""), b.fields.get("year", "")
    return not (year_a[:4].isdigit() and year_b[:4].isdigit() and abs(int(year_a[:4]) - int(year_b[:4])) > 2)


def merge_duplicates(papers: Sequence[Paper], identities_of: Callable[[Paper], list[str]] = identities) -> list[Paper]:
    """One paper per work, in the order of each work's first appearance."""
    parent = list(range(len(papers)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first_with: dict[str, int] = {}
    for index, paper in enumerate(papers):
        for identity in identities_of(paper):
            other = first_with.setdefault(identity, index)
            if other != index and (not identity.startswith("title:") or _compatible(papers[other], paper)):
                parent[find(index)] = find(other)

    _union_near_duplicate_abstracts(papers, find, parent)

    groups: dict[int, list[Paper]] = {}
    for index, paper in enumerate(papers):
        groups.setdefault(find(index), []).append(paper)
    return [merge_group(group) if len(group) > 1 else group[0] for group in groups.values()]


def _union_near_duplicate_abstracts(papers: Sequence[Paper], find, parent: list[int]) -> None:
    """Join abstracts that agree word for word but for small edits or a different cut.

    Candidates come from shared four-word runs (a hash index), so each abstract
    is compared with a handful of others, never with all of them.
    """
    words: dict[int, list[str]] = {}
    postings: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for index, paper in enumerate(papers):
        abstract = paper.fields.get("abstract")
        if abstract and paper.origin is not Origin.BIBTEX:
            words[index] = opening_words(abstract, _NEAR_WORDS)
            for shingle in shingles(words[index]):
                postings[shingle].append(index)
    for index, own in words.items():
        shared = Counter(other for s in shingles(own) if len(postings[s]) <= _MAX_POSTINGS
                         for other in postings[s] if other > index)
        for other, count in shared.most_common(_NEAR_CANDIDATES):
            if count >= _MIN_SHARED_SHINGLES and find(other) != find(index) \
                    and abstract_similarity(own, words[other]) >= NEAR_DUPLICATE:
                parent[find(other)] = find(index)


def merge_group(group: Iterable[Paper]) -> Paper:
    """Several records of one work as one paper: the best metadata, every source and key."""
    # The published version (a venue) is preferred to its preprint, then the first read.
    ranked = sorted(group, key=lambda p: (_ORIGIN_RANK[p.origin], p.resolution is None,
                                          not (p.fields.get("booktitle") or p.fields.get("journal")), min(p.sources)))
    best = ranked[0]
    fields = dict(best.fields)
    latex = dict(best.latex_fields)
    for other in ranked[1:]:
        for name, value in other.fields.items():
            if name not in fields or (name == "abstract" and len(value) > len(fields[name])):
                fields[name] = value
                if name in other.latex_fields:
                    latex[name] = other.latex_fields[name]
                else:
                    latex.pop(name, None)
    keys = {p.key for p in ranked if p.key} | {a for p in ranked for a in p.aliases}
    key = best.key or next((p.key for p in ranked if p.key), "")
    explicit = tuple(dict.fromkeys(t for p in ranked for t in p.explicit_tags))
    return Paper(
        origin=best.origin,
        sources=tuple(sorted({s for p in ranked for s in p.sources})),
        fields=frozen_mapping(fields),
        entry_type=best.entry_type,
        key=key,
        latex_fields=frozen_mapping(latex),
        raw=best.raw,
        truncated=all(p.truncated for p in ranked),
        resolution=next((p.resolution for p in ranked if p.resolution), None),
        tags=best.tags,
        explicit_tags=explicit,
        aliases=tuple(sorted(keys - {key})),
    )

