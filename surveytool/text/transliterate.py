"""Text spelled in ASCII for citation keys: transliterated, never dropped (``Øster`` -> ``Oster``, ``张伟`` -> ``ZhangWei``)."""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

#: Words a key never takes from a title.
STOPWORDS = frozenset(
    "a an the on of in for and to with via from by at as is are towards toward using use based "
    "its into over under we our this that it be new can".split()
)
_GREEK = "\u00b5\u0370-\u03ff\u1f00-\u1fff"
_NOT_ALNUM = re.compile(r"[^A-Za-z0-9]+")
_LONE_GREEK = re.compile(f"(?<![{_GREEK}])[{_GREEK}](?![{_GREEK}])")


@lru_cache(maxsize=1 << 12)
def _char_ascii(char: str) -> str:
    # The accent-stripping fold keys always used where it keeps a letter; anyascii where it would drop one.
    folded = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode("ascii")
    if folded:
        return folded
    from anyascii import anyascii  # only for text the fold cannot spell: most runs never load its tables

    spelled = anyascii(char)
    if unicodedata.category(char).startswith("L") and not any(c.isalnum() for c in spelled):
        return f"u{ord(char):x}"  # a letter with no spelling (a rare ideograph) still tells keys apart
    return spelled


def _letter_name(match: re.Match) -> str:
    char = "\u03bc" if match.group() == "\u00b5" else match.group()  # the micro sign is mu
    if not unicodedata.category(char).startswith("L"):
        return "".join(_char_ascii(c) for c in char)  # an accent or a mark standing alone
    parts = unicodedata.name(char, "").split()
    named = parts[parts.index("LETTER") + 1 :] if "LETTER" in parts else parts[1:2]
    word = "".join(p for p in itertools.takewhile(lambda p: p != "WITH", named) if p != "FINAL").lower()
    return word.capitalize() if "CAPITAL" in parts else word


def to_ascii(text: str) -> str:
    """``Gaßner`` -> ``Gassner``, ``Łukasz`` -> ``Lukasz``, ``张伟`` -> ``ZhangWei``, ``β-NMR`` -> ``beta-NMR``."""
    if text.isascii():
        return text
    # A Greek letter on its own is a symbol (μSR, β decay, 8π), spelled out; Greek words are transliterated.
    text = _LONE_GREEK.sub(_letter_name, text)
    return "".join(_char_ascii(c) for c in text)


def _words(text: str) -> Iterator[str]:
    for token in text.split():
        word = _NOT_ALNUM.sub("", to_ascii(token))
        if word:
            yield word


def words(text: str) -> list[str]:
    """The letters and digits of each whitespace-separated word, transliterated (``Pre-train`` -> ``Pretrain``)."""
    return list(_words(text))


def significant_words(text: str, count: int) -> list[str]:
    """The first ``count`` (0: all) words that are neither stopwords nor numbers; a long text is read only that far."""
    chosen = (w for w in _words(text) if w.lower() not in STOPWORDS and not w.isdigit())
    return list(itertools.islice(chosen, count or None))
