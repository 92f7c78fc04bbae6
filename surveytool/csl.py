"""CSL-JSON (Zotero, pandoc exports) -> papers."""

from __future__ import annotations

import json
import re
from typing import Any

from .models import Finding, Origin, Paper, Severity, SourceLocation, frozen_mapping

# CSL item types -> BibTeX entry types.
_TYPES = {
    "article-journal": "article", "article": "article", "paper-conference": "inproceedings",
    "chapter": "incollection", "book": "book", "thesis": "phdthesis", "report": "techreport",
}
_TEXT_FIELDS = {
    "title": "title", "abstract": "abstract", "DOI": "doi", "URL": "url", "volume": "volume",
    "issue": "number", "page": "pages", "publisher": "publisher",
}


def _name(person: dict[str, Any]) -> str:
    if "literal" in person:
        return "{" + str(person["literal"]) + "}"
    family, given = person.get("family", ""), person.get("given", "")
    return f"{family}, {given}" if given else str(family)


# An "id" key and its value (a JSON string or a bare number).
_ID_KEY = re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.)*"|[-+.\w]+)')


def _id_lines(text: str) -> dict[str, int]:
    """Item id -> the line of its first "id" key, all found in one pass over the text."""
    lines: dict[str, int] = {}
    line, counted_to = 1, 0
    for match in _ID_KEY.finditer(text):
        try:
            item_id = str(json.loads(match.group(1)))
        except ValueError:
            continue
        line += text.count("\n", counted_to, match.start())
        counted_to = match.start()
        lines.setdefault(item_id, line)
    return lines


def csl_to_papers(data: Any, display: str, text: str) -> tuple[list[Paper], list[Finding]]:
    items = data if isinstance(data, list) else data.get("items", []) if isinstance(data, dict) else []
    papers: list[Paper] = []
    findings: list[Finding] = []
    id_lines = _id_lines(text)
    for index, item in enumerate(items):
        item_id = str(item.get("id", "")) if isinstance(item, dict) else ""
        where = SourceLocation(display, id_lines.get(item_id, 1))
        if not isinstance(item, dict) or not (item.get("title") or item.get("DOI")):
            findings.append(Finding("csl-item", Severity.WARNING, f"item {index + 1} has no title or DOI; skipped",
                                    where, "export the item again with its metadata"))
            continue
        try:
            papers.append(_item_to_paper(item, item_id, where))
        except (AttributeError, TypeError, ValueError, IndexError, KeyError):
            findings.append(Finding("csl-item", Severity.WARNING, f"item {index + 1} is not in the CSL-JSON shape; skipped",
                                    where, "export it again from Zotero or pandoc"))
    return papers, findings


def _text(value: Any) -> str:
    """CSL allows a string or, in some exports, a list of strings."""
    return str(value[0]) if isinstance(value, list) and value else str(value)


def _item_to_paper(item: dict[str, Any], item_id: str, where: SourceLocation) -> Paper:
    fields = {ours: _text(item[theirs]) for theirs, ours in _TEXT_FIELDS.items() if item.get(theirs)}
    authors = [_name(p) for p in item.get("author") or [] if isinstance(p, dict)]
    if authors:
        fields["author"] = " and ".join(authors)
    issued = item.get("issued") or {}
    parts = (issued.get("date-parts") or [[]]) if isinstance(issued, dict) else [[]]
    if parts and parts[0]:
        fields["year"] = str(parts[0][0])
    elif isinstance(issued, dict) and str(issued.get("raw", ""))[:4].isdigit():
        fields["year"] = str(issued["raw"])[:4]
    kind = _TYPES.get(str(item.get("type", "")), "misc")
    container = item.get("container-title")
    if container:
        fields["booktitle" if kind in ("inproceedings", "incollection") else "journal"] = _text(container)
    return Paper(origin=Origin.CSL_JSON, sources=(where,), fields=frozen_mapping(fields), entry_type=kind, key=item_id)
