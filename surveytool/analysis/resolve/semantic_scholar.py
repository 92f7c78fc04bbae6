"""Semantic Scholar (api.semanticscholar.org/graph/v1): by arXiv id or DOI, or a title search.

A record names its venue (``publicationVenue``: a conference or a journal) and the ids of the
work, its arXiv id among them, so a preprint's published version is found by its arXiv id.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterable

from surveytool.analysis.resolve.answer_text import display_names, record_key, text_of
from surveytool.analysis.resolve.online import _found, _OnlineResolver, _query_text, listed
from surveytool.analysis.resolve.request_paths import doi_part, path_part
from surveytool.model import Paper
from surveytool.text.identifiers import normalize_arxiv

_ROWS = 5
FIELDS = "title,authors,year,venue,externalIds,publicationVenue,journal"
_KINDS = {"conference": "inproceedings", "journal": "article"}
# Venues that are preprint servers: a record there is the preprint, not a publication.
_PREPRINT_VENUES = frozenset({"arxiv", "arxiv.org", "corr", "biorxiv", "medrxiv", "ssrn"})


class SemanticScholarResolver(_OnlineResolver):
    """api.semanticscholar.org: /paper/arXiv:ID, /paper/DOI:doi, then /paper/search by title."""

    name = "semantic_scholar"
    # Its year is the first version's (an arXiv preprint's, for a paper published a year later).
    dates_first_version = True

    def urls(self, paper: Paper) -> Iterable[str]:
        arxiv = normalize_arxiv(paper.fields.get("eprint", ""))
        if arxiv:
            yield f"{self.base_url}/graph/v1/paper/arXiv:{path_part(arxiv)}?fields={FIELDS}"
        doi = doi_part(paper.fields.get("doi", ""))
        if doi:
            yield f"{self.base_url}/graph/v1/paper/DOI:{doi}?fields={FIELDS}"
        text = _query_text(paper)
        if text:
            yield f"{self.base_url}/graph/v1/paper/search?query={urllib.parse.quote(text)}&fields={FIELDS}&limit={_ROWS}"

    def parse(self, body: str) -> list[Paper]:
        return [self._paper(work) for work in listed(json.loads(body), "data", "paperId") if work.get("title")]

    def _paper(self, work: dict) -> Paper:
        ids = work.get("externalIds") or {}
        venue = work.get("publicationVenue") or {}
        journal = work.get("journal") or {}
        name = venue.get("name") or work.get("venue") or ""
        preprint = name.lower() in _PREPRINT_VENUES or (journal.get("name") or "").lower() in _PREPRINT_VENUES
        kind = "misc" if preprint or not name else _KINDS.get(venue.get("type", ""), "misc")
        arxiv = normalize_arxiv(text_of(ids.get("ArXiv"))) or ""
        fields = {
            "title": work["title"],
            "year": str(work.get("year") or ""),
            "doi": text_of(ids.get("DOI")),
            "eprint": arxiv,
            "archiveprefix": "arXiv" if arxiv else "",
        }
        if kind == "article":
            fields.update(journal=name, volume=journal.get("volume", ""), pages=journal.get("pages", ""))
        elif kind == "inproceedings":
            fields["booktitle"] = name
        elif preprint and arxiv:
            fields["howpublished"] = f"arXiv preprint arXiv:{arxiv}"
        authors = display_names(a["name"] for a in work.get("authors") or [] if a.get("name"))
        return record_key(work.get("paperId"), _found(fields, kind, authors))
