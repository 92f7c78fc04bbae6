"""Prose coverage: which papers the author's notes in the chapter already discuss, and in which section.

A generated chapter cites every paper once in its stub paragraph; the author's own text lives in
the notes regions (``% surveytool: begin notes <id>``). A paper cited in no region is still only a
stub; a paper cited in the notes of a section it is not tagged in is discussed where a reader of
the taxonomy would not look for it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from surveytool.analysis.check_registry import CheckContext, register
from surveytool.analysis.tagging.tagger import placing_hint
from surveytool.model import Finding, Paper, Severity, SourceLocation
from surveytool.output.notes_regions import region_spans
from surveytool.text.citations import citations


@dataclass(frozen=True)
class NotesCitation:
    key: str
    section: str  # the section whose notes cite it ("" for the introduction, overview or a group)
    location: SourceLocation


@dataclass(frozen=True)
class ChapterProse:
    """What one chapter's notes regions cite, and where each section's notes begin."""

    path: str
    cited: tuple[NotesCitation, ...]
    section_lines: dict[str, int]  # section id -> line of its notes region's begin marker


def read_prose(path: str, text: str, section_ids: Iterable[str]) -> ChapterProse | None:
    """The notes of a generated chapter, or None when ``text`` has no notes regions (not a generated chapter).

    Only the regions are read: the generated text around them cites every paper anyway.
    """
    spans = region_spans(text)
    if not spans:
        return None
    sections = set(section_ids)
    cited: list[NotesCitation] = []
    section_lines: dict[str, int] = {}
    for region_id, start, end in spans:
        section = region_id.split("/", 1)[0]  # a theme's region: <section>/theme-<id>
        section = section if section in sections else ""
        first_line = text.count("\n", 0, start)  # the begin marker's line, 1-based
        if section:
            section_lines.setdefault(section, first_line)
        found, _ = citations(text[start:end])
        cited.extend(NotesCitation(c.key, section, SourceLocation(path, first_line + c.line)) for c in found)
    return ChapterProse(path, tuple(cited), section_lines)


def discussed(prose: ChapterProse, keys: Collection[str]) -> tuple[int, int]:
    """(papers of ``keys`` cited in the notes, all papers): the build's summary line."""
    in_notes = {c.key for c in prose.cited}
    return sum(key in in_notes for key in keys), len(keys)


def chapter_coverage(chapter: Path, section_ids: Iterable[str], keys: Collection[str]) -> tuple[int, int] | None:
    """How many of ``keys`` the notes of the chapter file cite (a build's summary line); None without a chapter."""
    try:
        text = chapter.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    prose = read_prose(str(chapter), text, section_ids)
    return None if prose is None else discussed(prose, keys)


def _chapters(context: CheckContext) -> list[ChapterProse]:
    if context.taxonomy is None:
        return []
    ids = context.taxonomy.section_ids
    found = (read_prose(path, text, ids) for path, text in context.tex_files)
    return [prose for prose in found if prose is not None]


def _by_key(papers: Sequence[Paper]) -> dict[str, Paper]:
    found: dict[str, Paper] = {}
    for paper in papers:
        for key in (paper.key, *paper.aliases):
            found.setdefault(key, paper)
    return found


@register(
    "not-discussed",
    Severity.INFO,
    "a paper the chapter's notes never cite: it is still only a generated stub",
    "Only for --tex files that are generated chapters (with notes regions); one per paper, at its section's notes.",
)
def _not_discussed(context: CheckContext) -> Iterable[Finding]:
    for prose in _chapters(context):
        in_notes = {c.key for c in prose.cited}
        for paper in context.papers:
            section = paper.primary_section
            if section is None or section not in prose.section_lines:
                continue
            if paper.key in in_notes or in_notes.intersection(paper.aliases):
                continue
            yield Finding(
                "not-discussed",
                Severity.INFO,
                f"'{paper.key}' ({section}) is cited only in its generated paragraph, never in your notes",
                SourceLocation(prose.path, prose.section_lines[section]),
                f"discuss it in the notes of '{section}', or leave it as a stub",
                paper.key,
            )


@register(
    "cited-in-other-section",
    Severity.WARNING,
    "a paper your notes discuss in a section it is not tagged in",
    "The notes of one section cite a paper whose tags place it elsewhere: move the text, or tag the entry there too. "
    "A paper left to place (in no section) has no notes to move the text to: the hint says how to place it there.",
)
def _cited_elsewhere(context: CheckContext) -> Iterable[Finding]:
    papers = _by_key(context.papers)
    for prose in _chapters(context):
        for citation in prose.cited:
            paper = papers.get(citation.key)
            if paper is None or not citation.section or citation.section in paper.section_ids:
                continue
            tagged = paper.primary_section
            if tagged is None:  # left to place: no notes to move the text to, only a section to give it
                message = f"'{citation.key}' is discussed in your notes of '{citation.section}' but is in no section"
                hint = f"to place it there, {placing_hint(paper, citation.section, context.tags_field)}"
            else:
                message = f"'{citation.key}' is discussed in your notes of '{citation.section}' but tagged '{tagged}'"
                hint = f"move the text to the notes of '{tagged}', or add '{citation.section}' to its sections"
            yield Finding("cited-in-other-section", Severity.WARNING, message, citation.location, hint, citation.key)
