"""The learned tagger on data it was not trained on, with a fixed split.

Run on its own: python tests/benchmarks/tagging_learned.py [--json]

- dev: the bundled corpus's dev split, titles only, the model trained on its train split;
- dev + 30% tagged: 30% of the dev entries (drawn with a fixed seed) given as the user's tags,
  measured on the other 70%;
- stripped + 30% tagged: a taxonomy with titles and descriptions but no keyword vocabulary and
  section ids of its own, plus the same 30% of tags; its sections keep the default's titles, so the
  corpus's labels carry over to them (``transfer.py``);
- no corpus + 30% tagged: the same with no corpus at all, as for a taxonomy in the user's own words;
- out of scope: the dev split's papers that belong in no section (deep learning at large, other fields),
  and how many of them were left to place rather than given a section; they are tagged in one library with
  the field's (self-training learns from a library's sure entries, and a real library has both);
- seeds: the seed lists with catalog metadata (tagging_accuracy.py; the regression test holds it
  at 0.95 or more);
- holdout: tests/data/holdout-snippets.tsv, snippets only.

"primary" counts the tagger's best section whether or not it was sure enough to give it, right when it
is the section the paper's lists file it under most; "any of its sections" also counts it right when
another of its lists files it there (the seed labels' "a|b");
"given" is the share of entries given a section at the default threshold, "given accuracy" how
many of those were right. Calibration bins the dev split's confidences.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tagging_accuracy  # noqa: E402

from surveytool.analysis.tagging.exemplars import OUT_OF_SCOPE, corpus_path, read_corpus, user_exemplars  # noqa: E402
from surveytool.analysis.tagging.self_training import tag_twice  # noqa: E402
from surveytool.analysis.tagging.tagger import DEFAULT_THRESHOLD, Tagger  # noqa: E402
from surveytool.model import Origin, Paper, SourceLocation, Tag, Taxonomy, frozen_mapping  # noqa: E402
from surveytool.pipeline import Options, options_taxonomy  # noqa: E402

SEED = 21
TAGGED_SHARE = 0.3
BINS = (0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)


#: Every section the dev split's lists gave a paper, by its key (a paper filed under two headings is right in either).
SECTIONS: dict[str, tuple[str, ...]] = {}


def dev_papers(out_of_scope: bool = False) -> list[tuple[Paper, str]]:
    """The dev split as untagged papers (title only), with their labelled primary section: the field's papers,
    or with ``out_of_scope`` those that belong in no section."""
    rows = [
        r for r in read_corpus(corpus_path()) if r.split == "dev" and (r.sections[0] == OUT_OF_SCOPE) == out_of_scope
    ]
    cases = []
    for n, r in enumerate(rows):
        key = f"{'out' if out_of_scope else 'dev'}{n:04d}"
        SECTIONS[key] = r.sections
        cases.append(
            (
                Paper(Origin.BIBTEX, (SourceLocation("dev.bib", n + 1),), frozen_mapping({"title": r.title}), key=key),
                r.sections[0],
            )
        )
    return cases


def split_tagged(cases: list[tuple[Paper, str]]) -> tuple[list[tuple[Paper, str]], list[tuple[Paper, str]]]:
    """(the entries given as the user's tags, the others), drawn with a fixed seed."""
    order = list(range(len(cases)))
    random.Random(SEED).shuffle(order)
    cut = round(TAGGED_SHARE * len(cases))
    chosen = set(order[:cut])
    return [cases[i] for i in sorted(chosen)], [c for i, c in enumerate(cases) if i not in chosen]


def stripped(taxonomy: Taxonomy) -> tuple[Taxonomy, dict[str, str]]:
    """``taxonomy`` without keywords, its ids renamed; and old id -> new id."""
    rename = {s.id: f"my-{s.id}" for s in taxonomy.sections}
    sections = tuple(replace(s, id=rename[s.id], keywords=frozen_mapping()) for s in taxonomy.sections)
    groups = tuple(replace(g, sections=tuple(rename[s] for s in g.sections)) for g in taxonomy.groups)
    return replace(taxonomy, sections=sections, groups=groups, path="stripped.toml"), rename


#: One tagging pass, as before self-training (``--one-pass``), instead of the tool's two.
ONE_PASS = False


def tag_library(tagger: Tagger, papers: list[Paper]) -> list[tuple[Tag, ...]]:
    """The tags of ``papers`` as one library (self-training learns from its sure entries)."""
    return tagger.tag_each(papers) if ONE_PASS else tag_twice(tagger, papers, lambda chosen: chosen.tag_each)


def measure(
    tagger: Tagger,
    cases: list[tuple[Paper, str]],
    rename: dict[str, str] | None = None,
    beside: list[Paper] | None = None,
) -> dict:
    """Figures over ``cases``, tagged in one library with ``beside`` (papers of no section)."""
    confidences = []
    anywhere = 0
    found = tag_library(tagger, [p for p, _ in cases] + (beside or []))
    for (paper, label), tags in zip(cases, found, strict=False):
        confidences.append((tags[0].score if tags else 0.0, bool(tags) and tags[0].section == label))
        labels = [(rename or {}).get(s, s) for s in SECTIONS[paper.key]]
        anywhere += bool(tags) and tags[0].section in labels
    given = [right for confidence, right in confidences if confidence >= DEFAULT_THRESHOLD]
    calibration = []
    for low, high in zip(BINS, BINS[1:], strict=False):
        inside = [right for confidence, right in confidences if low <= confidence < high]
        if inside:
            calibration.append(
                {
                    "from": low,
                    "to": min(high, 1.0),
                    "entries": len(inside),
                    "accuracy": round(sum(inside) / len(inside), 3),
                }
            )
    n = len(cases) or 1
    return {
        "entries": len(cases),
        "primary": round(sum(r for _, r in confidences) / n, 3),
        "any of its sections": round(anywhere / n, 3),
        "given": round(len(given) / n, 3),
        "given_accuracy": round(sum(given) / (len(given) or 1), 3),
        "calibration": calibration,
    }


def with_tags(cases: list[tuple[Paper, str]], rename: dict[str, str] | None = None) -> list[Paper]:
    return [replace(p, explicit_tags=((rename or {}).get(label, label),)) for p, label in cases]


def run() -> dict:
    taxonomy = options_taxonomy(Options())
    cases = dev_papers()
    tagged, rest = split_tagged(cases)
    plain = stripped(taxonomy)
    outside_papers = [p for p, _ in dev_papers(out_of_scope=True)]
    results: dict[str, object] = {
        "dev": measure(Tagger(taxonomy), cases, beside=outside_papers),
        "dev + 30% tagged": measure(Tagger(taxonomy, user_exemplars(with_tags(tagged), taxonomy)), rest),
        "stripped + 30% tagged": measure(
            Tagger(plain[0], user_exemplars(with_tags(tagged, plain[1]), plain[0])),
            [(p, plain[1][label]) for p, label in rest],
            plain[1],
        ),
        "no corpus + 30% tagged": measure(
            Tagger(plain[0], user_exemplars(with_tags(tagged, plain[1]), plain[0]), corpus=[]),
            [(p, plain[1][label]) for p, label in rest],
            plain[1],
        ),
    }
    outside = tag_library(Tagger(taxonomy), [p for p, _ in cases] + outside_papers)[len(cases) :]
    left = sum(1 for tags in outside if not tags or tags[0].score < DEFAULT_THRESHOLD)
    results["out of scope left to place"] = f"{left}/{len(outside)}"
    seeds, *_ = tagging_accuracy.evaluate(snippets_only=False)
    holdout, *_ = tagging_accuracy.evaluate_holdout()
    results["seeds (given)"] = round(seeds, 3)
    results["holdout snippets (given)"] = round(holdout, 3)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--one-pass", action="store_true", help="tag without self-training, as before it")
    args = parser.parse_args()
    global ONE_PASS
    ONE_PASS = args.one_pass
    results = run()
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    for name, figures in results.items():
        if isinstance(figures, float | str):
            print(f"{name:<26} {figures}")
            continue
        print(
            f"{name:<26} primary {figures['primary']:.3f}  any of its sections {figures['any of its sections']:.3f}  "
            f"given {figures['given']:.3f}  "
            f"given accuracy {figures['given_accuracy']:.3f}  ({figures['entries']} entries)"
        )
    print("calibration on dev (confidence -> accuracy):")
    for row in results["dev"]["calibration"]:
        print(f"  {row['from']:.1f}-{row['to']:.1f}  {row['entries']:>4} entries  {row['accuracy']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
