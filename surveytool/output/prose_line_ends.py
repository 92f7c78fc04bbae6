"""The line ends of a rebuilt chapter: those of the file as its author's editor saved it.

A file whose lines all end alike is written back with that ending. A file with both (notes pasted on Windows
into a chapter made on Linux) keeps, in each notes region carried over unchanged, the ending each of its lines
had: the author's bytes stay theirs. The generated lines, and notes that moved, take the ending most lines have.
"""

from __future__ import annotations

import re

from surveytool.output.notes_regions import SavedChapter, region_spans

# One line with its ending (the lone CRs of old Macs are read as LF before this: see read_saved).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\n)|[^\r\n]+\Z")


def in_saved_style(saved: SavedChapter, text: str) -> str:
    """``text`` (a rebuilt chapter with "\n" line ends) with the byte-order mark and line ends of ``saved``."""
    crlf = saved.as_saved.count("\r\n")
    if not crlf or crlf == saved.as_saved.count("\n"):
        return saved.in_its_style(text)
    lines = _LINE.findall(saved.as_saved)
    kept: dict[str, tuple[str, str]] = {}  # region id -> (its text with "\n" ends, as saved)
    for region_id, start, end in region_spans(saved.text):
        first = saved.text.count("\n", 0, start)
        as_saved = "".join(lines[first : first + saved.text.count("\n", start, end)])
        kept.setdefault(region_id, (saved.text[start:end], as_saved))
    pieces, last = [], 0
    for region_id, start, end in region_spans(text):
        read, as_saved = kept.get(region_id, ("", ""))
        if read and read == text[start:end]:
            pieces += [_ending(text[last:start], saved.newline), as_saved]
            last = end
    return saved.bom + "".join(pieces) + _ending(text[last:], saved.newline)


def _ending(text: str, newline: str) -> str:
    return text if newline == "\n" else text.replace("\n", newline)
