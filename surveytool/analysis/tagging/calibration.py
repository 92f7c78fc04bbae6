"""Turning what a blend says about its best section into a confidence that means what it says.

Two steps, both fitted by cross-validation on the bundled corpus's train split
(tests/benchmarks/tagging_cv.py --fit-confidence, pooling the situations it measures:
the corpus alone, the user's tags beside it, a taxonomy of the user's own, over random
folds and over whole lists left out):
a logistic function of the signals (Platt scaling), then a monotone step map of its
output (isotonic regression), so that of the tags given at 0.8 about 80% are right.
The corpus holds titles only, so this applies to entries known by their title. An entry
with an abstract or keywords has its own map (``body_calibrated``), fitted on the seed lists'
labelled snippets (tests/benchmarks/tagging_accuracy.py --fit-confidence).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence

#: Bias, then one weight per signal of ``Blend.signals``: its share of the blend, its lead over the
#: runner-up, whether a phrase of its vocabulary was found, whether a labelled corpus applies.
CONFIDENCE_WEIGHTS = (-2.16, 0.74, 2.68, -0.3, 0.93)
#: (logistic output, observed share right) knots of the isotonic map, by increasing output; linear between.
CONFIDENCE_KNOTS: tuple[tuple[float, float], ...] = (
    (0.094, 0.12),
    (0.235, 0.32),
    (0.308, 0.39),
    (0.387, 0.413),
    (0.456, 0.46),
    (0.528, 0.49),
    (0.611, 0.53),
    (0.672, 0.545),
    (0.708, 0.56),
    (0.728, 0.58),
    (0.762, 0.588),
    (0.778, 0.765),
    (0.779, 0.78),
    (0.807, 0.808),
    (0.865, 0.823),
    (0.868, 0.867),
    (0.868, 0.885),
    (0.874, 0.926),
    (0.899, 0.928),
    (0.899, 1.0),
)


#: For an entry with a longer text where a phrase of the best section was found: intercept and slope of a
#: logistic function of the log-odds of the blend's share (Platt scaling). The share is over-confident there:
#: phrases of a section are found in the abstracts of papers filed elsewhere.
BODY_CONFIDENCE_WEIGHTS = (1.25, 0.17)
#: Shares are clipped this far from 0 and 1 before their log-odds are taken: a softmax can round to 1.
SHARE_CLIP = 1e-4


def log_odds(share: float) -> float:
    share = min(max(share, SHARE_CLIP), 1.0 - SHARE_CLIP)
    return math.log(share / (1.0 - share))


def body_calibrated(share: float, weights: Sequence[float] | None = None) -> float:
    """The confidence of a section whose phrases were found in an entry's abstract or keywords, from its share."""
    intercept, slope = BODY_CONFIDENCE_WEIGHTS if weights is None else weights
    return 1.0 / (1.0 + math.exp(-(intercept + slope * log_odds(share))))


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


def calibrated(signals: Sequence[float]) -> float:
    return isotonic(logistic(signals))
