"""Cross-validation of the learned tagger on the corpus's train split: what tuning looks at.

Run on its own: python tests/benchmarks/tagging_cv.py [--folds 5] [--json]

The dev split (tagging_learned.py) is measured once, after tuning; this script never reads it.
Per fold, the tagger is trained on the other folds and measured on the held-out titles:
- plain: the bundled taxonomy and the other folds as corpus;
- 30% tagged: 30% of the held-out fold given as the user's tags, measured on the other 70%;
- stripped + 30% tagged: a taxonomy without keywords and with ids of its own, with the same 30% of
  tags; its sections keep the default's titles, so the corpus's labels carry over (``transfer.py``);
- no corpus + 30% tagged: the same taxonomy with no corpus at all, as for sections of the user's own words;
and the seed lists (the regression test's figure). The same situations are measured with each list of
the corpus (one with 40 papers of the field or more) left out in turn ("unseen list: ..."): the corpus
is trained without that list and tested on its papers, as for a user's library filed its own way.
Calibration bins pool each situation's cases.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tagging_accuracy  # noqa: E402
from calibration_fit import fit_isotonic, fit_logistic  # noqa: E402
from tagging_learned import BINS, SEED, TAGGED_SHARE, stripped, with_tags  # noqa: E402

from surveytool.analysis.tagging import calibration  # noqa: E402
from surveytool.analysis.tagging.exemplars import (  # noqa: E402
    OUT_OF_SCOPE,
    Exemplar,
    corpus_path,
    read_corpus,
    user_exemplars,
)
from surveytool.analysis.tagging.tagger import DEFAULT_THRESHOLD, Tagger  # noqa: E402
from surveytool.analysis.tagging.transfer import corpus_section_map  # noqa: E402
from surveytool.model import Origin, Paper, SourceLocation, Taxonomy, frozen_mapping  # noqa: E402
from surveytool.pipeline import Options, options_taxonomy  # noqa: E402


def paper(n: int, title: str) -> Paper:
    return Paper(
        Origin.BIBTEX, (SourceLocation("train.bib", n + 1),), frozen_mapping({"title": title}), key=f"t{n:04d}"
    )


def folds(count: int) -> tuple[list, list[list[int]]]:
    rows = [r for r in read_corpus(corpus_path()) if r.split == "train"]
    order = list(range(len(rows)))
    random.Random(SEED).shuffle(order)
    return rows, [sorted(order[fold::count]) for fold in range(count)]


SIGNALS: list[tuple[tuple[float, ...], bool]] = []  # (Blend.signals of the best section, right), every case
#: (log-odds of a title's background share, out of scope), every case of a model with a background column.
SCOPE: list[tuple[tuple[float, ...], bool]] = []


Outcome = tuple[float, bool, str, str, bool]  # confidence, right, labelled primary, tagged, one of its sections


def outcomes(tagger: Tagger, cases: list[tuple[Paper, tuple[str, ...]]]) -> list[Outcome]:
    found = []
    for case, labels in cases:
        blend = tagger.blend(case)
        if blend is not None:
            top = blend.ranked()[0]
            SIGNALS.append((blend.signals(top), blend.sections[top] == labels[0]))
            if len(tagger.model.sections) > len(blend.sections):
                SCOPE.append(((calibration.log_odds(blend.background),), labels[0] == OUT_OF_SCOPE))
        tags = tagger.tag(case)
        best = tags[0].section if tags else ""
        found.append((tags[0].score if tags else 0.0, best == labels[0], labels[0], best, best in labels))
    return found


def summary(found: list[Outcome]) -> dict:
    """Primary accuracy on the field's papers (also counting any section the lists gave it); calibration over
    every case; how many out-of-scope papers were left."""
    field = [right for _, right, label, _, _ in found if label != OUT_OF_SCOPE]
    anywhere = [right for _, _, label, _, right in found if label != OUT_OF_SCOPE]
    outside = [confidence < DEFAULT_THRESHOLD for confidence, _, label, _, _ in found if label == OUT_OF_SCOPE]
    bins = []
    for low, high in zip(BINS, BINS[1:], strict=False):
        inside = [right for confidence, right, *_ in found if low <= confidence < high]
        if inside:
            bins.append((low, len(inside), round(sum(inside) / len(inside), 3)))
    return {
        "entries": len(field),
        "primary": round(sum(field) / (len(field) or 1), 3),
        "any of its sections": round(sum(anywhere) / (len(anywhere) or 1), 3),
        "out-of-scope left to place": f"{sum(outside)}/{len(outside)}",
        "calibration": bins,
    }


def transferred(corpus: list[Exemplar], taxonomy: Taxonomy) -> list[Exemplar]:
    """The fold's corpus as ``corpus_exemplars`` labels it for ``taxonomy`` (``transfer.py``)."""
    mapping = corpus_section_map(taxonomy)
    named = {**mapping, OUT_OF_SCOPE: OUT_OF_SCOPE}
    return [
        e._replace(sections=tuple(dict.fromkeys(named[s] for s in e.sections if s in named)))
        for e in corpus
        if mapping and e.sections[0] in named
    ]


Case = tuple[Paper, tuple[str, ...]]  # a title and the sections its lists gave it, primary first


def situations(taxonomy: Taxonomy, corpus: list[Exemplar], every: list[Case]) -> dict[str, list[Outcome]]:
    """The held-out ``every`` tagged in each situation, by a tagger whose corpus is ``corpus``."""
    plain = stripped(taxonomy)
    found = {"plain": outcomes(Tagger(taxonomy, corpus=corpus), every)}
    cases = [c for c in every if c[1][0] != OUT_OF_SCOPE]  # a user tags papers of the field
    order = list(range(len(cases)))
    random.Random(SEED).shuffle(order)
    chosen = set(order[: round(TAGGED_SHARE * len(cases))])
    tagged = [(p, labels[0]) for i, (p, labels) in enumerate(cases) if i in chosen]
    rest = [c for i, c in enumerate(cases) if i not in chosen]
    users = user_exemplars(with_tags(tagged), taxonomy)
    found["30% tagged"] = outcomes(Tagger(taxonomy, users, corpus=corpus), rest)
    mine = user_exemplars(with_tags(tagged, plain[1]), plain[0])
    relabelled = [(p, tuple(plain[1][s] for s in labels if s in plain[1])) for p, labels in rest]
    found["stripped + 30% tagged"] = outcomes(Tagger(plain[0], mine, corpus=transferred(corpus, plain[0])), relabelled)
    found["no corpus + 30% tagged"] = outcomes(Tagger(plain[0], mine, corpus=[]), relabelled)
    return found


def lists(rows: list) -> dict[str, list[int]]:
    """The rows each source list gave (``owner/repo``), for the lists with at least 40 papers of the field."""
    by_list: dict[str, list[int]] = {}
    for n, row in enumerate(rows):
        for source in sorted({part.split(":")[0].strip() for part in row.provenance.split(" ; ")}):
            by_list.setdefault(source, []).append(n)
    return {
        source: found
        for source, found in sorted(by_list.items())
        if sum(rows[n].sections[0] != OUT_OF_SCOPE for n in found) >= 40
    }


def corpus_without(rows: list, held: list[int]) -> list[Exemplar]:
    """The train split's rows but ``held``, as the tagger's corpus."""
    inside = set(held)
    return [
        Exemplar(f"corpus:{n}", r.title, "", r.sections, 1.0, "corpus") for n, r in enumerate(rows) if n not in inside
    ]


def splits(rows: list, count: int) -> Iterator[tuple[str, str, list[int], list[Exemplar]]]:
    """(kind, the list left out or "", the rows held out, the corpus of the others): k folds of the train split,
    then each list left out in turn ("unseen list: ")."""
    _, held_out = folds(count)
    for held in held_out:
        yield "", "", held, corpus_without(rows, held)
    for name, held in lists(rows).items():
        yield "unseen list: ", name, held, corpus_without(rows, held)


def learning_curve(count: int, shares: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)) -> dict[str, float]:
    """Primary accuracy on the random folds when the tagger learns from a share of the other folds (drawn with
    the fixed seed): whether more rows of the same lists would help."""
    taxonomy = options_taxonomy(Options())
    rows, held_out = folds(count)
    curve = {}
    for share in shares:
        found: list[Outcome] = []
        for held in held_out:
            corpus = corpus_without(rows, held)
            random.Random(SEED).shuffle(corpus)
            tagger = Tagger(taxonomy, corpus=corpus[: round(share * len(corpus))])
            found += outcomes(tagger, [(paper(n, rows[n].title), rows[n].sections) for n in held])
        curve[f"{share:.0%} of the other folds"] = summary(found)["primary"]
    return curve


def run(count: int) -> dict:
    """Each situation over k folds of the train split, and over its lists left out one at a time."""
    taxonomy = options_taxonomy(Options())
    rows, _ = folds(count)
    by_list = lists(rows)
    results: dict[str, list[Outcome]] = {}
    each_list = {}
    for kind, left_out, held, corpus in splits(rows, count):
        every = [(paper(n, rows[n].title), rows[n].sections) for n in held]
        for name, found in situations(taxonomy, corpus, every).items():
            results.setdefault(kind + name, []).extend(found)
            if left_out and name == "plain":
                alone = summary(found)
                each_list[left_out] = (
                    f"{alone['primary']:.3f} / {alone['any of its sections']:.3f} ({alone['entries']})"
                )
    figures: dict = {name: summary(found) for name, found in results.items()}
    figures["unseen list: plain, each list (primary / any)"] = each_list
    figures["lists left out"] = len(by_list)
    figures["seeds (given)"] = round(tagging_accuracy.evaluate(snippets_only=False)[0], 3)
    confusions: dict[str, int] = {}
    for _, right, label, best, _ in results["plain"]:
        if not right and label != OUT_OF_SCOPE:  # those are counted as left to place or not
            confusions[f"{label} -> {best}"] = confusions.get(f"{label} -> {best}", 0) + 1
    figures["plain confusions"] = dict(sorted(confusions.items(), key=lambda item: -item[1])[:15])
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--fit-confidence",
        action="store_true",
        help="fit calibration.CONFIDENCE_WEIGHTS, _KNOTS and SCOPE_WEIGHTS on every cross-validated case and print them",
    )
    parser.add_argument("--curve", action="store_true", help="print the learning curve (learning_curve) instead")
    args = parser.parse_args()
    if args.curve:
        print(json.dumps(learning_curve(args.folds), indent=1))
        return 0
    figures = run(args.folds)
    if args.fit_confidence:
        weights = fit_logistic(SIGNALS)
        knots = fit_isotonic([(calibration.logistic(s, weights), right) for s, right in SIGNALS])
        print("CONFIDENCE_WEIGHTS =", tuple(weights))
        print("CONFIDENCE_KNOTS =", tuple(knots))
        print("SCOPE_WEIGHTS =", tuple(fit_logistic(SCOPE, rate=0.5)))
        return 0
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    for name, value in figures.items():
        if isinstance(value, dict) and "primary" in value:
            left = value["out-of-scope left to place"]
            print(
                f"{name:<38} primary {value['primary']:.3f}, any of its sections {value['any of its sections']:.3f} "
                f"({value['entries']} entries; out of scope left {left})"
            )
            print("  calibration: " + "  ".join(f"{low:.1f}: {n} @ {acc:.2f}" for low, n, acc in value["calibration"]))
        else:
            print(f"{name:<38} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
