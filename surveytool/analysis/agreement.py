"""Whether two records' first authors and years agree: the one rule merging and resolution share."""

from __future__ import annotations

from surveytool.model import Paper
from surveytool.text.normalize import normalize

#: Years this far apart can still be one work (a preprint and its publication, a conference and its journal).
YEAR_TOLERANCE = 2


def first_author_surname(paper: Paper) -> str:
    if not paper.authors:
        return ""
    name = paper.authors[0]
    surname = name.split(",")[0] if "," in name else name.split()[-1] if name.split() else ""
    return normalize(surname).replace(" ", "")


def _year(paper: Paper) -> str:
    year = (paper.year or "")[:4]
    return year if year.isdigit() else ""


def authors_agree(a: Paper, b: Paper) -> bool:
    """Not two different first authors (a record without one agrees with any)."""
    surname_a, surname_b = first_author_surname(a), first_author_surname(b)
    return not surname_a or not surname_b or surname_a == surname_b


def years_agree(a: Paper, b: Paper) -> bool:
    """Not two years further apart than ``YEAR_TOLERANCE`` (a record without one agrees with any)."""
    year_a, year_b = _year(a), _year(b)
    return not (year_a and year_b) or abs(int(year_a) - int(year_b)) <= YEAR_TOLERANCE


def agree(a: Paper, b: Paper) -> bool:
    """Neither the first authors nor the years disagree."""
    return authors_agree(a, b) and years_agree(a, b)


def confirmed(a: Paper, b: Paper) -> bool:
    """Evidence independent of any text compared: the same first author named by both, or both years given and agreeing."""
    surname_a = first_author_surname(a)
    return bool(surname_a and surname_a == first_author_surname(b)) or bool(_year(a) and _year(b) and years_agree(a, b))
