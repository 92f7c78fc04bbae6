"""Lines an editor adds to a generated chapter that its author never thinks of as edits, kept across rebuilds.

TeXShop, TeXstudio and VS Code's LaTeX Workshop read magic comments at the top of a file
(``% !TEX root = main.tex``); Emacs (AUCTeX) reads a ``-*- mode: latex -*-`` line at its top and a
``Local Variables:`` block at its end. Neither is generated
text: the checksum leaves them out (notes_regions.py), and a rebuild puts them back where they were, byte for byte.
Nothing else is: a magic comment below the first generated line, or a block with other text after it, is an edit.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# A magic comment, or Emacs's file variables line ("% -*- mode: latex; TeX-master: "main" -*-").
_COMMENT = r"[ \t]*%(?:[ \t]*![ \t]*TeX\b|[^\n]*-\*-[^\n]*-\*-)"
# The top lines: magic comments, and blank lines among or after them.
_TOP = re.compile(rf"(?:(?:{_COMMENT}[^\n]*|[ \t]*)\n)*", re.I)
_MAGIC = re.compile(rf"^{_COMMENT}", re.I | re.M)
# Emacs looks for the block only in a file's last 3000 characters; its words are matched ignoring case.
_EMACS_WINDOW = 3000
_START = re.compile(r"Local Variables:", re.I)
_END = re.compile(r"[ \t]*End:", re.I)


class EditorLines(NamedTuple):
    """A chapter cut into the editor's lines above it, the chapter, and the editor's block below it."""

    head: str
    body: str
    tail: str


def _head_end(text: str) -> int:
    top = _TOP.match(text)
    return top.end() if top and _MAGIC.search(top.group()) else 0


def _tail_start(text: str, head_end: int) -> int:
    """Where the Local Variables block that ends ``text`` starts, the blank lines above it included; the end of
    ``text`` when it ends with no such block: one opened by a comment, each line of it starting with what its
    first line has before "Local Variables:", and closed by an "End:" line that only blank lines follow."""
    window = max(head_end, len(text) - _EMACS_WINDOW)
    starts = list(_START.finditer(text, window))
    if not starts:
        return len(text)
    last = starts[-1]
    first_line = text.rfind("\n", 0, last.start()) + 1
    lead = text[first_line : last.start()].rstrip()  # Emacs's prefix: trailing white space may differ by line
    lines = text[first_line:].rstrip().split("\n")
    # A notes marker inside would be generated text: a "%" prefix matches it.
    if (
        first_line < head_end
        or len(lines) < 2
        or not lead.lstrip(" \t").startswith("%")
        or not all(line.startswith(lead) and "% surveytool:" not in line for line in lines)
        or not _END.match(lines[-1], len(lead))
    ):
        return len(text)
    body_end = len(text[:first_line].rstrip(" \t\n"))
    return max(head_end, text.find("\n", body_end) + 1 if body_end else 0)


def editor_lines(text: str) -> EditorLines:
    """``text`` (with "\n" line ends) cut into magic comments at its top, the rest, and a Local Variables block
    at its end; each is empty when the editor added none."""
    head_end = _head_end(text)
    tail_start = _tail_start(text, head_end)
    return EditorLines(text[:head_end], text[head_end:tail_start], text[tail_start:])


def is_editor_line(line: str) -> bool:
    """Whether ``line`` is a magic comment or Emacs's file variables line, which a chapter keeps at its top."""
    return _MAGIC.match(line) is not None


def with_editor_lines(text: str, old: str) -> str:
    """``text``, a chapter as generated, with the editor's lines of ``old`` put back at its top and its end."""
    head, _, tail = editor_lines(old)
    if tail:
        # The blank lines above the block are the tail's: the chapter's own would add one each rebuild.
        text = text.rstrip(" \t\n") + "\n" + tail
    return head + text
