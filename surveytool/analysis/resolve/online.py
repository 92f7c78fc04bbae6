"""Online resolvers: OpenAlex, Crossref and arXiv, each answer checked before it is taken.

Every candidate a service returns is scored by ``resolve.score_match`` (title,
authors, year, or the snippet against the abstract), the same rule as for the
catalog: a service's first hit is never taken on trust.
"""

from __future__ import annotations

import json
import re
import urllib.parse
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from surveytool.analysis.resolve.answer_text import (
    author_fields,
    bibtex_safe_doi,
    display_names,
    one_line,
    text_of,
    web_address,
    without_markup,
)
from surveytool.analysis.resolve.http import HttpClient, HttpError, Response, ServiceSkipped
from surveytool.analysis.resolve.request_paths import doi_part
from surveytool.analysis.resolve.resolver import Candidate, score_match
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping
from surveytool.text.identifiers import normalize_arxiv, parse_identifier
from surveytool.text.normalize import strip_truncation

_QUERY_WORDS = 30
_ROWS = 5
_NOWHERE = (SourceLocation("online", 0),)
_YEAR = re.compile(r"[0-9]{4}")
# What a hostile or broken answer raises while parsed: each is a finding for that lookup, never a crash.
_MALFORMED = (ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError, ElementTree.ParseError)


@dataclass(frozen=True)
class ServiceError:
    service: str
    message: str


class _OnlineResolver:
    name = "online"

    def __init__(self, client: HttpClient, base_url: str, contact: str = ""):
        self.client = client
        self.base_url = base_url.rstrip("/")
        self.contact = contact
        self._errors: list[tuple[Paper, ServiceError]] = []
        self._not_asked: list[Paper] = []  # papers looked up after the service was skipped
        self._skip_reason = ""
        self.answered = False

    @property
    def errors(self) -> list[tuple[Paper, ServiceError]]:
        """One error per failed lookup, and one for all the papers the service was skipped for."""
        if not self._not_asked:
            return list(self._errors)
        count = len(self._not_asked)
        summary = ServiceError(
            self.name,
            f"skipped for the rest of the run ({self._skip_reason}); "
            f"{count} {'entry was' if count == 1 else 'entries were'} not looked up there",
        )
        return [*self._errors, (self._not_asked[0], summary)]

    def lookup(self, paper: Paper) -> list[Candidate]:
        found: list[Paper] = []
        retrieved = ""
        self.answered = False
        for url in self.urls(paper):
            try:
                response = self.client.get(url, self.name)
            except ServiceSkipped as skipped:
                self._skip_reason = self._skip_reason or str(skipped)
                self._not_asked.append(paper)
                return []
            except HttpError as error:
                self._errors.append((paper, ServiceError(self.name, str(error))))
                return []
            if response.status == 404:  # the service knows no such paper: an answer
                self.answered = True
                self.client.keep(url, response, self.name)
                continue
            if response.status != 200:
                self._fail(paper, url, response, f"HTTP {response.status}")
                continue
            try:
                # A title that is blank once cleaned (" ", markup, bidi marks) is none, as null is: the entry
                # would be "resolved" to a record with no title.
                found.extend(paper for paper in self.parse(response.body) if paper.title)
            except _MALFORMED as error:
                self._fail(paper, url, response, f"malformed answer ({type(error).__name__})")
                continue
            self.client.keep(url, response, self.name)
            self.answered = True
            retrieved = response.fetched_at
            if found:
                break
        candidates = []
        for candidate in found:
            score, method = score_match(paper, candidate)
            if score > 0:
                candidates.append(Candidate(candidate, score, method, self.name, retrieved))
        return sorted(candidates, key=lambda c: (-c.score, c.label))

    def _fail(self, paper: Paper, url: str, response: Response, message: str) -> None:
        """An answer that cannot be used: reported, counted against the service, and never kept."""
        self._errors.append((paper, ServiceError(self.name, message)))
        if response.from_cache:
            self.client.forget(url)
        else:
            self.client.record_failure(self.name, message)

    def urls(self, paper: Paper) -> Iterable[str]:
        raise NotImplementedError

    def parse(self, body: str) -> list[Paper]:
        raise NotImplementedError


def listed(data: object, results: str, record_id: str) -> list[dict]:
    """The records of a search answer (a list under ``results``) or of a record's (one, with its ``record_id``).

    Anything else with a 200 ("{}", an error object, a captive portal's page) is a malformed answer, not an answer
    that there is no such paper, which would be cached.
    """
    if not isinstance(data, dict) or not (results in data or record_id in data):
        raise ValueError("neither a search answer nor a record")
    found = data.get(results, [data])
    if not isinstance(found, list):
        raise TypeError(f"{results} is not a list")
    return [record for record in found if isinstance(record, dict)]


def _query_text(paper: Paper) -> str:
    if paper.title:
        return strip_truncation(paper.title) if paper.truncated else paper.title
    return " ".join(strip_truncation(paper.abstract or "").split()[:_QUERY_WORDS])


def _found(fields: dict[str, str], entry_type: str, authors: Sequence[tuple[str, bool]] = ()) -> Paper:
    """A service's record as a paper: ``authors`` are (name, kept whole: an organisation's) in their order."""
    if not isinstance(fields.get("title"), str):
        raise TypeError("a result without a text title")
    # One line per field: a blank line inside a title would end a paragraph in LaTeX and BibTeX.
    clean = {k: one_line(v) for k, v in fields.items() if isinstance(v, str) and one_line(v)}
    names = [(one_line(name), whole) for name, whole in authors if one_line(name)]
    author, written_author = author_fields(names)
    if author:
        clean["author"] = author
    if not _YEAR.fullmatch(clean.get("year", "0000")):
        del clean["year"]  # 10**30 or -44 is no year: written, it gave a key "1000" and a plot at 1000
    if "url" in clean and not web_address(clean["url"]):
        del clean["url"]  # javascript:, file:// or a link with braces: complete wrote it into the user's entry
    doi = parse_identifier(clean.get("doi", ""))
    if doi is None or doi.kind != "doi" or not bibtex_safe_doi(doi.value):
        clean.pop("doi", None)  # "10.1/x y" or a link is no DOI: `complete` wrote it into the user's entry
    else:
        clean["doi"] = doi.value
    return Paper(
        Origin.IDENTIFIER,
        _NOWHERE,
        frozen_mapping(clean),
        latex_fields=frozen_mapping({"author": written_author} if written_author else {}),
        entry_type=entry_type,
        key=clean.get("doi") or clean.get("eprint") or clean.get("title", "")[:40],
    )


class OpenAlexResolver(_OnlineResolver):
    """api.openalex.org: by DOI, or a search over titles and abstracts (good for snippets)."""

    name = "openalex"
    _TYPES = {"article": "article", "proceedings-article": "inproceedings", "book-chapter": "incollection"}

    def urls(self, paper: Paper) -> Iterable[str]:
        mail = f"&mailto={urllib.parse.quote(self.contact)}" if self.contact else ""
        doi = doi_part(paper.fields.get("doi", ""))
        if doi:
            yield f"{self.base_url}/works/doi:{doi}?{mail.lstrip('&')}".rstrip("?")
        text = _query_text(paper)
        if text:
            yield f"{self.base_url}/works?search={urllib.parse.quote(text)}&per-page={_ROWS}{mail}"

    def parse(self, body: str) -> list[Paper]:
        return [self._paper(work) for work in listed(json.loads(body), "results", "id") if work.get("title")]

    def _paper(self, work: dict) -> Paper:
        authors = display_names(
            a["author"]["display_name"] for a in work.get("authorships", []) if a.get("author", {}).get("display_name")
        )
        source = ((work.get("primary_location") or {}).get("source") or {}).get("display_name") or ""
        kind = self._TYPES.get(work.get("type", ""), "misc")
        fields = {
            "title": without_markup(text_of(work["title"])),
            "year": str(work.get("publication_year") or ""),
            "doi": (work.get("doi") or "").replace("https://doi.org/", ""),
            "abstract": _inverted_abstract(work.get("abstract_inverted_index")),
        }
        if source:
            fields["journal" if kind == "article" else "booktitle" if kind == "inproceedings" else "howpublished"] = (
                source
            )
        return _found(fields, kind, authors)


def _inverted_abstract(index: dict | None) -> str:
    """OpenAlex ships abstracts as word -> positions; put the words back in order."""
    if not index:
        return ""
    placed = sorted((position, word) for word, positions in index.items() for position in positions)
    return " ".join(word for _, word in placed)


class CrossrefResolver(_OnlineResolver):
    """api.crossref.org: by DOI, or a bibliographic query (titles, not snippets)."""

    name = "crossref"
    _TYPES = {
        "journal-article": "article",
        "proceedings-article": "inproceedings",
        "book-chapter": "incollection",
        "posted-content": "misc",
    }

    def urls(self, paper: Paper) -> Iterable[str]:
        mail = f"mailto={urllib.parse.quote(self.contact)}" if self.contact else ""
        doi = doi_part(paper.fields.get("doi", ""))
        if doi:
            yield f"{self.base_url}/works/{doi}" + (f"?{mail}" if mail else "")
        if paper.title:
            yield (
                f"{self.base_url}/works?query.bibliographic={urllib.parse.quote(_query_text(paper))}&rows={_ROWS}"
                + (f"&{mail}" if mail else "")
            )

    def parse(self, body: str) -> list[Paper]:
        message = json.loads(body)["message"]
        items = message.get("items", [message])
        return [self._paper(item) for item in items if isinstance(item, dict) and item.get("title")]

    def _paper(self, item: dict) -> Paper:
        # A person has a family name; an organisation only a "name", kept in its place in the list.
        authors = [
            (f"{family}, {given}", False)
            if family and given
            else (family, False)
            if family
            else (text_of(a.get("name")), True)
            for a in item.get("author", [])
            for family, given in [(text_of(a.get("family")), text_of(a.get("given")))]
            if family or a.get("name")
        ]
        parts = ((item.get("issued") or {}).get("date-parts") or [[None]])[0]
        kind = self._TYPES.get(item.get("type", ""), "misc")
        container = without_markup(_first_text(item, "container-title"))
        fields = {
            "title": without_markup(_first_text(item, "title")),
            "year": str(parts[0] or ""),
            "doi": item.get("DOI", ""),
            "volume": item.get("volume", ""),
            "number": item.get("issue", ""),
            "pages": item.get("page", ""),
            "publisher": item.get("publisher", ""),
            "abstract": without_markup(text_of(item.get("abstract"))),
        }
        if container:
            fields["journal" if kind == "article" else "booktitle"] = container
        return _found(fields, kind, authors)


def _first_text(item: dict, name: str) -> str:
    """The first of the texts Crossref lists under ``name`` (``title``, ``container-title``); a value of another type
    is a malformed answer (the first character of a text given bare would be taken for the title)."""
    value = item.get(name) or []
    if not isinstance(value, list) or not all(isinstance(text, str) for text in value):
        raise TypeError(f"{name} is not a list of texts")
    return value[0] if value else ""


class ArxivResolver(_OnlineResolver):
    """export.arxiv.org: by arXiv id, or a title search (Atom XML)."""

    name = "arxiv"
    _ATOM = "{http://www.w3.org/2005/Atom}"
    _ARXIV = "{http://arxiv.org/schemas/atom}"

    def urls(self, paper: Paper) -> Iterable[str]:
        arxiv = normalize_arxiv(paper.fields.get("eprint", ""))
        if arxiv:
            yield f"{self.base_url}/api/query?id_list={urllib.parse.quote(arxiv)}"
        if paper.title:
            query = urllib.parse.quote(f'ti:"{_query_text(paper)}"')
            yield f"{self.base_url}/api/query?search_query={query}&max_results={_ROWS}"

    def parse(self, body: str) -> list[Paper]:
        feed = ElementTree.fromstring(body)
        if feed.tag != f"{self._ATOM}feed":
            raise ValueError("not an Atom feed")
        return [self._paper(entry) for entry in feed.iter(f"{self._ATOM}entry") if entry.findtext(f"{self._ATOM}title")]

    def _paper(self, entry) -> Paper:
        def text(tag: str) -> str:
            return " ".join((entry.findtext(tag) or "").split())

        arxiv = normalize_arxiv(text(f"{self._ATOM}id")) or ""
        authors = display_names(a.findtext(f"{self._ATOM}name") for a in entry.iter(f"{self._ATOM}author"))
        fields = {
            "title": text(f"{self._ATOM}title"),
            "year": text(f"{self._ATOM}published")[:4],
            "abstract": text(f"{self._ATOM}summary"),
            "eprint": arxiv,
            "archiveprefix": "arXiv" if arxiv else "",
            "doi": text(f"{self._ARXIV}doi"),
            "howpublished": f"arXiv preprint arXiv:{arxiv}" if arxiv else "",
        }
        return _found(fields, "misc", authors)
