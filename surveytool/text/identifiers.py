"""DOIs and arXiv ids: recognizing them in text and URLs, and normalizing them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

# What goes before a DOI copied from a link or a reference list: a resolver's address, with or without its
# scheme, or "doi:".
DOI_PREFIX = re.compile(r"doi:\s*|(?:https?://)?(?:(?:dx\.|www\.)?doi\.org|doi\.acm\.org)/", re.IGNORECASE)
_DOI = re.compile(rf"^(?:{DOI_PREFIX.pattern})?(?P<doi>10\.\d{{4,9}}/\S+)$", re.IGNORECASE)
_ARXIV_NEW = r"\d{4}\.\d{4,5}"
# Before 2007: archive, an optional subject class ("math.GT/0309136") that is no part of the id, number.
_ARXIV_OLD = r"[a-z][a-z\-]*(?P<subject>\.[A-Z]{2})?/\d{7}"
_ARXIV = re.compile(
    r"^(?:arxiv:\s*|(?:https?://)?(?:www\.)?(?:export\.)?arxiv\.org/(?:abs|pdf)/)?"
    rf"(?P<id>{_ARXIV_NEW}|{_ARXIV_OLD})(?P<version>v\d+)?(?:\.pdf)?/?$",
    re.IGNORECASE,
)
_ARXIV_LINK = re.compile(r"(?:https?://)?(?:www\.)?(?:export\.)?arxiv\.org/", re.IGNORECASE)
# The DOI that arXiv itself mints for a preprint: the same work as the arXiv id.
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(?P<id>.+)$", re.IGNORECASE)


@dataclass(frozen=True)
class Identifier:
    kind: str  # "doi" | "arxiv"
    value: str  # normalized: an arXiv id without its version
    version: str = ""  # "v2", kept in the eprint field as the user wrote it

    def fields(self) -> dict[str, str]:
        if self.kind == "doi":
            return {"doi": self.value}
        return {"eprint": self.value + self.version, "archiveprefix": "arXiv"}


# How ids come copied from prose, mail and listings: in angle brackets or quotes, a comma, semicolon or full
# stop after them (after the closing mark too: "<https://doi.org/10.1000/x>."), arXiv's subject class after the
# id ("arXiv:2104.14830 [cs.LG]").
_OPENING = "<\"'\u201c\u2018"
_CLOSING = ">\"'\u201d\u2019,;."
_SUBJECT_CLASS = re.compile(r"[a-z\-]+(?:\.[a-z]{2})?\]", re.IGNORECASE)
_LONGEST = 400  # longer than any id with what is copied around it: prose, not an id


def parse_identifier(text: str) -> Identifier | None:
    """A DOI or arXiv id (bare, prefixed or as a URL, as copied from text), or None."""
    text = text.strip()
    return (_parse(text) or _parse(_unwrapped(text))) if text else None


def _unwrapped(text: str) -> str:
    if len(text) > _LONGEST:
        return text
    text = text.lstrip(_OPENING).rstrip(_CLOSING)
    if text[:1] == "(" and text[-1:] == ")":  # "(doi:10.1000/x)"; a DOI may end in ")" of its own
        text = text[1:-1].strip()
    before, bracket, subject = text.rpartition("[")
    if bracket and before[-1:].isspace() and _SUBJECT_CLASS.fullmatch(subject):
        text = before.rstrip()
    prefix = DOI_PREFIX.match(text)
    if prefix is not None and prefix.group().endswith("/"):  # a link spells '/' as %2F
        text = text[: prefix.end()] + unquote(text[prefix.end() :])
    elif _ARXIV_LINK.match(text):  # a page's "?context=cs" or "#S2" names no other paper
        text = re.split(r"[?#]", text, maxsplit=1)[0]
    return text


def _parse(text: str) -> Identifier | None:
    match = _ARXIV.match(text)
    if match:
        arxiv = match.group("id")
        if match.group("subject"):  # arXiv knows math/0309136, not the lower-cased math.gt/0309136
            arxiv = arxiv.replace(match.group("subject"), "", 1)
        return Identifier("arxiv", arxiv.lower(), (match.group("version") or "").lower())
    match = _DOI.match(text)
    if match:
        doi = match.group("doi")
        head, _, fragment = doi.partition("#")
        # A resolver's link: '#' opens its fragment, but Wiley's SICI DOIs end in '#' ("...;2-#").
        if fragment and text[: match.start("doi")].endswith("/"):
            doi = head
        return Identifier("doi", doi.rstrip(".,;"))
    return None


def bare_doi(doi: str) -> str:
    """``doi`` without the "doi:" or resolver address a reference manager writes before it; a DOI taken from a
    link is read as the link spells it (``10.1000%2Fx`` is ``10.1000/x``)."""
    text = doi.strip()
    prefix = DOI_PREFIX.match(text)
    if prefix is None:
        return text
    rest = text[prefix.end() :]
    return unquote(rest) if prefix.group().endswith("/") else rest


def normalize_doi(doi: str) -> str:
    return bare_doi(doi).rstrip(".").lower()


def normalize_arxiv(eprint: str) -> str | None:
    """The arXiv id without version, or None if ``eprint`` is not one."""
    identifier = parse_identifier(eprint)
    return identifier.value if identifier and identifier.kind == "arxiv" else None


def arxiv_id_of_doi(doi: str) -> str | None:
    match = _ARXIV_DOI.match(normalize_doi(doi))
    return normalize_arxiv(match.group("id")) if match else None
