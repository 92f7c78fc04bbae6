"""Prose that survives regeneration: marked regions the author writes in, and a checksum of the rest.

    % surveytool: begin notes <id>
    ... the author's text, kept across rebuilds ...
    % surveytool: end notes <id>

Everything outside the regions is generated. A checksum of it (region contents
left out) is written on the first line, so that a rebuild can tell whether the
author edited generated text too, and refuse to overwrite it silently.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass

# Both markers count only at a line start (see _at_line_starts).
_BEGIN = re.compile(r"% surveytool: begin notes (?P<id>\S+)[ \t]*$", re.M)
_CHECKSUM = re.compile(r"% surveytool: checksum (?P<sum>[0-9a-f]{40})[^\n]*\n")
ORPHANED = "orphaned"


def _at_line_starts(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """Matches of ``pattern`` that start a line. A pattern that opens with its literal text is found
    by a fast scan; opening it with ``^`` would make the engine try every position of the text."""
    return (m for m in pattern.finditer(text) if m.start() == 0 or text[m.start() - 1] == "\n")


def _checksum_line(text: str) -> re.Match[str] | None:
    return next(_at_line_starts(_CHECKSUM, text), None)


def _without_checksum(text: str) -> str:
    line = _checksum_line(text)
    return text if line is None else text[:line.start()] + text[line.end():]


def _end_marker(region_id: str) -> str:
    return f"% surveytool: end notes {region_id}"


def regions(text: str) -> dict[str, str]:
    """Region id -> the text between its markers (empty when the author wrote nothing)."""
    found = {}
    for begin in _at_line_starts(_BEGIN, text):
        end = text.find("\n" + _end_marker(begin.group("id")), begin.end())
        if end >= 0:
            found[begin.group("id")] = text[begin.end() + 1 : end + 1] if end > begin.end() else ""
    return found


def _without_contents(text: str) -> str:
    text = _without_checksum(text)
    for region_id, content in regions(text).items():
        if content:
            text = text.replace(f"notes {region_id}\n{content}{_end_marker(region_id)}",
                                f"notes {region_id}\n{_end_marker(region_id)}", 1)
    return text


def checksum(text: str) -> str:
    return hashlib.sha1(_without_contents(text).encode("utf-8")).hexdigest()


def stamp(text: str) -> str:
    """``text`` with the checksum of its generated part on the first line."""
    return f"% surveytool: checksum {checksum(text)} (edit only between the notes markers)\n" + _without_checksum(text)


def edited_outside_regions(text: str) -> bool:
    """True when generated text was changed by hand (or the file was not made by surveytool)."""
    match = _checksum_line(text)
    return match is None or match.group("sum") != checksum(text)


@dataclass(frozen=True)
class Merged:
    text: str
    kept: tuple[str, ...]  # region ids whose prose was carried over
    orphaned: tuple[str, ...]  # region ids no longer generated, kept at the end


def carry_over(new_text: str, old_text: str) -> Merged:
    """``new_text`` with every non-empty region of ``old_text`` put back in its place."""
    old = {k: v for k, v in regions(old_text).items() if v.strip()}
    new_ids = set(regions(new_text))
    kept = []
    for region_id, content in old.items():
        if region_id in new_ids and region_id != ORPHANED:
            empty = f"notes {region_id}\n{_end_marker(region_id)}"
            new_text = new_text.replace(empty, f"notes {region_id}\n{content}{_end_marker(region_id)}", 1)
            kept.append(region_id)
    orphans = [r for r in old if r not in new_ids or r == ORPHANED]
    if orphans:
        # Prose of sections that no longer exist: never dropped, parked at the end.
        body = "".join(f"% (from notes {r})\n{old[r]}" if r != ORPHANED else old[r] for r in orphans)
        new_text = new_text.rstrip("\n") + f"\n\n% surveytool: begin notes {ORPHANED}\n{body}{_end_marker(ORPHANED)}\n"
    return Merged(new_text, tuple(kept), tuple(o for o in orphans if o != ORPHANED))
