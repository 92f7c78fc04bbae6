"""De-duplication: records of one work become one paper. Linear in the input.

Identities are hash keys (DOI, arXiv id, normalized title, snippet
fingerprint, a short title with its authors and year); only records in the
same bucket are compared. They merge when nothing they state disagrees
(``merge_evidence.py``), checked for every pair of a merged group, so a
chain of look-alikes never joins works that differ. The user's own keyed
entries are reported, not merged, unless merging is asked for.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence

from surveytool.analysis.first_author import AuthorName, author_name, first_givens_agree, same_author
from surveytool.analysis.key_authors import names_of
from surveytool.analysis.merge_evidence import NEAR_WORDS, SNIPPET_WORDS, abstracts_agree
from surveytool.analysis.merge_groups import PairwiseGroups
from surveytool.analysis.preprints import arxiv_id, preprint_marker
from surveytool.analysis.tagging.user_tags import tag_locations
from surveytool.bibtex.crossref import with_lent_fields
from surveytool.model import Finding, Origin, Paper, SourceLocation, frozen_mapping, year_of
from surveytool.text.identifiers import arxiv_id_of_doi, normalize_arxiv, normalize_doi
from surveytool.text.normalize import normalize, normalize_any_script, opening_words, shingles

_MIN_TITLE_WORDS = 3
_NEAR_CANDIDATES = 3
_MIN_SHARED_SHINGLES = 3
_MAX_POSTINGS = 50  # a four-word run in more abstracts than this is boilerplate, not evidence
_MAX_BUCKET = 64  # records compared within one identity's bucket
# Origins whose metadata is preferred when merging, best first.
_ORIGIN_RANK = {Origin.BIBTEX: 0, Origin.CSL_JSON: 1, Origin.IDENTIFIER: 2, Origin.ANCHOR: 3, Origin.SNIPPET: 4}


def identities(paper: Paper, title_words: Callable[[str], str] = normalize_any_script) -> list[str]:
    """The hash keys under which ``paper`` is the same work as another paper (``title_words``: how its title is
    compared: ``normalize``, ASCII words only, gives the identities older lock files pin a paper under)."""
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
    short = ""
    if title and (paper.resolution is not None or not paper.truncated):
        normalized = title_words(title)  # words separated by single spaces
        if normalized.count(" ") >= _MIN_TITLE_WORDS - 1:
            keys.append("title:" + normalized)
        elif normalized:
            short = short_title_identity(paper, normalized)
    fingerprint = snippet_fingerprint(paper)
    if fingerprint:
        keys.append("snippet:" + fingerprint)
    if short:
        keys.append(short)
    return keys


def short_title_identity(paper: Paper, normalized_title: str) -> str:
    """A title too short to identify a work alone ("Layer normalization"), with every author's surname and the year."""
    year = year_of(paper.year)
    if not year or not paper.authors:
        return ""
    surnames = ",".join(
        normalize(name.split(",")[0] if "," in name else (name.split() or [""])[-1]) for name in paper.authors
    )
    return f"short:{normalized_title}|{surnames}|{year}"


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
    words = opening_words(abstract, SNIPPET_WORDS)
    if len(words) < 8:
        return None
    return hashlib.sha1(" ".join(words).encode()).hexdigest()[:12]


def merge_duplicates(
    papers: Sequence[Paper],
    identities_of: Callable[[Paper], list[str]] = identities,
    *,
    merge_user_entries: bool = False,
) -> list[Paper]:
    """One paper per work, in the order of each work's first appearance (see ``merge_records``)."""
    return merge_records(papers, identities_of, merge_user_entries=merge_user_entries)[0]


def merge_records(
    papers: Sequence[Paper],
    identities_of: Callable[[Paper], list[str]] = identities,
    *,
    merge_user_entries: bool = False,
) -> tuple[list[Paper], list[Finding]]:
    """One paper per work, and findings about records that look alike but were kept apart.

    Records sharing an identity are candidates; they merge only when nothing
    they state disagrees, for every pair of the merged group. Two keyed entries
    of the user's .bib merge only with ``merge_user_entries`` (or when one is an
    identical copy of the other under the same key); otherwise they are
    reported as ``duplicate-entry``. Records sharing an id or abstract but
    disagreeing are reported as ``suspicious-duplicate-id``, and so is a record
    that matches two works which disagree (a snippet cut before the words that
    tell two papers apart): it joins neither (see ``PairwiseGroups.join_all``).
    """
    # Compared as BibTeX reads them: a crossref child has its proceedings' booktitle and year.
    groups = PairwiseGroups(with_lent_fields(papers), merge_user_entries)
    candidates: list[tuple[int, int, str]] = []  # records sharing an identity, in the order they are found
    first_holder: dict[str, int] = {}
    holders: dict[str, list[int]] = {}  # only identities held twice or more: most are held once
    for index, paper in enumerate(papers):
        for identity in identities_of(paper):
            first = first_holder.setdefault(identity, index)
            if first == index:
                continue
            others = holders.get(identity)
            if others is None:
                others = holders[identity] = [first]
            if len(others) <= _MAX_BUCKET:  # a bucket larger than this is boilerplate, not evidence
                candidates.extend((other, index, identity) for other in others)
            others.append(index)
    candidates.extend(_near_duplicate_abstracts(papers))
    groups.join_all(candidates)
    merged = [
        merge_group([papers[i] for i in members]) if len(members) > 1 else papers[members[0]]
        for members in groups.in_order()
    ]
    return merged, groups.findings


def _near_duplicate_abstracts(papers: Sequence[Paper]) -> list[tuple[int, int, str]]:
    """Pairs of abstracts that agree word for word but for small edits or a different cut.

    Candidates come from shared four-word runs (a hash index), so each abstract
    is compared with a handful of others, never with all of them.
    """
    pairs: list[tuple[int, int, str]] = []
    words: dict[int, list[str]] = {}
    postings: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for index, paper in enumerate(papers):
        abstract = paper.fields.get("abstract")
        if abstract and paper.origin is not Origin.BIBTEX:
            words[index] = opening_words(abstract, NEAR_WORDS)
            for shingle in shingles(words[index]):
                postings[shingle].append(index)
    for index, own in words.items():
        shared = Counter(
            other for s in shingles(own) if len(postings[s]) <= _MAX_POSTINGS for other in postings[s] if other > index
        )
        for other, count in shared.most_common(_NEAR_CANDIDATES):
            if count >= _MIN_SHARED_SHINGLES and abstracts_agree(own, words[other]):
                pairs.append((index, other, "snippet:near"))
    return pairs


# Fields that say which version of a work a record describes (where and when it appeared, its DOI):
# taken together from one record, so that a merged entry never cites the preprint with the journal's volume.
_VERSION_FIELDS = frozenset(
    {
        *("journal", "journaltitle", "booktitle", "volume", "number", "issue", "pages", "eid", "doi"),
        *("publisher", "organization", "institution", "school", "series", "edition", "address", "location"),
        *("year", "month", "date", "howpublished", "issn", "isbn"),
    }
)


def _venue(paper: Paper) -> str:
    """The venue a record states, normalized ("" when it states none)."""
    return normalize(paper.venue)


def merge_group(group: Sequence[Paper]) -> Paper:
    """Several records of one work (in the order they were read) as one paper: the best metadata, every
    source and key."""
    # The published version (a venue other than a preprint server) is preferred, then the first read.
    ranked = sorted(
        group,
        key=lambda p: (_ORIGIN_RANK[p.origin], p.resolution is None, not _venue(p) or preprint_marker(p) is not None),
    )
    best = ranked[0]
    fields = dict(best.fields)
    latex = dict(best.latex_fields)
    venue = _venue(best)
    for other in ranked[1:]:
        # Where and when it appeared comes from one version: the best record's, else the first that says.
        other_venue = _venue(other)
        same_version = not other_venue or not venue or other_venue == venue
        venue = venue or other_venue
        for name, value in other.fields.items():
            if name in _VERSION_FIELDS and not same_version:
                continue
            if name not in fields or (name == "abstract" and len(value) > len(fields[name])):
                fields[name] = value
                if name in other.latex_fields:
                    latex[name] = other.latex_fields[name]
                else:
                    latex.pop(name, None)
    _take_fuller_names(fields, latex, ranked)
    _keep_arxiv_id(fields, latex, ranked)
    keys = {p.key for p in ranked if p.key} | {a for p in ranked for a in p.aliases}
    # The entry read first keeps its key, so that \cite{key} still means what it meant in the user's file.
    keyed = sorted((p for p in group if p.key), key=lambda p: _ORIGIN_RANK[p.origin])
    key = keyed[0].key if keyed else ""
    explicit = tuple(dict.fromkeys(t for p in ranked for t in p.explicit_tags))
    _merge_ids(fields, latex, ranked, key)
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
        tag_places=_tag_places(ranked),
        aliases=tuple(sorted(keys - {key})),
    )


def _take_fuller_names(fields: dict[str, str], latex: dict[str, str], ranked: Sequence[Paper]) -> None:
    """The fullest author and editor lists of the group: the best version may abbreviate them ("Narayanan, D. and
    others") where another record writes every name in full. Only a list that names the same people in the
    same order, and then perhaps more, replaces the kept one."""
    for field in ("author", "editor"):
        kept = ranked[0]
        for other in ranked[1:]:
            if field in fields and other.fields.get(field) and _fuller(other, kept, field):
                kept = other
        if kept is not ranked[0] and fields.get(field) != kept.fields[field]:
            fields[field] = kept.fields[field]
            if field in kept.latex_fields:
                latex[field] = kept.latex_fields[field]
            else:
                latex.pop(field, None)


def _fuller(candidate: Paper, kept: Paper, field: str) -> bool:
    """Whether ``candidate``'s name list says all ``kept``'s does, and more: more names, or longer given names."""
    theirs, their_etal = names_of(candidate.fields.get(field, ""), candidate.latex_fields.get(field, ""))
    ours, our_etal = names_of(kept.fields.get(field, ""), kept.latex_fields.get(field, ""))
    if len(theirs) < len(ours) or len(theirs) > len(ours) and not our_etal or their_etal and not our_etal:
        return False  # a shorter list, or one that names people the kept list says are all there is
    people = [(author_name(*a), author_name(*b)) for a, b in zip(theirs, ours, strict=False)]
    if not all(a and b and same_author(a, b) and _givens_agree(a, b) for a, b in people):
        return False
    return len(theirs) > len(ours) or sum(len(g) for a, _ in people for g in a.given_words) > sum(
        len(g) for _, b in people for g in b.given_words
    )


def _givens_agree(a: AuthorName, b: AuthorName) -> bool:
    # An initial agrees with any name it begins; a name without a given name with any.
    return not a.first_given or not b.first_given or first_givens_agree(a, b)


def _keep_arxiv_id(fields: dict[str, str], latex: dict[str, str], ranked: Sequence[Paper]) -> None:
    """The preprint's arXiv id, as eprint, when the kept version does not say it: a Google Scholar preprint writes
    it only in its journal ("arXiv preprint arXiv:1806.03377"), a field the published version replaces."""
    if fields.get("eprint") or arxiv_id(ranked[0]):
        return
    found = next((i for i in (arxiv_id(p) for p in ranked[1:]) if i), None)
    if found:
        fields["eprint"] = found
        latex.pop("eprint", None)
        if not fields.get("archiveprefix") and not fields.get("eprinttype"):
            fields["archiveprefix"] = "arXiv"
            latex.pop("archiveprefix", None)


def _tag_places(ranked: Sequence[Paper]) -> Mapping[str, tuple[SourceLocation, ...]]:
    """Each tag of merged records, where each record that has it wrote it (in the order they rank)."""
    places: dict[str, tuple[SourceLocation, ...]] = {}
    for paper in ranked:
        for tag in paper.explicit_tags:
            places[tag] = tuple(dict.fromkeys((*places.get(tag, ()), *tag_locations(paper, tag))))
    return frozen_mapping(places)


def _merge_ids(fields: dict[str, str], latex: dict[str, str], ranked: Sequence[Paper], key: str) -> None:
    """biblatex's ids of every record (each key a user kept citable), never the merged entry's own key."""
    ids = [i for i in dict.fromkeys(k.strip() for p in ranked for k in p.fields.get("ids", "").split(",")) if i]
    ids = [i for i in ids if i != key]
    if ids == [k.strip() for k in fields.get("ids", "").split(",") if k.strip()]:
        return
    latex.pop("ids", None)
    if ids:
        fields["ids"] = ",".join(ids)
    else:
        fields.pop("ids", None)
