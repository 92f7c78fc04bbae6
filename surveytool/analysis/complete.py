"""Completing a user's own entries: missing fields from a record that is surely the same paper.

A record is taken only when it is surely the entry's paper, in the version the entry cites
(``complete_match.py``): a similar title is never enough. A field the user wrote
is never replaced unless asked (``overwrite``); a preprint (an arXiv id, with no venue but the
preprint server) is upgraded to its published version: its type becomes the published one, the
field that named the server names the venue instead, and the arXiv id stays as ``eprint``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from surveytool.analysis.complete_match import (
    VENUE_FIELD,
    kind_of_venue,
    may_be_a_paper,
    pick_record,
    published_as,
    query_of,
    same_version,
)
from surveytool.analysis.preprints import arxiv_id, is_preprint, names_a_server, preprint_marker
from surveytool.analysis.resolve.resolver import Candidate, Resolver
from surveytool.model import Finding, Paper
from surveytool.text.identifiers import arxiv_id_of_doi, normalize_arxiv
from surveytool.text.normalize import normalize

#: The fields `complete` fills, in the order they are written.
COMPLETED_FIELDS = ("journal", "booktitle", "year", "volume", "number", "pages", "publisher", "doi", "url")
_WRITING_ORDER = {name: index for index, name in enumerate(COMPLETED_FIELDS)}  # the preprint's eprint after them


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


def complete_entry(
    paper: Paper, resolvers: Sequence[Resolver], overwrite: Collection[str] = (), refuse: Refusal | None = None
) -> tuple[Completion | None, list[Finding]]:
    """What the resolvers, asked in order, add to ``paper`` (None: nothing), and what stood in the way
    (``refuse``: why a record's field is not taken; a later resolver may still give that field)."""
    upgrading = is_preprint(paper)
    if not paper.title:
        return None, []
    if not (upgrading or kind_of_venue(paper.entry_type)):
        return None, published_as(paper, resolvers) if may_be_a_paper(paper) else []
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
        candidate, finding = pick_record(
            paper, query, resolver.lookup(query), "" if upgrading else kind_of_venue(paper.entry_type)
        )
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
