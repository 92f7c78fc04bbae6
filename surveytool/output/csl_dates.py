"""A BibTeX or biblatex entry's dates as CSL-JSON writes them (CSL 1.0.2): ``date-parts`` (a range as two),
``circa`` for an approximate date, ``literal`` for "n.d.", and the publication state (in press) as ``status``."""

from __future__ import annotations

import re
from typing import Any

from surveytool.bibtex.values import MONTH_MACROS, joined_latex
from surveytool.model import Paper, month_of_date, year_of, year_of_date
from surveytool.text.publication_states import NO_DATE, PUBSTATES, STATE_YEAR

# A biblatex date, or one end of a range: year, month, day, and EDTF's qualifier (uncertain ?, approximate ~,
# both %), which CSL has only circa for.
_DATE_PARTS = re.compile(r"(\d{4})(?:-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01]))?)?\s*([?~%]?)$")
# biblatex's open-ended range ("2019/"), and EDTF's ("2019/..") that biblatex reads too.
_OPEN_END = re.compile(r"\s*/\s*(?:\.\.)?\s*$")
# What a BibTeX year says beside four digits: a range (2019--2020, 2019/2020, open-ended 2019--), an approximate
# year (c. 1900, circa 1900, 1900~ as in biblatex); no date (n.d.) and a state of publication (in press) are
# publication_states'.
_YEAR_RANGE = re.compile(r"(\d{4})\s*(?:-{1,3}|[\u2013\u2014/])\s*(\d{4})?")
_CIRCA_YEAR = re.compile(r"(?:(?:c|ca|circa|approx)\.?\s*|~\s*)(\d{4})|(\d{4})\s*[~%]", re.IGNORECASE)


def _month_number(text: str) -> int | None:
    key = text.strip().lower().rstrip(".")
    if key.isdigit():
        return int(key) if 1 <= int(key) <= 12 else None
    names = list(MONTH_MACROS)
    return names.index(key[:3]) + 1 if len(key) >= 3 and key[:3] in MONTH_MACROS else None


def _date_ends(date: str) -> list[re.Match[str]]:
    """The ends of a biblatex (EDTF) date or range, each year, month, day and qualifier, an open-ended range's
    start alone; [] for no such date."""
    start = _OPEN_END.sub("", date)
    if start != date:
        return _date_ends(start) if "/" not in start else []
    ends = [_DATE_PARTS.match(end.strip()) for end in date.split("/")] if date.strip() else []
    return [end for end in ends if end] if 0 < len(ends) <= 2 and all(ends) else []


def date_parts(date: str) -> list[list[int]]:
    """CSL date-parts of a biblatex date ("2021-03-15", a range "2021-03/2021-05", an open-ended one "2021/..",
    whose end is [0] as in CSL's test suite and pandoc's citeproc); [] for what is not one."""
    parts = [[int(part) for part in end.groups()[:3] if part] for end in _date_ends(date)]
    return parts + [[0]] if parts and _OPEN_END.search(date) else parts


def _plain_issued(paper: Paper, year: str) -> list[list[int]]:
    """The publication date: the year and month fields, else the whole date (day and range included). A range
    in the date is the date even beside a month field, which can say only where the range starts, and so is a
    day in the month the month field names (year, month and date, as bib writes a CSL date for BibTeX)."""
    date = paper.fields.get("date", "")
    month = _month_number(paper.fields.get("month", ""))
    dated = date_parts(date)
    if dated and dated[0][0] == int(year) and (month is None or len(dated) == 2 or dated[0][1:2] == [month]):
        return dated
    if month is None:
        month = month_of_date(date) if date.startswith(year) else None  # "2021-03~": approximate, month still 3
    return [[int(year)] + ([month] if month else [])]


def issued(paper: Paper) -> dict[str, Any]:
    """CSL's ``issued`` of the entry, {} for none."""
    written = " ".join(paper.fields.get("year", "").split())
    if NO_DATE.fullmatch(written):
        return {"literal": written}
    if ranged := _YEAR_RANGE.fullmatch(written):
        return {"date-parts": [[int(ranged.group(1))], [int(ranged.group(2) or 0)]]}  # [0]: an open end
    if circa := _CIRCA_YEAR.fullmatch(written):
        return {"date-parts": [[int(circa.group(1) or circa.group(2))]], "circa": True}
    date = paper.fields.get("date", "").strip()
    year = year_of(written) if written else year_of_date(date) or ""  # the rule keys and merging read
    if not year.isdigit():  # digits that are no one year ("12021", "2009 or 2010") go out as written
        return {"literal": written} if any(c.isdigit() for c in written) else {}
    result: dict[str, Any] = {"date-parts": _plain_issued(paper, year)}
    # biblatex's approximate date (2020~, 2019~/2021), whose "~" the decoded value has lost (a space): the date
    # as written.
    written_date = joined_latex(paper.latex_fields.get("date", "")) or date
    ends = _date_ends(written_date)
    if any(end.group(4) in ("~", "%") for end in ends) and ends[0].group(1) == year:
        result["circa"] = True
    return result


def status(paper: Paper) -> str:
    """CSL's ``status``: biblatex's pubstate in words, or what a BibTeX year says instead of one ("in press")."""
    pubstate = " ".join(paper.fields.get("pubstate", "").split())
    if pubstate:
        return PUBSTATES.get(pubstate.lower(), pubstate)
    written = " ".join(paper.fields.get("year", "").split())
    return written.lower() if STATE_YEAR.fullmatch(written) else ""
