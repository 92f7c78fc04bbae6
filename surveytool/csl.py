"""CSL-JSON (Zotero, pandoc exports) -> papers."""

from __future__ import annotations

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


def _line_of(text: str, needle: str) -> int:
    position = text.find(needle)
    return text.count("\n", 0, position) + 1 if position >= 0 else 1


def csl_to_papers(data: Any, display: str, text: str) -> tuple[list[Paper], list[Finding]]:
    items = data if isinstance(data, list) else data.get("items", []) if isinstance(data, dict) else []
    papers: list[Paper] = []
    findings: list[Finding] = []
    for index, item in enumerate(items):
        item_id = str(item.get("id", "")) if isinstance(item, dict) else ""
        where = SourceLocation(display, _line_of(text, f'"{item_id}"') if item_id else 1)
        if not isinstance(item, dict) or not (item.get("title") or item.get("DOI")):
            findings.append(Finding("csl-item", Severity.WARNING, f"item {index + 1} has no title or DOI; skipped",
                                    where, "export the item again with its metadata"))
            continue
        fields = {ours: str(item[theirs]) for theirs, ours in _TEXT_FIELDS.items() if item.get(theirs)}
        authors = [_name(p) for p in item.get("author", []) if isinstance(p, dict)]
        if authors:
            fields["author"] = " and ".join(authors)
        issued = (item.get("issued") or {}).get("date-parts") or [[]]
        if issued and issued[0]:
            fields["year"] = str(issued[0][0])
        container = item.get("container-title")
        if container:
            kind = _TYPES.get(item.get("type", ""), "misc")
            fields["booktitle" if kind in ("inproceedings", "incollection") else "journal"] = str(container)
        papers.append(Paper(
            origin=Origin.CSL_JSON, sources=(where,), fields=frozen_mapping(fields),
            entry_type=_TYPES.get(item.get("type", ""), "misc"), key=item_id,
        ))
    return papers, findings
