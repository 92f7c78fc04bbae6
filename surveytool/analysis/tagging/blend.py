"""What a tag is computed from, per section: the rules' scores, the learned model's and the blend's shares,
and the confidence of each section (``calibration.py``)."""

from __future__ import annotations

from typing import NamedTuple

from surveytool.analysis.tagging import calibration
from surveytool.analysis.tagging.calibration import calibrated
from surveytool.analysis.tagging.learned import softmax


class Blend(NamedTuple):
    """What a tag is computed from, per section (in taxonomy order)."""

    sections: tuple[str, ...]
    rules: dict[str, tuple[float, list[str]]]  # section -> (score, evidence phrases), where a rule fired
    learned_logits: list[float]  # the model's, before the softmax
    confidence: list[float]  # the blend's probabilities
    support: float = 1.0  # 1 when the model learned from a labelled corpus, 0 when only from the taxonomy and user
    body: bool = False  # the entry has an abstract or keywords, not only a title
    background: float = 0.0  # the probability that the paper is out of the field's scope (no section at all)
    in_scope: float = 1.0  # for an entry with an abstract: how likely its title is of the field (``in_scope``)
    titled: bool = True  # the entry's title is known

    def signals(self, index: int) -> tuple[float, ...]:
        """What says how likely the section at ``index`` is right: its share of the blend, its lead over the rest
        (the background included), whether a phrase of its vocabulary was found and whether a corpus taught
        the model."""
        others = max([c for i, c in enumerate(self.confidence) if i != index] + [self.background])
        fired = 1.0 if self.sections[index] in self.rules else 0.0
        return (self.confidence[index], self.confidence[index] - others, fired, self.support)

    def sureness(self, index: int) -> float:
        """The probability that the section at ``index`` is right (``calibration.py``).

        The corpus has no abstracts, so an entry with a longer text has a map of its own, fitted on the
        seeds' snippets, where a phrase of the section was found. It only ever lowers the share: the seeds
        show high shares over-confident, and hold too few low ones to say that a weak phrase in an
        abstract makes a paper likelier to belong than its share says. With no phrase found, the model
        (which learned from titles) speaks alone and its share stands.

        Either is the chance of the section *if* the paper is of the field: the seeds are all of it, and
        the model, weighed lightly beside an abstract's phrases, cannot say otherwise. A type system's or
        a muon study's abstract has the field's words ("languages", "pipeline", "energy") too. So it is
        times the chance that the paper is of the field at all, which its title says (``in_scope``).
        """
        share = self.confidence[index]
        if not self.body:
            return calibrated(self.signals(index))
        fired = self.sections[index] in self.rules
        sure = min(share, calibration.body_calibrated(share, titled=self.titled)) if fired else share
        return sure * self.in_scope

    @property
    def learned(self) -> list[float]:
        """The model's probabilities."""
        return softmax(self.learned_logits)

    def ranked(self) -> list[int]:
        """Section indexes, most likely first (taxonomy order among equals)."""
        return sorted(range(len(self.sections)), key=self.confidence.__getitem__, reverse=True)  # stable: in order
