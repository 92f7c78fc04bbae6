"""Metadata resolution: find the real paper behind a snippet, a truncated title or an id.

A match is taken only when it is strong and unambiguous; a weak or ambiguous
one is reported with its candidates and the entry stays a flagged placeholder.
Attaching the wrong paper is worse than attaching none.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from typing import Protocol

from surveytool.analysis.agreement import agree, confirmed, names_first_author
from surveytool.analysis.key_authors import names_with_corporate
from surveytool.analysis.merge import identities
from surveytool.analysis.resolve.abstract_words import abstract_words
from surveytool.analysis.resolve.snippet_alignment import aligned_similarity
from surveytool.model import Finding, Origin, Paper, Resolution, Severity, frozen_mapping
from surveytool.text.normalize import normalize, normalize_any_script, shingles, strip_truncation
from surveytool.text.pasted import rejoin_split_words

#: A candidate at or above this score is accepted (if it is the only one).
ACCEPT = 0.85
#: Candidates at or above this score are listed when nothing is accepted.
REPORT = 0.4
_MIN_PREFIX_CHARS = 20
# A short shared opening is not evidence: many titles start "Attention Is All You", and a service
# may echo the query back. Unless an author or the year confirms it, a truncated title must be this
# long (in words, and as a share of the found title) and a snippet must be this much covered.
_UNCONFIRMED_PREFIX_WORDS = 6
_UNCONFIRMED_PREFIX_SHARE = 0.5
_MIN_SNIPPET_COVERAGE = 0.8
# A snippet is a copy of its abstract's opening: with its math rendered and its split words joined, it differs by
# next to nothing. One word in ten otherwise is an abstract reused and edited for another paper (a poster, an
# extended version by the same authors): without an author or year to confirm it, it is not taken.
_UNCONFIRMED_ABSTRACT_SIMILARITY = 0.95
#: The score of a match without independent evidence: listed as closest, never taken.
UNCONFIRMED = 0.8
# Metadata fields a resolver may give; the snippet text itself stays the abstract.
METADATA_FIELDS = tuple(
    "title author year month booktitle journal volume number pages publisher howpublished doi eprint archiveprefix "
    "primaryclass url".split()
)

_KEEP_GIVEN = frozenset({"doi", "eprint", "archiveprefix"})


@dataclass(frozen=True)
class Candidate:
    paper: Paper
    score: float
    method: str
    source: str
    retrieved: str = ""

    @property
    def label(self) -> str:
        return self.paper.key or normalize(self.paper.title or "")[:40]


class Resolver(Protocol):
    name: str
    #: False when the last lookup got no answer to judge (the service unreachable, failing or skipped).
    answered: bool

    def lookup(self, paper: Paper) -> list[Candidate]:
        """Scored candidates for ``paper``, best first; never raises for a bad answer."""


class CatalogResolver:
    """Resolves against papers with known metadata (the bundled catalog, a user's .bib)."""

    def __init__(self, papers: Iterable[Paper], name: str = "catalog"):
        self.name = name
        self.answered = True
        self.papers = tuple(papers)
        self._by_id: dict[str, list[int]] = {}
        self._by_title: dict[str, list[int]] = {}
        self._by_shingle: dict[tuple[str, ...], list[int]] = {}
        for index, paper in enumerate(self.papers):
            for identity in identifier_keys(paper):
                self._by_id.setdefault(identity, []).append(index)
            if paper.title:
                self._by_title.setdefault(normalize_any_script(paper.title), []).append(index)
            if paper.abstract:
                for shingle in shingles(abstract_words(paper.abstract)[:80]):
                    self._by_shingle.setdefault(shingle, []).append(index)
        self._sorted_titles = sorted(self._by_title)  # for prefix look-ups of titles cut short

    def _titles_starting_with(self, prefix: str) -> list[str]:
        start = bisect_left(self._sorted_titles, prefix)
        found = []
        for title in self._sorted_titles[start:]:
            if not title.startswith(prefix):
                break
            found.append(title)
        return found

    def lookup(self, paper: Paper) -> list[Candidate]:
        found: set[int] = set()
        for identity in identifier_keys(paper):
            found.update(self._by_id.get(identity, ()))
        if paper.title:
            title = normalize_any_script(paper.title)
            found.update(self._by_title.get(title, ()))
            if paper.truncated and len(title) >= _MIN_PREFIX_CHARS:
                found.update(i for full in self._titles_starting_with(title) for i in self._by_title[full])
        if paper.abstract:
            words = abstract_words(paper.abstract)
            shared = Counter(i for s in shingles(words[:80]) for i in self._by_shingle.get(s, ()))
            found.update(i for i, _ in shared.most_common(5))
        as_title = title_query(paper)
        titled = set(self._title_matches(as_title)) if as_title else set()
        candidates = []
        for index in found | titled:
            score, method = score_match(paper, self.papers[index]) if index in found else (0.0, "")
            if as_title is not None and index in titled:
                # A list of titles, one per line: the line is compared as the title it is, by the title rules.
                title_score, title_method = score_match(as_title, self.papers[index])
                if title_score > score:
                    score, method = title_score, SNIPPET_TITLE + title_method
            if score >= REPORT:
                candidates.append(Candidate(self.papers[index], score, method, self.name))
        return sorted(candidates, key=lambda c: (-c.score, c.label))

    def _title_matches(self, query: Paper) -> list[int]:
        title = normalize_any_script(strip_truncation(query.title or "") if query.truncated else query.title or "")
        indices = list(self._by_title.get(title, ()))
        if query.truncated and len(title) >= _MIN_PREFIX_CHARS:
            indices.extend(i for full in self._titles_starting_with(title) for i in self._by_title[full])
        return indices


#: The method prefix of a snippet matched as a title: the snippet was the title, so it is not kept as the abstract.
SNIPPET_TITLE = "snippet-as-"
# A snippet that may be a title: a line's worth of words, not a run of sentences.
_TITLE_MAX_WORDS = 30
_TITLE_MIN_WORDS = 4


def title_query(paper: Paper) -> Paper | None:
    """A snippet with no title that reads as a title (short, one sentence at most), as a query with that title."""
    text = paper.abstract or ""
    words = text.split()
    if paper.title or paper.origin is not Origin.SNIPPET or not _TITLE_MIN_WORDS <= len(words) <= _TITLE_MAX_WORDS:
        return None
    # A full stop inside: sentences of an abstract. A question is often a title's first half ("Where Should I
    # Comment My Code? A Dataset and Model ..."), and a title match is strict enough not to take a sentence.
    if any(word.endswith((".", "!")) and not word.endswith("...") for word in words[:-1]):
        return None
    if len(normalize(strip_truncation(text))) < _MIN_PREFIX_CHARS:
        return None
    title = text.rstrip(".") if not paper.truncated else text
    fields = {name: value for name, value in paper.fields.items() if name != "abstract"}
    return replace(paper, fields=frozen_mapping({**fields, "title": title}))


def _is_record(paper: Paper) -> bool:
    """Whether ``paper`` carries bibliographic data of its own, not just text that may echo the query."""
    return names_first_author(paper) or (paper.year or "")[:4].isdigit()


def identifier_keys(paper: Paper) -> list[str]:
    """The paper's DOI and arXiv identities (``doi:...``, ``arxiv:...``), as de-duplication sees them."""
    return [i for i in identities(paper) if i.startswith(("doi:", "arxiv:"))]


def _shared_identifier(a: Paper, b: Paper) -> str | None:
    ids_a = set(identifier_keys(a))
    return next((i.split(":")[0] for i in identifier_keys(b) if i in ids_a), None)


def score_match(query: Paper, found: Paper) -> tuple[float, str]:
    """How sure we are that ``found`` is the paper ``query`` describes (0..1), and why.

    One rule for every resolver: first authors and years must not disagree; then
    a shared DOI or arXiv id, the title (exact, near-exact, or the prefix a
    truncated title is of) or the snippet against the abstract decides.
    """
    if not agree(query, found):
        return 0.0, "disagrees"
    title_score = 0.0
    method = ""
    if query.title and found.title:
        # In every script: 基于BERT的文本分类 is not the paper titled BERT.
        asked, known = (
            normalize_any_script(strip_truncation(query.title) if query.truncated else query.title),
            normalize_any_script(found.title),
        )
        if query.truncated:
            if len(asked) >= _MIN_PREFIX_CHARS and len(asked.split()) >= 3 and known.startswith(asked):
                title_score, method = 0.9 + 0.1 * len(asked) / len(known), "title-prefix"
                long_enough = len(asked.split()) >= _UNCONFIRMED_PREFIX_WORDS and len(
                    asked
                ) >= _UNCONFIRMED_PREFIX_SHARE * len(known)
                if not long_enough and not confirmed(query, found):
                    title_score = min(title_score, UNCONFIRMED)
        elif asked == known:
            title_score, method = 1.0, "title"
        else:
            title_score = SequenceMatcher(None, asked.split(), known.split(), autojunk=False).ratio()
            method = "title-similar"
            # A word or two more or less is often another work (": A Survey", "Is Not All You Need").
            if not confirmed(query, found, same_year=True):
                title_score = min(title_score, UNCONFIRMED)
    identifier = _shared_identifier(query, found)
    if identifier:
        # A DOI can be mistyped: with a title to compare, it must not name another paper.
        if query.title and not query.truncated and title_score < 0.6:
            return 0.0, f"{identifier}-but-other-title"
        return 1.0, identifier
    abstract_score = 0.0
    if query.abstract and found.abstract:
        asked_words, known_words = abstract_words(query.abstract), abstract_words(found.abstract)
        asked_words = rejoin_split_words(asked_words, frozenset(known_words))
        abstract_score, start = aligned_similarity(asked_words, known_words, strip_truncation(found.abstract))
        # The comparison covers only the shorter text: a found abstract that is a mere opening of the
        # snippet, or that comes without authors or year, needs a confirming author or year.
        covered = min(len(known_words) - start, len(asked_words)) >= _MIN_SNIPPET_COVERAGE * len(asked_words)
        copied = abstract_score >= _UNCONFIRMED_ABSTRACT_SIMILARITY
        if not (covered and copied and _is_record(found)) and not confirmed(query, found):
            abstract_score = min(abstract_score, UNCONFIRMED)
    if abstract_score > title_score:
        return round(abstract_score, 4), "abstract"
    return round(title_score, 4), method


def needs_resolution(paper: Paper) -> bool:
    return not paper.resolved


def apply_candidate(paper: Paper, candidate: Candidate) -> Paper:
    """``paper`` with the metadata of ``candidate``; the text the user gave is kept."""
    fields = dict(paper.fields)
    if candidate.method.startswith(SNIPPET_TITLE):
        del fields["abstract"]  # the snippet was the paper's title, which the candidate gives
    taken = []
    for name in METADATA_FIELDS:
        value = candidate.paper.fields.get(name)
        # Identifiers the user wrote stay as written (an arXiv version, a DOI's case).
        if name in _KEEP_GIVEN and paper.fields.get(name):
            continue
        if value and name not in paper.latex_fields:
            fields[name] = value
            taken.append(name)
    if "abstract" not in fields and candidate.paper.abstract:
        fields["abstract"] = candidate.paper.abstract
        taken.append("abstract")
    resolution = Resolution(
        candidate.source, candidate.label, candidate.method, candidate.score, tuple(taken), candidate.retrieved
    )
    latex = paper.latex_fields
    known = candidate.paper.latex_fields.get("author", "")
    if "author" in taken and names_with_corporate(known):
        # Only the braces say that {Microsoft Research} is one name: written without them it is a person's.
        latex = frozen_mapping({**latex, "author": known})
    return replace(
        paper,
        fields=frozen_mapping(fields),
        latex_fields=latex,
        entry_type=candidate.paper.entry_type,
        resolution=resolution,
    )


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
                "ambiguous-match",
                Severity.WARNING,
                f"several papers match equally well: {names}; none was taken",
                min(paper.sources),
                "add the DOI or arXiv id of the right one to a .bib or id list",
            )
        weak.extend(c for c in candidates if c.score >= REPORT)
    online = [r for r in resolvers if not isinstance(r, CatalogResolver)]
    hint = _unresolved_hint(paper, bool(online), unanswered=bool(online) and not any(r.answered for r in online))
    if weak:
        best = sorted(weak, key=lambda c: -c.score)[:3]
        hint = "closest: " + ", ".join(f"{c.label} ({c.score:.2f})" for c in best) + "; " + hint
    what = "snippet" if paper.origin is Origin.SNIPPET else paper.origin.value
    return paper, Finding(
        "unresolved-entry",
        Severity.WARNING,
        f"{what} could not be matched to a paper; kept as a placeholder",
        min(paper.sources),
        hint,
    )


def _unresolved_hint(paper: Paper, asked_online: bool, unanswered: bool) -> str:
    if unanswered:  # no service could be asked: the entry is not at fault
        return "no service answered for it (see the resolver errors); run with --online again once they can be reached"
    if paper.origin is Origin.IDENTIFIER:  # a line of an id list is nothing but its DOI or arXiv id
        fetch = "run resolve or build with --online to fetch its record"
        return "check the identifier for a typo" if asked_online else fetch
    return "add its DOI or arXiv id" + ("" if asked_online else ", or run resolve or build with --online")
