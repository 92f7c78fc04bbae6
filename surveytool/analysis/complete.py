"""Completing a user's own entries: missing fields from a record that is surely the same paper.

A record is taken only by the never-the-wrong-paper rule of resolution, made stricter: a shared
DOI or arXiv id, or the same title (ignoring case, accents, punctuation and spacing) with the
first author or the year confirming it. A similar title is never enough. A field the user wrote
is never replaced unless asked (``overwrite``); a preprint (an arXiv id, with no venue but the
preprint server) is upgraded to its published version: its type becomes the published one, the
field that named the server names the venue instead, and the arXiv id stays as ``eprint``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from surveytool.analysis.agreement import confirmed, years_agree
from surveytool.analysis.preprints import arxiv_id, is_preprint, names_a_server, preprint_marker
from surveytool.analysis.resolve.resolver import REPORT, Candidate, Resolver
from surveytool.model import Finding, Paper, Severity, frozen_mapping
from surveytool.text.identifiers import arxiv_id_of_doi, normalize_arxiv, normalize_doi
from surveytool.text.normalize import normalize

#: The fields `complete` fills, in the order they are written.
COMPLETED_FIELDS = ("journal", "booktitle", "year", "volume", "number", "pages", "publisher", "doi", "url")
_WRITING_ORDER = {name: index for index, name in enumerate(COMPLETED_FIELDS)}  # the preprint's eprint after them
VENUE_FIELD = {
    "article": "journal",
    "inproceedings": "booktitle",
    "incollection": "booktitle",
    "conference": "booktitle",
}


@dataclass(frozen=True)
class FieldChange:
    name: str  # a field, or "type" for the entry type
    old: str  # "" when the field is added
    new: str
    source: str  # the service or catalog
    record: str  # the record's id there

    def __str__(self) -> str:
        what = f"added {self.name} = {self.new}" if not self.old else f"{self.name} {self.old} -> {self.new}"
        if " -> " in self.name:  # a field that takes another's place
            before, after = self.name.split(" -> ")
            what = f"{before} = {self.old} -> {after} = {self.new}"
        return f"{what} ({self.source} {self.record})"


@dataclass(frozen=True)
class Completion:
    paper: Paper  # the entry as read
    values: tuple[tuple[str, str], ...]  # (field, plain value) to write, in COMPLETED_FIELDS order
    changes: tuple[FieldChange, ...]
    entry_type: str | None = None  # the published version's type, when a preprint is upgraded
    renamed: tuple[str, str] | None = None  # (field that named the preprint server, venue field in its place)
    notes: tuple[str, ...] = ()  # what was found but not written, and how to have it written


# A value found, and where: (value, source, record).
_Taken = tuple[str, str, str]
#: Why a record's field must not be taken for an entry: (entry, record, field) -> a finding, or None to take it.
Refusal = Callable[[Paper, Candidate, str], Finding | None]


# biblatex's names for the same fields.
_SAME_AS = {"journal": ("journaltitle",), "year": ("date",)}
# Fields a crossref or xdata parent gives its children: never added to a child.
_INHERITED = frozenset({"journal", "booktitle", "year", "volume", "publisher"})
# DBLP's volume for an arXiv copy in CoRR: the preprint's, not a publication's.
_CORR_VOLUME = re.compile(r"^abs/")


def _is(name: str, field: str | None) -> bool:
    """Whether ``field`` is ``name`` or biblatex's name for it."""
    return field is not None and (field == name or field in _SAME_AS.get(name, ()))


def has_field(paper: Paper, name: str) -> bool:
    return any(paper.fields.get(n, "").strip() for n in (name, *_SAME_AS.get(name, ())))


def _written(paper: Paper, name: str) -> str:
    """A field's value as the user wrote it (without its outer braces or quotes), for reports."""
    latex = paper.latex_fields.get(name, "")
    if len(latex) >= 2 and (latex[0], latex[-1]) in (("{", "}"), ('"', '"')):
        return latex[1:-1]
    return latex or paper.fields.get(name, "")


def _same_title(a: Paper, b: Paper) -> bool:
    x, y = normalize(a.title or ""), normalize(b.title or "")
    return bool(x) and (x == y or x.replace(" ", "") == y.replace(" ", ""))


def acceptable(query: Paper, candidate: Candidate) -> bool:
    """A shared identifier (scored against the title already), or the same title confirmed by author or year."""
    if candidate.score <= 0:
        return False
    return candidate.method in ("doi", "arxiv") or (
        _same_title(query, candidate.paper) and confirmed(query, candidate.paper)
    )


def _family(entry_type: str) -> str:
    return VENUE_FIELD.get(entry_type, "")


def same_version(a: Paper, b: Paper) -> bool:
    """Two records of one publication: the same kind of venue, no two DOIs, years that agree."""
    doi_a, doi_b = normalize_doi(a.fields.get("doi", "")), normalize_doi(b.fields.get("doi", ""))
    return (
        _family(a.entry_type) == _family(b.entry_type)
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


def _pick(
    paper: Paper, query: Paper, candidates: Sequence[Candidate], family: str
) -> tuple[Candidate | None, Finding | None]:
    """The one published record among ``candidates`` that is surely ``query``'s paper, of the ``family`` of
    venue (any, when empty), or why there is none."""
    venue_family = [
        c
        for c in candidates
        if acceptable(query, c)
        and not is_preprint(c.paper)
        and _family(c.paper.entry_type) in ((family,) if family else ("journal", "booktitle"))
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


def complete_entry(
    paper: Paper, resolvers: Sequence[Resolver], overwrite: Collection[str] = (), refuse: Refusal | None = None
) -> tuple[Completion | None, list[Finding]]:
    """What the resolvers, asked in order, add to ``paper`` (None: nothing), and what stood in the way
    (``refuse``: why a record's field is not taken; a later resolver may still give that field)."""
    upgrading = is_preprint(paper)
    if not paper.title or not (upgrading or _family(paper.entry_type)):
        return None, []
    marker = preprint_marker(paper) if upgrading else None
    preprint_doi = bool(arxiv_id_of_doi(paper.fields.get("doi", "")))

    corr_volume = bool(_CORR_VOLUME.match(paper.fields.get("volume", "")))
    server_publisher = names_a_server(paper.fields.get("publisher", ""))  # arXiv's own export: publisher = {arXiv}

    def wanted(name: str) -> bool:
        if name in _INHERITED and ("crossref" in paper.fields or "xdata" in paper.fields):
            return False
        if name in overwrite or not has_field(paper, name):
            return True
        return upgrading and (
            _is(name, marker)
            or (name == "doi" and preprint_doi)
            or (name == "volume" and corr_volume)
            or (name == "publisher" and server_publisher)
        )

    if not upgrading and not any(wanted(n) for n in COMPLETED_FIELDS):
        return None, []
    query = query_of(paper)
    findings: list[Finding] = []
    chosen: Candidate | None = None
    taken: dict[str, _Taken] = {}
    notes: list[str] = []
    for resolver in resolvers:
        candidate, finding = _pick(paper, query, resolver.lookup(query), "" if upgrading else _family(paper.entry_type))
        findings += [finding] if finding else []
        if candidate is None or (chosen is not None and not same_version(chosen.paper, candidate.paper)):
            continue
        chosen = chosen or candidate
        # A service that dates a work by its first version (often the preprint) gives no year to write.
        first_dated = getattr(resolver, "dates_first_version", False)
        published_year = "" if first_dated else candidate.paper.year or ""
        if upgrading and not wanted("year") and paper.year and published_year not in ("", paper.year) and not notes:
            notes.append(
                f"year {paper.year} kept; the published version's is {published_year} "
                f"({candidate.source} {candidate.label}); --overwrite year takes it"
            )
        venue = VENUE_FIELD[chosen.paper.entry_type if upgrading else paper.entry_type]
        other = "booktitle" if venue == "journal" else "journal"
        for name in COMPLETED_FIELDS:
            value = candidate.paper.fields.get(name, "")
            if name == other or name in taken or not value or not wanted(name) or (name == "year" and first_dated):
                continue
            if name == venue and has_field(paper, other) and not _is(other, marker):
                continue  # never an entry with both a journal and a booktitle
            written = paper.fields.get(name, "")
            if has_field(paper, name) and not _is(name, marker) and normalize(written) in ("", normalize(value)):
                continue  # the same value, or one written under biblatex's name for it
            refused = refuse(paper, candidate, name) if refuse else None
            if refused:
                findings.append(refused)
                continue
            taken[name] = (value, candidate.source, candidate.label)
        if all(n in taken or not wanted(n) for n in COMPLETED_FIELDS if n != other):
            break
    completion = _completion(paper, chosen, taken, upgrading, marker)
    if completion and (completion.entry_type or completion.renamed):
        # What the preprint's record says of itself and the published version's record does not replace.
        for name, upgraded, whose in (
            ("volume", corr_volume, "the arXiv copy's (CoRR)"),
            ("publisher", server_publisher, "the preprint server's"),
            ("doi", preprint_doi, "the preprint's"),
        ):
            if upgraded and name not in taken:
                notes.append(f"{name} {paper.fields[name]} is {whose}, not the published version's: remove it")
    return (replace(completion, notes=tuple(notes)) if completion else None), findings


def _completion(
    paper: Paper, chosen: Candidate | None, taken: dict[str, _Taken], upgrading: bool, marker: str | None
) -> Completion | None:
    if chosen is None:
        return None
    changes: list[FieldChange] = []
    entry_type = renamed = None
    if upgrading:
        venue = VENUE_FIELD[chosen.paper.entry_type]
        if venue not in taken:
            return None  # a published version without a venue upgrades nothing
        if chosen.paper.entry_type != paper.entry_type:
            entry_type = chosen.paper.entry_type
            changes.append(FieldChange("type", paper.entry_type, entry_type, chosen.source, chosen.label))
        if marker:
            renamed = (marker, venue)
            if marker != venue:
                taken.pop(marker, None)
            value, source, record = taken[venue]
            name = marker if marker == venue else f"{marker} -> {venue}"
            changes.append(FieldChange(name, _written(paper, marker), value, source, record))
        arxiv = arxiv_id(paper)
        if arxiv and not normalize_arxiv(paper.fields.get("eprint", "")):
            # The preprint's own id, kept beside the published version's fields.
            taken["eprint"] = (arxiv, "from the entry's", marker or "fields")
            if not has_field(paper, "archiveprefix"):
                taken["archiveprefix"] = ("arXiv", "from the entry's", marker or "fields")
    # Taken as the resolvers answered, written in one order: a field from a second catalog came after the first's.
    taken = dict(sorted(taken.items(), key=lambda item: _WRITING_ORDER.get(item[0], len(COMPLETED_FIELDS))))
    for name, (value, source, record) in taken.items():
        if not (renamed and name == renamed[1]):
            changes.append(FieldChange(name, _written(paper, name), value, source, record))
    if not changes:
        return None
    values = tuple((name, value) for name, (value, _, _) in taken.items())
    return Completion(paper, values, tuple(changes), entry_type, renamed)
