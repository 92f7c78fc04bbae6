"""The view model of the related-work chapter: what each template section shows."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from surveytool.analysis.facts import paper_facts
from surveytool.bibtex.crossref import cited_through_children, with_lent_fields
from surveytool.model import Paper, Role, Taxonomy
from surveytool.output.parked_notes import ORPHANED
from surveytool.text.latex import LatexMarkup, math_to_text

UNCLASSIFIED = "unclassified"
UNCLASSIFIED_GROUP = "unclassified-group"
#: Ids the chapter gives its own notes regions and labels. No taxonomy id may be one of them
#: (taxonomy.py), so that every region and label of the chapter has a name of its own.
GENERATED_IDS = ("top", "introduction", "overview", ORPHANED, UNCLASSIFIED, UNCLASSIFIED_GROUP)
_SNIPPET_CHARS = 300
#: Far longer than any title or venue: a longer one is a paste gone wrong (a whole page), shown cut.
_LONGEST_SHOWN = 2000


class PaperView(NamedTuple):  # a tuple: the chapter's fragment memo keys by it (fragments.py)
    key: str
    title: str
    year: str
    venue: str
    resolved: bool
    snippet: str
    primary: str
    see_also: tuple[str, ...]  # section ids of secondary tags
    sources: tuple[str, ...]
    # facts.Fact values as plain tuples: a build's snapshot keeps views with marshal, which takes no subclass
    facts: tuple[tuple, ...] = ()

    @property
    def paragraph_key(self) -> PaperView:
        """What the chapter's paragraph of the paper prints (its fragment key): the view, less its facts
        (the comparison table prints them) and less its sources when it has no snippet to print them beside.
        A line added above it leaves it as it is."""
        return self._replace(facts=()) if self.snippet else self._replace(sources=(), facts=())


@dataclass(frozen=True)
class ThemeView:
    """A run of a section's papers under one heading; the untitled one (``name`` '') is the whole section."""

    id: str
    name: str
    region: str  # its notes region ('' for the untitled one: the section's own region comes before it)
    papers: tuple[PaperView, ...]
    suggested: LatexMarkup = LatexMarkup("")  # from draft --llm, checked and escaped (drafting/grounded.py)


@dataclass(frozen=True)
class SectionView:
    id: str
    title: str
    scope: str
    papers: tuple[PaperView, ...]  # primary here
    related: tuple[PaperView, ...]  # secondary here
    themes: tuple[ThemeView, ...] = ()  # empty: the papers are listed flat

    @property
    def blocks(self) -> tuple[ThemeView, ...]:
        """What the chapter prints under the section: its themes, or one untitled run of all its papers."""
        return self.themes or (ThemeView("", "", "", self.papers),)


@dataclass(frozen=True)
class GroupView:
    id: str
    title: str
    sections: tuple[SectionView, ...]
    depth: int = 0  # the groups it is nested in (``parent``): its heading is that many levels below a top group's


def one_paragraph(text: str) -> str:
    """``text`` on one line. Titles come from taxonomies and online answers: a blank line in one would end
    the paragraph inside ``\\section{...}`` or a table cell, and LaTeX would stop."""
    return " ".join(text.split())


_VENUES = ("booktitle", "journal", "journaltitle", "howpublished")


def venue_of(paper: Paper) -> str:
    for field in _VENUES:
        if paper.fields.get(field):
            return paper.fields[field]
    return ""


def _as_printed(paper: Paper, text: str, fields: tuple[str, ...]) -> str:
    """``text`` (a value of ``fields``) as the bibliography prints it: the math of a value written in LaTeX as its
    characters (``$\\alpha$`` is "α"). The chapter escapes what it is given, so math kept as written printed its
    dollar signs and backslashes, beside the same title typeset in the bibliography."""
    return math_to_text(text) if paper.latex_fields.keys() & set(fields) else text


def _shown(text: str) -> str:
    """A title or venue on one line, cut (at a word, with " …") past ``_LONGEST_SHOWN`` characters: TeX reads a
    line of at most 200,000 characters, and a title pasted with a whole page in it stopped the chapter."""
    text = one_paragraph(text)
    if len(text) <= _LONGEST_SHOWN:
        return text
    cut = text[:_LONGEST_SHOWN]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut) + " …"


def paper_view(paper: Paper) -> PaperView:
    snippet = " ".join((paper.abstract or "").split())
    if len(snippet) > _SNIPPET_CHARS:
        snippet = snippet[:_SNIPPET_CHARS].rsplit(" ", 1)[0] + " …"
    return PaperView(
        key=paper.key,
        title=_shown(_as_printed(paper, paper.title, ("title",))) if paper.resolved and paper.title else "",
        year=one_paragraph(paper.year or ""),
        venue=_shown(_as_printed(paper, venue_of(paper), _VENUES)),
        resolved=paper.resolved,
        snippet=snippet,
        primary=paper.primary_section or UNCLASSIFIED,
        see_also=tuple(t.section for t in paper.tags if t.role is Role.SECONDARY),
        sources=tuple(str(s) for s in paper.sources),
        facts=tuple(tuple(fact) for fact in paper_facts(paper)),
    )


def _order(view: PaperView) -> tuple[str, str]:
    return (view.year or "9999", view.key)


def uncited_keys(papers: Sequence[Paper]) -> set[str]:
    """The keys of the papers the chapter does not cite: untagged volumes and @xdata entries cited through their
    children (the user's tags place one all the same)."""
    lenders = cited_through_children(papers)
    return {p.key for p in papers if not p.tags and p.key.lower() in lenders} if lenders else set()


def paper_views(papers: Sequence[Paper]) -> list[PaperView]:
    """Every paper's view, in order, with the year and venue its crossref parents lend."""
    return [paper_view(p) for p in with_lent_fields(papers)]


def chapter_views(papers: Sequence[Paper]) -> list[PaperView]:
    """The views of the papers the chapter cites (``uncited_keys``)."""
    uncited = uncited_keys(papers)
    return [view for view in paper_views(papers) if view.key not in uncited]


def chapter_groups(papers: Sequence[Paper], taxonomy: Taxonomy) -> list[GroupView]:
    """Groups and sections in taxonomy order; untagged papers in a last group so all are cited."""
    return view_groups(chapter_views(papers), taxonomy)


def view_groups(views: Sequence[PaperView], taxonomy: Taxonomy) -> list[GroupView]:
    """``chapter_groups`` of the papers these are the views of."""
    views = sorted(views, key=_order)
    primary: dict[str, list[PaperView]] = defaultdict(list)
    related: dict[str, list[PaperView]] = defaultdict(list)
    for view in views:
        primary[view.primary].append(view)
        for section_id in dict.fromkeys(view.see_also):
            related[section_id].append(view)
    groups = []
    for group, depth in taxonomy.nested_groups():
        sections = []
        for section_id in group.sections:
            section = taxonomy.section(section_id)
            sections.append(
                SectionView(
                    section.id,
                    one_paragraph(section.title),
                    section.description,
                    tuple(primary[section.id]),
                    tuple(related[section.id]),
                )
            )
        groups.append(GroupView(group.id, one_paragraph(group.title), tuple(sections), depth))
    groups = _with_sections(groups)
    grouped = {s.id for g in groups for s in g.sections}
    leftovers = tuple(v for v in views if v.primary not in grouped)
    if leftovers:
        groups.append(
            GroupView(
                UNCLASSIFIED_GROUP,
                "To Place",
                (
                    SectionView(
                        UNCLASSIFIED,
                        "Papers to Place",
                        "entries the tagger could not place with confidence (see the needs-review "
                        "findings, which name the likely sections); tag them and rebuild",
                        leftovers,
                        (),
                    ),
                ),
            )
        )
    return groups


def _with_sections(groups: Sequence[GroupView]) -> list[GroupView]:
    """The groups with a section in them or in a group nested in them: only they get a heading."""
    kept: list[GroupView] = []
    below = -1  # the depth of the last group kept after this one: a group above it holds it
    for group in reversed(groups):
        if group.sections or group.depth < below:
            kept.append(group)
            below = group.depth
    return kept[::-1]


class SummaryRow(NamedTuple):
    key: str
    year: str
    venue: str
    primary: str  # section title
    secondary: tuple[str, ...]  # section titles
    resolved: bool


def summary_rows(groups: Sequence[GroupView], taxonomy: Taxonomy) -> list[SummaryRow]:
    """One row per paper, in chapter order."""
    titles = {s.id: one_paragraph(s.title) for s in taxonomy.sections}
    rows = []
    for group in groups:
        for section in group.sections:
            for paper in section.papers:
                rows.append(
                    SummaryRow(
                        paper.key,
                        paper.year if paper.year[:4].isdigit() else "",
                        paper.venue,
                        section.title,
                        tuple(titles.get(s, s) for s in paper.see_also),
                        paper.resolved,
                    )
                )
    return rows


@dataclass(frozen=True)
class TrendSeries:
    group: str
    counts: tuple[int, ...]  # papers per year, in the order of Trend.years


@dataclass(frozen=True)
class Trend:
    years: tuple[str, ...]
    series: tuple[TrendSeries, ...]
    undated: int


def publication_trend(groups: Sequence[GroupView]) -> Trend:
    """Papers per year and group (by primary section), for the trend plot."""
    years = sorted({_plotted(p.year) for g in groups for s in g.sections for p in s.papers} - {""})
    series = []
    undated = 0
    for group in groups:
        # The sections of no group (a flat taxonomy's) are each a series: the untitled group had an empty legend.
        parts = [(group.title, group.sections)] if group.title else [(s.title, (s,)) for s in group.sections]
        for name, sections in parts:
            per_year = Counter(_plotted(p.year) for s in sections for p in s.papers)
            undated += per_year.pop("", 0)
            counts = tuple(per_year[year] for year in years)
            if any(counts):
                series.append(TrendSeries(name, counts))
    return Trend(tuple(years), tuple(series), undated)


def _plotted(year: str) -> str:
    """The year a paper is plotted at: its four digits ("2020a" at 2020), none for "20211" or "1000000" ("")."""
    return year[:4] if year[:4].isdigit() and not year[4:5].isdigit() else ""
