"""Precision and recall of fact extraction, per kind, on the hand-labelled sample.

Run on its own: python tests/benchmarks/facts_precision.py [--misses]

The sample (tests/data/facts/labelled.tsv) covers every paper of the bundled seeds build, every
snippet of tests/data/holdout-snippets.tsv and every text of tests/data/facts/abstracts.tsv. A found
fact is right when the labels hold the same kind and value (and device, or measure and unit).
The texts whose id starts with fresh- were written and labelled after the rules were last changed and
are reported apart: the rules were tuned on the others. --misses lists the facts found wrongly and the
labelled ones not found.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from surveytool.analysis.facts import KINDS, Fact, extract_facts, paper_facts
from surveytool.pipeline import Options, analyse

DATA = Path(__file__).resolve().parents[1] / "data"
LABELS = DATA / "facts" / "labelled.tsv"
ABSTRACTS = DATA / "facts" / "abstracts.tsv"
HOLDOUT = DATA / "holdout-snippets.tsv"

Identity = tuple[str, str, str, str]  # kind, value, detail, unit: as the labels write them


def _rows(path: Path) -> list[list[str]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line.strip() and not line.startswith("#")]


def identity(fact: Fact) -> Identity:
    value = f"{fact.value:g}" if isinstance(fact.value, float) else str(fact.value)
    return (fact.kind, value, fact.detail.lower(), fact.unit)


def texts() -> dict[str, tuple[Fact, ...]]:
    """Every text of the sample -> the facts extracted from it."""
    found = {f"seeds:{paper.key}": paper_facts(paper) for paper in analyse(Options()).papers}
    for _sections, name, snippet in _rows(HOLDOUT):
        found[f"holdout:{name}"] = extract_facts(None, snippet)
    for name, title, abstract in _rows(ABSTRACTS):
        found[f"memory:{name}"] = extract_facts(title, abstract)
    return found


def labels() -> dict[str, set[Identity]]:
    labelled: dict[str, set[Identity]] = {}
    for row in _rows(LABELS):
        text, kind, value, detail, unit = (row + [""] * 5)[:5]
        labelled.setdefault(text, set()).add((kind, value, detail.lower(), unit))
    return labelled


#: Texts written and labelled after the rules were last changed, and never used to change them.
FRESH = "memory:fresh-"


def score(found: dict[str, tuple[Fact, ...]], labelled: dict[str, set[Identity]], title: str) -> list[tuple]:
    """Print precision and recall per kind over ``found``; return the wrong and missed facts."""
    right: Counter[str] = Counter()
    extracted: Counter[str] = Counter()
    expected: Counter[str] = Counter()
    errors: list[tuple] = []
    for text, facts in found.items():
        gold = labelled.get(text, set())
        got = {identity(fact): fact for fact in facts}
        for key, fact in got.items():
            extracted[key[0]] += 1
            right[key[0]] += key in gold
            if key not in gold:
                errors.append(("wrong", text, key, fact.phrase))
        for key in gold:
            expected[key[0]] += 1
            if key not in got:
                errors.append(("missed", text, key, ""))
    print(
        f"\n{title}: {len(found)} texts, {sum(expected.values())} labelled facts, {sum(extracted.values())} extracted"
    )
    print(f"{'kind':<12} {'right':>5} {'found':>5} {'labelled':>8} {'precision':>9} {'recall':>7}")
    for kind in (*KINDS, "all"):
        r = sum(right.values()) if kind == "all" else right[kind]
        e = sum(extracted.values()) if kind == "all" else extracted[kind]
        g = sum(expected.values()) if kind == "all" else expected[kind]
        precision = f"{r / e:.2f}" if e else "-"
        recall = f"{r / g:.2f}" if g else "-"
        print(f"{kind:<12} {r:>5} {e:>5} {g:>8} {precision:>9} {recall:>7}")
    return errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", action="store_true", help="list wrong and missed facts")
    args = parser.parse_args()
    found, labelled = texts(), labels()
    unknown = sorted(set(labelled) - set(found))
    if unknown:
        print(f"labels name texts not in the sample: {', '.join(unknown)}", file=sys.stderr)
        return 2
    errors = score(found, labelled, "whole sample")
    fresh = {text: facts for text, facts in found.items() if text.startswith(FRESH)}
    score(fresh, labelled, "fresh texts only (never tuned on)")
    if args.misses:
        print()
        for what, text, key, phrase in errors:
            print(f"{what}: {text}: {'/'.join(k for k in key if k)}" + (f"  <- {phrase!r}" if phrase else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
