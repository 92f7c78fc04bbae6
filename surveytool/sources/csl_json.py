"""CSL-JSON (Zotero, pandoc exports) -> papers."""

from __future__ import annotations

import json
import re
from typing import Any

from surveytool.bibtex.values import split_tags
from surveytool.model import Finding, Origin, Paper, Severity, SourceLocation, frozen_mapping
from surveytool.sources.csl_dates import date_end, date_fields
from surveytool.sources.csl_note import read_note
from surveytool.sources.csl_rich_text import PLAIN_VARIABLES, rich_text
from surveytool.text.identifiers import parse_identifier
from surveytool.text.latex import encode_bibtex_value, usable_key

# CSL item types -> BibTeX entry types. CSL's "article" is one in no journal (a preprint, a working paper: Zotero's
# "Preprint"), and what export -f csl-json writes for a @misc.
_TYPES = {
    "article-journal": "article",
    "article": "misc",
    "paper-conference": "inproceedings",
    "chapter": "incollection",
    "book": "book",
    "thesis": "phdthesis",
    "report": "techreport",
    "webpage": "online",
    "post-weblog": "online",
    "software": "software",
    "dataset": "dataset",
}
_TEXT_FIELDS = {
    "abstract": "abstract",
    "DOI": "doi",
    "URL": "url",
    "volume": "volume",
    "issue": "number",
    "page": "pages",
    "publisher": "publisher",
    "publisher-place": "address",
    "edition": "edition",
    "version": "version",
    "collection-title": "series",
    "ISBN": "isbn",
    "ISSN": "issn",
}
# Where exports put an arXiv id: a URL, a report number ("arXiv:2104.14830"), an archive location.
_ARXIV_PLACES = ("URL", "number", "archive_location", "archive-location")
_ROLES = ("author", "editor", "translator")
# The genre of a master's thesis, as Zotero, export -f csl-json and other locales write it.
_MASTERS = re.compile(r"\bmaster|\bm\.?\s?(?:a|sc|s|eng|phil)\b|mathesis", re.IGNORECASE)
# An id that is a citation key rather than a URI or a database number: what BibTeX and \cite accept.
_KEY_LIKE = re.compile(r"^[^\s,{}()#%~\\\"'=/]*[A-Za-z][^\s,{}()#%~\\\"'=/]*$")


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


def _name(person: dict[str, Any]) -> tuple[str, str]:
    """(plain text, BibTeX) of one CSL name; a literal (corporate) name is one brace group, read whole.
    Each part is CSL rich text, as citeproc-js reads it: its text is the name (a nocase ``<`` is a ``<``)."""

    def part(name: str) -> str:
        return rich_text(_scalar(person.get(name))).text

    literal = part("literal")
    if literal or not (person.get("family") or person.get("given")):
        return literal, "{" + encode_bibtex_value(literal) + "}" if literal else ""
    particle, family = part("non-dropping-particle"), part("family")
    if particle and not family.lower().startswith(particle.lower() + " "):  # some exporters write it in both
        family = f"{particle} {family}".strip()
    von = part("dropping-particle")
    given, suffix = part("given"), part("suffix")
    last = f"{von} {family}".strip()
    if not given and not suffix:
        text = last
        # "Le Cun" alone would read as given "Le", family "Cun".
        return text, "{" + encode_bibtex_value(text) + "}" if " " in text.strip() else encode_bibtex_value(text)
    parts = [last] + ([suffix] if suffix else []) + [given]
    return ", ".join(parts), ", ".join(encode_bibtex_value(part) for part in parts)


def _key(item: dict[str, Any]) -> str:
    """The citation key of an item: Better BibTeX's and Zotero's ``citation-key``, else an ``id`` that reads as one."""
    for name in ("citation-key", "citationKey", "citation_key"):
        key = _scalar(item.get(name)).strip()
        if key:
            return key
    item_id = _scalar(item.get("id")).strip()
    return item_id if _KEY_LIKE.fullmatch(item_id) or item_id.isdigit() else ""


# An "id" key and its value (a JSON string or a bare number).
_ID_KEY = re.compile(r'"id"\s*:\s*("(?:[^"\\]|\\.)*"|[-+.\w]+)')


def _tags(item: dict[str, Any]) -> tuple[str, ...]:
    """The parts of ``keyword``, where export -f csl-json writes the section tags; Zotero and pandoc put the user's
    own subjects there too ("Computer Science - Machine Learning"): those naming no section are no tags
    (``user_tags.explicit_tags``)."""
    value = item.get("keyword")
    parts = [part for text in (value if isinstance(value, list) else [value]) for part in split_tags(_scalar(text))]
    return tuple(dict.fromkeys(parts))


def _id_lines(text: str) -> dict[str, list[int]]:
    """Item id -> the lines of its "id" keys in order (an id given twice has two), all found in one pass."""
    lines: dict[str, list[int]] = {}
    line, counted_to = 1, 0
    for match in _ID_KEY.finditer(text):
        try:
            item_id = str(json.loads(match.group(1)))
        except ValueError:
            continue
        line += text.count("\n", counted_to, match.start())
        counted_to = match.start()
        lines.setdefault(item_id, []).append(line)
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
        return [], [
            Finding(
                "csl-item",
                Severity.WARNING,
                "not an array of CSL-JSON items; nothing read",
                SourceLocation(display, 1),
                "export CSL-JSON from Zotero or pandoc",
            )
        ]
    papers: list[Paper] = []
    findings: list[Finding] = []
    id_lines = _id_lines(text)
    for index, item in enumerate(items):
        item_id = _scalar(item.get("id")) if isinstance(item, dict) else ""
        lines = id_lines.get(item_id) or [1]
        where = SourceLocation(display, lines.pop(0) if len(lines) > 1 else lines[0])  # a repeated id: its own line
        if not isinstance(item, dict) or not (_text(item.get("title")) or _text(item.get("DOI"))):
            findings.append(
                Finding(
                    "csl-item",
                    Severity.WARNING,
                    f"item {index + 1} has no title or DOI; skipped",
                    where,
                    "export the item again with its metadata",
                )
            )
            continue
        try:
            papers.append(_item_to_paper(item, where))
            if (year := _year_month(item.get("issued"))[0]) and not _YEAR.fullmatch(year):
                findings.append(_malformed_year(index, year, where))
            findings += [
                _not_names(index, role, where) for role in _ROLES if item.get(role) and not _listed(item[role])
            ]
            if papers[-1].key and not usable_key(papers[-1].key):  # as a .bib's key is: "per%cent" stops \cite
                findings.append(_unusable_key(papers[-1].key, where))
        except (AttributeError, TypeError, ValueError, IndexError, KeyError):
            findings.append(
                Finding(
                    "csl-item",
                    Severity.WARNING,
                    f"item {index + 1} is not in the CSL-JSON shape; skipped",
                    where,
                    "export it again from Zotero or pandoc",
                )
            )
    return papers, findings


def _unusable_key(key: str, where: SourceLocation) -> Finding:
    hint = "change its citation key to letters, digits and - _ : . / only"
    return Finding("unusable-key", Severity.ERROR, f"key '{key}' cannot be used in \\cite", where, hint, key)


def _listed(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(person, dict) for person in value)


def _not_names(index: int, role: str, where: SourceLocation) -> Finding:
    message = f"item {index + 1}'s {role} is not a list of CSL names; what is not one is left out"  # "Smith, J."
    return Finding("csl-item", Severity.WARNING, message, where, 'write it as [{"family": ..., "given": ...}]')


def _malformed_year(index: int, year: str, where: SourceLocation) -> Finding:
    message = f"item {index + 1}'s year '{year}' is not a four-digit year; left out"  # a key "1000", a plot at 1000
    return Finding("csl-item", Severity.WARNING, message, where, "correct its date and export it again")


_YEAR = re.compile(r"[0-9]{4}")
_RAW_DATE = re.compile(r"^\s*([0-9]{4,})(?:[-/.]([0-9]{1,2}))?")  # 99999-01: a year, too long
_EDTF_DAY = re.compile(r"\s*([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?\s*(?:T|$)")
_YEAR_IN_TEXT = re.compile(r"(?<!\d)(?:1[5-9]|20)\d\d(?!\d)")


def _year_month(issued: Any) -> tuple[str, str]:
    if isinstance(issued, str):  # CSL 1.0.2's preferred date: an EDTF string ("2021-03-15", "2020/2021", "2018~")
        issued = {"raw": issued}
    if not isinstance(issued, dict):
        return "", ""
    parts = issued.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        month = _scalar(parts[0][1]) if len(parts[0]) > 1 else ""
        return _scalar(parts[0][0]), month if month.isdigit() and 1 <= int(month) <= 12 else ""
    text = _scalar(issued.get("raw")) or _scalar(issued.get("literal"))
    match = _RAW_DATE.match(text)
    if not match:  # "Spring 2018", "May 2020": the year alone
        year = _YEAR_IN_TEXT.search(text)
        return (year.group(), "") if year else ("", "")
    month = match.group(2) or ""
    return match.group(1), str(int(month)) if month and 1 <= int(month) <= 12 else ""


def _date(value: Any) -> str:
    """A CSL date as biblatex writes one (2024-03-05, 2024-03 or 2024: as much as it gives); "" for none."""
    edtf = _EDTF_DAY.match(value) if isinstance(value, str) else None
    if edtf:  # an EDTF string, CSL 1.0.2's preferred form ("2024-03-05", "2024-03-05T10:00:00Z")
        value = {"date-parts": [[part for part in edtf.groups() if part]]}
    parts = value.get("date-parts") if isinstance(value, dict) else None
    if not (isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]):
        return ""
    return date_end(parts[0])


def _arxiv_fields(item: dict[str, Any]) -> dict[str, str]:
    for place in _ARXIV_PLACES:
        identifier = parse_identifier(_text(item.get(place)))
        if identifier is not None and identifier.kind == "arxiv":
            return identifier.fields()
    return {}


def _field_text(item: dict[str, Any], name: str) -> str:
    """A variable's text: CSL rich text as its reader shows it (tags gone, a nocase "<" a "<"), a plain one as is."""
    value = _text(item.get(name))
    return value if name in PLAIN_VARIABLES else rich_text(value).text


def _item_to_paper(item: dict[str, Any], where: SourceLocation) -> Paper:
    fields = {ours: _field_text(item, theirs) for theirs, ours in _TEXT_FIELDS.items() if _text(item.get(theirs))}
    latex: dict[str, str] = {}
    kind = _TYPES.get(_scalar(item.get("type")), "misc")
    if kind == "misc" and _scalar(item.get("type")) == "article" and _text(item.get("container-title")):
        kind = "article"  # some exporters write "article" for a journal's paper: misc styles drop its journal
    venue = "booktitle" if kind in ("inproceedings", "incollection") else "journal"
    for theirs, ours in (("title", "title"), ("container-title", venue)):
        value = _text(item.get(theirs))
        if value:
            rich = rich_text(value, title=ours in ("title", "booktitle"))
            fields[ours] = rich.text
            if rich.text != value:  # markup: written as LaTeX, not re-encoded from the plain text
                latex[ours] = "{" + rich.latex + "}"
    for role in _ROLES:
        names = [_name(p) for p in item.get(role) or [] if isinstance(p, dict)]
        names = [(text, tex) for text, tex in names if text]
        if len(names) > 1 and names[-1] == ("others", "{others}"):  # pandoc's "and others": BibTeX's et al. again
            names[-1] = ("others", "others")
        if names:
            fields[role] = " and ".join(text for text, _ in names)
            latex[role] = "{" + " and ".join(tex for _, tex in names) + "}"
    if kind == "phdthesis" and _MASTERS.search(_text(item.get("genre"))):  # Zotero's "Master's thesis"
        kind = "mastersthesis"
    # CSL's publisher of a thesis is its school, of a report its institution, of a @misc its howpublished (export -f
    # csl-json writes them so, and pandoc a howpublished).
    holders = {"phdthesis": "school", "mastersthesis": "school", "techreport": "institution", "misc": "howpublished"}
    holder = holders.get(kind)
    if holder and "publisher" in fields:
        fields[holder] = fields.pop("publisher")
    number = _field_text(item, "number")
    if kind == "techreport" and number and "number" not in fields and parse_identifier(number) is None:
        fields["number"] = number  # a report's own number ("TR-2019-01"), not an arXiv id
    note, noted = read_note(_text(item.get("note")))
    if note:
        fields["note"] = note
    for name, value in noted.items():  # a DOI kept in Zotero's Extra: the item's own when it has none
        fields.setdefault(name, value)
    accessed = _date(item.get("accessed"))
    if accessed:
        fields["urldate"] = accessed
    year, month = _year_month(item.get("issued"))
    if _YEAR.fullmatch(year):
        fields["year"] = year
    if month:
        fields["month"] = month
    # A range, circa, no date, a state of publication; an approximate date's "~" is read as LaTeX reads it (a
    # space), and kept as written in its LaTeX.
    for name, value in date_fields(item, "year" in fields).items():
        fields[name] = value.replace("~", "") if name == "date" else value
        if name == "date" and "~" in value:
            latex[name] = "{" + value + "}"
    for name, value in _arxiv_fields(item).items():
        fields.setdefault(name, value)
    return Paper(
        origin=Origin.CSL_JSON,
        sources=(where,),
        fields=frozen_mapping(fields),
        entry_type=kind,
        key=_key(item),
        latex_fields=frozen_mapping(latex),
        explicit_tags=_tags(item),
    )
