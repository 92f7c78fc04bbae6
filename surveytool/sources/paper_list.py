"""Related-paper lists: a header naming an anchor paper, then truncated abstracts.

The text is plain text, kept as written apart from joining hard-wrapped lines and dropping what copying
from a PDF or web page adds (``text/pasted.py``); nothing in it is interpreted as LaTeX.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from surveytool.sources.list_items import ItemSplitter, is_page_furniture, reads_as_title
from surveytool.sources.list_lines import looks_like_several, numbered_lines, sentence_a_line
from surveytool.sources.scholar_results import bibtex_authors, read_result, result_starts
from surveytool.text.normalize import ELLIPSES, before_ellipsis
from surveytool.text.pasted import SOFT_HYPHEN, clean_pasted, strip_cut_mark, strip_emphasis, without_scholar_links

# "Related papers: <title>", "相关论文: <title>", "Related Papers - <title>", any casing; a colon (ASCII or
# full-width) or a dash (hyphen, en or em dash) between them; or the words alone, a web page's heading. Or worded: "Papers related to <title>",
# "Similar papers for <title>", "Related papers for <title>", and in a Markdown heading "## Related to <title>".
# Markdown's heading marks and bold may wrap the words.
# The title is taken whole and stripped afterwards: a lazy title before a trailing \s*$ rescans the rest
# of the line at every space inside it.
_HEADER = re.compile(
    r"^\s*(?P<heading>#{1,6}\s*)?(?:\*\*|__)?(?:"
    r"(?:related\s+papers?|相关论文|相關論文)(?:\*\*|__)?\s*(?:[:：]|\s[-–—]+\s|[–—]+|$)"
    r"|(?P<worded>papers\s+related\s+to|(?:similar|related)\s+papers?\s+(?:for|to)|related\s+to)(?:\*\*|__)?\s*(?P<colon>[:：])?(?=\s)"
    r")(?:\*\*|__)?(?P<title>.*)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Paragraph:
    text: str
    line: int  # 1-based line of the paragraph's first line
    truncated: bool
    # A pasted Google Scholar result's title, authors (BibTeX names) and year, read off above its snippet.
    title: str = ""
    authors: str = ""
    year: str = ""
    several: bool = False  # joined from long lines that each end a sentence: perhaps one whole abstract a line


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
    # Page numbers and running headers or footers, left out.
    page_lines: tuple[int, ...] = ()
    # Paragraphs read as the rest of the item before them: (their first line, that item's line).
    joined_lines: tuple[tuple[int, int], ...] = ()
    # Of ``page_lines``, the bare numbers between two lines of a paragraph: perhaps the text's own ("1024").
    inner_number_lines: tuple[int, ...] = ()
    # Lines read as text of an item that start as a next item would, with a number out of sequence: (line, expected).
    unread_numbers: tuple[tuple[int, int], ...] = ()
    # Lines of headers whose title may be an abstract's sentences (``reads_as_abstract``): read as headers.
    doubtful_headers: tuple[int, ...] = ()

    @property
    def anchor_truncated(self) -> bool:
        return self.anchor_title is not None and is_truncated(self.anchor_title)


def is_truncated(text: str) -> bool:
    return text.rstrip().endswith(ELLIPSES)


def strip_ellipsis(text: str) -> str:
    return before_ellipsis(text.rstrip()).rstrip()


def looks_like_paper_list(text: str, plain_only: bool = False) -> bool:
    """True when the first non-blank line is a related-papers header.

    With ``plain_only``, only one that says "Related papers" and a colon or dash, with no Markdown heading:
    the other wordings are also how a comment of an id list ("# Papers related to X") or a line of text
    before BibTeX entries reads, which this decides between.
    """
    lines = (clean_pasted(line) for line, _ in numbered_lines(text))
    for line in lines:
        if line.strip():
            match = _HEADER.match(line)
            plain = match is not None and not (match.group("heading") or match.group("worded"))
            return header_title(line, next_line=next(lines, "")) is not None and (plain or not plain_only)
    return False


def header_title(line: str, inside_paragraph: bool = False, next_line: str = "") -> str | None:
    """The anchor title a header line names ("" for none), or None when the line is no header.

    Worded headers ("Papers related to ...") must not be a sentence: their title does not end with a full
    stop, and "Related to" alone is a header only in a Markdown heading. Without a colon or a heading they
    are the words an abstract may begin with ("Papers related to privacy have grown, and we"), so they are
    a header only at a paragraph's start, with a title that starts as titles do (not in lower case) and no
    wrapped line going on in lower case after them. A header inside a paragraph (a list pasted below another
    with no blank line) must start with a capital, as a wrapped sentence's line does not, and so must its title.
    No header's title is an abstract's sentences (``reads_as_abstract``): those are a snippet's first words.
    """
    match = _HEADER.match(line)
    if match is None:
        return None
    title = strip_emphasis(match.group("title").strip()).removesuffix("**").removesuffix("__").strip()
    worded = match.group("worded")
    if worded and (
        (worded.lower().split() == ["related", "to"] and not match.group("heading"))
        or (title.endswith(".") and not is_truncated(title))
    ):
        return None
    bare = worded and not match.group("heading") and not match.group("colon")
    if bare and (inside_paragraph or title[:1].islower() or next_line.strip()[:1].islower()):
        return None
    if inside_paragraph and (line.lstrip(" #*_")[:1].islower() or title[:1].islower()):
        return None
    return None if reads_as_abstract(title, next_line, explicit=not worded) == "prose" else title


# A sentence's end inside a header's title with more after it: "?", "!" or a full stop after a word of two letters
# or more (an initial, "e.g." or "et al." ends none), then a word.
_SENTENCE_END = re.compile(r"(?<![^\W\d_])([^\W\d_]{2,})[.!?][\"'”’)\]]*\s+(?=\w)")
_ABBREVIATED = frozenset("al etc vs cf fig figs eq no vol pp proc conf dr mr ms st jr inc ltd co".split())
# What an abstract says and a title does not: "we", "our", "this paper"; "We" only starting a sentence after another
# ("Are We There Yet?" is a title's).
_ABSTRACT_WORDS = re.compile(
    r"(?<!\S)(?:we|our|us)(?![^\s,;:])|[.!?][\"'”’)\]]*\s+(?:We|Our)\b|\b[Tt]his (?:paper|work|article|study)\b"
)
_TITLE_WORDS = 25  # titles longer than this are few


def reads_as_abstract(title: str, next_line: str = "", explicit: bool = False) -> str:
    """Whether a header's title is an abstract's sentences: "prose" (more than one sentence, saying "we" or "this
    paper", and long or in lower case: a snippet that begins with a header's words), "doubt" (two of those three
    signs: read as a header, as before, and reported) or "" (a title, with a venue or year after it perhaps).

    After an ``explicit`` "Related papers:" lower case is no sign: authors write titles in lower case there ("what
    do we know about bert? a primer"); only a long title is prose."""
    # The title's sentence goes on on a wrapped line, read with it; a whole title's next line is a snippet of its own.
    goes_on = next_line.strip()[:1].islower() and not reads_as_title(title)
    text = f"{title} {next_line.strip()}" if goes_on else title
    sentences = any(end.group(1).lower() not in _ABBREVIATED for end in _SENTENCE_END.finditer(text))
    long = goes_on or len(text.split()) > _TITLE_WORDS
    says = _ABSTRACT_WORDS.search(text) is not None
    if sentences and says and (long or (title[:1].islower() and not explicit)):
        return "prose"
    return "doubt" if sentences + long + says >= 2 else ""


def _explicit(line: str) -> bool:
    """Whether a header line says "Related papers" (or 相关论文), not a worded "Papers related to"."""
    match = _HEADER.match(line)
    return match is not None and not match.group("worded")


def parse_paper_list(text: str) -> PaperList:
    """Split a related-paper list into its anchor title and paragraphs."""
    parts = numbered_lines(text)
    lines = [clean_pasted(line, keep_final_soft_hyphen=True) for line, _ in parts]
    lines = _without_cut_marks(without_scholar_links(["" if _RULE.match(line) else line for line in lines]))
    anchor_title: str | None = None
    anchor_line = 0
    start = 0
    doubtful: list[int] = []  # headers whose title may be an abstract's sentences
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        following = lines[index + 1] if index + 1 < len(lines) else ""
        title = header_title(line, next_line=following)
        if title is not None:
            anchor_title = title or None
            anchor_line = parts[index][1]
            start = index + 1
            doubtful.extend([anchor_line] if reads_as_abstract(title, following, _explicit(line)) else [])
        break

    splitter = ItemSplitter()
    later: list[tuple[str, int]] = []
    pages: list[int] = []
    inner_numbers: list[int] = []
    block: list[tuple[str, int]] = []
    end = 0  # the last line of the paragraph before
    numbered = _headers_split_off([(line, number) for line, (_, number) in zip(lines, parts, strict=True)][start:])
    for index in range(len(numbered) + 1):
        line, number = (numbered[index][0].strip(), numbered[index][1]) if index < len(numbered) else ("", 0)
        following = numbered[index + 1][0] if index + 1 < len(numbered) else ""
        title = header_title(line, bool(block), following) if line else None
        if line and title is None and is_page_furniture(line):
            pages.append(number)
            if block and line.isdigit() and following.strip():
                inner_numbers.append(number)
        elif line and title is None:
            block.append((line, number))
        else:
            if block:
                splitter.add_block(block, _page_between(pages, end, block[0][1]))
                block, end = [], block[-1][1]
            if title is not None:  # another list pasted below: its header names its anchor paper, never a snippet
                splitter.restart()
                if title:
                    later.append((title, number))
                doubtful.extend([number] if reads_as_abstract(title, following, _explicit(line)) else [])
    paragraphs: list[Paragraph] = []
    vocabulary = frozenset(_WORD.findall("\n".join(lines).lower()))
    for item in splitter.items:
        paragraphs.extend(_paragraphs(item.lines, item.line, vocabulary))
    suspects = tuple(p.line for p in paragraphs if p.several or looks_like_several(p.text))
    return PaperList(
        anchor_title,
        anchor_line,
        tuple(paragraphs),
        suspects,
        tuple(later),
        tuple(item.line for item in splitter.items if not item.lines),
        tuple(pages),
        tuple((line, item.line) for item in splitter.items for line in item.joined),
        tuple(inner_numbers),
        tuple(splitter.unread_numbers),
        tuple(doubtful),
    )


# A header run onto the cut-off end of the last snippet of a list that ended with no line end ("…Related papers: B"),
# as `cat a.txt b.txt` joins them.
_GLUED_HEADER = re.compile(
    r"(?:(?<=…)|(?<=\.\.\.))[ \t]*(?=(?:Related [Pp]apers?|相关论文|相關論文)\s*(?:[:：]|[-–—]))"
)


def _headers_split_off(lines: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The lines, each with a header glued onto its end after an ellipsis split off as a line of its own."""
    split: list[tuple[str, int]] = []
    for line, number in lines:
        glued = _GLUED_HEADER.search(line) if "elated" in line or "论文" in line or "論文" in line else None
        split.extend([(line[: glued.start()], number), (line[glued.end() :], number)] if glued else [(line, number)])
    return split


def _page_between(pages: list[int], after: int, before: int) -> bool:
    """Whether a page number or running header was left out between lines ``after`` and ``before``."""
    for line in reversed(pages):
        if line < before:
            return line > after
    return False


# A line that only draws a rule between papers ("---", "* * *", "=====", "———"), or under a Markdown header.
_RULE = re.compile(r"^\s*([-=_*~—–•·])(?:[ \t]*\1){2,}\s*$")


def _without_cut_marks(lines: list[str]) -> list[str]:
    """The lines with a web page's "Show more" or "[…]" after a cut snippet read as the ellipsis it means: kept, it
    was the snippet's last words, and the snippet was not seen as cut. A line of only the mark cuts the line before
    it and is then blank, which ends the snippet."""
    cleaned: list[str] = []
    for line in lines:
        stripped = strip_cut_mark(line) if line.strip() else line
        if line.strip() and not stripped and cleaned and cleaned[-1].strip():
            cleaned[-1] = strip_cut_mark(cleaned[-1].rstrip() + " Show more")
        cleaned.append(stripped)
    return cleaned


def _paragraphs(lines: list[tuple[str, int]], first_line: int, vocabulary: frozenset[str]) -> list[Paragraph]:
    """One paragraph from an item's lines; or one per line when every line is a cut-off snippet or a title.

    Some lists put one snippet per line with no blank line between: a wrapped
    paragraph never ends each of its lines with an ellipsis.
    """
    if not lines:
        return []
    texts = [text for text, _ in lines]
    result = read_result(texts)
    if result is not None:
        if len(starts := result_starts(texts)) > 1:  # results pasted with no blank line between them
            firsts = [first_line, *(lines[a][1] for a in starts[1:])]
            pieces = zip(starts, [*starts[1:], len(lines)], firsts, strict=True)
            return [p for a, b, line in pieces for p in _paragraphs(lines[a:b], line, vocabulary)]
        lines_of_snippet = result.snippet_lines or [""]  # a [CITATION] result has none
        snippet = strip_emphasis(clean_pasted(_join_wrapped(lines_of_snippet, vocabulary)))
        title = strip_emphasis(clean_pasted(result.title))
        by = result.byline
        cut = is_truncated(snippet) or is_truncated(title)
        return [Paragraph(snippet, first_line, cut, strip_ellipsis(title), bibtex_authors(by), by.year)]
    if len(lines) > 1 and (all(map(is_truncated, texts)) or all(map(reads_as_title, texts))):
        lines = [(lines[0][0], first_line), *lines[1:]]
        texts = [strip_emphasis(clean_pasted(text)) for text, _ in lines]
        return [Paragraph(text, line, is_truncated(text)) for text, (_, line) in zip(texts, lines, strict=True)]
    joined = strip_emphasis(clean_pasted(_join_wrapped(texts, vocabulary)))
    return [Paragraph(joined, first_line, is_truncated(joined), several=sentence_a_line(texts))]


# A word's letters; the letters before a line-end hyphen, and after it at the next line's start.
_WORD = re.compile(r"[^\W\d_]+")
_HEAD = re.compile(r"[^\W\d_]+(?=-$)")


def _join_wrapped(lines: list[str], vocabulary: frozenset[str] = frozenset()) -> str:
    """Re-join a hard-wrapped paragraph; a hyphen at a line end joins without a space, and goes when the list
    writes the word whole elsewhere ("par-" "adigm" where it has "paradigm": the PDF hyphenated it to break the
    line); else it stays ("data-" "parallel"), as a compound's hyphen would."""
    text = lines[0]
    for line in lines[1:]:
        if text.endswith(SOFT_HYPHEN):  # a word the PDF hyphenated only to break the line
            text = text[:-1] + line
        elif text.endswith("-") and not text.endswith(" -") and line[:1].islower():
            head, tail = _HEAD.search(text[-80:]), _WORD.match(line)  # the end only: a search of all is quadratic
            whole = head is not None and tail is not None and (head.group() + tail.group()).lower() in vocabulary
            text = (text[:-1] if whole else text) + line
        else:
            text += " " + line
    return text
