"""Which record is surely an entry's own paper, in the version the entry cites: for ``complete.py``.

The never-the-wrong-paper rule of resolution, made stricter: a shared DOI or arXiv id, or the same
title (ignoring case, accents, punctuation and spacing) with the first author or the year
confirming it; and of that paper, the version of the entry's kind of venue, not another.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

from surveytool.analysis.agreement import confirmed, years_agree
from surveytool.analysis.preprints import arxiv_id, is_preprint
from surveytool.analysis.resolve.resolver import REPORT, Candidate, Resolver
from surveytool.model import Finding, Paper, Severity, frozen_mapping
from surveytool.text.identifiers import normalize_arxiv, normalize_doi
from surveytool.text.normalize import normalize, normalize_any_script

#: The field that names the venue of a type of entry.
VENUE_FIELD = {
    "article": "journal",
    "inproceedings": "booktitle",
    "incollection": "booktitle",
    "conference": "booktitle",
}


def _title_letters(title: str) -> str:
    """A title's letters and digits as resolving and merging compare titles (``normalize_any_script``): in any
    script where ASCII ones are not all, so "基于BERT的文本分类" and "基于BERT的命名实体识别" are two papers."""
    return "".join(normalize_any_script(title).split())


def _same_title(a: Paper, b: Paper) -> bool:
    """The same title, but for case, accents, punctuation and spacing."""
    letters = _title_letters(a.title or "")
    return bool(letters) and letters == _title_letters(b.title or "")


def acceptable(query: Paper, candidate: Candidate) -> bool:
    """A shared identifier (scored against the title already), or the same title confirmed by author or year."""
    if candidate.score <= 0:
        return False
    return candidate.method in ("doi", "arxiv") or (
        _same_title(query, candidate.paper) and confirmed(query, candidate.paper)
    )


def kind_of_venue(entry_type: str) -> str:
    """The kind of venue of a type of entry (its venue field): "" for one that names none (@misc, @book)."""
    return VENUE_FIELD.get(entry_type, "")


def same_version(a: Paper, b: Paper) -> bool:
    """Two records of one publication: the same kind of venue, no two DOIs, years that agree."""
    doi_a, doi_b = normalize_doi(a.fields.get("doi", "")), normalize_doi(b.fields.get("doi", ""))
    return (
        kind_of_venue(a.entry_type) == kind_of_venue(b.entry_type)
        and not (doi_a and doi_b and doi_a != doi_b)
        and years_agree(a, b)
    )


# Words of many venues' names: two names that share only these name two venues.
_VENUE_WORDS = frozenset(
    "the of on in and for proceedings proc conference conf international intl journal transactions trans "
    "workshop symposium annual acm ieee advances letters review reviews research".split()
)


def _venue_words(paper: Paper) -> set[str]:
    return set(normalize(paper.venue).split()) - _VENUE_WORDS


def _share_a_word(a: set[str], b: set[str]) -> bool:
    """Whether a word of ``a`` and one of ``b`` begin alike: an abbreviation ("mach", "machine"), an acronym
    and its name ("neurips", "neural"), the same word."""
    return any(len(os.path.commonprefix([x, y])) >= min(4, len(x), len(y)) for x in a for y in b)


def other_version(a: Paper, b: Paper) -> str:
    """Why the user's entry ``a`` and a record ``b`` are two versions of a work (two DOIs, years or venues),
    or ""."""
    doi_a, doi_b = normalize_doi(a.fields.get("doi", "")), normalize_doi(b.fields.get("doi", ""))
    if doi_a and doi_b and doi_a != doi_b:
        return f"its DOI is {doi_b}"
    if not years_agree(a, b):
        return f"its year is {b.year}"
    words_a, words_b = (set() if is_preprint(p) else _venue_words(p) for p in (a, b))
    if words_a and words_b and not _share_a_word(words_a, words_b):
        return "it names another venue"
    return ""


def pick_record(
    paper: Paper, query: Paper, candidates: Sequence[Candidate], family: str
) -> tuple[Candidate | None, Finding | None]:
    """The one published record among ``candidates`` that is surely ``query``'s paper, of the ``family`` of
    venue (any, when empty), or why there is none."""
    venue_family = [
        c
        for c in candidates
        if acceptable(query, c)
        and not is_preprint(c.paper)
        and kind_of_venue(c.paper.entry_type) in ((family,) if family else ("journal", "booktitle"))
    ]
    # The entry's own version only: a record of another (another DOI or venue) would mix two citations.
    published = [c for c in venue_family if not family or not other_version(paper, c.paper)]
    where = min(paper.sources)
    if published and all(same_version(published[0].paper, c.paper) for c in published[1:]):
        return published[0], None
    if published:
        names = ", ".join(f"{c.label} ({c.paper.entry_type})" for c in published[:3])
        return None, Finding(
            "ambiguous-match",
            Severity.INFO,
            f"{published[0].source}: several versions match: {names}; none was taken",
            where,
            "add the DOI of the right one",
            paper.key,
        )
    if venue_family:
        best = venue_family[0]
        said = f"is another version of this paper ({other_version(paper, best.paper)}); nothing was taken from it"
        hint = "complete the entry from its own version, or use that version's DOI"
        return None, _not_completed(paper, best, said, hint)
    other_kind = [c for c in candidates if acceptable(query, c) and not is_preprint(c.paper)]
    if other_kind:  # the paper, published as another kind of work: a journal article for a proceedings entry
        best = other_kind[0]
        said = f"is this paper as @{best.paper.entry_type}, not @{paper.entry_type}; nothing was taken from it"
        return None, _not_completed(paper, best, said, "if that is the version you cite, change the entry type")
    rejected = [c for c in candidates if c.score >= REPORT and not acceptable(query, c) and not is_preprint(c.paper)]
    if rejected:
        best = rejected[0]
        said = f"({best.method} {best.score:.2f}) was not taken: not surely the same paper"
        return None, _not_completed(paper, best, said, "add its DOI or arXiv id if it is the same paper")
    return None, None


# Types that do not say where a work appeared, and fields that say what else it is (a web page, software).
_NOT_SAYING = ("misc", "unpublished")
_SAYING_OTHERWISE = ("howpublished", "url", "publisher", "institution", "organization")


def may_be_a_paper(paper: Paper) -> bool:
    """A @misc or @unpublished with authors and nothing that says it is something else: worth looking up (online
    too) to tell the user it is a published paper."""
    return (
        paper.entry_type in _NOT_SAYING
        and bool(paper.fields.get("author", "").strip())
        and not any(paper.fields.get(name, "").strip() for name in _SAYING_OTHERWISE)
    )


def published_as(paper: Paper, resolvers: Sequence[Resolver]) -> list[Finding]:
    """Why nothing is taken for ``paper`` (``may_be_a_paper``) when a record surely of its paper is published."""
    query = query_of(paper)
    for resolver in resolvers:
        for candidate in resolver.lookup(query):
            if (
                acceptable(query, candidate)
                and not is_preprint(candidate.paper)
                and kind_of_venue(candidate.paper.entry_type)
            ):
                kind = candidate.paper.entry_type
                said = f"is this paper as @{kind}; nothing is taken for a @{paper.entry_type}"
                hint = f"if that is the version you cite, make the entry @{kind} and complete it again"
                return [_not_completed(paper, candidate, said, hint)]
    return []


def _not_completed(paper: Paper, record: Candidate, said: str, hint: str) -> Finding:
    return Finding(
        "not-completed", Severity.INFO, f"{record.source}: {record.label} {said}", min(paper.sources), hint, paper.key
    )


def query_of(paper: Paper) -> Paper:
    """``paper`` as it is looked up: with its arXiv id as ``eprint`` when only its venue text or URL gives it."""
    arxiv = arxiv_id(paper)
    if arxiv and not normalize_arxiv(paper.fields.get("eprint", "")):
        return replace(paper, fields=frozen_mapping({**paper.fields, "eprint": arxiv}))
    return paper
