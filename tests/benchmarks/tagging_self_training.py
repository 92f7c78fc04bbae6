"""An experiment, not a feature: would the tagger gain by learning from its own confident tags?

Run on its own: python tests/benchmarks/tagging_self_training.py [--threshold 0.8]

Self-training: the entries are tagged, those tagged at ``--threshold`` or above are given to a second
tagger as if the user had tagged them, and every entry is tagged again. Measured like tagging_cv.py (the
train split only, the same folds and lists left out, the same 30% of user tags); the dev split is not read.
Two figures: the primary section, given or not, and the share of entries given their labelled section at
the default threshold, each retagged entry keeping its first confidence (the second pass's would be
over-confident: it learned from the first pass's own answers).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tagging_cv  # noqa: E402
from tagging_learned import SEED, TAGGED_SHARE, stripped, with_tags  # noqa: E402

from surveytool.analysis.tagging.exemplars import OUT_OF_SCOPE, Exemplar, user_exemplars  # noqa: E402
from surveytool.analysis.tagging.tagger import DEFAULT_THRESHOLD, Tagger  # noqa: E402
from surveytool.model import Paper, Taxonomy  # noqa: E402
from surveytool.pipeline import Options, options_taxonomy  # noqa: E402

Labelled = list[tuple[Paper, str]]


def primaries(tagger: Tagger, papers: list[Paper]) -> list[tuple[str, float]]:
    """Each paper's computed primary section ("" for none) and its confidence."""
    found = []
    for paper in papers:
        tags = tagger.tag(paper)
        found.append((tags[0].section, tags[0].score) if tags else ("", 0.0))
    return found


def right_before_and_after(
    taxonomy: Taxonomy, corpus: list[Exemplar], tagged: Labelled, rest: Labelled, threshold: float
) -> tuple[int, int, int, int]:
    """How many of ``rest`` get their labelled primary section, without and with self-training; then how many
    are given it at the default threshold."""
    papers = [p for p, _ in rest]
    first = primaries(Tagger(taxonomy, user_exemplars(with_tags(tagged), taxonomy), corpus=corpus), papers)
    confident = [
        (p, section) for p, (section, score) in zip(papers, first, strict=True) if section and score >= threshold
    ]
    users = user_exemplars(with_tags(tagged + confident), taxonomy)
    again = primaries(Tagger(taxonomy, users, corpus=corpus), papers)
    labels = [label for _, label in rest]
    given = [score >= DEFAULT_THRESHOLD for _, score in first]
    return (
        sum(s == label for (s, _), label in zip(first, labels, strict=True)),
        sum(s == label for (s, _), label in zip(again, labels, strict=True)),
        sum(s == label and g for (s, _), label, g in zip(first, labels, given, strict=True)),
        sum(s == label and g for (s, _), label, g in zip(again, labels, given, strict=True)),
    )


def run(threshold: float) -> dict[str, tuple[float, ...]]:
    taxonomy = options_taxonomy(Options())
    plain, rename = stripped(taxonomy)
    rows, _ = tagging_cv.folds(5)
    counts: dict[str, list[int]] = {}
    for kind, _, held, corpus in tagging_cv.splits(rows, 5):
        cases = [(tagging_cv.paper(n, rows[n].title), rows[n].sections[0]) for n in held]
        cases = [(p, label) for p, label in cases if label != OUT_OF_SCOPE]
        order = list(range(len(cases)))
        random.Random(SEED).shuffle(order)
        chosen = set(order[: round(TAGGED_SHARE * len(cases))])
        tagged = [c for i, c in enumerate(cases) if i in chosen]
        rest = [c for i, c in enumerate(cases) if i not in chosen]
        situations = {
            "plain": (taxonomy, corpus, [], cases),
            "30% tagged": (taxonomy, corpus, tagged, rest),
            "stripped + 30% tagged": (
                plain,
                tagging_cv.transferred(corpus, plain),
                [(p, rename[label]) for p, label in tagged],
                [(p, rename[label]) for p, label in rest],
            ),
        }
        for name, (tax, exemplars, given, measured) in situations.items():
            found = right_before_and_after(tax, exemplars, given, measured, threshold)
            total = counts.setdefault(kind + name, [0, 0, 0, 0, 0])
            for index, count in enumerate((*found, len(measured))):
                total[index] += count
    return {name: tuple(count / total[-1] for count in total[:-1]) for name, total in counts.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threshold", type=float, default=0.8)
    args = parser.parse_args()
    for name, (before, after, given_before, given_after) in run(args.threshold).items():
        print(
            f"{name:<38} primary {before:.3f} -> {after:.3f}, given and right {given_before:.3f} -> "
            f"{given_after:.3f} with self-training at {args.threshold}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
