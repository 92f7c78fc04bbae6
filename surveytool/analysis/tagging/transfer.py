"""Which sections of a taxonomy the bundled corpus's labels stand for.

The corpus is labelled with the default taxonomy's section ids. A taxonomy that uses
those ids takes the labels as they are. A taxonomy of the user's own takes them only
for the sections that are the default's under another id: the same title, or a title
and description so alike (a share of common words) that each is the other's best
match. Its other sections learn from its own text and the user's tags alone.
"""

from __future__ import annotations

from functools import lru_cache

from surveytool.analysis.tagging.features import features
from surveytool.model import Section, Taxonomy
from surveytool.resources import default_taxonomy

#: How alike (common words over all words, of title and description) two sections must be to share labels.
MIN_LIKENESS = 0.6


@lru_cache(maxsize=1)
def _default_sections() -> tuple[Section, ...]:
    from surveytool.analysis.taxonomy import load_taxonomy

    return load_taxonomy(default_taxonomy()).sections


def _words(section: Section) -> frozenset[str]:
    return frozenset(f for f in features(section.title, section.description) if "_" not in f)


def _likeness(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / (len(a | b) or 1)


def corpus_section_map(taxonomy: Taxonomy) -> dict[str, str]:
    """Default section id -> the id of the section of ``taxonomy`` that it is, for those that have one."""
    defaults = _default_sections()
    ids = set(taxonomy.section_ids)
    if all(d.id in ids for d in defaults):
        return {d.id: d.id for d in defaults}
    mine = {s.id: (" ".join(s.title.lower().split()), _words(s)) for s in taxonomy.sections}
    theirs = {d.id: (" ".join(d.title.lower().split()), _words(d)) for d in defaults}

    def best(side: dict, title: str, words: frozenset[str]) -> tuple[str, float]:
        scored = [(1.0 if t == title else _likeness(words, w), key) for key, (t, w) in side.items()]
        score, key = max(scored)
        return key, score

    found = {}
    for default_id, (title, words) in theirs.items():
        section_id, score = best(mine, title, words)
        if score >= MIN_LIKENESS and best(theirs, *mine[section_id])[0] == default_id:
            found[default_id] = section_id
    return found
