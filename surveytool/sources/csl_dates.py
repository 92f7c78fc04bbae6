"""What a CSL-JSON date says beside its first year and month, as biblatex writes it: a day, a range and an
approximate date (``circa``) as ``date`` (2020-05-17, 2019/2020, 2020~), no date (a ``literal`` "n.d.") as
``year = {n.d.}``, and CSL's ``status`` as ``pubstate`` (in press is ``inpress``), or, when it is in press or the
like and the item has no date, as its year (``year = {in press}``): what export -f csl-json makes of a .bib's,
read back."""

from __future__ import annotations

import re
from typing import Any

from surveytool.sources.csl_rich_text import rich_text
from surveytool.text.publication_states import NO_DATE, PUBSTATES, STATE_YEAR

_KEYS = {words: key for key, words in PUBSTATES.items()}
# One end of an EDTF date (CSL 1.0.2's string date, or a "raw" one) with its qualifier: uncertain ?, approximate ~,
# both %.
_EDTF_END = re.compile(r"\s*(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?([?~%]?)\s*$")


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return ""


def date_end(parts: Any) -> str:
    """One end of a date-parts range as biblatex writes it (2021, 2021-03, 2021-03-15); "" for a malformed one."""
    if not isinstance(parts, list) or not parts:
        return ""
    numbers = [_scalar(part) for part in parts[:3]]
    if not all(n.isdigit() for n in numbers) or len(numbers[0]) != 4:
        return ""
    if any(not 1 <= int(n) <= limit for n, limit in zip(numbers[1:], (12, 31), strict=False)):
        return ""
    return "-".join([numbers[0], *(f"{int(n):02d}" for n in numbers[1:])])


def _circa(value: Any) -> bool:
    """CSL's circa: a boolean, a number or a string (1, "true"); 0, "" and "false" say no."""
    if isinstance(value, str):
        return value.strip().lower() not in ("", "0", "false", "no")
    return bool(value) and isinstance(value, (bool, int))


def _open_end(parts: Any) -> bool:
    """Whether a range's end is open: CSL's [0] (CSL's test suite, pandoc's citeproc), or nothing at all."""
    return isinstance(parts, list) and not any(_scalar(part).strip("0") for part in parts)


def _edtf(text: str) -> tuple[list[list[str]], bool]:
    """(date-parts, approximate) of an EDTF date or range ("2019/2021", "2019-05~", open-ended "2019/.." with an
    end of []); [] for other text."""
    start, slash, end = text.partition("/")
    if slash and end.strip() in ("", ".."):
        parts, approximate = _edtf(start)
        return (parts + [[]] if len(parts) == 1 else []), approximate
    ends = [_EDTF_END.match(end) for end in text.split("/")]
    if not 0 < len(ends) <= 2 or not all(ends):
        return [], False
    matched = [end for end in ends if end]
    return [[part for part in end.groups()[:3] if part] for end in matched], any(
        e.group(4) in ("~", "%") for e in matched
    )


def date_fields(item: dict[str, Any], has_year: bool) -> dict[str, str]:
    """The ``date``, ``year`` (no date only) and ``pubstate`` fields of an item's ``issued`` and ``status``;
    ``has_year``: whether its year was read (from an EDTF or raw date too)."""
    fields: dict[str, str] = {}
    issued = item.get("issued")
    dated = False
    if isinstance(issued, str):  # CSL 1.0.2's preferred date: an EDTF string
        issued = {"raw": issued}
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        approximate = _circa(issued.get("circa"))
        if not parts and isinstance(issued.get("raw"), str):  # a range or an approximate date in EDTF too
            parts, edtf_circa = _edtf(issued["raw"])
            approximate = approximate or edtf_circa
        ends = [date_end(end) for end in parts[:2]] if isinstance(parts, list) and parts else []
        open_end = isinstance(parts, list) and len(ends) == 2 and _open_end(parts[1])  # biblatex's "2019/"
        ends = ends[:1] if open_end or (len(ends) == 2 and ends[0] == ends[1]) else ends
        if ends and all(ends):
            dated = True
            if len(ends) == 2 or open_end or approximate or ends[0].count("-") == 2:  # a day: BibTeX's year lacks it
                fields["date"] = "/".join(end + ("~" if approximate else "") for end in ends) + "/" * open_end
        elif not parts and NO_DATE.fullmatch(_scalar(issued.get("literal"))):
            fields["year"] = _scalar(issued.get("literal"))
    state = " ".join(rich_text(_scalar(item.get("status"))).text.split())  # CSL rich text, as citeproc reads it
    # In press and its kin with no date: a year BibTeX's styles print, as BibTeX users write it. Any other state
    # ("accepted", or words no style knows) is no year, dated or not: a year of words reads as a malformed year.
    if state and STATE_YEAR.fullmatch(state) and not (dated or has_year) and "year" not in fields:
        fields["year"] = state
    elif state:
        fields["pubstate"] = _KEYS.get(state.lower(), state)
    return fields
