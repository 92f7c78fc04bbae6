"""Fitting a confidence map: the benchmark scripts fit ``surveytool/analysis/tagging/calibration.py``'s constants."""

from __future__ import annotations

import math


def fit_logistic(samples: list[tuple[tuple[float, ...], bool]], steps: int = 3000, rate: float = 2.0) -> list[float]:
    """Logistic regression (bias first) of rightness on the signals, by plain gradient descent: deterministic."""
    weights = [0.0] * (len(samples[0][0]) + 1)
    for _ in range(steps):
        gradient = [0.0] * len(weights)
        for signals, right in samples:
            z = weights[0] + sum(w * x for w, x in zip(weights[1:], signals, strict=True))
            error = 1.0 / (1.0 + math.exp(-z)) - float(right)
            gradient[0] += error
            for i, x in enumerate(signals, start=1):
                gradient[i] += error * x
        weights = [w - rate * g / len(samples) for w, g in zip(weights, gradient, strict=True)]
    return [round(w, 2) for w in weights]


def fit_isotonic(pairs: list[tuple[float, bool]], group: int = 100) -> list[tuple[float, float]]:
    """Knots of a monotone map from a score to the share right: pool-adjacent-violators over groups of scores."""
    pairs = sorted(pairs)
    blocks = []  # [mean score, share right, weight]
    for start in range(0, len(pairs), group):
        chunk = pairs[start : start + group]
        blocks.append([sum(p for p, _ in chunk) / len(chunk), sum(r for _, r in chunk) / len(chunk), len(chunk)])
        while len(blocks) > 1 and blocks[-2][1] >= blocks[-1][1]:
            (x1, y1, n1), (x2, y2, n2) = blocks[-2], blocks.pop()
            blocks[-1] = [(x1 * n1 + x2 * n2) / (n1 + n2), (y1 * n1 + y2 * n2) / (n1 + n2), n1 + n2]
    return [(round(x, 3), round(y, 3)) for x, y, _ in blocks]
