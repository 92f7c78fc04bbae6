"""Related-paper lists: a header naming an anchor paper, then truncated abstracts.

The text is plain text, kept exactly as written apart from joining hard-wrapped
lines; nothing in it is interpreted as LaTeX.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# "Related papers: <title>", "相关论文: <title>", "Related Papers - <title>", any casing; a colon (ASCII or
# full-width) or a dash (hyphen, en or em dash) between them.
# The title is taken whole and stripped afterwards: a lazy title before a trailing \s*$ rescans the rest
# of the line at every space inside it.
_HEADER = re.compile(
    r"^\s*(?:related\s+papers?|相关论文|相關論文)\s*(?:[:：]|\s[-–—]+\s|[–—]+)(?P<title>.*)$", re.IGNORECASE
)
# A list item's number: "1.", "2)", "(3)", "[4]" and a space; or alone on its line (an empty item, or its
# text on the next line), so that the number is never read as text of the item before it.
_ITEM_NUMBER = re.compile(r"^(?:(\d{1,4})[.)]|\((\d{1,4})\)|\[(\d{1,4})\])(?:\s+(?=\S)|\s*$)")
_ELLIPSIS = ("…", "...")


@dataclass(frozen=True)
class Paragraph:
    text: str
    line: int  # 1-based line of the paragraph's first line
    truncated: bool


@dataclass(frozen=True)
class PaperList:
    anchor_title: str | None
    anchor_line: int
    paragraphs: tuple[Paragraph, ...]
    # First lines of paragraphs that look like several snippets glued together (a line inside ends with "…").
    suspect_lines: tuple[int, ...] = ()
    # The headers of further lists pasted after the first one: (title, line).
    later_anchors: tuple[tuple[str, int], ...] = ()
    # Lines of numbered items with no text ("3." alone), which give no paragraph.
    empty_item_lines: tuple[int, ...] = ()

    @property
    def anchor_truncated(self) -> bool:
        return self.anchor_title is not None and is_truncated(self.anchor_title)


def is_truncated(text: str) -> bool:
    return text.rstrip().endswith(_ELLIPSIS)


def strip_ellipsis(text: str) -> str:
    text = text.rstrip()
    for mark in _ELLIPSIS:
        if text.endswith(mark):
            return text[: -len(mark)].rstrip()
    return text


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` with any line ending (LF, CRLF, CR) and no BOM."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def looks_like_paper_list(text: str) -> bool:
    """True when the first non-blank line is a related-papers header."""
    for line in split_lines(text):
        if line.strip():
            return bool(_HEADER.match(line))
    return False


def parse_paper_list(text: str) -> PaperList:
    """Split a related-paper list into its anchor title and paragraphs."""
    lines = split_lines(text)
    anchor_title: str | None = None
    anchor_line = 0
    start = 0
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        match = _HEADER.match(line)
        if match:
            anchor_title = match.group("title").strip() or None
            anchor_line = index + 1
            start = index + 1
        break

    paragraphs: list[Paragraph] = []
    empty_items: list[int] = []
    later: list[tuple[str, int]] = []
    block: list[str] = []
    block_line = 0
    for index in range(start, len(lines) + 1):
        line = lines[index] if index < len(lines) else ""
        if line.strip():
            header = None if block else _HEADER.match(line)
            if header:  # another list pasted below: its header names its anchor paper, never a snippet
                if header.group("title").strip():
                    later.append((header.group("title").strip(), index + 1))
                continue
            if not block:
                block_line = index + 1
            block.append(line.strip())
            continue
        if block:
            for item, item_line in _numbered_items(block, block_line):
                if item:
                    paragraphs.extend(_paragraphs(item, item_line))
                else:
                    empty_items.append(item_line)
            block = []
    suspects = tuple(p.line for p in paragraphs if _looks_like_several(p.text))
    return PaperList(anchor_title, anchor_line, tuple(paragraphs), suspects, tuple(later), tuple(empty_items))


def _item_number(line: str) -> int | None:
    match = _ITEM_NUMBER.match(line)
    return int(next(g for g in match.groups() if g)) if match else None


def _numbered_items(lines: list[str], first_line: int) -> list[tuple[list[str], int]]:
    """A block cut at its numbered items, each without its number; the block whole when it is not a numbered list.

    Only the next number in sequence starts an item, so that a wrapped line that happens to
    begin with a number ("3. We ...") stays inside its paragraph. An item with no text ("3." alone)
    has no lines.
    """
    number = _item_number(lines[0])
    if number is None:
        return [(lines, first_line)]
    items: list[tuple[list[str], int]] = []
    for offset, line in enumerate(lines):
        if offset == 0 or _item_number(line) == number + 1:
            number = number if offset == 0 else number + 1
            text = _ITEM_NUMBER.sub("", line, count=1)
            items.append(([text] if text else [], first_line + offset))
        else:
            items[-1][0].append(line)
    return items


def _paragraphs(lines: list[str], first_line: int) -> list[Paragraph]:
    """One paragraph from a block of lines; or one per line when every line is a cut-off snippet.

    Some lists put one snippet per line with no blank line between: a wrapped
    paragraph never ends each of its lines with an ellipsis.
    """
    if len(lines) > 1 and (all(is_truncated(line) for line in lines) or all(map(_reads_as_title, lines))):
        return [Paragraph(line, first_line + offset, is_truncated(line)) for offset, line in enumerate(lines)]
    joined = _join_wrapped(lines)
    return [Paragraph(joined, first_line, is_truncated(joined))]


# Words a wrapped line may end on (the sentence goes on) but a title does not.
_CONTINUING = frozenset(
    "a about across after an and are as at be been before between both but by can each for from has have in into is it"
    " its not of on or our over such than that the their these they this through to under using via was we were when"
    " where which while with".split()
)


def _reads_as_title(line: str) -> bool:
    """A line that is a whole title: a capital first, no sentence ending inside or at its end, not cut mid-phrase.

    A list of titles one per line has these on every line; a hard-wrapped abstract
    breaks mid-sentence on some line, or ends its last one with a full stop.
    """
    words = line.split()
    if not words or len(words) > 25 or not (words[0][0].isupper() or words[0][0].isdigit()):
        return False
    if is_truncated(line):
        return True
    last = words[-1]
    if last.endswith((".", ",", ";", ":", "-", "–")) or last.lower() in _CONTINUING:
        return False
    return not any(word.endswith((".", "!", "?")) and len(word) > 3 for word in words[:-1])


def _join_wrapped(lines: list[str]) -> str:
    """Re-join a hard-wrapped paragraph; a hyphen at a line end joins without a space."""
    text = lines[0]
    for line in lines[1:]:
        if text.endswith("-") and not text.endswith(" -") and line[:1].islower():
            text += line
        else:
            text += " " + line
    return text


# An ellipsis then a new sentence, inside a paragraph: where one cut-off snippet ends and the next begins.
_GLUED = re.compile(r"(?:…|\.\.\.)\s+[A-Z\d]")


def _looks_like_several(text: str) -> bool:
    return bool(_GLUED.search(text))
