"""The items of a related-paper list: where numbers and bullets start papers, across the blank lines between them.

A list copied from a PDF or a web page is cut by page breaks: a page number or running header between two
items, or in the middle of one, and the rest of an abstract on the next page after a blank line. Such lines
are left out (and reported); in a numbered or bulleted list, a paragraph with no marker that can only be
the rest of the item before it joins that item (and is reported).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

# A list item's number: "1.", "2)", "(3)", "[4]" and a space; or alone on its line (an empty item, or its
# text on the next line), so that the number is never read as text of the item before it. Chinese and Japanese
# pages write "1、", "２．", "３）" or "（4）", with no space after it; word processors a circled number ("①", "❷").
_ITEM_NUMBER = re.compile(
    r"^(?:(?:(\d{1,4})[.)]|\((\d{1,4})\)|\[(\d{1,4})\])(?:\s+(?=\S)|\s*$)|(?:(\d{1,4})[、．）]|（(\d{1,4})）)\s*"
    r"|([\u2460-\u2473\u2776-\u2793])\s*"
    # A PDF's text layer may lose the space: "1.In this paper", a capital and a letter after the point.
    r"|(\d{1,4})\.(?=[A-Z][A-Za-z]))"
)
# Bullets no prose writes between words: a PDF's text layer may run several items of them into one line. Word
# processors and slides also write arrowheads, diamonds, ticks and a bullet operator.
_ONLY_BULLETS = "•◦▪▫‣●○■□►▸▹▶➤➢➣➔➜◆◇♦❖✓✔✗✘∙⁃★☆⦿⦾"
# A bullet as word processors, web pages and Markdown write it, followed by a space or alone on its line.
_BULLET = re.compile(rf"^([{_ONLY_BULLETS}·*+→⇒\-–—−‐])(?:\s+(?=\S)|\s*$)")
# Bullets that prose also starts a wrapped line with, as a dash (a minus sign and a Unicode hyphen too).
_DASHES = ("-", "–", "—", "−", "‐")
# How many lines further an abstract's own enumeration is looked for: each line is looked at once per item, so a
# paragraph of thousands of numbered lines would take their square.
_AHEAD = 40
# A number may skip ahead by this much (a paper the list's author took out): after a finished item only.
_SKIPPED = 5
_PAGE = r"(?:page|p\.|seite|página|pagina)\s*\d{1,4}(?:\s*(?:/|of)\s*\d{1,4})?"
# A page number ("12", "- 12 -", "Page 3 of 10", "3 / 10"), or a running header or footer that ends in one
# ("Related work survey — page 2"), alone on its line.
_PAGE_FURNITURE = re.compile(
    rf"^(?:[-–—]\s*)?\d{{1,4}}(?:\s*[-–—])?$|^\d{{1,4}}\s*(?:/|of)\s*\d{{1,4}}$|^{_PAGE}$"
    rf"|^[^\s].{{0,80}}?\s[-–—|·•,]\s*{_PAGE}$",
    re.IGNORECASE,
)
# How a sentence, or a cut-off snippet, ends: after it a new paragraph is a new paper.
_FINISHED = re.compile(r"(?:[.!?…:;]|\.\.\.)[\"'”’)\]]*$")
# How an item ends before a skipped number or a bullet further on its line: a sentence or a cut-off snippet; after
# a colon or a semicolon an abstract's own enumeration goes on ("contributions: • a schedule; • a policy").
_ENDS_ITEM = re.compile(r"[.!?…][\"'”’)\]]*$")

# A lower-case word and a space or a comma: no "arXiv:", "doi:" or "https://".
_GOES_ON = re.compile(r"^[a-z\u00df-\u00ff]+(?:[\s,;]|$)")

Line = tuple[str, int]  # a line's text (stripped) and its 1-based number


@dataclass
class Item:
    lines: list[Line]
    line: int  # where the item starts: its number or bullet, or its first line
    marked: bool  # started by a number or a bullet
    # Lines of paragraphs read as the rest of this item.
    joined: list[int] = field(default_factory=list)


# Words a wrapped line may end on (the sentence goes on) but a title does not.
_CONTINUING = frozenset(
    "a about across after an and are as at be been before between both but by can each for from has have in into is it"
    " its not of on or our over such than that the their these they this through to under using via was we were when"
    " where which while with".split()
)


def reads_as_title(line: str) -> bool:
    """A line that is a whole title: a capital first, no sentence ending inside or at its end, not cut mid-phrase.

    A list of titles one per line has these on every line; a hard-wrapped abstract
    breaks mid-sentence on some line, or ends its last one with a full stop.
    """
    words = line.split()
    if not words or len(words) > 25 or not (words[0][0].isupper() or words[0][0].isdigit()):
        return False
    if line.rstrip().endswith(("…", "...")):
        return True
    last = words[-1]
    if last.endswith((".", ",", ";", ":", "-", "–")) or last.lower() in _CONTINUING:
        return False
    return not any(word.endswith((".", "!", "?")) and len(word) > 3 for word in words[:-1])


def _whole_title(text: str) -> bool:
    """An item that reads as a title in Title Case: complete, where a sentence cut by a page break is not."""
    long_words = [word for word in text.split() if len(word) > 3 and word[0].isalpha()]
    capitalised = sum(word[0].isupper() for word in long_words)
    return reads_as_title(text) and capitalised * 2 > len(long_words)


def is_page_furniture(line: str) -> bool:
    return bool(_PAGE_FURNITURE.match(line.strip()))


def _item_number(line: str) -> int | None:
    match = _ITEM_NUMBER.match(line)
    if match is None:
        return None
    number = next(g for g in match.groups() if g)
    return int(number) if number.isdecimal() else int(unicodedata.numeric(number))


def _number_style(line: str) -> str:
    """How a line's item number is written: "1." and "(1)" are "." and "()"."""
    match = _ITEM_NUMBER.match(line)
    return re.sub(r"[\d\u2460-\u2473\u2776-\u2793]+|\s", "", match.group()) if match else ""


def _bullet(line: str) -> str | None:
    match = _BULLET.match(line)
    return match.group(1) if match else None


class ItemSplitter:
    """Cuts the paragraphs (blocks of non-blank lines) of one list into items.

    Only the next number in sequence starts an item, so that a wrapped line that happens to begin with a
    number ("3. We ...") stays inside its paragraph; the sequence runs on across blank lines, so that an
    item after a page break is still cut from the paragraph before it. A bullet starts an item when the
    paragraph it is in, or the list so far, uses that bullet. An item with no text ("3." alone) has no lines.
    """

    def __init__(self) -> None:
        self.items: list[Item] = []
        self._first = 0  # the first item of the list being read: one of an earlier list takes no rest from it
        # Lines that start as the list's next item would ("7. We ...") with a number out of its sequence: text.
        self.unread_numbers: list[tuple[int, int]] = []  # (line, the number expected there)
        self._number: int | None = None  # the last number of a running numbered list
        self._bullet: str | None = None
        self._style = ""  # how the running numbered list writes its numbers
        self._carried = False  # the paragraph being cut does not start with a number of its own

    def restart(self) -> None:
        """A new list (a header) begins: its numbering and bullets are its own."""
        self._number = self._bullet = None
        self._first = len(self.items)

    def add_block(self, block: list[Line], after_page_break: bool = False) -> None:
        """Cut ``block`` into items; ``after_page_break``: a page number or running header came before it."""
        first = block[0][0]
        number, bullet = _item_number(first), _bullet(first)
        # Numbering that runs on from an earlier paragraph goes on only as the list writes it: "(3)" at a line
        # start in a paragraph after "2. ..." is the prose's own enumeration ("(1) a benchmark, (2) a recipe and").
        self._style = _number_style(first) if number is not None else self._style
        self._carried = number is None
        if number is not None:
            self._number, self._bullet = number - 1, None
        elif bullet is not None:
            self._number, self._bullet = None, bullet
        elif self._bullet in _DASHES and self._rest_of(first) is None:
            # A paper of its own after a dash list: a line of it that starts with a dash is prose ("- as we show -").
            self._bullet = None
        current: Item | None = None
        lines = self._run_together(block)
        for index, (text, line) in enumerate(lines):
            marker = self._marker(text, current.lines if current else [], lines[index + 1 : index + 1 + _AHEAD])
            if marker is not None:
                rest = text[marker:].strip()
                current = Item([(rest, line)] if rest else [], line, marked=True)
                self.items.append(current)
            elif current is None:
                current = self._continued(text, line, after_page_break)
                if current is None:
                    current = Item([], line, marked=False)
                    self.items.append(current)
                current.lines.append((text, line))
            else:
                if self._out_of_sequence(text, current.lines):
                    self.unread_numbers.append((line, (self._number or 0) + 1))
                current.lines.append((text, line))

    def _out_of_sequence(self, text: str, item: list[Line]) -> bool:
        """A line read as text that looks like the list's next item: a number written as the list writes them, a
        sentence starting after it, and the item before ending as an item does ("2." twice, a countdown)."""
        match = _ITEM_NUMBER.match(text) if self._number is not None else None
        return (
            match is not None
            and _number_style(text) == self._style
            and text[match.end() :][:1].isupper()
            and bool(item)
            and bool(_ENDS_ITEM.search(item[-1][0]))
        )

    def _run_together(self, block: list[Line]) -> list[Line]:
        """The block's lines, each cut where a bullet of the list's own follows a finished item or a whole title on
        it ("... compute… • Pipeline parallelism ...", or a bullet at its end): the pieces keep their line's number."""
        bullet = self._bullet
        if (
            bullet is None
            or bullet not in _ONLY_BULLETS
            or not any(f" {bullet} " in text or text.endswith(f" {bullet}") for text, _ in block)
        ):
            return block
        cut: list[Line] = []
        for text, line in block:
            pieces = re.split(rf"(?<=\S)\s+(?={re.escape(bullet)}(?:\s|$))", text)
            start = pieces[0]
            for piece in pieces[1:]:
                if _ENDS_ITEM.search(start) or _bullet(start) == bullet and _whole_title(start[1:].strip()):
                    cut.append((start, line))
                    start = piece
                else:
                    start += " " + piece
            cut.append((start, line))
        return cut

    def _marker(self, text: str, item: list[Line], later: list[Line]) -> int | None:
        """The length of the marker that starts a new item on this line (``item``: the lines of the item so far,
        ``later``: the paragraph's lines after this one), or None."""
        number = _item_number(text) if self._number is not None else None
        if (
            self._number is not None
            and number is not None
            and (
                (number == self._number + 1 and not self._enumerated(number, text, item, later))
                or self._skipped_to(number, text, item, later)
                or self._restarted(number, text, item)
            )
            and (not self._carried or _number_style(text) == self._style)
        ):
            self._number = number
            match = _ITEM_NUMBER.match(text)
        elif self._bullet is not None and _bullet(text) == self._bullet:
            match = _BULLET.match(text)
        else:
            return None
        return match.end() if match else None

    def _enumerated(self, number: int, text: str, item: list[Line], later: list[Line]) -> bool:
        """The next number goes on the item's own enumeration when the list's own comes later in the paragraph: it
        is written otherwise ("(2) a memory analysis" before "2. Megatron-LM"), or the item's text began numbering
        lines ("1. a schedule;" then "2. an analysis." in item 1)."""
        if not any(_item_number(t) == number and _number_style(t) == self._style for t, _ in later):
            return False
        return _number_style(text) != self._style or any((_item_number(t) or number) < number for t, _ in item)

    def _skipped_to(self, number: int, text: str, item: list[Line], later: list[Line]) -> bool:
        """A number skipped ahead (a paper taken out of the list) after an item that ends as an item does, written
        as the list writes its numbers: "3)" after "1." is an abstract's enumeration, and so is a number whose
        skipped-over items come later in the paragraph ("Smith et al." / "3. Results ..." / "2. ...")."""
        last = self._number
        if last is None or not last + 1 < number or not (item and _ENDS_ITEM.search(item[-1][0])):
            return False
        if _number_style(text) != self._style:
            return False
        # Further ahead only when the list goes on from there ("12." then "13."): many papers taken out.
        if number > last + _SKIPPED and not any(
            _item_number(t) == number + 1 and _number_style(t) == self._style for t, _ in later
        ):
            return False
        return not any(last < (_item_number(later_text) or 0) < number for later_text, _ in later)

    def _restarted(self, number: int, text: str, item: list[Line]) -> bool:
        """A second numbered list pasted below the first with no header or blank line: "1." again after two items or
        more, written as the list writes its numbers, after an item that ends as an item does, and starting a sentence
        (an abstract's own "1. a schedule;" goes on after a colon, in lower case)."""
        last = self._number
        if number != 1 or last is None or last < 2 or not (item and _ENDS_ITEM.search(item[-1][0])):
            return False
        match = _ITEM_NUMBER.match(text)
        return match is not None and _number_style(text) == self._style and text[match.end() :][:1].isupper()

    def _continued(self, text: str, line: int, after_page_break: bool = False) -> Item | None:
        """The item before, taking the paragraph that starts with ``text`` as its rest when it can only be that."""
        last = self._rest_of(text, after_page_break)
        if last is not None:
            last.joined.append(line)
        return last

    def _rest_of(self, text: str, after_page_break: bool = False) -> Item | None:
        """The numbered or bulleted item before, when a paragraph without a marker can only be its rest: the item
        stops mid-sentence and the paragraph goes on with a word in lower case (not a link, a DOI or an id)."""
        last = self.items[-1] if len(self.items) > self._first else None
        # One page break per item: a second paragraph that goes on is a paper of a list mixing marked and unmarked
        # items. An item that is a title ("2. Whale: Efficient Giant Model Training over Heterogeneous GPUs") is whole.
        # In a list of paragraphs only a page number or running header between them tells a page break.
        if (
            last is None
            or not (last.marked or after_page_break)
            or not last.lines
            or last.joined
            or not _GOES_ON.match(text)
        ):
            return None
        before = last.lines[-1][0]
        if " " not in before or _FINISHED.search(before) or _whole_title(" ".join(t for t, _ in last.lines)):
            return None
        return last
