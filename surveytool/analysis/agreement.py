"""Whether two records' first authors and years agree: the one rule merging and resolution share."""

from __future__ import annotations

from surveytool.analysis.first_author import first_author, same_author
from surveytool.model import Paper, year_of

#: Years this far apart can still be one work (a preprint and its publication, a conference and its journal).
YEAR_TOLERANCE = 2


def names_first_author(paper: Paper) -> bool:
    return bool(first_author(paper))


def authors_agree(a: Paper, b: Paper) -> bool:
    """Not two different first authors (a record without one agrees with any)."""
    author_a, author_b = first_author(a), first_author(b)
    return not author_a or not author_b or same_author(author_a, author_b)


def years_agree(a: Paper, b: Paper) -> bool:
    """Not two years further apart than ``YEAR_TOLERANCE`` (a record without one agrees with any)."""
    year_a, year_b = year_of(a.year), year_of(b.year)
    return not (year_a and year_b) or abs(int(year_a) - int(year_b)) <= YEAR_TOLERANCE


def agree(a: Paper, b: Paper) -> bool:
    """Neither the first authors nor the years disagree."""
    return authors_agree(a, b) and years_agree(a, b)


def confirmed(a: Paper, b: Paper, *, same_year: bool = False) -> bool:
    """Evidence independent of any text compared: the same first author named by both, or both years given and
    agreeing (the same year, with ``same_year``: a survey of a paper may follow it within a year or two)."""
    author_a = first_author(a)
    year_a, year_b = year_of(a.year), year_of(b.year)
    return bool(author_a and same_author(author_a, first_author(b))) or bool(
        year_a and year_b and (year_a == year_b if same_year else years_agree(a, b))
    )
