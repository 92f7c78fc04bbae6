"""Preprints: an entry whose only venue is a preprint server, and its arXiv id wherever it is written."""

from __future__ import annotations

import re

from surveytool.model import Paper
from surveytool.text.identifiers import arxiv_id_of_doi, normalize_arxiv
from surveytool.text.normalize import normalize

# Fields that, on a preprint, name the preprint server where a venue would stand.
_MARKER_FIELDS = ("journal", "journaltitle", "howpublished", "booktitle")
_SERVER = re.compile(r"^(arxiv|corr|biorxiv|medrxiv|ssrn)\b|\bpreprint\b|\be prints?\b")
_ARXIV_IN_TEXT = re.compile(
    r"arxiv[:\s/]*(?:(?:abs|pdf|html)/)?(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?", re.IGNORECASE
)


def names_a_server(text: str) -> bool:
    """Whether ``text`` (a venue or a publisher) names a preprint server: ``arXiv``, ``CoRR``, ``bioRxiv``..."""
    return bool(_SERVER.search(normalize(text)))


def preprint_marker(paper: Paper) -> str | None:
    """The field that names a preprint server as the entry's venue (Google Scholar's ``journal = {arXiv preprint ...}``)."""
    return next((f for f in _MARKER_FIELDS if names_a_server(paper.fields.get(f, ""))), None)


def arxiv_id(paper: Paper) -> str | None:
    """The entry's arXiv id, wherever it is written: eprint, a preprint's venue text, a URL (of the abstract, the
    PDF or the HTML page), arXiv's own DOI (also as a link)."""
    found = (
        normalize_arxiv(paper.fields.get("eprint", ""))
        or normalize_arxiv(paper.fields.get("arxivid", ""))  # Mendeley's field
        or arxiv_id_of_doi(paper.fields.get("doi", ""))
        or arxiv_id_of_doi(paper.fields.get("url", ""))  # arXiv's DOI as a link: https://doi.org/10.48550/arXiv...
    )
    for name in ("journal", "howpublished", "note", "url", "volume"):
        match = None if found else _ARXIV_IN_TEXT.search(paper.fields.get(name, "").replace("arxiv.org", "arxiv"))
        found = found or (normalize_arxiv(match.group(1)) if match else None)
    return found


def is_preprint(paper: Paper) -> bool:
    """An arXiv id and no venue but a preprint server's name."""
    venues = [f for f in ("journal", "journaltitle", "booktitle") if paper.fields.get(f, "").strip()]
    marker = preprint_marker(paper)
    return bool(arxiv_id(paper) or marker) and all(f == marker for f in venues)
