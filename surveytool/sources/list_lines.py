"""The lines of a related-paper list: where they end, and whether a paragraph's lines are several papers'."""

from __future__ import annotations

import re


def split_lines(text: str) -> list[str]:
    """Lines of ``text`` with any line ending (LF, CRLF, CR) and no BOM."""
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


# Line breaks inside a line, which editors do not number: Word's manual line break (VT) and Unicode's line and
# paragraph separators, as a web page's copy gives them. Each starts a line of the list, numbered as the one it is in.
_INNER_BREAK = re.compile("[\x0b\u2028\u2029]")


def numbered_lines(text: str) -> list[tuple[str, int]]:
    """The lines of ``text`` (``split_lines``), each cut at its inner breaks, with the 1-based line it is on."""
    return [(part, number) for number, line in enumerate(split_lines(text), 1) for part in _INNER_BREAK.split(line)]


# An ellipsis then a new sentence, inside a paragraph: where one cut-off snippet ends and the next begins.
_GLUED = re.compile(r"(?:…|\.\.\.)\s+[A-Z\d]")


def looks_like_several(text: str) -> bool:
    return bool(_GLUED.search(text))


# A sentence's end at a line's end. A line wrapped to a page or a mail's width holds fewer words than _LINE_WORDS.
_ENDS_SENTENCE = re.compile(r"[.!?][\"'”’)\]]*$")
_LINE_WORDS = 20


def sentence_a_line(texts: list[str]) -> bool:
    """Whether every line but the last is long, ends a sentence and has a capital after it: whole abstracts one a
    line, which a wrapped paragraph's lines are not."""
    ends = texts[:-1]
    return bool(ends) and all(
        _ENDS_SENTENCE.search(line) and len(line.split()) >= _LINE_WORDS and after[:1].isupper()
        for line, after in zip(ends, texts[1:], strict=True)
    )
