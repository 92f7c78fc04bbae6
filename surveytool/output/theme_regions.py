"""A theme's notes follow its papers: when a rebuild names a theme anew (papers added, moved or reworded),
the prose of the old theme goes to the new theme holding most of its papers, instead of to the end."""

from __future__ import annotations

import re
from collections.abc import Mapping

from surveytool.output.notes_regions import region_spans

THEME_MARK = "/theme-"
_CITED = re.compile(r"\\cite[a-zA-Z]*\*?(?:\[[^\]]*\])*\{([^}]*)\}")
# What ends a theme's papers: the next theme, section or notes region, or a table or figure after them
# (a section's comparison table cites all its papers), indented or not.
_THEME_END = re.compile(
    r"^[ \t]*(\\paragraph\{|\\(sub)*section\{|\\chapter\{|% surveytool: begin notes |\{?\\(small|begin)\b)", re.M
)


def theme_papers(text: str) -> dict[str, set[str]]:
    """Theme region id -> the keys the generated text below it cites, up to the next theme or section."""
    found: dict[str, set[str]] = {}
    for region_id, _, end in region_spans(text):
        if THEME_MARK not in region_id:
            continue
        start = text.find("\n", end) + 1 or len(text)  # past the region's end line
        stop = _THEME_END.search(text, start)
        block = text[start : stop.start() if stop else len(text)]
        lines = (line for line in block.splitlines() if not line.lstrip().startswith("%"))
        found[region_id] = {key.strip() for line in lines for m in _CITED.finditer(line) for key in m[1].split(",")}
    return found


def renamed_themes(old_text: str, new_text: str, with_prose: set[str]) -> dict[str, str]:
    """Old theme region -> new theme region of the same section, for old themes (of ``with_prose``) the new
    text no longer has, each paired with the new theme sharing most papers with it (at most one old theme
    per new one; best overlaps first, ties by id so the result never depends on order)."""
    old, new = theme_papers(old_text), theme_papers(new_text)
    gone = [r for r in old if r in with_prose and r not in new]
    fresh = [r for r in new if r not in old]
    pairs = sorted(
        (-len(old[g] & new[f]), g, f)
        for g in gone
        for f in fresh
        if g.split(THEME_MARK)[0] == f.split(THEME_MARK)[0] and old[g] & new[f]
    )
    renames: dict[str, str] = {}
    for _, g, f in pairs:
        if g not in renames and f not in renames.values():
            renames[g] = f
    return renames


def with_renamed_regions(text: str, renames: Mapping[str, str]) -> str:
    """``text`` with the marker lines of each renamed region given the new id."""
    if not renames:
        return text
    marker = re.compile(
        r"^([ \t]*% surveytool: (?:begin|end) notes )(" + "|".join(map(re.escape, renames)) + r")([ \t]*)$", re.M
    )
    return marker.sub(lambda m: m[1] + renames[m[2]] + m[3], text)
