"""The author/year rule merging and resolution share."""

from __future__ import annotations

from surveytool.analysis.agreement import agree, confirmed
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping


def paper(author: str = "", year: str = "") -> Paper:
    fields = {k: v for k, v in (("author", author), ("year", year), ("title", "A title")) if v}
    return Paper(Origin.BIBTEX, (SourceLocation("x.bib", 1),), frozen_mapping(fields))


def test_a_preprint_two_years_before_its_publication_agrees_and_three_years_do_not():
    assert agree(paper("Lee, Ann", "2019"), paper("Ann Lee", "2021"))
    assert not agree(paper("Lee, Ann", "2018"), paper("Ann Lee", "2021"))


def test_different_first_authors_disagree_and_a_missing_one_agrees_with_any():
    assert not agree(paper("Lee, Ann", "2020"), paper("Kim, Bo", "2020"))
    assert agree(paper("", "2020"), paper("Kim, Bo", "2020"))


def test_only_facts_both_state_confirm_a_match():
    assert confirmed(paper("Lee, Ann"), paper("A. Lee"))
    assert confirmed(paper(year="2020"), paper(year="2021"))
    assert not confirmed(paper(), paper("Lee, Ann", "2020"))  # agreeing by saying nothing is no evidence


def test_a_year_is_read_as_keys_read_it_and_digits_that_are_no_year_disagree_with_none():
    # "(2021)" was no year here though keys read it, and the typo "12021" was the year 1202.
    assert not agree(paper("Lee, Ann", "(2021)"), paper("Ann Lee", "2015"))
    assert agree(paper("Lee, Ann", "c2021"), paper("Ann Lee", "2021"))
    assert agree(paper("Lee, Ann", "12021"), paper("Ann Lee", "2021"))
    assert not confirmed(paper(year="12021"), paper(year="1202"))
