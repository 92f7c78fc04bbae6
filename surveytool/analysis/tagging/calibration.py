"""Turning what a blend says about its best section into a confidence that means what it says.

Two steps, both fitted by cross-validation on the bundled corpus's train split
(tests/benchmarks/tagging_cv.py --fit-confidence, pooling the situations it measures:
the corpus alone, the user's tags beside it, a taxonomy of the user's own, over random
folds and over whole lists left out; the corpus's background rows, deep learning at large and papers of
other fields, are cases too, so a title that shares only a word or two with the field is not sure):
a logistic function of the signals (Platt scaling), then a monotone step map of its
output (isotonic regression), so that of the tags given at 0.8 about 80% are right.
The corpus holds titles only, so this applies to entries known by their title. An entry
with an abstract or keywords has its own map (``body_calibrated``; one for a snippet known by no title),
fitted on labelled snippets (tests/benchmarks/tagging_accuracy.py --fit-confidence), and is scaled by the
chance that its title is of the field (``in_scope``, fitted with the title map).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

#: Bias, then one weight per signal of ``Blend.signals``: its share of the blend, its lead over the
#: runner-up, whether a phrase of its vocabulary was found, whether a labelled corpus applies.
CONFIDENCE_WEIGHTS = (-2.52, 0.75, 3.04, -0.47, 1.04)
#: (logistic output, observed share right) knots of the isotonic map, by increasing output; linear between.
CONFIDENCE_KNOTS: tuple[tuple[float, float], ...] = (
    (0.011, 0.0),
    (0.024, 0.02),
    (0.08, 0.1),
    (0.177, 0.26),
    (0.23, 0.29),
    (0.255, 0.34),
    (0.293, 0.395),
    (0.396, 0.417),
    (0.532, 0.463),
    (0.636, 0.465),
    (0.687, 0.55),
    (0.745, 0.585),
    (0.774, 0.65),
    (0.779, 0.655),
    (0.781, 0.7),
    (0.781, 0.73),
    (0.804, 0.812),
    (0.854, 0.82),
    (0.859, 0.838),
    (0.862, 0.885),
    (0.862, 0.91),
    (0.863, 0.92),
    (0.873, 0.924),
    (0.91, 0.926),
    (0.91, 1.0),
)


#: For an entry with a longer text where a phrase of the best section was found: intercept and slope of a
#: logistic function of the log-odds of the blend's share (Platt scaling). The share is over-confident there:
#: phrases of a section are found in the abstracts of papers filed elsewhere. Fitted on the seeds' snippets with
#: their titles and without: the 36 titled cases alone give a degenerate fit (a falling slope).
BODY_CONFIDENCE_WEIGHTS = (1.36, 0.15)
#: The same for such an entry known by no title (a related-paper list's snippet no catalog named): fitted on the
#: seed lists' snippets without their catalog and the tuning half of tests/data/snippets-dev.tsv
#: (tagging_accuracy.py --fit-confidence). A truncated abstract often stops before it says what the paper does.
SNIPPET_CONFIDENCE_WEIGHTS = (0.01, 0.19)
#: Intercept and slope of a logistic function of the log-odds of a title's background share (the learned model's
#: column of papers out of the field's scope): the probability that the paper is out of scope. Fitted on the
#: corpus's train split, where the background column is a share among the sections, not a probability.
SCOPE_WEIGHTS = (1.29, 1.02)
#: (the second tagger's confidence, observed share right) knots of the map for an entry tagged again after the
#: library's sure entries taught the tagger (``self_training.py``): it learned from its own answers.
SELF_TAUGHT_KNOTS: tuple[tuple[float, float], ...] = (
    (0.226, 0.14),
    (0.299, 0.21),
    (0.358, 0.31),
    (0.405, 0.335),
    (0.447, 0.423),
    (0.537, 0.527),
    (0.725, 0.55),
    (0.823, 0.627),
    (0.919, 0.71),
    (0.926, 0.99),
    (0.926, 1.0),
)
#: Shares are clipped this far from 0 and 1 before their log-odds are taken: a softmax can round to 1.
SHARE_CLIP = 1e-4


def log_odds(share: float) -> float:
    share = min(max(share, SHARE_CLIP), 1.0 - SHARE_CLIP)
    return math.log(share / (1.0 - share))


def body_calibrated(share: float, weights: Sequence[float] | None = None, titled: bool = True) -> float:
    """The confidence of a section whose phrases were found in an entry's abstract or keywords, from its share;
    ``titled``: the entry's title is known too."""
    intercept, slope = (
        (BODY_CONFIDENCE_WEIGHTS if titled else SNIPPET_CONFIDENCE_WEIGHTS) if weights is None else weights
    )
    return 1.0 / (1.0 + math.exp(-(intercept + slope * log_odds(share))))


def in_scope(background: float | None, weights: Sequence[float] | None = None) -> float:
    """The probability that a paper is of the field, from its title's background share; None when nothing of the
    title is known to the tagger, which for a title alone gives no section either."""
    if background is None:
        return 0.0
    intercept, slope = SCOPE_WEIGHTS if weights is None else weights
    return 1.0 - 1.0 / (1.0 + math.exp(-(intercept + slope * log_odds(background))))


def logistic(signals: Sequence[float], weights: Sequence[float] | None = None) -> float:
    bias, *rest = CONFIDENCE_WEIGHTS if weights is None else weights
    z = bias + sum(w * x for w, x in zip(rest, signals, strict=True))
    return 1.0 / (1.0 + math.exp(-z))


def isotonic(value: float, knots: Sequence[tuple[float, float]] | None = None) -> float:
    """``value`` through the monotone map given by ``knots`` (flat beyond the ends)."""
    knots = CONFIDENCE_KNOTS if knots is None else knots
    xs = [x for x, _ in knots]
    at = bisect.bisect_right(xs, value)
    if at == 0:
        return knots[0][1]
    if at == len(knots):
        return knots[-1][1]
    (x0, y0), (x1, y1) = knots[at - 1], knots[at]
    return y0 if x1 <= x0 else y0 + (y1 - y0) * (value - x0) / (x1 - x0)


def self_taught(score: float, knots: Sequence[tuple[float, float]] | None = None) -> float:
    """The confidence of a tag computed again after the library taught the tagger, from the second tagger's."""
    return isotonic(score, SELF_TAUGHT_KNOTS if knots is None else knots)


def calibrated(signals: Sequence[float]) -> float:
    return isotonic(logistic(signals))
