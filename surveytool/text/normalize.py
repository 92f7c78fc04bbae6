"""Text normalization for matching: one definition used by merging, resolving and tagging."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from difflib import SequenceMatcher
from functools import lru_cache

_NON_WORD = re.compile(r"[^0-9a-z]+")
_QUOTES = (("’", "'"), ("‘", "'"), ("“", '"'), ("”", '"'), ("–", "-"), ("—", "-"))


def ascii_fold(text: str) -> str:
    """``Müller`` -> ``Muller``: accents dropped, other non-ASCII removed."""
    decomposed = unicodedata.normalize("NFKD", text)
    return decomposed.encode("ascii", "ignore").decode("ascii")


@lru_cache(maxsize=1 << 16)
def normalize(text: str) -> str:
    """Lowercase ASCII words separated by single spaces: for comparing, never for display.

    Cached: merging, keys and tagging normalize the same titles and abstracts.
    """
    if not text.isascii():
        for quote, plain in _QUOTES:  # str.replace: a mapping given to str.translate costs a lookup per character
            if quote in text:
                text = text.replace(quote, plain)
        text = ascii_fold(text)
    folded = text.lower()
    return _NON_WORD.sub(" ", folded).strip()


def drops_letters(text: str) -> bool:
    """Whether ``normalize`` loses letters or digits of ``text`` (Chinese, Greek, ``ß``): compared by it, two texts
    that differ only in those would be one."""
    # It keeps the ASCII letters of the decomposition; a count would not see an α lost beside an "ﬁ" giving two.
    return not text.isascii() and any(c.isalnum() and not c.isascii() for c in unicodedata.normalize("NFKD", text))


_WORD_ANY_SCRIPT = re.compile(r"[^\W_]+")


@lru_cache(maxsize=1 << 16)
def normalize_any_script(text: str) -> str:
    """``normalize``, or where it ``drops_letters`` (Chinese, Greek, ``ß``), the words in every script, case-folded
    and without accents as there: two titles that share only their Latin words ("基于BERT的文本分类",
    "基于BERT的命名实体识别") stay two works, and "Rényi α-divergence" is still "Renyi α-divergence".

    Cached as ``normalize`` is: merging, resolving and completing compare the same titles.
    """
    if not drops_letters(text):
        return normalize(text)
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(_WORD_ANY_SCRIPT.findall(bare.casefold()))


# Scripts written without spaces between words (Chinese, Japanese kana, Thai, Lao, Myanmar, Khmer).
_UNSPACED = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]"
)


#: The marks of a cut text. Chinese writes its ellipsis twice: "……", or in ASCII dots "......".
ELLIPSES = ("…", "...")


def before_ellipsis(text: str) -> str:
    """``text`` without the ellipses it ends with ("…", "...", "……", "......"); all of it if none."""
    end = len(text)
    while text.endswith(ELLIPSES, 0, end):  # an end, not a slice, each time: a line of dots stays linear
        end -= 1 if text.endswith("…", 0, end) else 3
    return text[:end]


def strip_truncation(text: str) -> str:
    """Text without a trailing ellipsis and without the word it may have cut."""
    stripped = text.rstrip()
    cut = before_ellipsis(stripped)
    if cut == stripped:
        return stripped
    # The last word may be cut mid-way unless it ends in punctuation. Of a last piece in a script
    # written without spaces ("... GPT 训练方法"), only its last word goes.
    if cut and cut[-1].isalnum():
        last = cut.rsplit(None, 1)[-1]
        cut = cut[: len(cut) - len(last)] + _without_last_unspaced_word(last)
    return cut.rstrip()


def _without_last_unspaced_word(cut: str) -> str:
    """A text without spaces but for its last word: in Chinese, a character (a word there may be one), not the whole
    text; a Latin word closing it ("训练GPT") goes whole; a text in no such script is one word, all of it cut."""
    if not _UNSPACED.search(cut):
        return ""
    end = len(cut)
    while end and cut[end - 1].isalnum() and not _UNSPACED.match(cut[end - 1]):
        end -= 1
    return cut[:end] if end < len(cut) else cut[:-1]


def opening_words(text: str, count: int) -> list[str]:
    """The first ``count`` words of ``normalize(strip_truncation(text))``, normalizing only the start of a long text.

    strip_truncation only shortens a text, and normalizing is local (a character
    at a time), so the words of a prefix are the text's own words but for the
    last, which the cut may split.
    """
    text = strip_truncation(text)
    prefix = text[: 16 * (count + 2)]
    if len(prefix) < len(text):
        words = normalize(prefix).split()
        if len(words) > count + 1:
            return words[:count]
    return normalize(text).split()[:count]


SHINGLE_WORDS = 4
_MIN_COMPARED_WORDS = 15


def shingles(words: Sequence[str]) -> set[tuple[str, ...]]:
    """Every run of four consecutive words: candidates share some, unrelated texts almost none."""
    return {tuple(words[i : i + SHINGLE_WORDS]) for i in range(max(len(words) - SHINGLE_WORDS + 1, 0))}


def abstract_similarity(a: Sequence[str], b: Sequence[str]) -> float:
    """How much of the shorter text the longer one starts with, word for word (0..1).

    Only the longer text's opening of the same length is compared, so two
    snippets cut at different points still score 1.0, and a text that merely
    shares its first few words with another scores low.
    """
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) < _MIN_COMPARED_WORDS:
        return 0.0
    return SequenceMatcher(None, short, long[: len(short)], autojunk=False).ratio()
