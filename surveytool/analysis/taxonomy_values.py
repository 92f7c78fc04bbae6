"""What a taxonomy's values may hold, and the hints given when they hold something else (taxonomy.py)."""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from surveytool.analysis.section_names import name_key

#: Scores add weights up: bounded weights keep every score a finite number that entries.json can hold.
MAX_WEIGHT = 1e6


def finite_number(value: Any) -> bool:
    """A weight a score can be made of: a number, not a boolean, nan or an infinity, and bounded."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return -MAX_WEIGHT <= value <= MAX_WEIGHT  # false for nan


def did_you_mean(word: str, options: Iterable[str], fallback: str) -> str:
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else fallback


def id_hint(raw: str) -> str:
    """How to write an id that is not lowercase-with-hyphens: its words so joined (``KV Cache`` -> ``kv-cache``)."""
    words = re.findall(r"[a-z0-9]+", name_key(raw))
    return f"write it '{'-'.join(words)}'" if words else "use ids like 'data-parallel'"


def control_character(value: str) -> str | None:
    """The first control character of ``value`` that is no white space (an escape, a NUL, a bell), told as its
    code point: a title holding one reached the terminal as it was (``taxonomy`` draws the titles)."""
    found = next((char for char in value if unicodedata.category(char) == "Cc" and char not in "\t\n\r\f"), None)
    return None if found is None else f"U+{ord(found):04X}"
