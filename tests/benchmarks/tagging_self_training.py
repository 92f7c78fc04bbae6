"""Self-training as the tool does it (``self_training.tag_twice``), measured on the corpus's train split.

Run on its own: python tests/benchmarks/tagging_self_training.py [--fit-confidence]

Each held-out fold or list of tagging_cv.py is one library: its papers of the field and, on the
random folds, the background rows of other fields beside them (a real library has both). Measured
like tagging_cv.py (the same folds, lists and 30% of user tags); the dev split is not read. For
each situation: the primary section of the papers of the field with one tagging pass and with two,
the share given their section at the default threshold, and how many background papers are given one.

``--fit-confidence`` prints ``calibration.SELF_TAUGHT_KNOTS`` fitted on the entries tagged again,
pooled over every situation, with the map taken out while it measures.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tagging_cv  # noqa: E402
from calibration_fit import fit_isotonic  # noqa: E402
from tagging_learned import SEED, TAGGED_SHARE, stripped, with_tags  # noqa: E402

from surveytool.analysis.tagging import calibration  # noqa: E402
from surveytool.analysis.tagging.exemplars import OUT_OF_SCOPE, user_exemplars  # noqa: E402
from surveytool.analysis.tagging.self_training import tag_twice  # noqa: E402
from surveytool.analysis.tagging.tagger import DEFAULT_THRESHOLD, Tagger  # noqa: E402
from surveytool.model import Paper  # noqa: E402
from surveytool.pipeline import Options, options_taxonomy  # noqa: E402

Labelled = list[tuple[Paper, str]]
AGAIN = "tagged again after"


def outcomes(tagger: Tagger, library: Labelled, twice: bool) -> list[tuple[str, str, float, bool]]:
    """(label, computed primary, its confidence, whether it was tagged again) per paper of ``library``."""
    papers = [p for p, _ in library]
    tags = tag_twice(tagger, papers, lambda t: t.tag_each) if twice else tagger.tag_each(papers)
    return [
        (label, found[0].section, found[0].score, any(AGAIN in line for line in found[0].evidence))
        if found
        else (label, "", 0.0, False)
        for (_, label), found in zip(library, tags, strict=True)
    ]


def run() -> tuple[dict[str, list[list]], list[tuple[float, bool]]]:
    taxonomy = options_taxonomy(Options())
    plain, rename = stripped(taxonomy)
    rows, _ = tagging_cv.folds(5)
    results: dict[str, list[list]] = {}
    again: list[tuple[float, bool]] = []
    for kind, _, held, corpus in tagging_cv.splits(rows, 5):
        cases = [(tagging_cv.paper(n, rows[n].title), rows[n].sections[0]) for n in held]
        field = [c for c in cases if c[1] != OUT_OF_SCOPE]
        background = [c for c in cases if c[1] == OUT_OF_SCOPE]
        order = list(range(len(field)))
        random.Random(SEED).shuffle(order)
        chosen = set(order[: round(TAGGED_SHARE * len(field))])
        tagged = [c for i, c in enumerate(field) if i in chosen]
        rest = [c for i, c in enumerate(field) if i not in chosen]
        situations = {
            "plain": (taxonomy, corpus, [], field),
            "30% tagged": (taxonomy, corpus, tagged, rest),
            "stripped + 30% tagged": (
                plain,
                tagging_cv.transferred(corpus, plain),
                [(p, rename[label]) for p, label in tagged],
                [(p, rename[label]) for p, label in rest],
            ),
        }
        for name, (tax, exemplars, given, measured) in situations.items():
            tagger = Tagger(tax, user_exemplars(with_tags(given), tax), corpus=exemplars)
            library = measured + (background if name == "plain" else [])
            for twice in (False, True):
                found = outcomes(tagger, library, twice)
                results.setdefault(f"{kind}{name}", [[], []])[twice].extend(found)
                if twice:
                    again += [(score, label == section) for label, section, score, retagged in found if retagged]
    return results, again


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fit-confidence", action="store_true")
    args = parser.parse_args()
    if args.fit_confidence:
        calibration.SELF_TAUGHT_KNOTS = ((0.0, 0.0), (1.0, 1.0))
    results, again = run()
    for name, passes in results.items():
        line = []
        for found in passes:
            field = [f for f in found if f[0] != OUT_OF_SCOPE]
            right = sum(label == section for label, section, _, _ in field) / len(field)
            given = sum(label == section and score >= DEFAULT_THRESHOLD for label, section, score, _ in field)
            others = [f for f in found if f[0] == OUT_OF_SCOPE]
            placed = sum(score >= DEFAULT_THRESHOLD for _, _, score, _ in others)
            line.append(f"{right:.3f} / {given / len(field):.3f} / {placed}")
        print(f"{name:<38} primary / given and right / background given: {line[0]} -> {line[1]}")
    print(f"tagged again: {len(again)}, right {sum(r for _, r in again) / max(len(again), 1):.3f}")
    if args.fit_confidence:
        knots = fit_isotonic(again)
        print("SELF_TAUGHT_KNOTS = (" + ", ".join(f"({x:.3f}, {y:.3f})" for x, y in knots) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
