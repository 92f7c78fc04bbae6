"""The fields one dialect names differently from the other, renamed for the dialect a .bib is written in.

Each conversion says, for each field it set, which field's text as the user wrote it the new one carries (the
journal of a journaltitle), or None for a value it computed (the year of a date): the writer keeps a value
byte for byte only under its own origin, never the original text of a field the conversion filled.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from surveytool.bibtex.values import MONTH_MACROS, month_macro
from surveytool.model import DATE_MONTH, year_of_date

_YEAR = re.compile(r"\d{4}")

#: A converted field -> the field whose written text it carries (None: computed, written afresh).
Origins = dict[str, str | None]

# biblatex's entry types that BibTeX styles do not define ("entry type ... isn't style-file defined", and the
# entry prints without its institution or kind), as the BibTeX type of the same kind of work. Types of neither
# (a style's own @patent, @electronic) are left as written.
_BIBTEX_TYPES = {
    "report": "techreport",
    "online": "misc",
    "software": "misc",
    "dataset": "misc",
    "mvbook": "book",
    "collection": "book",
    "mvcollection": "book",
    "reference": "book",
    "mvreference": "book",
    "bookinbook": "inbook",
    "suppbook": "inbook",
    "inreference": "incollection",
    "suppcollection": "incollection",
    "mvproceedings": "proceedings",
}
# biblatex's keys for the kind of a thesis or report, which a BibTeX style would print as they are written.
_KIND_KEYS = {"phdthesis", "mathesis", "mastersthesis", "techreport", "resreport"}


def bibtex_type(entry_type: str, values: Mapping[str, str]) -> str:
    """The entry type a BibTeX style knows for a biblatex ``entry_type``; other types as written."""
    kind = entry_type.lower()
    if kind == "thesis":
        return (
            "mastersthesis" if values.get("type", "").strip().lower() in ("mathesis", "mastersthesis") else "phdthesis"
        )
    return _BIBTEX_TYPES.get(kind, entry_type)


def as_bibtex(values: dict[str, str], written_date: str, entry_type: str = "misc") -> Origins:
    """biblatex's date, journaltitle, eprinttype and eprintclass, which BibTeX styles do not read, as the fields
    they do (where those are absent or empty); a thesis's institution as its school, and a kind key that the
    BibTeX type now says (``type = {mathesis}``) dropped."""
    origins: Origins = {}
    converted = bibtex_type(entry_type, values)
    if converted != entry_type and values.get("type", "").strip().lower() in _KIND_KEYS:
        del values["type"]
    if converted in ("phdthesis", "mastersthesis"):
        _rename(values, origins, "institution", "school")
    date = _as_written(written_date, values.get("date", ""))
    year = year_of_date(date)
    # A year of its own that agrees (a co-author's copy merged in) still leaves the month to the date.
    if year and values.get("year", "").strip() in ("", year):
        if not values.get("year"):
            values["year"], origins["year"] = year, None
        month = DATE_MONTH.match(date)
        if month and not values.get("month"):
            values["month"], origins["month"] = str(int(month.group(1))), None
        # A date that says more than year and month (a day, a range, "circa"), or a month other than the
        # entry's own, stays beside them.
        if date == year or (month and date == month.group(0).strip() and "month" in origins):
            del values["date"]
    _rename(values, origins, "journaltitle", "journal")
    if values.get("eprinttype") and not values.get("archiveprefix"):
        kind = values.pop("eprinttype")
        values["archiveprefix"] = "arXiv" if kind.lower() == "arxiv" else kind
        origins["archiveprefix"] = None
    _rename(values, origins, "eprintclass", "primaryclass")
    return origins


def as_biblatex(values: dict[str, str], aliases: Sequence[str]) -> Origins:
    """BibTeX's year and month, journal and archiveprefix as biblatex's date, journaltitle and eprinttype (where
    those are absent or empty); aliases as ids."""
    origins: Origins = {}
    year = values.get("year", "").strip()
    month = month_macro(values.get("month", ""))
    if year == "n.d.":  # a placeholder's "no date" is no biblatex date
        del values["year"]
    elif values.get("date"):  # a year and month the date says already (bib -o wrote them beside it) go
        date = values["date"]
        if year and year_of_date(date) == year:
            del values["year"]
        said = DATE_MONTH.match(date)
        if month and said and list(MONTH_MACROS).index(month) + 1 == int(said.group(1)):
            del values["month"]
    elif _YEAR.fullmatch(year) and (month or not values.get("month")):
        values["date"] = f"{year}-{list(MONTH_MACROS).index(month) + 1:02d}" if month else year
        origins["date"] = None
        values.pop("year")
        values.pop("month", None)
    # Anything else ("2021a", "in press", a month "Spring") stays as written: biblatex reads year and month too.
    _rename(values, origins, "journal", "journaltitle")
    if values.get("archiveprefix") and not values.get("eprinttype"):
        values["eprinttype"] = values.pop("archiveprefix").lower()
        origins["eprinttype"] = None
    # The keys merged into this entry stay citable, beside those the user's own ids field names.
    own = [key.strip() for key in values.get("ids", "").split(",") if key.strip()]
    ids = list(dict.fromkeys([*own, *sorted(aliases)]))
    if ids != own:
        values["ids"], origins["ids"] = ",".join(ids), None
    return origins


def _rename(values: dict[str, str], origins: Origins, old: str, new: str) -> None:
    if values.get(old) and not values.get(new):
        values[new] = values.pop(old)
        origins[new] = old


def _as_written(written: str, decoded: str) -> str:
    """A date as the user wrote it, inside its braces or quotes: decoding reads the "~" of an approximate date
    ("2021-03~") as a space. The decoded value when the written one is no date (a macro, a command)."""
    while written[:1] in ("{", '"') and written[-1:] in ("}", '"'):
        written = written[1:-1].strip()
    return written if year_of_date(written) else decoded
