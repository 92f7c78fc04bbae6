"""How often two curated lists agree on a paper's section, against how often the tagger agrees with one.

Run on its own: python tests/benchmarks/label_agreement.py [--json]

The corpus's labels are curators' headings mapped onto section ids (``seeds/labelled/README.md``).
A paper that two lists file gives two labels made independently, so their agreement is how far one
curator's primary section can be predicted at all: a tagger cannot be expected to agree with a list
more often than another list does. Measured on the field's papers that at least two lists file:

- lists: of every two lists that file the same paper, the share whose first headings map to the same
  section ("a's primary among b's sections": a's section is one of those b files it under);
- tagger: on the dev split's such papers (the model trained on the train split, titles only), the share
  of (paper, list) pairs where the tagger's primary section is the list's, and where it is one of the
  list's sections. The lists' figure restricted to the same dev papers is printed beside it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import build_corpus  # noqa: E402

from surveytool.analysis.tagging.exemplars import OUT_OF_SCOPE  # noqa: E402
from surveytool.analysis.tagging.tagger import Tagger  # noqa: E402
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping  # noqa: E402
from surveytool.pipeline import Options, options_taxonomy  # noqa: E402

#: Per normalised title: its title as written, and per list (repository) the sections of each heading it is under.
Listings = dict[str, tuple[str, dict[str, list[list[str]]]]]


def listings() -> Listings:
    found: Listings = {}
    for path in sorted(build_corpus.EXTRACTS.glob("*.txt")):
        for title, _, _, sections, provenance in build_corpus.read_extract(path):
            key = build_corpus.normalise_title(title)
            if not key:
                continue
            _, by_list = found.setdefault(key, (title, {}))
            by_list.setdefault(provenance.split(":", 1)[0], []).append(sections)
    return found


def list_agreement(by_list: dict[str, list[list[str]]]) -> tuple[int, int, int]:
    """(pairs of lists, pairs whose primaries agree, pairs where a's primary is among b's sections)."""
    primary = {name: headings[0][0] for name, headings in by_list.items()}
    every = {name: {s for heading in headings for s in heading} for name, headings in by_list.items()}
    pairs = list(itertools.combinations(sorted(by_list), 2))
    same = sum(primary[a] == primary[b] for a, b in pairs)
    among = sum(primary[a] in every[b] for a, b in pairs)
    return len(pairs), same, among


def run() -> dict[str, object]:
    shared = {
        key: (title, by_list)
        for key, (title, by_list) in listings().items()
        if len(by_list) >= 2 and any(h[0][0] != OUT_OF_SCOPE for h in by_list.values())
    }
    totals = [0, 0, 0]
    dev_totals = [0, 0, 0]
    tagger = Tagger(options_taxonomy(Options()))
    tagged = [0, 0, 0]
    for key, (title, by_list) in sorted(shared.items()):
        counts = list_agreement(by_list)
        totals = [t + c for t, c in zip(totals, counts, strict=True)]
        if build_corpus.split_for(key) != "dev":
            continue
        dev_totals = [t + c for t, c in zip(dev_totals, counts, strict=True)]
        paper = Paper(Origin.BIBTEX, (SourceLocation("dev.bib", 1),), frozen_mapping({"title": title}), key="dev")
        tags = tagger.tag(paper)
        best = tags[0].section if tags else None
        for headings in by_list.values():
            tagged[0] += 1
            tagged[1] += best == headings[0][0]
            tagged[2] += any(best in heading for heading in headings)
    return {
        "papers filed by two lists or more": len(shared),
        "lists, all such papers": _shares(totals, "pairs of lists"),
        "lists, dev papers": _shares(dev_totals, "pairs of lists"),
        "tagger, dev papers": _shares(tagged, "(paper, list) pairs"),
    }


def _shares(counts: list[int], unit: str) -> dict[str, object]:
    n = counts[0] or 1
    return {unit: counts[0], "primary": round(counts[1] / n, 3), "among its sections": round(counts[2] / n, 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = run()
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    for name, figures in results.items():
        if isinstance(figures, dict):
            shown = "  ".join(f"{k} {v}" for k, v in figures.items())
            print(f"{name:<34} {shown}")
        else:
            print(f"{name:<34} {figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
