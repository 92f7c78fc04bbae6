"""Naming a theme: its most telling terms (common in the theme, rare elsewhere in the section), shown as written."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

#: A theme's name is drawn from at most this many of its terms.
NAME_TERMS = 5
#: How much a term the whole field uses (theme_background.py) counts towards naming a theme.
GENERIC_WEIGHT = 0.3


def name_terms(
    inside: Counter[str],
    size: int,
    having: Counter[str],
    n: int,
    min_papers: int,
    generic: frozenset[str] = frozenset(),
) -> list[str]:
    """A theme's terms, most telling first: common in the theme, rarer outside, pairs before their words.

    A term must be in two of the theme's papers and in at most three quarters
    of the section's (a section's own common word names no theme). A word gives way to
    a pair holding it that covers half its papers: "time series" names better
    than "time". A term of ``generic`` (one the whole field uses: "deep learning") counts less.
    """

    def telling(t: str) -> float:  # how common in the theme, how much of the term is here, how rare in the section
        weight = GENERIC_WEIGHT if t in generic or all(w in generic for w in t.split()) else 1.0
        return weight * inside[t] / size * inside[t] / having[t] * math.log(n / having[t])

    candidates = [t for t in inside if inside[t] >= min_papers and having[t] * 4 <= n * 3 and telling(t) > 0]
    ranked = sorted(candidates, key=lambda t: (-telling(t), t))
    pairs: dict[str, list[str]] = {}  # word -> the pairs holding it, most telling first
    for t in ranked:
        if " " in t:
            for word in t.split():
                pairs.setdefault(word, []).append(t)
    terms: list[str] = []
    for t in ranked:
        if " " not in t:
            t = next((p for p in pairs.get(t, ()) if inside[p] * 2 >= inside[t]), t)
        if t not in terms and not any(" " in u and t in u.split() for u in terms):
            terms.append(t)
            if len(terms) == NAME_TERMS:
                break
    return terms


def distinct_names(shown: Iterable[str]) -> tuple[str, ...]:
    """Displayed terms without one whose words an earlier one holds: "non IID data" twice, "IID data" after it."""
    kept: list[str] = []
    for display in shown:
        words = set(display.lower().split())
        if not any(words <= set(k.lower().split()) for k in kept):
            kept.append(display)
    return tuple(kept)


def slug(terms: Sequence[str]) -> str:
    return "-".join(re.sub(r"[^a-z0-9]+", "-", t.lower()).strip("-") for t in terms)
