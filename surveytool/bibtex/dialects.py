"""The fields one dialect names differently from the other, renamed for the dialect a .bib is written in."""

from __future__ import annotations

import re
from collections.abc import Sequence

from surveytool.bibtex.values import MONTH_MACROS, month_macro
from surveytool.model import year_of_date

# A month only when it is one (01-12): "2021-21" is a season, "2021-00" no month.
_YEAR = re.compile(r"\d{4}")
_DATE_MONTH = re.compile(r"\s*\d{4}-(0[1-9]|1[0-2])(?!\d)")


def as_bibtex(values: dict[str, str], written_date: str) -> None:
    """biblatex's date, journaltitle, eprinttype and eprintclass, which BibTeX styles do not read, as the fields
    they do."""
    # The date as written: decoding reads the "~" of an approximate date ("2021-03~") as a space.
    date = written_date[1:-1] if written_date[:1] in ("{", '"') else values.get("date", "")
    year = year_of_date(date)
    if year and not values.get("year"):
        values["year"] = year
        month = _DATE_MONTH.match(date)
        if month and not values.get("month"):
            values["month"] = str(int(month.group(1)))
        # A date that says more than year and month (a day, a range, "circa") stays beside them.
        if date.strip() in {year, month.group(0).strip() if month else year}:
            del values["date"]
    if values.get("journaltitle") and not values.get("journal"):
        values["journal"] = values.pop("journaltitle")
    if values.get("eprinttype") and not values.get("archiveprefix"):
        kind = values.pop("eprinttype")
        values["archiveprefix"] = "arXiv" if kind.lower() == "arxiv" else kind
    if values.get("eprintclass") and not values.get("primaryclass"):
        values["primaryclass"] = values.pop("eprintclass")


def as_biblatex(values: dict[str, str], aliases: Sequence[str]) -> None:
    """BibTeX's year and month, journal and archiveprefix as biblatex's date, journaltitle and eprinttype; aliases as
    ids."""
    year = values.get("year", "").strip()
    if year == "n.d.":  # a placeholder's "no date" is no biblatex date
        del values["year"]
    elif _YEAR.fullmatch(year):
        month = month_macro(values.get("month", ""))
        if values.get("date"):
            if year_of_date(values["date"]) == year:  # the date says it already
                del values["year"]
        elif month or not values.get("month"):
            values["date"] = f"{year}-{list(MONTH_MACROS).index(month) + 1:02d}" if month else year
            values.pop("year")
            values.pop("month", None)
    # Anything else ("2021a", "in press", a month "Spring") stays as written: biblatex reads year and month too.
    if "journal" in values:
        values["journaltitle"] = values.pop("journal")
    if "archiveprefix" in values:
        values["eprinttype"] = values.pop("archiveprefix").lower()
    if aliases:
        values["ids"] = ",".join(sorted(aliases))
