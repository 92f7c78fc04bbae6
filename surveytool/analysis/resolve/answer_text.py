"""The text of a service's answer as it may be taken: one line of visible characters, addresses that are web
addresses, texts that are texts (a number or a list where a text belongs makes the answer malformed)."""

from __future__ import annotations

import html
import re
import unicodedata
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import replace

from surveytool.model import Paper
from surveytool.text.latex import encode_bibtex_value

# Characters that print nothing (whitespace aside, which one_line makes single spaces): controls (ESC, NUL), bidi
# embeddings, overrides and isolates, zero-width spaces, the BOM.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]"
)


def one_line(text: str) -> str:
    """A service's text as one line of visible characters: a line break or an escape sequence in a record's id
    would forge or recolour a line of the report, a zero-width space or a bidi override sit unseen in a value.
    Every other format character (a soft hyphen, a word joiner, a tag character) goes too, but the joiners that
    Persian and Indic spellings need (U+200C, U+200D)."""
    text = _INVISIBLE.sub("", text)
    if not text.isascii():
        text = "".join(c for c in text if c in "\u200c\u200d" or unicodedata.category(c) != "Cf")
    return " ".join(text.split())


# What no http(s) address holds (RFC 3986; letters beyond ASCII are allowed, as browsers show them): the braces
# and backslash BibTeX and TeX read, quotes, a % that encodes nothing.
_NOT_IN_ADDRESS = re.compile(r'[\s{}\\^|"<>`]|%(?![0-9A-Fa-f]{2})')


_NOT_IN_DOI = re.compile(r"[{}\\]|%(?![0-9A-Fa-f]{2})")


def bibtex_safe_doi(doi: str) -> bool:
    """Whether ``doi`` (a DOI as parsed) can be written in a .bib as it is: no brace, backslash or lone % that
    BibTeX or TeX would read, as no real DOI holds (an old Wiley DOI holds < > ; and parentheses: those stay)."""
    return not _NOT_IN_DOI.search(doi)


def web_address(url: str) -> bool:
    """Whether ``url`` is an http(s) address with a host, written as one may be written in a .bib."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.hostname) and not _NOT_IN_ADDRESS.search(url)


def record_key(value: object, paper: Paper) -> Paper:
    """``paper`` under the service's own id for it (DBLP's key, Semantic Scholar's paperId), if that is text."""
    key = one_line(value) if isinstance(value, str) else ""
    return replace(paper, key=key or paper.key)


def text_of(value: object) -> str:
    """A text field of an answer (None: none); a number or a list there is a malformed answer, not its spelling."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{type(value).__name__} where a text was expected")
    return value or ""


# The markup Crossref (JATS) and OpenAlex leave in titles and abstracts: a heading ("Abstract"), paragraphs, and
# inline tags (<i>E. coli</i>, H<sub>2</sub>O, <scp>BERT</scp>, MathML), with & < > as entities.
_HEADING = re.compile(r"<jats:title\b[^<>]*>.*?</jats:title>", re.IGNORECASE | re.DOTALL)
_BLOCK = re.compile(r"</?jats:(?:p|sec|list|list-item)\b[^<>]*>|</?(?:p|br)\s*/?>", re.IGNORECASE)
_INLINE = re.compile(
    r"</?(?:i|b|u|em|strong|sub|sup|sc|scp|italic|bold)>|</?(?:(?:jats|mml):[\w.-]+|span|math)(?:\s[^<>]*)?/?>",
    re.IGNORECASE,
)


def without_markup(text: str) -> str:
    """``text`` without the services' markup: its words as they read (entities decoded), tags gone."""
    if "<" not in text and "&" not in text:
        return text
    return html.unescape(_INLINE.sub("", _BLOCK.sub(" ", _HEADING.sub(" ", text))))


# A display name holding the word "and", or two commas, is no person's: BibTeX would split it. One comma is a
# person's "Smith, J.", which BibTeX reads as family and given names.
_NOT_ONE_PERSON = re.compile(r",.*,|\sand\s", re.IGNORECASE)


def display_names(names: Iterable[object]) -> list[tuple[str, bool]]:
    """(name, whether it is one name to keep whole) of each display name a service gives (``Jane Doe``,
    ``Society for Industrial and Applied Mathematics``)."""
    found = [one_line(text_of(name)) for name in names]
    return [(name, bool(_NOT_ONE_PERSON.search(name))) for name in found if name]


def author_fields(names: Sequence[tuple[str, bool]]) -> tuple[str, str]:
    """The author field's text, and its BibTeX when a name is kept whole (one brace group, as a .bib writes
    ``{Microsoft Research}``), else ""."""
    text = " and ".join(name for name, _ in names)
    if not any(whole for _, whole in names):
        return text, ""
    written = [f"{{{encode_bibtex_value(n)}}}" if whole else encode_bibtex_value(n) for n, whole in names]
    return text, "{" + " and ".join(written) + "}"
