"""How well `tag-outlier` finds a slip among a user's tags, on the corpus's dev split (never trained on).

Run on its own: python tests/benchmarks/tag_outliers.py [--libraries N] [--size N] [--sure X] [--json]

Each library is ``size`` dev papers (titles only, drawn with a fixed seed) tagged with their labelled
primary section, as a user who tags by the curators' headings would; one of them, the slip, is given
another section drawn at random. Reported: how often the slip is reported ("found"), and how many of
the other entries are reported too ("others reported"). Those others are not all false alarms: the
labels are curators' headings, which agree with each other on about 0.8 of papers (label_agreement.py).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tagging_learned import dev_papers  # noqa: E402

from surveytool.analysis.tagging import review  # noqa: E402
from surveytool.pipeline import Options, options_taxonomy  # noqa: E402

SEED = 7


def measure(libraries: int, size: int) -> dict:
    taxonomy = options_taxonomy(Options())
    sections = taxonomy.section_ids
    cases = dev_papers()
    draw = random.Random(SEED)
    found = others = 0
    for _ in range(libraries):
        chosen = draw.sample(cases, size)
        slip = draw.randrange(size)
        library = []
        for n, (paper, label) in enumerate(chosen):
            tag = draw.choice([s for s in sections if s != label]) if n == slip else label
            library.append(replace(paper, explicit_tags=(tag,)))
        reported = {f.key for f in review.tag_outliers(library, taxonomy)}
        found += library[slip].key in reported
        others += len(reported - {library[slip].key})
    return {
        "libraries": libraries,
        "size": size,
        "sure_of_another": review.OUTLIER_CONFIDENCE,
        "found": round(found / libraries, 3),
        "others_reported_per_library": round(others / libraries, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--libraries", type=int, default=40)
    parser.add_argument("--size", type=int, default=40)
    parser.add_argument(
        "--sure", type=float, default=review.OUTLIER_CONFIDENCE, help="the confidence in another section"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    review.OUTLIER_CONFIDENCE = args.sure
    figures = measure(args.libraries, args.size)
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print(
            f"{figures['libraries']} libraries of {figures['size']} dev papers, one slip each "
            f"(sure of another section >= {figures['sure_of_another']}): slip found {figures['found']:.3f}; "
            f"other entries reported {figures['others_reported_per_library']:.2f} per library"
        )


if __name__ == "__main__":
    main()
