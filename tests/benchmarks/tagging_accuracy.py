"""Primary-section accuracy and per-section precision/recall of the tagger on the seed labels.

Run on its own: python tests/benchmarks/tagging_accuracy.py [--snippets-only | --holdout | --snippets FILE [--group]
[--half tune|held]] [--misses]
--snippets-only tags the snippets without catalog metadata (titles, venues),
as happens for a related-paper list whose papers are not in any catalog.
--holdout tags tests/data/holdout-snippets.tsv instead: openings of other
well-known abstracts the vocabulary was not tuned on, as one related-paper list.
--snippets FILE does the same for any file of that format (acceptable primaries a|b, paper, snippet;
`none` for a paper that belongs in no section); with --group, each block of the file that starts
at a `# list: TITLE` line is tagged as its own related-paper list, anchored on TITLE; with --half, only
the tuning or the held-out half of the file (``split_half``: tune on one, report the other once).
Each mode also shows how sure the tagger was of its best sections against how often they
were right. --fit-confidence fits calibration.BODY_CONFIDENCE_WEIGHTS on the seed lists
(with catalog metadata and snippets only; never on the held-out snippets) and SNIPPET_CONFIDENCE_WEIGHTS
on the seeds' snippets only and snippets-dev.tsv's tuning half, and prints them.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from calibration_fit import fit_logistic

from surveytool.analysis.tagging import calibration
from surveytool.analysis.tagging.tagger import Tagger
from surveytool.model import Origin
from surveytool.pipeline import Options, analyse, options_taxonomy
from surveytool.resources import seed_lists
from surveytool.sources.paper_list import parse_paper_list

LABELS = Path(__file__).resolve().parents[1] / "data" / "seed-sections.tsv"
HOLDOUT = Path(__file__).resolve().parents[1] / "data" / "holdout-snippets.tsv"
SNIPPETS_DEV = HOLDOUT.with_name("snippets-dev.tsv")


def load_labels() -> dict[tuple[str, int], tuple[set[str], list[str]]]:
    """(seed file, paragraph index) -> (acceptable primaries, all labelled sections)."""
    labels = {}
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        seed, index, _key, sections = line.split("\t")
        parts = sections.split(",")
        labels[(seed, int(index))] = (set(parts[0].split("|")), [s for p in parts for s in p.split("|")])
    return labels


def paragraph_lines() -> dict[tuple[str, int], int]:
    """(seed file, line) -> paragraph index."""
    index = {}
    for path in seed_lists():
        document = parse_paper_list(path.read_text(encoding="utf-8"))
        for number, paragraph in enumerate(document.paragraphs, start=1):
            index[(path.name, paragraph.line)] = number
    return index


def score(cases: list[tuple[str, set[str], object]]) -> tuple[float, list, Counter, Counter, Counter]:
    """(name, acceptable primaries, paper) cases -> accuracy, rows, and per-section counts."""
    rows = []
    true_pos, predicted, actual = Counter(), Counter(), Counter()
    for name, accepted, paper in cases:
        primary = paper.primary_section
        hit = primary in accepted
        rows.append((hit, name, primary, "|".join(sorted(map(str, accepted))), paper))
        predicted[primary] += 1
        for section in accepted:
            actual[section] += 1 / len(accepted)
        true_pos[primary] += hit
    return sum(r[0] for r in rows) / len(rows), rows, true_pos, predicted, actual


def evaluate(snippets_only: bool) -> tuple[float, list, Counter, Counter, Counter]:
    survey = analyse(Options(bundled_catalog=not snippets_only))
    labels, lines = load_labels(), paragraph_lines()
    cases = []
    for paper in survey.papers:
        source = paper.sources[0]
        seed = Path(source.path).name
        if paper.origin is Origin.ANCHOR or (seed, source.line) not in lines:
            continue
        index = lines[(seed, source.line)]
        cases.append((f"{seed[:3]}:{index}", labels[(seed, index)][0], paper))
    return score(cases)


def snippet_lists(path: Path, group: bool, half: str | None = None) -> list[tuple[str, list[list[str]]]]:
    """(anchor title, rows) per related-paper list of a snippets file: one list, or one per `# list:` block;
    ``half``: only the rows of that half (``split_half``)."""
    lists: list[tuple[str, list[list[str]]]] = [("held out", [])]
    for line in path.read_text(encoding="utf-8").splitlines():
        if group and line.startswith("# list:"):
            lists.append((line.removeprefix("# list:").strip(), []))
        elif line.strip() and not line.startswith("#"):
            lists[-1][1].append(line.split("\t"))
    if half is not None:
        halves = split_half([row for _, rows in lists for row in rows])
        lists = [(anchor, [row for row in rows if halves[row[1]] == half]) for anchor, rows in lists]
    return [(anchor, rows) for anchor, rows in lists if rows]


def split_half(rows: list[list[str]]) -> dict[str, str]:
    """Paper name -> "tune" or "held": within each first label, papers in the order of their names' SHA-256
    alternate, so both halves cover every section. Fixed before any tuning on the file."""
    by_label: dict[str, list[str]] = {}
    for labels, name, _ in rows:
        by_label.setdefault(labels.split("|")[0], []).append(name)
    halves = {}
    for names in by_label.values():
        for index, name in enumerate(sorted(names, key=lambda n: hashlib.sha256(n.encode()).hexdigest())):
            halves[name] = "tune" if index % 2 == 0 else "held"
    return halves


def accepted_sections(labels: str) -> set[str | None]:
    """The acceptable primaries of a label; `none` is a paper the tagger should leave untagged."""
    return {None if label == "none" else label for label in labels.split("|")}


def evaluate_snippets(
    path: Path = HOLDOUT, group: bool = False, half: str | None = None
) -> tuple[float, list, Counter, Counter, Counter]:
    import tempfile

    cases = []
    for anchor, rows_in in snippet_lists(path, group, half):
        with tempfile.TemporaryDirectory() as folder:
            listing = Path(folder) / "snippets.txt"
            text = f"Related papers: {anchor}\n\n" + "\n\n".join(r[2] for r in rows_in) + "\n"
            listing.write_text(text, encoding="utf-8")
            survey = analyse(Options(sources=(listing,), bundled_catalog=False))
        by_line = {p.sources[0].line: p for p in survey.papers if p.origin is Origin.SNIPPET}
        # Paragraph n (from 0) starts on line 3 + 2n: the header, a blank line, then one line each.
        cases += [(name, accepted_sections(labels), by_line[3 + 2 * n]) for n, (labels, name, _) in enumerate(rows_in)]
    return score(cases)


def evaluate_holdout() -> tuple[float, list, Counter, Counter, Counter]:
    """The held-out snippets as one related-paper list."""
    return evaluate_snippets(HOLDOUT)


class Case(NamedTuple):
    """The blend's view of one labelled case's best section."""

    share: float  # the blend's share
    sureness: float  # the confidence a tag gets (``Blend.sureness``)
    fired: bool  # a phrase of the section was found
    right: bool


def confidences(rows: list) -> list[Case]:
    """Per case with anything known of its text: how sure the tagger is of its best section, and whether it is right."""
    tagger = Tagger(options_taxonomy(Options()))
    found = []
    for _, _, _, accepted, paper in rows:
        blend = tagger.blend(paper)
        if blend is not None:
            best = blend.ranked()[0]
            section = blend.sections[best]
            found.append(
                Case(blend.confidence[best], blend.sureness(best), section in blend.rules, section in accepted)
            )
    return found


def fit_body_confidence() -> list[float]:
    """Platt scaling of the seeds' shares where a phrase was found (``calibration.body_calibrated``)."""
    cases = [case for snippets_only in (False, True) for case in confidences(evaluate(snippets_only)[1])]
    return _fit_fired(cases)


def fit_snippet_confidence() -> list[float]:
    """The same for snippets known by no title: the seeds' without their catalog, and the tuning half of
    snippets-dev.tsv (never its held-out half)."""
    cases = confidences(evaluate(True)[1]) + confidences(evaluate_snippets(SNIPPETS_DEV, half="tune")[1])
    return _fit_fired(cases)


def _fit_fired(cases: list[Case]) -> list[float]:
    samples = [((calibration.log_odds(case.share),), case.right) for case in cases if case.fired]
    return fit_logistic(samples, steps=20000, rate=0.05)


def calibration_line(rows: list) -> str:
    """Tags by confidence band: how many, and the share right."""
    bands: dict[float, list[bool]] = {}
    for case in confidences(rows):
        bands.setdefault(min(int(case.sureness * 10) / 10, 0.9), []).append(case.right)
    return "confidence: " + "  ".join(
        f"{low:.1f}: {len(h)} @ {sum(h) / len(h):.2f}" for low, h in sorted(bands.items())
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--snippets-only", action="store_true")
    parser.add_argument("--holdout", action="store_true")
    parser.add_argument("--snippets", type=Path, help="tag this snippets file (the --holdout format) instead")
    parser.add_argument("--group", action="store_true", help="with --snippets: one list per `# list:` block")
    parser.add_argument("--half", choices=("tune", "held"), help="with --snippets: only that half (split_half)")
    parser.add_argument("--misses", action="store_true", help="show the evidence for each miss")
    parser.add_argument("--fit-confidence", action="store_true")
    args = parser.parse_args()
    if args.fit_confidence:
        print("BODY_CONFIDENCE_WEIGHTS =", tuple(fit_body_confidence()))
        print("SNIPPET_CONFIDENCE_WEIGHTS =", tuple(fit_snippet_confidence()))
        return 0
    if args.holdout or args.snippets:
        path = args.snippets or HOLDOUT
        accuracy, rows, true_pos, predicted, actual = evaluate_snippets(path, args.group, args.half)
        mode = "held-out snippets" if args.holdout else f"{path.name}{', one list per block' if args.group else ''}"
        mode += f", {args.half} half" if args.half else ""
    else:
        accuracy, rows, true_pos, predicted, actual = evaluate(args.snippets_only)
        mode = "snippets only" if args.snippets_only else "with catalog metadata"
    print(f"primary accuracy ({mode}): {sum(r[0] for r in rows)}/{len(rows)} = {accuracy:.3f}")
    print(calibration_line(rows))
    print(f"{'section':<20} {'precision':>9} {'recall':>7}")
    for section in sorted(set(predicted) | set(actual), key=str):
        precision = true_pos[section] / predicted[section] if predicted[section] else 0.0
        recall = min(true_pos[section] / actual[section], 1.0) if actual[section] else 0.0
        print(f"{str(section):<20} {precision:>9.2f} {recall:>7.2f}")
    for hit, where, primary, accepted, paper in rows:
        if not hit:
            print(f"MISS {where}: tagged {primary}, labelled {accepted}")
            if args.misses:
                for tag in paper.tags:
                    print(f"     {tag.role.value} {tag.section} {tag.score}: {'; '.join(tag.evidence)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
