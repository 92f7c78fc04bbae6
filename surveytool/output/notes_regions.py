"""Prose that survives regeneration: marked regions the author writes in, and a checksum of the rest.

    % surveytool: begin notes <id>
    ... the author's text, kept across rebuilds ...
    % surveytool: end notes <id>

Everything outside the regions is generated. A checksum of it (region contents
left out) is written on the first line, so that a rebuild can tell whether the
author edited generated text too, and refuse to overwrite it silently.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from surveytool.output.editor_lines import editor_lines, with_editor_lines
from surveytool.output.parked_notes import ORPHANED, parked, unpark

# Markers count only at a line start, spaces and tabs before them aside (see _at_line_starts).
_MARKER = re.compile(r"% surveytool: (?P<kind>begin|end) notes (?P<id>\S+)[ \t\r]*$", re.M)
#: How the checksum line starts (``stamp``).
CHECKSUM_START = "% surveytool: checksum "
_CHECKSUM = re.compile(re.escape(CHECKSUM_START) + r"(?P<sum>[0-9a-f]{40})[^\n]*\n")


def _at_line_starts(pattern: re.Pattern[str], text: str) -> Iterator[tuple[int, re.Match[str]]]:
    """Matches of ``pattern`` with only spaces and tabs before them on their line, each with where its line
    starts: white space before a line, like white space after it, is what an editor does (one that indents
    with tabs), no edit. A pattern that opens with its literal text is found by a fast scan; opening it with
    ``^`` and white space would make the engine try every position of the text."""
    for match in pattern.finditer(text):
        start = text.rfind("\n", 0, match.start()) + 1
        if not text[start : match.start()].strip(" \t"):
            yield start, match


def _checksum_line(text: str) -> tuple[int, re.Match[str]] | None:
    return next(_at_line_starts(_CHECKSUM, text), None)


def _without_checksum(text: str) -> str:
    line = _checksum_line(text)
    return text if line is None else text[: line[0]] + text[line[1].end() :]


def _end_marker(region_id: str) -> str:
    return f"% surveytool: end notes {region_id}"


# The parking region at the end of the chapter, emptied (see carry_over).
_PARKING = f"% surveytool: begin notes {ORPHANED}\n{_end_marker(ORPHANED)}\n"


@dataclass(frozen=True)
class _Region:
    id: str
    start: int  # where its content starts: just after the begin line
    end: int  # where its end line starts (white space before the marker is no content)
    begin: int = 0  # where its begin line starts


def _regions(text: str) -> list[_Region]:
    """The regions of ``text`` in order. A region runs from a begin line to the next end line of the same id;
    marker lines inside it are the author's text, so regions never nest. A begin line with no end line after
    it starts no region."""
    markers = list(_at_line_starts(_MARKER, text))
    ends: dict[str, list[int]] = defaultdict(list)  # id -> indexes of its end markers, in order
    for index, (_, marker) in enumerate(markers):
        if marker.group("kind") == "end":
            ends[marker.group("id")].append(index)
    found: list[_Region] = []
    index = 0
    while index < len(markers):
        begin_line, begin = markers[index]
        index += 1
        if begin.group("kind") != "begin":
            continue
        region_ends = ends.get(begin.group("id"), [])
        after = bisect.bisect_left(region_ends, index)
        if after < len(region_ends):
            end_line, end = markers[region_ends[after]]
            found.append(_Region(begin.group("id"), min(begin.end() + 1, end_line), end_line, begin_line))
            index = region_ends[after] + 1
    return found


def region_spans(text: str) -> list[tuple[str, int, int]]:
    """Each region's id and the offsets of its text (between its marker lines), in order."""
    return [(region.id, region.start, region.end) for region in _regions(text)]


@dataclass(frozen=True)
class Unpaired:
    """A marker line outside every region that opens or closes none (lines from 1)."""

    line: int
    kind: str
    id: str
    ended_on: int | None = None  # for an end line: the end line of the last region of its id above it


def unpaired_markers(text: str) -> list[Unpaired]:
    """Begin lines with no end line of their id below them, and end lines with no begin line above them."""
    found = _regions(text)
    bounds = {r.begin for r in found} | {r.end for r in found}
    unpaired = []
    for at, marker in _at_line_starts(_MARKER, text):
        if at in bounds or any(r.start <= at < r.end for r in found):
            continue
        before = [r.end for r in found if r.id == marker.group("id") and r.end < at]
        ended_on = text.count("\n", 0, before[-1]) + 1 if before and marker.group("kind") == "end" else None
        line = text.count("\n", 0, at) + 1
        unpaired.append(Unpaired(line, marker.group("kind"), marker.group("id"), ended_on))
    return unpaired


def repeated_regions(text: str) -> list[tuple[str, int, int]]:
    """(id, line of its first begin line, line of the next) of each region id whose marker pair appears twice."""
    first: dict[str, int] = {}
    repeated = []
    for region in _regions(text):
        line = text.count("\n", 0, region.begin) + 1
        if region.id in first:
            repeated.append((region.id, first[region.id], line))
        else:
            first[region.id] = line
    return repeated


def regions(text: str) -> dict[str, str]:
    """Region id -> the text between its markers (empty when the author wrote nothing). The texts of
    regions that share an id are joined: none is lost."""
    found: dict[str, str] = {}
    for region in _regions(text):
        found[region.id] = found.get(region.id, "") + text[region.start : region.end]
    return found


def _with_contents(text: str, found: list[_Region], contents: dict[int, str]) -> str:
    """``text`` with the content of its n-th region (of ``found``) replaced by ``contents[n]``, others kept."""
    pieces, last = [], 0
    for number, region in enumerate(found):
        if number in contents:
            pieces += [text[last : region.start], contents[number]]
            last = region.end
    return "".join(pieces) + text[last:]


def _without_contents(text: str) -> str:
    text = _without_checksum(editor_lines(text).body)
    found = _regions(text)
    return _with_contents(text, found, dict.fromkeys(range(len(found)), ""))


def checksum(text: str) -> str:
    """The checksum of the generated part's lines, each without the white space around it, blank ones left out:
    what an editor does to white space (tabs for spaces that indent, trailing blanks, blank lines, the last line
    end) is no edit to refuse a rebuild for. Line by line: splitting a large chapter into words costs 3x more."""
    lines = (line.strip() for line in _without_contents(text).splitlines())
    return hashlib.sha1("\n".join(filter(None, lines)).encode("utf-8")).hexdigest()


def _checksum_as_written(text: str) -> str:
    """The checksum of the generated part byte for byte, which chapters stamped by earlier versions carry."""
    return hashlib.sha1(_without_contents(text).encode("utf-8")).hexdigest()


def stamp(text: str) -> str:
    """``text`` with the checksum of its generated part on its first line, below the magic comments an editor
    put above it."""
    head, body, tail = editor_lines(text)
    line = f"{CHECKSUM_START}{checksum(body)} (edit only between the notes markers)\n"
    return head + line + _without_checksum(body) + tail


def stamped(text: str) -> bool:
    """Whether ``text`` has a checksum line: surveytool wrote it."""
    return _checksum_line(text) is not None


def edited_outside_regions(text: str) -> bool:
    """True when generated text was changed by hand (or the file was not made by surveytool)."""
    line = _checksum_line(text)
    if line is None:
        return True
    written = line[1].group("sum")
    if written in (checksum(text), _checksum_as_written(text)):
        return False
    # The notes parked at the end may be deleted with their marker lines, as the build offers: those lines are
    # all it generated there, and it writes them only around parked notes.
    return ORPHANED in regions(text) or written != checksum(f"{editor_lines(text).body}\n{_PARKING}")


def restamped(old: str, new: str) -> str:
    """``new``, another command's edit of the generated part of a file read as ``old`` (as its bytes decode: any
    line ends, a byte-order mark), with the checksum made to match when ``old`` was unedited: rekey rewrites
    the generated chapter's keys too, and the next build must not take that for the author's edit."""

    def as_lines(text: str) -> str:
        return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")

    match = _CHECKSUM.search(new)
    try:
        if match is None or edited_outside_regions(as_lines(old)):
            return new
        return new[: match.start("sum")] + checksum(as_lines(new)) + new[match.end("sum") :]
    except UnicodeEncodeError:  # bytes that are not UTF-8: no chapter surveytool wrote
        return new


@dataclass(frozen=True)
class SavedChapter:
    """A generated .tex file as its author's editor saved it: the text with "\n" line ends, and how to
    give a new text the same byte-order mark and line endings."""

    text: str
    bom: str = ""
    newline: str = "\n"
    encoding: str = "utf-8"  # as it was saved; written back in UTF-8
    stray_bytes: int = 0  # bytes that are not UTF-8 in a file that is UTF-8 otherwise, read as Windows-1252 characters
    stray_line: int = 0  # the line of the first of them
    as_saved: str = ""  # the text with the line ends as they were, each line's own

    def in_its_style(self, text: str) -> str:
        """``text`` (with "\n" line ends) with this file's mark and line endings."""
        return self.bom + (text if self.newline == "\n" else text.replace("\n", self.newline))


def read_saved(data: bytes) -> SavedChapter:
    """The chapter's bytes as text: UTF-8 (stray bytes as Windows-1252 characters, as every user file is read),
    without its byte-order mark, every line ending read as "\n"; the ending most of its lines have is kept
    for the rebuild, so that an editor on Windows sees no change it did not make."""
    from surveytool.text.file_encoding import decode_bytes
    from surveytool.text.line_ends import newline_of

    decoded = decode_bytes(data)
    raw = decoded.text
    newline = newline_of(decoded.exact_text)
    # The mark is kept only as UTF-8: the chapter is rewritten in UTF-8, which LaTeX reads.
    bom = "\ufeff" if decoded.bom else ""
    text = raw.replace("\r\n", "\n").replace("\r", "\n")
    return SavedChapter(text, bom, newline, decoded.encoding, decoded.stray_bytes, decoded.odd_line, raw)


@dataclass(frozen=True)
class Merged:
    text: str
    kept: tuple[str, ...]  # region ids whose prose was carried over
    orphaned: tuple[str, ...]  # region ids no longer generated, kept at the end
    returned: tuple[str, ...] = ()  # region ids generated again, given back the prose parked at the end


def carry_over(new_text: str, old_text: str) -> Merged:
    """``new_text`` with every non-empty region of ``old_text`` put back in its place, and the lines its editor
    added at its top and end (editor_lines.py).

    Each id's prose goes into the first region of that id, once; prose whose region is gone is parked
    in the ``orphaned`` region, never dropped, and goes back to its region when that is generated again.
    """
    new_regions = _regions(new_text)
    new_ids = {region.id for region in new_regions}
    old: dict[str, str] = {}
    back = unpark("", new_ids)
    for region_id, content in regions(old_text).items():
        if region_id == ORPHANED:
            back = unpark(content, new_ids)
            content = back.still_parked
        if content.strip():
            old[region_id] = content
    for region_id, content in back.home.items():
        old[region_id] = old.get(region_id, "") + content
    # What waits at the end already comes first: the author's text above its first header stays above every header.
    orphans = sorted((r for r in old if r not in new_ids or r == ORPHANED), key=lambda r: r != ORPHANED)
    parked_text = "".join(parked(r, old[r]) if r != ORPHANED else old[r] for r in orphans)
    contents: dict[int, str] = {}
    placed: set[str] = set()
    for number, region in enumerate(new_regions):
        if region.id in placed:
            continue
        carried = parked_text if region.id == ORPHANED else old.get(region.id)
        if carried:
            contents[number] = carried
            placed.add(region.id)
    new_text = _with_contents(new_text, new_regions, contents)
    if parked_text and ORPHANED not in placed:
        new_text = (
            new_text.rstrip("\n") + f"\n\n% surveytool: begin notes {ORPHANED}\n{parked_text}{_end_marker(ORPHANED)}\n"
        )
    kept = tuple(r for r in old if r in placed and r != ORPHANED)
    return Merged(
        with_editor_lines(new_text, old_text), kept, tuple(o for o in orphans if o != ORPHANED), tuple(back.home)
    )
