"""Text copied out of a PDF or a web page: the characters it brings that the author never typed.

A soft hyphen or a zero-width space is invisible, yet it splits a word for matching and keys and makes a
line that looks blank not blank; a no-break space between every word keeps LaTeX from breaking the line;
a ligature ("ﬁ") is two letters a PDF stored as one glyph. A web page adds its labels (a cut mark, Google Scholar's
links under a result) and a Markdown page its emphasis marks ("**GPipe**").
"""

from __future__ import annotations

import re
import unicodedata
from itertools import groupby

SOFT_HYPHEN = "\u00ad"
# Zero-width space, word joiner and a byte-order mark that a concatenated file left inside the text.
_INVISIBLE = re.compile("[\u200b\u2060\ufeff]")
# No-break, narrow no-break and figure spaces.
_NO_BREAK_SPACES = re.compile("[\u00a0\u202f\u2007]")
_LIGATURES = re.compile("[\ufb00-\ufb06]")


def clean_pasted(line: str, keep_final_soft_hyphen: bool = False) -> str:
    """``line`` without invisible characters, with plain spaces and letters for no-break spaces and ligatures.

    A soft hyphen at the end of a line is kept when asked: it tells that the word goes on on the next line.
    """
    if line.isascii():
        return line
    end = SOFT_HYPHEN if keep_final_soft_hyphen and line.rstrip().endswith(SOFT_HYPHEN) else ""
    line = _INVISIBLE.sub("", line.replace(SOFT_HYPHEN, ""))
    line = _NO_BREAK_SPACES.sub(" ", line)
    line = _LIGATURES.sub(lambda match: unicodedata.normalize("NFKC", match.group()), line)
    return line.rstrip() + end if end else line


# What a web page writes after an abstract it shows cut: "Show more", "Read more »", "… more", "[…]". Without an
# ellipsis before it only as the page's capitalised label, never words an abstract may stop on ("we read more").
# Each alternative starts with a character, not a space: a search from every space of a long blank run is quadratic.
_CUT_MARK = re.compile(
    r"(?:(?:…|\.\.\.)\s*(?i:(?:show|read|see|view)\s+(?:more|all|full\s+abstract)|expand|\(?more\)?)"
    r"|(?<!\w)(?:(?:Show|Read|See|View)\s+(?:more|all|full\s+abstract)|Expand(?:\s+abstract)?)"
    r"|[\[(](?:…|\.\.\.)[\])])\s*[»›>▼▾↓⌄]?$"
)


def strip_cut_mark(line: str) -> str:
    """``line`` with a web page's cut mark at its end written as an ellipsis ("" for a line of only the mark)."""
    match = _CUT_MARK.search(line)
    if match is None:
        return line
    head = line[: match.start()].rstrip()
    return head if not head or head.endswith(("…", "...")) else head + "…"


def rejoin_split_words(words: list[str], known: frozenset[str]) -> list[str]:
    """``words`` with each pair a line-end hyphen split ("par-\nadigm", kept as "par-adigm": two words once
    normalized) joined again where ``known``, the other text's words, has the whole word and not both halves."""
    out: list[str] = []
    index = 0
    while index < len(words):
        pair = words[index : index + 2]
        if len(pair) == 2 and pair[0] + pair[1] in known and not (pair[0] in known and pair[1] in known):
            out.append(pair[0] + pair[1])
            index += 2
        else:
            out.append(words[index])
            index += 1
    return out


# Google Scholar's links under each result, as a browser copies them: "☆ Save", "Cite", "Cited by 1,204", "Related
# articles", "All 14 versions" (and in Chinese), on a line of their own (or a line each) or run onto the end of the
# snippet. Only the page's capitalised labels in a row, one that only Scholar writes among them (a count, "Related
# articles"), and at the end of a line only after a sentence's end or a cut: prose ("cited by 120 papers") stays.
_SCHOLAR_COUNTED = (
    r"Cited by \d+(?:[,.\s]\d{3})*|Related articles|All \d+(?:,\d{3})* versions|Web of Science:? \d+"
    r"|Import into (?:BibTeX|EndNote|RefMan|RefWorks)|被引用次数[:：]?\s*\d+|相关文章|所有\s*\d+\s*个版本"
)
_SCHOLAR_LINK = rf"{_SCHOLAR_COUNTED}|(?:[☆★]\s*)?Save|(?:99\s+|[❝❞“”]\s*)?Cite|Library Search|View as HTML|保存|引用"
_SCHOLAR_LINKS = rf"(?:{_SCHOLAR_LINK})(?:\s*(?:{_SCHOLAR_LINK}))*"
_SCHOLAR_LINE = re.compile(rf"\s*{_SCHOLAR_LINKS}\s*$")
_SCHOLAR_END = re.compile(rf"(?<=[.!?…。])[\"'”’)\]]*\s*({_SCHOLAR_LINKS})\s*$")
_SCHOLAR_COUNT = re.compile(_SCHOLAR_COUNTED)
# Words one of the counted links has: a line without any is not searched for them at its end.
_SCHOLAR_WORDS = (
    "Cited by",
    "Related articles",
    " versions",
    "Web of Science",
    "Import into",
    "被引用次数",
    "相关文章",
    "版本",
)
# The link to a result's full text in the right-hand column: "[PDF] arxiv.org", "[HTML][HTML] nature.com".
_SCHOLAR_SOURCE = re.compile(
    r"^\s*(?:\[(?:PDF|HTML|DOC|PS|BOOK|CITATION|C|B)\]\s*)+(?:from\s+)?[\w-]+(?:\.[\w-]+)+(?:/\S*)?\s*$"
)


def without_scholar_links(lines: list[str]) -> list[str]:
    """The lines without Google Scholar's links under a result: a run of lines of only its labels with a count or
    "Related articles" among them, and a line of a source link, are blank (a result ends there); a run of them
    after a snippet's end is cut off."""
    out: list[str] = []
    for labels, run in groupby(lines, key=lambda line: _SCHOLAR_LINE.match(line) is not None):
        block = list(run)
        blank = labels and any(_SCHOLAR_COUNT.search(line) for line in block)
        out.extend("" if blank else _without_links_at_end(line) for line in block)
    return out


def _without_links_at_end(line: str) -> str:
    if "[" in line and _SCHOLAR_SOURCE.match(line):
        return ""
    links = _SCHOLAR_END.search(line) if any(word in line for word in _SCHOLAR_WORDS) else None
    return line[: links.start(1)].rstrip() if links and _SCHOLAR_COUNT.search(links.group(1)) else line


# Markdown's emphasis around words: "**GPipe**", "__Abstract__", "*Megatron*", "***both***". A mark opens before a
# character that is no space, never right after a letter, digit or another mark, and closes the same way round: a
# "*" of a product ("2*3", "a * b", "x**2"), an optimum ("x^*", "x^{*}"), a footnote's ("authors*", "(*)") or a
# name's "_" ("max_len") opens none. The words inside hold no mark of its kind: a mark inside another goes the next
# time round.
_EMPHASIS = re.compile(
    r"(?<![\w*\\^{])(?:(\*{1,3})(?=[^\s*)\]])([^*]+)(?<=[^\s\\(\[])\1|(_{1,3})(?=[^\s_)\]])([^_]+)(?<=[^\s\\(\[])\3)(?![\w*])"
)
# A Python name ("__init__") reads as bold too: kept.
_DUNDER = re.compile(r"__[a-z][a-z\d_]*__")
# A code span ("`**kwargs**`"), TeX's math ("$x^*_1$") and a link ("https://host/_a_/x", "www._a_.org", a bare
# "my_site_.org" with a common ending) are kept as written. A bare domain starts only at a word's start and has no
# two runs of letters to share out between them: either is quadratic in a long word.
_CODE_SPAN = re.compile(
    r"(`+[^`]*`+|\$[^$\n]*\$|(?:https?://|www\.)\S+"
    r"|(?<![\w.-])(?=[\w.-]*_)(?:[\w-]+\.)+(?:com|org|net|edu|gov|io|ai|dev|info|co|uk|de|fr|cn|jp)\b(?:/\S*)?)"
)


def strip_emphasis(text: str) -> str:
    """``text`` without Markdown's bold and italic marks, the words they wrap kept."""
    if "*" not in text and "_" not in text:
        return text
    pieces = _CODE_SPAN.split(text) if any(mark in text for mark in "`/$.") else [text]
    for index in range(0, len(pieces), 2):  # the text between code spans, math and links
        for _ in range(3):
            pieces[index], count = _EMPHASIS.subn(_emphasised, pieces[index])
            if not count:
                break
    return "".join(pieces)


def _emphasised(match: re.Match[str]) -> str:
    return match.group() if _DUNDER.fullmatch(match.group()) else match.group(2) or match.group(4)
