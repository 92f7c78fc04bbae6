"""Metadata resolution: find the real paper behind a snippet, a truncated title or an id.

A match is taken only when it is strong and unambiguous; a weak or ambiguous
one is reported with its candidates and the entry stays a flagged placeholder.
Attaching the wrong paper is worse than attaching none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from .identifiers import normalize_arxiv, normalize_doi
from .merge import first_author_surname
from .models import Finding, Origin, Paper, Resolution, Severity, frozen_mapping
from .textnorm import abstract_similarity, normalize, shingles, strip_truncation

#: A candidate at or above this score is accepted (if it is the only one).
ACCEPT = 0.85
#: Candidates at or above this score are listed when nothing is accepted.
REPORT = 0.4
_MIN_PREFIX_CHARS = 20
# Metadata fields a resolver may give; the snippet text itself stays the abstract.
METADATA_FIELDS = (
    "title", "author", "year", "month", "booktitle", "journal", "volume", "number", "pages",
    "publisher", "howpublished", "doi", "eprint", "archiveprefix", "primaryclass", "url",
)


@dataclass(frozen=True)
class Candidate:
    paper: Paper
    score: float
    method: str
    source: str

    @property
    def label(self) -> str:
        return self.paper.key or normalize(self.paper.title or "")[:40]


class Resolver(Protocol):
    name: str

    def lookup(self, paper: Paper) -> list[Candidate]:
        """Scored candidates for ``paper``, best first; never raises for a bad answer."""


class CatalogResolver:
    """Resolves against papers with known metadata (the bundled catalog, a user's .bib)."""

    def __init__(self, papers: Iterable[Paper], name: str = "catalog"):
        self.name = name
        self.papers = tuple(papers)
        self._by_id: dict[str, list[int]] = {}
        self._by_title: dict[str, list[int]] = {}
        self._by_shingle: dict[tuple[str, ...], list[int]] = {}
        self._abstract_words: dict[int, list[str]] = {}
        for index, paper in enumerate(self.papers):
            for identity in self._ids(paper):
                self._by_id.setdefault(identity, []).append(index)
            if paper.title:
                self._by_title.setdefault(normalize(paper.title), []).append(index)
            if paper.abstract:
                words = normalize(strip_truncation(paper.abstract)).split()
                self._abstract_words[index] = words
                for shingle in shingles(words[:80]):
                    self._by_shingle.setdefault(shingle, []).append(index)

    @staticmethod
    def _ids(paper: Paper) -> list[str]:
        found = []
        if paper.fields.get("doi"):
            found.append("doi:" + normalize_doi(paper.fields["doi"]))
        arxiv = normalize_arxiv(paper.fields.get("eprint", ""))
        if arxiv:
            found.append("arxiv:" + arxiv)
        return found

    def lookup(self, paper: Paper) -> list[Candidate]:
        scores: dict[int, tuple[float, str]] = {}

        def offer(index: int, score: float, method: str) -> None:
            if score > scores.get(index, (0.0, ""))[0]:
                scores[index] = (score, method)

        for identity in self._ids(paper):
            for index in self._by_id.get(identity, ()):
                offer(index, 1.0, identity.split(":")[0])
        if paper.title:
            self._match_title(paper, offer)
        if paper.abstract:
            self._match_abstract(paper, offer)
        ranked = sorted(scores.items(), key=lambda item: (-item[1][0], self.papers[item[0]].key))
        return [Candidate(self.papers[i], score, method, self.name) for i, (score, method) in ranked]

    def _match_title(self, paper: Paper, offer) -> None:
        title = normalize(paper.title or "")
        if not paper.truncated:
            for index in self._by_title.get(title, ()):
                if _authors_agree(paper, self.papers[index]):
                    offer(index, 1.0, "title")
            return
        # A title cut short ("... Conditional Comp…"): a prefix of exactly one catalog title.
        if len(title) < _MIN_PREFIX_CHARS or len(title.split()) < 3:
            return
        for full, indexes in self._by_title.items():
            if full.startswith(title):
                for index in indexes:
                    offer(index, 0.9 + 0.1 * len(title) / len(full), "title-prefix")

    def _match_abstract(self, paper: Paper, offer) -> None:
        words = normalize(strip_truncation(paper.abstract or "")).split()
        shared = Counter(i for s in shingles(words[:80]) for i in self._by_shingle.get(s, ()))
        for index, _count in shared.most_common(5):
            score = abstract_similarity(words, self._abstract_words[index])
            if score >= REPORT:
                offer(index, round(score, 4), "abstract")


def _authors_agree(a: Paper, b: Paper) -> bool:
    surname_a, surname_b = first_author_surname(a), first_author_surname(b)
    return not surname_a or not surname_b or surname_a == surname_b


def needs_resolution(paper: Paper) -> bool:
    return not paper.resolved


def apply_candidate(paper: Paper, candidate: Candidate) -> Paper:
    """``paper`` with the metadata of ``candidate``; the text the user gave is kept."""
    fields = dict(paper.fields)
    taken = []
    for name in METADATA_FIELDS:
        value = candidate.paper.fields.get(name)
        if value and name not in paper.latex_fields:
            fields[name] = value
            taken.append(name)
    if "abstract" not in fields and candidate.paper.abstract:
        fields["abstract"] = candidate.paper.abstract
        taken.append("abstract")
    resolution = Resolution(candidate.source, candidate.label, candidate.method, candidate.score, tuple(taken))
    return replace(paper, fields=frozen_mapping(fields), entry_type=candidate.paper.entry_type,
                   resolution=resolution)


def resolve_papers(papers: Sequence[Paper], resolvers: Sequence[Resolver]) -> tuple[list[Paper], list[Finding]]:
    """Each paper resolved by the first resolver with one strong candidate."""
    resolved: list[Paper] = []
    findings: list[Finding] = []
    for paper in papers:
        if not needs_resolution(paper):
            resolved.append(paper)
            continue
        outcome, finding = _resolve_one(paper, resolvers)
        resolved.append(outcome)
        if finding:
            findings.append(finding)
    return resolved, findings


def _resolve_one(paper: Paper, resolvers: Sequence[Resolver]) -> tuple[Paper, Finding | None]:
    weak: list[Candidate] = []
    for resolver in resolvers:
        candidates = resolver.lookup(paper)
        strong = [c for c in candidates if c.score >= ACCEPT]
        if len(strong) == 1:
            return apply_candidate(paper, strong[0]), None
        if len(strong) > 1:
            names = ", ".join(f"{c.label} ({c.score:.2f})" for c in strong[:5])
            return paper, Finding(
                "ambiguous-match", Severity.WARNING, f"several papers match equally well: {names}; none was taken",
                min(paper.sources), "add the DOI or arXiv id of the right one to a .bib or id list",
            )
        weak.extend(c for c in candidates if c.score >= REPORT)
    hint = "add its DOI or arXiv id, or run with --online"
    if weak:
        best = sorted(weak, key=lambda c: -c.score)[:3]
        hint = "closest: " + ", ".join(f"{c.label} ({c.score:.2f})" for c in best) + "; " + hint
    what = "snippet" if paper.origin is Origin.SNIPPET else paper.origin.value
    return paper, Finding("unresolved-entry", Severity.WARNING, f"{what} could not be matched to a paper; kept as a placeholder",
                          min(paper.sources), hint)
