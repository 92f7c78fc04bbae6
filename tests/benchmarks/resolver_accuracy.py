"""How often the catalog resolver attaches the right paper to a snippet, the wrong one, or none.

Run on its own: python tests/benchmarks/resolver_accuracy.py [--bench-dir ../shared/bench] [--half tune|held]
[--per-kind 300] [--show wrong|missed] [--keep DIR]

From the bench library's entries with an abstract, a fixed-seed random half goes into a catalog .bib (the file
itself with the other half's entries cut out, so its entries without abstracts stay as distractors). A
related-papers list is then written the way such a page shows papers: each abstract's opening as a reader
sees it (LaTeX rendered: ``{\\em x}``, ``$\\alpha$``, ``--``, ``\\%``), cut mid-word at 150-300 characters
with "…"; some pasted with line breaks and hyphenation; some without their first sentence; some titles cut
short. Snippets of entries in the catalog should resolve to that entry; those of entries left out must stay
unresolved, among them hard negatives whose opening words are those of a catalog entry's abstract. The list
and catalog are read and resolved by the library (``read_source``, ``CatalogResolver``, ``resolve_papers``),
as ``parse --catalog`` does.

Entries that are one paper (the same title, or the same abstract opening) go to the same side, and a match
to any of them counts as right; the last column counts the unresolved cases whose paper the catalog holds
under two keys or more, which the resolver rightly leaves ambiguous. Each case belongs to the tuning or the held-out half by a hash of its
entry's key: tune on ``--half tune`` only, and run ``--half held`` once, at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from pylatexenc.latex2text import LatexNodes2Text

from surveytool.analysis.resolve.resolver import CatalogResolver, resolve_papers
from surveytool.model import Origin, Paper
from surveytool.sources.read import read_source
from surveytool.text.normalize import normalize

SEED = 20261208
BENCH_DIR = Path(__file__).resolve().parents[3] / "shared" / "bench"
KINDS = ("opening", "pasted", "later", "title", "out-opening", "out-hard", "out-title")
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)][.!?])\s+(?=[A-Z])")


@dataclass(frozen=True)
class Case:
    kind: str
    key: str  # the entry the text was taken from
    text: str
    right: frozenset[str]  # catalog keys that are this paper (empty: must stay unresolved)


def half_of(key: str) -> str:
    return "held" if hashlib.sha256(key.encode("utf-8")).digest()[0] % 2 else "tune"


def rendered(latex: str) -> str:
    """A field's BibTeX value as a reader sees it: delimiters off, LaTeX rendered, one line ("" if it cannot be)."""
    value = latex.strip()
    if value[:1] in '{"' and value[-1:] in '}"':
        value = value[1:-1]
    try:
        text = LatexNodes2Text(math_mode="text", strict_latex_spaces=True).latex_to_text(value)
    except (IndexError, ValueError):  # a macro pylatexenc cannot render (\url without its argument)
        return ""
    return " ".join(text.split())


def cut(text: str, rng: random.Random, low: int = 150, high: int = 300) -> str | None:
    """``text`` cut mid-word between ``low`` and ``high`` characters, with "…"; None if shorter."""
    if len(text) < high + 20 or low > high:
        return None
    at = rng.randint(low, high)
    while at < len(text) and not (text[at - 1].isalnum() and text[at].isalnum()):
        at += 1  # mid-word, as a page cuts
    return text[:at].rstrip() + "…"


def pasted(text: str, rng: random.Random) -> str:
    """Lines of about 70 characters, as copied from a PDF or a narrow page; some words hyphenated at the break."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + len(word) > 70:
            if len(word) >= 8 and word.isalpha() and rng.random() < 0.5:
                split = rng.randint(3, len(word) - 3)
                lines.append(f"{line} {word[:split]}-")
                line = word[split:]
                continue
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join([*lines, line])


def groups(papers: list[Paper], abstracts: dict[str, str]) -> dict[str, frozenset[str]]:
    """Each key -> the keys of the entries that are the same paper (same title or same abstract opening)."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    first: dict[str, str] = {}
    for paper in papers:
        marks = [f"t:{normalize(paper.title or '')}"] if paper.title else []
        if paper.key in abstracts:
            marks.append("a:" + " ".join(normalize(abstracts[paper.key]).split()[:20]))
        for mark in marks:
            if mark in first:
                parent[find(paper.key)] = find(first[mark])
            else:
                first[mark] = paper.key
    members: dict[str, set[str]] = defaultdict(set)
    for paper in papers:
        members[find(paper.key)].add(paper.key)
    return {key: frozenset(members[find(key)]) for group in members.values() for key in group}


def build(bench: Path, per_kind: int, rng: random.Random) -> tuple[str, list[Case]]:
    """The catalog .bib's text and the cases."""
    source = bench / "large-merged.bib"
    papers = [p for p in read_source(source, "large-merged.bib", "bib").papers if p.key]
    abstracts = {}
    for paper in papers:
        if paper.abstract and (text := rendered(paper.latex_fields.get("abstract", ""))):
            abstracts[paper.key] = text
    same = groups(papers, abstracts)
    roots = sorted({min(same[key]) for key in abstracts})
    rng.shuffle(roots)
    left_out = {key for root in roots[: len(roots) // 2] for key in same[root]}
    in_catalog = {p.key for p in papers} - left_out
    text = source.read_bytes().decode("utf-8")  # as written: its entries keep their CRLF line ends
    for paper in papers:
        if paper.key in left_out and paper.raw:
            text = text.replace(paper.raw, "", 1)
    by_opening: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for key in sorted(abstracts.keys() & in_catalog):
        by_opening[tuple(normalize(abstracts[key]).split()[:5])].append(key)
    titles = {p.key: rendered(p.latex_fields.get("title", "")) for p in papers if p.key in abstracts}
    cases: dict[str, list[Case]] = defaultdict(list)
    for key in sorted(abstracts):
        inside = key in in_catalog
        right = same[key] & in_catalog if inside else frozenset()
        prefix = "" if inside else "out-"
        abstract = abstracts[key]
        if (opening := cut(abstract, rng)) is not None:
            cases[prefix + "opening"].append(Case(prefix + "opening", key, opening, right))
            if not inside and tuple(normalize(abstract).split()[:5]) in by_opening:
                cases["out-hard"].append(Case("out-hard", key, opening, right))
        if inside and (opening := cut(abstract, rng)) is not None:
            cases["pasted"].append(Case("pasted", key, pasted(opening, rng), right))
        sentences = _SENTENCE_END.split(abstract, maxsplit=1)
        if inside and len(sentences) == 2 and (later := cut(sentences[1], rng)) is not None:
            cases["later"].append(Case("later", key, later, right))
        title = titles.get(key, "")
        if len(title.split()) >= 8 and (short := cut(title, rng, len(title) // 2, len(title) * 8 // 10 - 20)):
            cases[prefix + "title"].append(Case(prefix + "title", key, short, right))
    chosen = []
    for kind in KINDS:
        pool = cases[kind]
        chosen.extend(rng.sample(pool, min(per_kind, len(pool))))
    return text, chosen


def run(cases: list[Case], catalog: Path, folder: Path) -> list[tuple[Case, str]]:
    """Each case with the key of the catalog entry it resolved to ("" if none), by the library's own reading."""
    lines = ["Related papers: Benchmarking metadata resolution on a lab library", ""]
    starts = {}
    for case in cases:
        starts[len(lines) + 1] = case
        lines.extend([*case.text.split("\n"), ""])
    listing = folder / "related.txt"
    listing.write_text("\n".join(lines), encoding="utf-8")
    resolver = CatalogResolver(read_source(catalog, str(catalog), "bib").papers, "catalog")
    snippets = [p for p in read_source(listing, str(listing), "list").papers if p.origin is Origin.SNIPPET]
    resolved, _ = resolve_papers(snippets, [resolver])
    found = {}
    for paper in resolved:
        for location in paper.sources:
            found[location.line] = paper.resolution.matched_key if paper.resolution else ""
    return [(case, found[line]) for line, case in starts.items()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench-dir", type=Path, default=BENCH_DIR)
    parser.add_argument("--half", choices=("tune", "held"), default="tune")
    parser.add_argument("--per-kind", type=int, default=300)
    parser.add_argument("--show", choices=("wrong", "missed"), action="append", default=[])
    parser.add_argument("--keep", type=Path, help="write the catalog and the list to this folder")
    args = parser.parse_args()
    if not (args.bench_dir / "large-merged.bib").is_file():
        print(f"no large-merged.bib in {args.bench_dir}", file=sys.stderr)
        return 2
    catalog_text, cases = build(args.bench_dir, args.per_kind, random.Random(SEED))
    cases = [case for case in cases if half_of(case.key) == args.half]
    with tempfile.TemporaryDirectory() as temporary:
        folder = args.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        catalog = folder / "catalog.bib"
        catalog.write_bytes(catalog_text.encode("utf-8"))
        outcomes = run(cases, catalog, folder)
    counts: dict[str, Counter] = defaultdict(Counter)
    for case, label in outcomes:
        verdict = "unresolved" if not label else "right" if label in case.right else "wrong"
        # A paper the catalog holds under two keys (a tech report and its paper) is ambiguous: left unresolved.
        twice = ["twice"] if len(case.right) > 1 and verdict == "unresolved" else []
        for kind in (case.kind, "all"):
            counts[kind].update([verdict, *twice])
        if ("wrong" in args.show and verdict == "wrong") or ("missed" in args.show and case.right and not label):
            print(f"{verdict} {case.kind} {case.key} -> {label or '-'}: {case.text[:160]!r}")
    print(f"half: {args.half}, seed {SEED}, {len(outcomes)} cases")
    print(f"{'kind':<12} {'cases':>6} {'right':>6} {'wrong':>6} {'unresolved':>11} {'(in catalog twice)':>19}")
    for kind in (*KINDS, "all"):
        row = counts[kind]
        cells = f"{row['right']:>6} {row['wrong']:>6} {row['unresolved']:>11} {row['twice']:>19}"
        print(f"{kind:<12} {row['right'] + row['wrong'] + row['unresolved']:>6} {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
