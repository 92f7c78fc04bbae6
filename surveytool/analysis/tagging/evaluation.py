"""How far to trust the tagger on a user's own library: k-fold cross-validation on the entries they tagged.

Each fold's entries are tagged by a tagger that learned from the other folds
(and from the bundled corpus and the taxonomy, as in a real run) with their own
tags hidden. The folds are drawn with a fixed seed, so the figures repeat.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from surveytool.analysis.tagging.exemplars import user_exemplars
from surveytool.analysis.tagging.tagger import DEFAULT_THRESHOLD, Tagger
from surveytool.analysis.tagging.user_tags import explicit_tags, tags_location
from surveytool.bibtex.crossref import cited_through_children
from surveytool.errors import InputError
from surveytool.model import Paper, Taxonomy
from surveytool.text.normalize import normalize

FOLDS = 5
SEED = 0
CALIBRATION_BINS = (0.0, 0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@dataclass(frozen=True)
class Prediction:
    key: str
    given: str  # the user's primary section
    predicted: str | None  # the tagger's best section (None: nothing in the text was known)
    confidence: float


@dataclass(frozen=True)
class Evaluation:
    predictions: tuple[Prediction, ...]
    folds: int
    threshold: float

    @property
    def accuracy(self) -> float:
        return _share(sum(p.predicted == p.given for p in self.predictions), len(self.predictions))

    @property
    def confident(self) -> tuple[Prediction, ...]:
        return tuple(p for p in self.predictions if p.predicted is not None and p.confidence >= self.threshold)

    def per_section(self) -> list[tuple[str, int, float | None, float | None]]:
        """(section, entries the user gave it, precision, recall), for every section either side names; a figure
        with nothing to count (the precision of a section the tagger never gave) is None, not 0."""
        given = Counter(p.given for p in self.predictions)
        predicted = Counter(p.predicted for p in self.predictions if p.predicted)
        right = Counter(p.given for p in self.predictions if p.predicted == p.given)
        return [
            (s, given[s], _ratio(right[s], predicted[s]), _ratio(right[s], given[s]))
            for s in sorted(set(given) | set(predicted))
        ]

    def confusions(self) -> list[tuple[str, str, int]]:
        """(given, predicted, count) for every mistake, most frequent first."""
        wrong = Counter((p.given, p.predicted or "-") for p in self.predictions if p.predicted != p.given)
        return sorted(((g, w, n) for (g, w), n in wrong.items()), key=lambda item: (-item[2], item[0], item[1]))

    def calibration(self) -> list[tuple[float, float, int, float | None]]:
        """(low, high, entries, accuracy) per confidence bin: of tags at 0.8, about 80% should be right (an empty
        bin's accuracy is None)."""
        rows = []
        for low, high in zip(CALIBRATION_BINS, CALIBRATION_BINS[1:], strict=False):
            inside = [p for p in self.predictions if p.predicted and low <= p.confidence < high + (high == 1.0)]
            rows.append((low, high, len(inside), _ratio(sum(p.predicted == p.given for p in inside), len(inside))))
        return rows

    def as_json(self) -> dict:
        confident = self.confident
        return {
            "entries": len(self.predictions),
            "folds": self.folds,
            "seed": SEED,
            "threshold": self.threshold,
            "accuracy": round(self.accuracy, 4),
            "confident": len(confident),
            "confident_accuracy": _rounded(_ratio(sum(p.predicted == p.given for p in confident), len(confident))),
            "sections": [
                {"section": s, "entries": n, "precision": _rounded(pr), "recall": _rounded(rc)}
                for s, n, pr, rc in self.per_section()
            ],
            "confusions": [{"given": g, "predicted": w, "count": n} for g, w, n in self.confusions()],
            "calibration": [
                {"from": lo, "to": hi, "entries": n, "accuracy": _rounded(a)} for lo, hi, n, a in self.calibration()
            ],
            "predictions": [
                {"key": p.key, "given": p.given, "predicted": p.predicted, "confidence": round(p.confidence, 4)}
                for p in self.predictions
            ],
        }


def _share(part: float, whole: float) -> float:
    return part / whole if whole else 0.0


def _ratio(part: float, whole: float) -> float | None:
    """``part / whole``, or None when there is nothing to count: 0 of 0 is no 0% (a reader plotting the
    calibration, or a section the tagger never gave, read it as every tag wrong)."""
    return part / whole if whole else None


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _shown(value: float | None, width: int, digits: int = 2) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def evaluate(
    papers: Sequence[Paper], taxonomy: Taxonomy, folds: int = FOLDS, threshold: float = DEFAULT_THRESHOLD
) -> Evaluation:
    """Cross-validate the tagger on the entries of ``papers`` the user tagged with a section of ``taxonomy``.

    A volume cited through its entries (and an @xdata entry) is taught from in every fold but never held out:
    the tagger places no such entry in a run, and "Proceedings of SOSP" tagged wrong counted against it.
    """
    lenders = cited_through_children(papers)
    taught = sorted((p for p in papers if explicit_tags(p, taxonomy)[0]), key=lambda p: p.key)
    tagged = [p for p in taught if p.key.lower() not in lenders]
    order = list(range(len(tagged)))
    random.Random(SEED).shuffle(order)
    # Two entries of one paper (under two keys) are held out together: a fold that learned from the copy
    # of the paper it is asked to tag would be right by rote, and the figures too good.
    group_of: dict[str, int] = {}
    for i in order:
        group_of.setdefault(_same_paper(tagged[i]), len(group_of))
    folds = max(1, min(folds, len(group_of)))  # no fold is left with nothing to hold out
    fold_of = {i: group_of[_same_paper(tagged[i])] % folds for i in order}
    predictions = []
    for fold in range(folds):
        held = [tagged[i] for i in order if fold_of[i] == fold]
        held_keys = {p.key for p in held}
        tagger = Tagger(taxonomy, user_exemplars((p for p in taught if p.key not in held_keys), taxonomy))
        for paper in held:
            given = explicit_tags(paper, taxonomy)[0][0].section
            tags = tagger.tag(replace(paper, explicit_tags=()))
            predictions.append(
                Prediction(paper.key, given, tags[0].section if tags else None, tags[0].score if tags else 0.0)
            )
    predictions.sort(key=lambda p: p.key)
    return Evaluation(tuple(predictions), folds, threshold)


def _same_paper(paper: Paper) -> str:
    """What two entries of one paper share: the title, compared as normalized words (else the key)."""
    return normalize(paper.fields.get("title", "")) or f"key:{paper.key}"


def evaluation_report(evaluation: Evaluation) -> str:
    """The figures as text for the terminal."""
    n = len(evaluation.predictions)
    confident = evaluation.confident
    right = sum(p.predicted == p.given for p in confident)
    lines = [
        _heading(evaluation),
        f"primary accuracy: {sum(p.predicted == p.given for p in evaluation.predictions)}/{n} = {evaluation.accuracy:.3f}",
        f"at confidence >= {evaluation.threshold:g}: {len(confident)} tagged, {right} right "
        f"({_shown(_ratio(right, len(confident)), 0, 3)}); {n - len(confident)} left to place",
        "",
        f"{'section':<24} {'entries':>7} {'precision':>9} {'recall':>7}",
    ]
    lines += [f"{s:<24} {count:>7} {_shown(pr, 9)} {_shown(rc, 7)}" for s, count, pr, rc in evaluation.per_section()]
    calibration = [row for row in evaluation.calibration() if row[2]]
    if calibration:
        lines += ["", "calibration (confidence -> accuracy):"]
        lines += [f"  {lo:.1f}-{hi:.1f}  {count:>5} entries  {_shown(acc, 0)}" for lo, hi, count, acc in calibration]
    confusions = evaluation.confusions()
    if confusions:
        lines += ["", "confusions (your tag -> the tagger's):"]
        lines += [f"  {g} -> {w}: {count}" for g, w, count in confusions]
    return "\n".join(lines) + "\n"


def _heading(evaluation: Evaluation) -> str:
    """What the figures are: with one paper tagged (in one entry or more) there is no other to learn from, and no
    cross-validation."""
    n = len(evaluation.predictions)
    if n == 1:
        return "1 entry you tagged, tagged as if you had not: too few to cross-validate (that needs 2 or more)"
    if evaluation.folds == 1:
        return f"{n} entries you tagged, all of one paper, tagged as if you had not: too few to cross-validate"
    return f"{evaluation.folds}-fold cross-validation on {n} entries you tagged (seed {SEED})"


def nothing_to_evaluate(papers: Sequence[Paper], tags_field: str, sources: Sequence[str] = ()) -> InputError:
    """Why there is nothing to cross-validate: no entry is tagged, or every tag given names no section (a tag
    written for another taxonomy, say), said at the first such tag. ``sources``: the files given, named when
    no entry was read from them."""
    lenders = cited_through_children(papers)
    tagged = sorted((p for p in papers if p.explicit_tags), key=lambda p: min(p.sources))
    works = [p for p in tagged if p.key.lower() not in lenders]
    if tagged and not works:
        where = tags_location(tagged[0])
        return InputError(
            f"only volumes that entries name as their crossref parent carry tags (this one: '{tagged[0].key}'), "
            "and the tagger places no volume: there is nothing to evaluate the tagger on",
            path=where.path,
            line=where.line,
            hint=f"tag some of the papers themselves ({tags_field} = {{...}})",
        )
    tagged = works
    if tagged:
        where = tags_location(tagged[0])
        count = f"{len(tagged)} entries carry" if len(tagged) > 1 else "1 entry carries"
        return InputError(
            f"{count} tags, but none names a section of the taxonomy (this one: '{tagged[0].explicit_tags[0]}'): "
            "there is nothing to evaluate the tagger on",
            path=where.path,
            line=where.line,
            hint="a tag names a section by its id, title or alias (`surveytool taxonomy` lists them); "
            "give --taxonomy the taxonomy your tags were written for",
        )
    files = sorted({s.path for p in papers for s in p.sources}) if papers else list(sources)
    return InputError(
        ("no entry carries a tag naming a section" if papers else "no entry was read")
        + ": there is nothing to evaluate the tagger on",
        path=files[0] if len(files) == 1 else None,
        hint=f"tag some entries ({tags_field} = {{...}}), or name the field your tags are in with --tags-field",
    )
