"""Complement naive Bayes over the same TF-IDF vectors as the centroids: the second half of the learned model.

A section is scored by how unlike the *other* sections' exemplars a paper is
(Rennie et al.'s complement estimate), which stays steady when one section has
many more exemplars than another: a centroid alone is pulled by a few frequent
words, the complement weights by the words that tell sections apart.
Weights are divided by their section's mean, so that no section wins by having larger weights.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

#: Smoothing of the complement counts: larger is smoother (chosen by cross-validation on the corpus).
ALPHA = 1.0


class ComplementModel:
    """Per feature, one weight per section; built from weighted unit vectors of known features."""

    def __init__(self, sections: int, vectors: Sequence[tuple[Mapping[str, float], int, float]]):
        """``vectors``: (an exemplar's TF-IDF vector, its primary section's column, its weight)."""
        self.sections = sections
        self.feature_mass: dict[str, float] = defaultdict(float)
        self.class_mass: dict[str, dict[int, float]] = defaultdict(dict)
        for vector, column, weight in vectors:
            for feature, value in vector.items():
                self.feature_mass[feature] += weight * value
                row = self.class_mass[feature]
                row[column] = row.get(column, 0.0) + weight * value
        self.total = sum(self.feature_mass.values())
        per_class = [0.0] * sections
        for row in self.class_mass.values():
            for column, mass in row.items():
                per_class[column] += mass
        self.complement = [self.total - mass for mass in per_class]
        self.vocabulary = len(self.feature_mass) or 1
        # Each feature's weights with nothing left out: the complement's part is the same for every feature, and
        # the feature's own part the same in every column whose exemplars lack it, so each log is taken once.
        logs = [math.log(c + ALPHA * self.vocabulary) for c in self.complement]
        self.weights: dict[str, list[float]] = {}
        for feature, mass in self.feature_mass.items():
            own = self.class_mass[feature]
            rest = math.log(mass + ALPHA)
            self.weights[feature] = [
                log - (math.log(mass - own[s] + ALPHA) if s in own else rest) for s, log in enumerate(logs)
            ]
        norms = [0.0] * sections
        for row_weights in self.weights.values():
            for column, weight in enumerate(row_weights):
                norms[column] += abs(weight)
        # The mean weight of a feature: a section's scores do not shrink as the vocabulary grows.
        self.norms = [(n / self.vocabulary) or 1.0 for n in norms]

    def _weights(self, feature: str, left: tuple[Mapping[str, float], int, float] | None = None) -> list[float]:
        mass = self.feature_mass.get(feature, 0.0)
        row = self.class_mass.get(feature, {})
        complement = list(self.complement)
        own = dict(row)
        if left is not None:
            vector, column, weight = left
            removed = weight * vector.get(feature, 0.0)
            mass -= removed
            own[column] = own.get(column, 0.0) - removed
            size = weight * sum(vector.values())
            complement = [c - size if i != column else c for i, c in enumerate(complement)]
        return [
            math.log(complement[s] + ALPHA * self.vocabulary) - math.log(mass - own.get(s, 0.0) + ALPHA)
            for s in range(self.sections)
        ]

    def scores(
        self, query: Mapping[str, float], left: tuple[Mapping[str, float], int, float] | None = None
    ) -> list[float]:
        """Per section, the query's normalised complement score, centred on the mean (a softmax ignores a shift)."""
        totals = [0.0] * self.sections
        for feature, value in query.items():
            row = self.weights.get(feature) if left is None else self._weights(feature, left)
            if row is None:
                continue
            for column, weight in enumerate(row):
                totals[column] += value * weight
        found = [t / n for t, n in zip(totals, self.norms, strict=True)]
        mean = sum(found) / len(found) if found else 0.0
        return [f - mean for f in found]
