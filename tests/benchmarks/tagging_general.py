"""The tagger on a general library: how many of its papers it files, when most belong in no section.

Run on its own: python tests/benchmarks/tagging_general.py [--bench-dir ../shared/bench] [--count 500]

A survey author's .bib is mostly of the field; a general one (a lab's shared library, a thesis's
references) holds physics, programming languages, software engineering and some machine learning. Its
papers share words with the taxonomy ("graphite", "energy", "annealing", a lock-free "memory"), and a
tag given to one of them at 0.8 is a confident wrong answer. The bench file is such a library: this
draws ``--count`` of its distinct titles at random (fixed seed), tags them by title alone and with the
file's abstracts, as one library each, and prints how many were given a section at the default threshold
(at 0.8 or more).
Nobody labelled these titles, so the figure is an upper bound on the right tags, not an accuracy.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from surveytool.analysis.tagging.self_training import tag_twice
from surveytool.analysis.tagging.tagger import DEFAULT_THRESHOLD, Tagger
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping
from surveytool.pipeline import Options, analyse, options_taxonomy

SEED = 20261204
BENCH_DIR = Path(__file__).resolve().parents[3] / "shared" / "bench"


def sample(bench_dir: Path, count: int) -> list[tuple[str, str]]:
    """(title, abstract) of ``count`` distinct titles of the bench file, drawn with a fixed seed."""
    survey = analyse(Options(sources=(bench_dir / "large-merged.bib",), bundled_catalog=False))
    seen: set[str] = set()
    found = []
    for paper in survey.papers:
        title = " ".join(paper.fields.get("title", "").split())
        if title and title.lower() not in seen:
            seen.add(title.lower())
            found.append((title, paper.fields.get("abstract", "")))
    random.Random(SEED).shuffle(found)
    return found[:count]


def given(tagger: Tagger, texts: list[tuple[str, str]], abstracts: bool) -> tuple[int, int]:
    """How many of ``texts`` get a section at the default threshold, and how many of those at 0.8 or more."""
    papers = []
    for n, (title, abstract) in enumerate(texts):
        fields = {"title": title, **({"abstract": abstract} if abstracts and abstract else {})}
        papers.append(
            Paper(Origin.BIBTEX, (SourceLocation("general.bib", n + 1),), frozen_mapping(fields), key=f"g{n}")
        )
    # Tagged as one library, as the tool tags a .bib: its sure entries teach the second pass (self_training.py).
    found = tag_twice(tagger, papers, lambda chosen: chosen.tag_each)
    scores = [tags[0].score if tags else 0.0 for tags in found]
    return sum(s >= DEFAULT_THRESHOLD for s in scores), sum(s >= 0.8 for s in scores)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bench-dir", type=Path, default=BENCH_DIR)
    parser.add_argument("--count", type=int, default=500)
    args = parser.parse_args()
    texts = sample(args.bench_dir, args.count)
    tagger = Tagger(options_taxonomy(Options()))
    for name, abstracts in (("titles only", False), ("titles and the file's abstracts", True)):
        placed, sure = given(tagger, texts, abstracts)
        print(f"{name:<34} given {placed}/{len(texts)}, at 0.8 or more {sure}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
