"""Line endings as users' editors write them: LF, CRLF (Windows) or a lone CR (old Mac), in any mix.

A line added to a user's file ends as that file's lines do; these helpers find lines by all three.
"""

from __future__ import annotations

import re

#: One line break: CRLF counts once, not as a CR and an LF.
LINE_BREAK = re.compile(r"\r\n|\r|\n")


def newline_of(text: str, default: str = "\n") -> str:
    """The line ending most lines of ``text`` end with (LF in a tie); ``default`` when it has no line break."""
    crlf = text.count("\r\n")
    bare_cr = text.count("\r") - crlf
    bare_lf = text.count("\n") - crlf
    if not (crlf or bare_cr or bare_lf):
        return default
    if crlf > max(bare_lf, bare_cr):
        return "\r\n"
    return "\r" if bare_cr > max(bare_lf, crlf) else "\n"


def line_start(text: str, position: int) -> int:
    """Where the line holding ``position`` starts (0 on the first line)."""
    return max(text.rfind("\n", 0, position), text.rfind("\r", 0, position)) + 1


def next_line_break(text: str, position: int) -> re.Match[str] | None:
    """The first line break at or after ``position`` (a CRLF whole), or None on the last line."""
    return LINE_BREAK.search(text, position)


def line_breaks_at_end(text: str) -> int:
    """How many line breaks ``text`` ends with (0, 1, or 2 for a blank line or more)."""
    found = re.search(r"(?:\r\n|\r(?!\n)|\n){1,2}\Z", text)
    return len(LINE_BREAK.findall(found.group())) if found else 0
