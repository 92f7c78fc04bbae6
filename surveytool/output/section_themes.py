"""Themes within the chapter's sections, found from the papers' views so a patched rebuild finds the same."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from surveytool.analysis.themes import ThemeInput, find_themes, theme_region_name
from surveytool.output.chapter_view import UNCLASSIFIED, GroupView, PaperView, SectionView, ThemeView

#: A section of this many papers or more is split into themes: two themes of three are the smallest structure.
MIN_THEMED = 6
#: A larger section is listed flat: five themes of it would be paragraphs too long to read, and finding them
#: costs time on every build of a large bibliography.
MAX_THEMED = 300


def _year(view: PaperView) -> int | None:
    return int(view.year) if view.year.isdigit() else None


def section_themes(section: SectionView) -> tuple[ThemeView, ...]:
    """The section's themes in the order ``find_themes`` gives (largest first); () for a flat list."""
    if section.id == UNCLASSIFIED:  # papers no one placed share a section, not a topic
        return ()
    if len(section.papers) > MAX_THEMED:
        return ()
    found = find_themes(
        [ThemeInput(v.key, v.title, v.snippet, _year(v)) for v in section.papers], min_papers=MIN_THEMED
    )
    by_key = {v.key: v for v in section.papers}
    return tuple(
        ThemeView(theme.id, theme.name, theme_region_name(section.id, theme), tuple(by_key[k] for k in theme.keys))
        for theme in found
    )


def with_themes(groups: Sequence[GroupView]) -> list[GroupView]:
    """``groups`` with every section large and varied enough split into themes."""
    return [
        replace(group, sections=tuple(replace(s, themes=section_themes(s)) for s in group.sections)) for group in groups
    ]
