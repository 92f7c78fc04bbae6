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
from functools import reduce
from operator import add

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
        logs = self._logs()
        self.weights = {f: self._row(logs, mass, self.class_mass[f]) for f, mass in self.feature_mass.items()}
        # A column at a time, its weights added in feature order as a row at a time would add them.
        columns = zip(*self.weights.values(), strict=True) if self.weights else [()] * sections
        norms = [reduce(add, map(abs, column), 0.0) for column in columns]
        # The mean weight of a feature: a section's scores do not shrink as the vocabulary grows.
        self.norms = [(n / self.vocabulary) or 1.0 for n in norms]

    def _logs(self, left: tuple[Mapping[str, float], int, float] | None = None) -> list[float]:
        """Per column, the log of its complement's mass (the same for every feature)."""
        complement = self.complement
        if left is not None:
            vector, column, weight = left
            size = weight * sum(vector.values())
            complement = [c - size if i != column else c for i, c in enumerate(complement)]
        return [math.log(c + ALPHA * self.vocabulary) for c in complement]

    @staticmethod
    def _row(logs: list[float], mass: float, own: Mapping[int, float]) -> list[float]:
        """A feature's weights from each column's ``logs``, its ``mass`` and its mass in the columns that have it:
        the log of its mass outside a column is taken once for all the columns it is not in (most)."""
        rest = math.log(mass + ALPHA)
        row = [log - rest for log in logs]
        for column, part in own.items():
            row[column] = logs[column] - math.log(mass - part + ALPHA)
        return row

    def _left_out(self, feature: str, left: tuple[Mapping[str, float], int, float], logs: list[float]) -> list[float]:
        """A feature's weights as if the exemplar ``left`` had not been seen (``logs``: ``_logs(left)``)."""
        vector, column, weight = left
        removed = weight * vector.get(feature, 0.0)
        own = dict(self.class_mass.get(feature, {}))
        own[column] = own.get(column, 0.0) - removed
        return self._row(logs, self.feature_mass.get(feature, 0.0) - removed, own)

    def scores(
        self, query: Mapping[str, float], left: tuple[Mapping[str, float], int, float] | None = None
    ) -> list[float]:
        """Per section, the query's normalised complement score, centred on the mean (a softmax ignores a shift)."""
        totals = [0.0] * self.sections
        logs = self._logs(left) if left is not None else []
        for feature, value in query.items():
            row = self.weights.get(feature) if left is None else self._left_out(feature, left, logs)
            if row is None:
                continue
            for column, weight in enumerate(row):
                totals[column] += value * weight
        found = [t / n for t, n in zip(totals, self.norms, strict=True)]
        mean = sum(found) / len(found) if found else 0.0
        return [f - mean for f in found]
