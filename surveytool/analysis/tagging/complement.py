"""Complement naive Bayes over the same TF-IDF vectors as the centroids: the second half of the learned model.

A section is scored by how unlike the *other* sections' exemplars a paper is
(Rennie et al.'s complement estimate), which stays steady when one section has
many more exemplars than another: a centroid alone is pulled by a few frequent
words, the complement weights by the words that tell sections apart.
Weights are divided by their section's mean, so that no section wins by having larger weights.

A feature's weight in a section is the log of the section's complement mass less the log of the
feature's mass outside the section. In a section whose exemplars never had the feature, that is the
section's log less the feature's own (``logs[c] - rests[f]``), so only the sections that had it keep a
weight of their own, as the difference from that default: the model grows with the words each section
saw, not with the vocabulary times the sections (a user's taxonomy may have thousands).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

#: Smoothing of the complement counts: larger is smoother (chosen by cross-validation on the corpus).
ALPHA = 1.0

#: A feature's weights: the log of its whole mass (smoothed), which every section's default less, and per
#: section that had it, how far its weight there is above that default.
Row = tuple[float, tuple[tuple[int, float], ...]]


class ComplementModel:
    """Per section, a default weight; per feature, its own and the weights of the sections that had it."""

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
        self.logs = self._logs()
        self.rows = {f: self._row(mass, self.class_mass[f]) for f, mass in self.feature_mass.items()}
        # Every weight is at least 0 up to rounding (a feature's mass outside a section is at most the section's complement),
        # so a section's sum of absolute weights is its default times the vocabulary plus what its own add.
        rests = sum(rest for rest, _ in self.rows.values())
        extras = [0.0] * sections
        for _, own in self.rows.values():
            for column, extra in own:
                extras[column] += extra
        count = len(self.rows)
        # The mean weight of a feature: a section's scores do not shrink as the vocabulary grows.
        self.norms = [
            ((log * count - rests + extra) / self.vocabulary) or 1.0
            for log, extra in zip(self.logs, extras, strict=True)
        ]

    def _logs(self, left: tuple[Mapping[str, float], int, float] | None = None) -> list[float]:
        """Per column, the log of its complement's mass (the same for every feature)."""
        complement = self.complement
        if left is not None:
            vector, column, weight = left
            size = weight * sum(vector.values())
            complement = [c - size if i != column else c for i, c in enumerate(complement)]
        return [math.log(c + ALPHA * self.vocabulary) for c in complement]

    @staticmethod
    def _row(mass: float, own: Mapping[int, float]) -> Row:
        """A feature's weights from its ``mass`` and its mass in the columns that have it (``own``): in a column
        not there, the column's log less ``rest``; in one there, more by the mass the column itself holds."""
        rest = math.log(mass + ALPHA)
        return rest, tuple((column, rest - math.log(mass - part + ALPHA)) for column, part in own.items())

    def _left_out(self, feature: str, left: tuple[Mapping[str, float], int, float]) -> Row:
        """A feature's weights as if the exemplar ``left`` had not been seen (with the logs of ``_logs(left)``)."""
        vector, column, weight = left
        removed = weight * vector.get(feature, 0.0)
        own = dict(self.class_mass.get(feature, {}))
        own[column] = own.get(column, 0.0) - removed
        return self._row(self.feature_mass.get(feature, 0.0) - removed, own)

    def scores(
        self, query: Mapping[str, float], left: tuple[Mapping[str, float], int, float] | None = None
    ) -> list[float]:
        """Per section, the query's normalised complement score, centred on the mean (a softmax ignores a shift)."""
        totals = [0.0] * self.sections
        values = rests = 0.0  # the sums that give every column's default weights at once
        rows = self.rows
        for feature, value in query.items():
            row = rows.get(feature) if left is None else self._left_out(feature, left)
            if row is None:
                continue
            rest, own = row
            values += value
            rests += value * rest
            for column, extra in own:
                totals[column] += value * extra
        logs = self.logs if left is None else self._logs(left)
        found = [
            (log * values - rests + total) / norm for log, total, norm in zip(logs, totals, self.norms, strict=True)
        ]
        mean = sum(found) / len(found) if found else 0.0
        return [f - mean for f in found]
