"""Text copied out of a PDF or a web page: the characters it brings that the author never typed.

A soft hyphen or a zero-width space is invisible, yet it splits a word for matching and keys and makes a
line that looks blank not blank; a no-break space between every word keeps LaTeX from breaking the line;
a ligature ("ﬁ") is two letters a PDF stored as one glyph.
"""

from __future__ import annotations

import re
import unicodedata

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
