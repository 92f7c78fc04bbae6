"""DBLP (dblp.org/search/publ/api): computer-science venues, pages and DOIs, by title search.

DBLP lists a paper once per version: a conference paper and its arXiv copy (venue ``CoRR``) are
two hits. Both are returned; the caller tells them apart (a CoRR hit is a preprint record).
"""

from __future__ import annotations

import json
import re
import urllib.parse
from collections.abc import Iterable

from surveytool.analysis.resolve.answer_text import display_names, record_key
from surveytool.analysis.resolve.online import _found, _OnlineResolver, _query_text
from surveytool.model import Paper
from surveytool.text.identifiers import normalize_arxiv

_ROWS = 5
_TYPES = {
    "Conference and Workshop Papers": "inproceedings",
    "Journal Articles": "article",
    "Parts in Books or Collections": "incollection",
    "Books and Theses": "book",
}
# DBLP tells namesakes apart with a number after the name ("Wei Wang 0001"): not part of the name.
_HOMONYM = re.compile(r"\s+\d{4}$")


class DblpResolver(_OnlineResolver):
    """dblp.org: a title search; each hit's ``info`` is one record."""

    name = "dblp"

    def urls(self, paper: Paper) -> Iterable[str]:
        text = _query_text(paper)
        if text:
            yield f"{self.base_url}/search/publ/api?q={urllib.parse.quote(text)}&format=json&h={_ROWS}"

    def parse(self, body: str) -> list[Paper]:
        hits = json.loads(body)["result"]["hits"]
        listed = hits.get("hit", [])
        listed = [listed] if isinstance(listed, dict) else listed
        return [
            self._paper(hit["info"]) for hit in listed if isinstance(hit, dict) and hit.get("info", {}).get("title")
        ]

    def _paper(self, info: dict) -> Paper:
        authors = (info.get("authors") or {}).get("author", [])
        authors = [authors] if isinstance(authors, dict | str) else authors
        names = [_HOMONYM.sub("", a["text"] if isinstance(a, dict) else a) for a in authors]
        venue = info.get("venue", "")
        venue = ", ".join(venue) if isinstance(venue, list) else venue
        ee = info.get("ee", "")
        ee = next(iter(ee), "") if isinstance(ee, list) else ee
        arxiv = normalize_arxiv(ee) if "arxiv.org" in ee else None
        kind = "misc" if venue == "CoRR" or arxiv else _TYPES.get(info.get("type", ""), "misc")
        fields = {
            "title": info["title"].removesuffix("."),
            "year": str(info.get("year", "")),
            "volume": "" if kind == "misc" else info.get("volume", ""),
            "number": info.get("number", ""),
            "pages": info.get("pages", ""),
            "doi": info.get("doi", ""),
            "url": ee if ee and "doi.org/" not in ee and not arxiv else "",
            "publisher": info.get("publisher", ""),
        }
        if arxiv:
            fields.update(eprint=arxiv, archiveprefix="arXiv", howpublished=f"arXiv preprint arXiv:{arxiv}")
        elif kind == "article":
            fields["journal"] = venue
        elif kind in ("inproceedings", "incollection"):
            fields["booktitle"] = venue
        return record_key(info.get("key"), _found(fields, kind, display_names(names)))
