"""Text normalization for matching: one definition used by merging, resolving and tagging."""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[^0-9a-z]+")
_QUOTES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-"})


def ascii_fold(text: str) -> str:
    """``Müller`` -> ``Muller``: accents dropped, other non-ASCII removed."""
    decomposed = unicodedata.normalize("NFKD", text)
    return decomposed.encode("ascii", "ignore").decode("ascii")


def normalize(text: str) -> str:
    """Lowercase ASCII words separated by single spaces: for comparing, never for display."""
    folded = ascii_fold(text.translate(_QUOTES)).lower()
    return _NON_WORD.sub(" ", folded).strip()


def tokens(text: str) -> list[str]:
    return normalize(text).split()


def strip_truncation(text: str) -> str:
    """Text without a trailing ellipsis and without the word it may have cut."""
    stripped = text.rstrip()
    for mark in ("…", "..."):
        if stripped.endswith(mark):
            cut = stripped[: -len(mark)]
            # The last word may be cut mid-way unless it ends in punctuation.
            if cut and cut[-1].isalnum():
                cut = cut.rsplit(None, 1)[0] if " " in cut else ""
            return cut.rstrip()
    return stripped
