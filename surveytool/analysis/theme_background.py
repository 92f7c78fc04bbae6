"""Words the whole field uses: spread evenly over the bundled corpus's sections, they say that a paper is about
training at scale, not which kind. A theme is named by them only when it has nothing more telling."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from functools import lru_cache

from surveytool.analysis.tagging.exemplars import read_corpus
from surveytool.analysis.theme_terms import paper_terms

#: Spread of a term over the sections (normalised entropy of its per-section rates) above which it is generic.
GENERIC_SPREAD = 0.75
#: A term in fewer corpus titles than this is too rare to judge.
MIN_TITLES = 6


@lru_cache(maxsize=1)
def field_generic_terms() -> frozenset[str]:
    """Stemmed terms (as ``paper_terms`` gives them) found in titles of most sections alike."""
    rows = read_corpus()
    sizes: Counter[str] = Counter()
    having: dict[str, Counter[str]] = defaultdict(Counter)
    surface: dict[str, Counter[str]] = {}
    for row in rows:
        if not row.sections:
            continue
        section = row.sections[0]
        sizes[section] += 1
        for term in paper_terms(row.title, surface):
            having[term][section] += 1
    if len(sizes) < 2:
        return frozenset()
    generic = set()
    for term, counts in having.items():
        if sum(counts.values()) < MIN_TITLES:
            continue
        rates = [counts[s] / sizes[s] for s in sizes if counts[s]]
        total = sum(rates)
        entropy = -sum(r / total * math.log(r / total) for r in rates)
        if entropy / math.log(len(sizes)) > GENERIC_SPREAD:
            generic.add(term)
    return frozenset(generic)
