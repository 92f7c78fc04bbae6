"""The user's own tags as a model of their own, followed as far as it predicts them.

A library's tags follow its owner's habits: one user files federated papers under
communication, another under decentralized training. The main model learns from the
user's entries beside a corpus many times their number, which such habits barely move.
A centroid model of the user's entries alone is added to the blend, with the weight that
best predicts their own tags when each is hidden in turn (leave-one-out): a user whose
tags the corpus already predicts gets little of it, one whose tags it does not gets more.
Beside each section's centroid, the user's nearest tagged entries vote: a library files
a few close papers together (one system's follow-ups, one benchmark's entrants) in a way
a section's average does not show.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import NamedTuple

from surveytool.analysis.tagging.exemplars import Exemplar
from surveytool.analysis.tagging.features import features
from surveytool.analysis.tagging.learned import CentroidModel

#: The user model's weight relative to the corpus model's, tried in this order (ties: the smaller).
RELATIVE_WEIGHTS = (0.0, 0.1, 0.2, 0.5, 1.0, 2.0, 4.0)
#: How many of the user's nearest tagged entries vote, and how much their cosines count beside the centroids'.
NEIGHBOURS = 7
NEIGHBOUR_WEIGHT = 2.0
#: Fewer tagged entries than this say too little about their owner's habits to weigh them.
MIN_TAGGED = 5
#: The weight is chosen on about this many entries at most (evenly spread): enough to tell the weights apart.
MAX_CHECKED = 300

#: (the model's logits of an exemplar hidden from it, or None when nothing of its text is known; the scale
#: of its learned part): the main blend's view of one of the user's entries.
BaseLogits = Callable[[Exemplar, int], tuple[list[float], float] | None]


class UserModel(NamedTuple):
    model: CentroidModel
    weight: float  # relative to the corpus model's

    def logits(
        self, found: frozenset[str], split: Sequence[str], scale: float, leave_out: int | None = None
    ) -> list[float]:
        """What the model adds to the blend's logits, per section; ``scale``: the corpus model's weight;
        ``leave_out``: an index into the main model's exemplars, which are the user's first."""
        hidden = leave_out if leave_out is not None and leave_out < len(self.model.exemplars) else None
        query = self.model.vector(found, split, hidden)
        if not query:
            return [0.0] * len(self.model.sections)
        return [self.weight * scale * score for score in user_scores(self.model, query, hidden)]


def user_scores(model: CentroidModel, query: dict[str, float], hidden: int | None) -> list[float]:
    """Per section: the centroids' score of ``query`` (a vector of ``model``) and its nearest entries' votes."""
    scores = model.log_scores(query, hidden)
    column = {section: i for i, section in enumerate(model.sections)}
    for similarity, exemplar in model.nearest(query, NEIGHBOURS, leave_out=hidden, origins=("user",)):
        scores[column[exemplar.sections[0]]] += NEIGHBOUR_WEIGHT * similarity
    return scores


def fit_user_model(sections: Sequence[str], users: Sequence[Exemplar], base: BaseLogits) -> UserModel | None:
    """The model of ``users`` with its weight chosen by leave-one-out; None when it would weigh nothing.

    ``users`` are the first exemplars of the main model, in the same order (their index is its leave-out index).
    """
    if len(users) < MIN_TAGGED:
        return None
    model = CentroidModel(sections, users)
    # An entry hidden while its twin (the preprint of the same paper, say) still votes would make the user's
    # model look right whatever their tags: only entries whose title no other entry has are checked.
    titles = Counter(features(e.title) for e in users)
    alone = [i for i, e in enumerate(users) if titles[features(e.title)] == 1]
    right = dict.fromkeys(RELATIVE_WEIGHTS, 0)
    count = len(sections)
    for index in alone[:: math.ceil(len(alone) / MAX_CHECKED) or 1]:
        exemplar = users[index]
        seen = base(exemplar, index)
        if seen is None:
            continue
        logits, scale = seen
        query = model.vector(features(exemplar.title, exemplar.body), leave_out=index)
        own = user_scores(model, query, index) if query else [0.0] * count
        for weight in RELATIVE_WEIGHTS:
            combined = [x + weight * scale * u for x, u in zip(logits[:count], own, strict=True)]
            best = max(range(count), key=lambda i: (combined[i], -i))
            right[weight] += sections[best] == exemplar.sections[0]
    weight = max(RELATIVE_WEIGHTS, key=lambda w: (right[w], -w))
    return UserModel(model, weight) if weight > 0 else None
