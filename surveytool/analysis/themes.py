"""Themes within a section: papers grouped by the distinctive words their titles and abstracts share.

A paper is a TF-IDF vector over its words (crudely stemmed) and adjacent word
pairs, stop words and LaTeX commands removed; title words count double, only
the opening of an abstract is read, and only a paper's heaviest terms are kept.
Words that only one paper has, or that every paper of the section has, carry no
weight: they cannot tell papers apart.

Grouping: spherical k-means, seeded from distinctive words, at the finest k
(five, fewer for a small section); then coarser groupings, each by merging the
two closest groups of the one before and running k-means again. The grouping
that separates best (a silhouette measured against the group centroids, so it
stays linear in the papers) wins, the fewer themes on a tie.

Naming: the terms common in a theme, rare elsewhere in the section and mostly
found in this theme; a pair before its own words, shown as the word triple it
nearly always belongs to ("graph neural networks").

Everything is deterministic and independent of the input order: papers are put
in key order first, and every tie is broken by key, word or position.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from surveytool.analysis.theme_background import field_generic_terms
from surveytool.analysis.theme_names import distinct_names, name_terms, slug
from surveytool.analysis.theme_terms import (
    centroid,
    display_term,
    dot,
    normalized,
    paper_terms,
    strongest,
)
from surveytool.text.normalize import strip_truncation

#: Words of an abstract that count: the opening says what a paper is about, and snippets are cut anyway.
ABSTRACT_WORDS = 60
TITLE_WEIGHT = 2.0
_MAX_ITERATIONS = 30
_SEED_CANDIDATES = 150
_SKETCH_TERMS = 40
#: A name's first term in a fifth of the section's papers or more is qualified by the second.
_WIDESPREAD = 5
#: A theme needs this many papers: one paper is an outlier, not a theme.
MIN_THEME_SIZE = 2
#: Fewer themes than papers/3: a small section split into pairs reads as no structure at all.
_MEAN_THEME_SIZE = 3
#: Coarser groupings are merged from one this fine, whatever max_themes asks for.
_FINEST_THEMES = 5


@dataclass(frozen=True)
class ThemeInput:
    key: str
    title: str
    abstract: str
    year: int | None


@dataclass(frozen=True)
class Theme:
    """A group of a section's papers.

    ``id`` is a slug of the theme's most distinctive word or word pair (stemmed:
    ``pipeline-schedul``), made unique within the section by the next word when
    two themes would share it. It changes only when that word stops being the
    theme's most distinctive one: adding or removing a paper or two, or moving
    a paper between themes, usually leaves it alone; a reworded abstract or a
    regrouping of the section may change it.
    """

    id: str
    name: str
    terms: tuple[str, ...]  # display forms of the most distinctive terms, best first
    keys: tuple[str, ...]  # chronological: year (undated last), then key


def theme_region_name(section_id: str, theme: Theme) -> str:
    """The notes region of a theme: ``<section>/theme-<theme id>``."""
    return f"{section_id}/theme-{theme.id}"


def find_themes(papers: Sequence[ThemeInput], *, min_papers: int = 7, max_themes: int = 5) -> tuple[Theme, ...]:
    """Group a section's papers into 2..``max_themes`` themes, largest first (then by id).

    Returns an empty tuple, meaning "no themes: list the papers flat", when the
    section has fewer than ``min_papers`` papers (or fewer than six, or
    ``max_themes`` is below 2) or its papers share too few distinctive words
    to form two themes of ``MIN_THEME_SIZE`` papers. Otherwise every paper is
    in exactly one theme; a paper sharing no distinctive word with any other
    joins the theme it is nearest to (the largest when it is near none).
    A section has at most one theme per three papers. Keys must be unique
    (ValueError otherwise).
    """
    ordered = sorted(papers, key=lambda p: (p.key, p.year or 0, p.title, p.abstract))
    keys = [p.key for p in ordered]
    if len(set(keys)) != len(keys):
        raise ValueError("find_themes: paper keys must be unique")
    n = len(ordered)
    if n < max(min_papers, 2 * _MEAN_THEME_SIZE) or max_themes < 2:
        return ()

    surface: dict[str, Counter[str]] = {}
    weights: list[dict[str, float]] = []
    for paper in ordered:
        title = paper_terms(paper.title, surface)
        abstract_words = strip_truncation(paper.abstract).split()[:ABSTRACT_WORDS]
        abstract = paper_terms(" ".join(abstract_words), surface)
        weights.append({t: (TITLE_WEIGHT if t in title else 0.0) + (1.0 if t in abstract else 0.0)
                        for t in sorted(title | abstract)})  # fmt: skip
    df = Counter(t for w in weights for t in w)
    idf = {t: math.log(n / c) for t, c in df.items() if 2 <= c < n}
    vectors = [normalized(strongest({t: v * idf[t] for t, v in w.items() if t in idf})) for w in weights]

    # The finest grouping first, then coarser ones by merging its two closest groups: a coarse theme is a
    # union of fine ones, which k-means started afresh at a small k often misses.
    best: tuple[float, list[int]] | None = None
    finest = min(max(max_themes, _FINEST_THEMES), n // _MEAN_THEME_SIZE)
    assignment = _cluster(vectors, _seeds(vectors, idf, df, finest))
    while assignment is not None:
        if len(set(assignment)) <= max_themes:
            score = _separation(vectors, assignment)
            if best is None or score >= best[0] - 1e-9:  # a tie takes the fewer themes
                best = (score, assignment)
        centroids = _centroids(vectors, assignment)
        if len(centroids) <= 2:
            break
        assignment = _cluster(vectors, _merge_closest(centroids, vectors, assignment))
    if best is None:
        return ()
    return _themes(ordered, vectors, best[1], surface)


def _cluster(vectors: list[dict[str, float]], seeds: list[dict[str, float]]) -> list[int] | None:
    """Each paper's group after spherical k-means from ``seeds``; None when fewer than two groups survive."""
    centroids = seeds
    if len(centroids) < 2:
        return None
    assignment: list[int] = []
    for _ in range(_MAX_ITERATIONS):
        new = _absorb_small(vectors, _nearest_all(vectors, centroids))
        if new == assignment:
            break
        assignment = new
        groups = sorted(set(assignment))
        if len(groups) < 2:
            return None
        centroids = [centroid(vectors[i] for i, g in enumerate(assignment) if g == group) for group in groups]
        renumber = {g: i for i, g in enumerate(groups)}
        assignment = [renumber[g] for g in assignment]
    return assignment


def _centroids(vectors: list[dict[str, float]], assignment: list[int]) -> list[dict[str, float]]:
    return [centroid(vectors[i] for i, a in enumerate(assignment) if a == g) for g in sorted(set(assignment))]


def _merge_closest(
    centroids: list[dict[str, float]], vectors: list[dict[str, float]], assignment: list[int]
) -> list[dict[str, float]]:
    """The centroids with the two most alike groups (first pair on a tie) replaced by their union's."""
    k = len(centroids)
    pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
    a, b = max(pairs, key=lambda ab: (dot(centroids[ab[0]], centroids[ab[1]]), -ab[0], -ab[1]))
    groups = sorted(set(assignment))
    union = centroid(vectors[i] for i, g in enumerate(assignment) if g in (groups[a], groups[b]))
    return [union if i == a else c for i, c in enumerate(centroids) if i != b]


def _seeds(vectors: list[dict[str, float]], idf: dict[str, float], df: Counter[str], k: int) -> list[dict[str, float]]:
    """Up to k starting centroids: those of frequent distinctive terms, each unlike those chosen before it.

    The choice is greedy, so the seeds for k are the first k of the seeds for any larger k.
    """
    candidates = sorted(idf, key=lambda t: (-df[t] * idf[t], t))[:_SEED_CANDIDATES]
    having: dict[str, list[int]] = {t: [] for t in candidates}
    for i, vector in enumerate(vectors):
        for t in vector:
            if t in having:
                having[t].append(i)
    centroids = {t: centroid(vectors[i] for i in having[t]) for t in candidates}
    # Compared through their strongest terms only: enough to tell topics apart, and cheap.
    sketches = {t: strongest(c, _SKETCH_TERMS) for t, c in centroids.items()}
    closest = dict.fromkeys(candidates, 0.0)
    chosen: list[str] = []
    while len(chosen) < k:
        best: tuple[float, str] | None = None
        for t in candidates:
            score = math.sqrt(df[t]) * idf[t] * (1.0 - closest[t])
            if score > 1e-9 and (best is None or score > best[0] + 1e-12):
                best = (score, t)
        if best is None:
            break
        chosen.append(best[1])
        for t in candidates:
            closest[t] = max(closest[t], dot(sketches[t], sketches[best[1]]))
    return [centroids[t] for t in chosen]


def _similarities(vectors: list[dict[str, float]], centroids: list[dict[str, float]]) -> list[list[float]]:
    """Each paper's cosine to each centroid, through a term -> centroids index: one pass over each paper."""
    index: dict[str, list[tuple[int, float]]] = {}
    for j, center in enumerate(centroids):
        for t, w in center.items():
            index.setdefault(t, []).append((j, w))
    found = []
    for vector in vectors:
        row = [0.0] * len(centroids)
        for t, v in vector.items():
            for j, w in index.get(t, ()):
                row[j] += v * w
        found.append(row)
    return found


def _nearest_all(vectors: list[dict[str, float]], centroids: list[dict[str, float]]) -> list[int]:
    """Each paper's nearest centroid (the first on a tie), -1 for a paper near none."""
    nearest = []
    for row in _similarities(vectors, centroids):
        best, best_similarity = -1, 0.0
        for j, similarity in enumerate(row):
            if similarity > best_similarity + 1e-12:
                best, best_similarity = j, similarity
        nearest.append(best)
    return nearest


def _absorb_small(vectors: list[dict[str, float]], assignment: list[int]) -> list[int]:
    """Papers of groups smaller than MIN_THEME_SIZE, and papers near no group, moved to their nearest other group."""
    assignment = list(assignment)
    while True:
        sizes = Counter(g for g in assignment if g >= 0)
        small = sorted((size, g) for g, size in sizes.items() if size < MIN_THEME_SIZE)
        if not small or len(sizes) <= 1:
            break
        dropped = small[0][1]
        kept = sorted(g for g in sizes if g != dropped)
        centroids = [centroid(vectors[i] for i, g in enumerate(assignment) if g == group) for group in kept]
        moving = [i for i, g in enumerate(assignment) if g == dropped]
        for i, nearest in zip(moving, _nearest_all([vectors[i] for i in moving], centroids), strict=True):
            assignment[i] = kept[nearest] if nearest >= 0 else -1
    sizes = Counter(g for g in assignment if g >= 0)
    if sizes:
        largest = min(sizes, key=lambda g: (-sizes[g], g))
        assignment = [largest if g < 0 else g for g in assignment]
    return assignment


def _separation(vectors: list[dict[str, float]], assignment: list[int]) -> float:
    """Mean silhouette of the papers against the group centroids (-1..1): higher separates better."""
    groups = sorted(set(assignment))
    position = {g: j for j, g in enumerate(groups)}
    total = 0.0
    for row, group in zip(_similarities(vectors, _centroids(vectors, assignment)), assignment, strict=True):
        own = 1.0 - row[position[group]]
        other = min(1.0 - s for j, s in enumerate(row) if j != position[group])
        total += (other - own) / max(own, other) if max(own, other) > 0 else 0.0
    return total / len(vectors)


def _themes(
    ordered: list[ThemeInput], vectors: list[dict[str, float]], assignment: list[int], surface: dict[str, Counter[str]]
) -> tuple[Theme, ...]:
    n = len(ordered)
    having: Counter[str] = Counter(t for v in vectors for t in v)
    themes = []
    used: set[str] = set()
    for group in sorted(set(assignment)):
        members = [i for i, a in enumerate(assignment) if a == group]
        inside = Counter(t for i in members for t in vectors[i])
        terms = name_terms(inside, len(members), having, n, MIN_THEME_SIZE, field_generic_terms())
        ident = slug(terms[:1]) if terms else "other"
        for extra in range(2, len(terms) + 1):
            if ident not in used:
                break
            ident = slug(terms[:extra])
        while ident in used:
            ident += "-x"
        used.add(ident)
        shown = distinct_names(display_term(t, surface) for t in terms)
        name = shown[0] if shown else "Other"
        if shown and having[terms[0]] * _WIDESPREAD >= n:  # "Neural networks" alone says little here
            first = set(shown[0].lower().split())
            other = next((d for d in shown[1:] if " " in d and not first & set(d.lower().split())), None)
            if other is not None:
                name = f"{shown[0]}, {other}"
        name = name[:1].upper() + name[1:]
        members.sort(key=lambda i: (ordered[i].year is None, ordered[i].year or 0, ordered[i].key))
        themes.append(Theme(ident, name, shown, tuple(ordered[i].key for i in members)))
    return tuple(sorted(themes, key=lambda t: (-len(t.keys), t.id)))
