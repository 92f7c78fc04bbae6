"""CSL-JSON (Zotero, pandoc exports) -> papers."""

from __future__ import annotations

import json
import re
from typing import Any

from surveytool.model import Finding, Origin, Paper, Severity, SourceLocation, frozen_mapping

# CSL item types -> BibTeX entry types.
_TYPES = {
    "article-journal": "article", "article": "article", "paper-conference": "inproceedings",
    "chapter": "incollection", "book": "book", "thesis": "phdthesis", "report": "techreport",
}
_TEXT_FIELDS = {
    "title": "title", "abstract": "abstract", "DOI": "doi", "URL": "url", "volume": "volume",
    "issue": "number", "page": "pages", "publisher": "publisher",
}


def _scalar(value: Any) -> str:
    """A JSON string or number as text; anything else (null, true, an object) as nothing."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return ""


def _text(value: Any) -> str:
    """CSL allows a string or, in some exports, a list of strings."""
    return _scalar(value[0]) if isinstance(value, list) and value else _scalar(value)


def _name(person: dict[str, Any]) -> str:
    if "literal" in person:
        literal = _scalar(person["literal"])
        return "{" + literal + "}" if literal else ""
    family, given = _scalar(person.get("family")), _scalar(person.get("given"))
    return f"{family}, {given}" if given and family else family or given


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


def _items(data: Any) -> list[Any] | None:
    """The items of a CSL-JSON export: an array, or an object holding one under "items"."""
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        return data["items"]
    return None


def csl_to_papers(data: Any, display: str, text: str) -> tuple[list[Paper], list[Finding]]:
    items = _items(data)
    if items is None:
        return [], [Finding("csl-item", Severity.WARNING, "not an array of CSL-JSON items; nothing read",
                            SourceLocation(display, 1), "export CSL-JSON from Zotero or pandoc")]
    papers: list[Paper] = []
    findings: list[Finding] = []
    id_lines = _id_lines(text)
    for index, item in enumerate(items):
        item_id = _scalar(item.get("id")) if isinstance(item, dict) else ""
        where = SourceLocation(display, id_lines.get(item_id, 1))
        if not isinstance(item, dict) or not (_text(item.get("title")) or _text(item.get("DOI"))):
            findings.append(Finding("csl-item", Severity.WARNING, f"item {index + 1} has no title or DOI; skipped",
                                    where, "export the item again with its metadata"))
            continue
        try:
            papers.append(_item_to_paper(item, item_id, where))
        except (AttributeError, TypeError, ValueError, IndexError, KeyError):
            findings.append(Finding("csl-item", Severity.WARNING, f"item {index + 1} is not in the CSL-JSON shape; skipped",
                                    where, "export it again from Zotero or pandoc"))
    return papers, findings


def _year(issued: Any) -> str:
    if not isinstance(issued, dict):
        return ""
    parts = issued.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        return _scalar(parts[0][0])
    raw = _scalar(issued.get("raw"))
    return raw[:4] if raw[:4].isdigit() else ""


def _item_to_paper(item: dict[str, Any], item_id: str, where: SourceLocation) -> Paper:
    fields = {ours: _text(item[theirs]) for theirs, ours in _TEXT_FIELDS.items() if _text(item.get(theirs))}
    authors = [_name(p) for p in item.get("author") or [] if isinstance(p, dict)]
    if any(authors):
        fields["author"] = " and ".join(a for a in authors if a)
    year = _year(item.get("issued"))
    if year:
        fields["year"] = year
    kind = _TYPES.get(_scalar(item.get("type")), "misc")
    container = _text(item.get("container-title"))
    if container:
        fields["booktitle" if kind in ("inproceedings", "incollection") else "journal"] = container
    return Paper(origin=Origin.CSL_JSON, sources=(where,), fields=frozen_mapping(fields), entry_type=kind, key=item_id)
