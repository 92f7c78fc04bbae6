"""Build the bundled labelled corpus (seeds/labelled/corpus.tsv) from title extracts.

Each extract under seeds/labelled/extracts/ holds the titles of one public paper
list, grouped under the list's own headings, with the documented heading ->
section rule written on each heading line:

    @source owner/repo | path | commit | licence
    @heading Pipeline Parallelism -> pipeline-parallel
    GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism | NeurIPS 2019
    @heading Inference -> skip

A heading mapped to ``skip`` drops its papers.  Rows are deduplicated by
normalised title: the primary section is the one most of its sources file it
under (ties: the first source in file-name order), the other sources' sections
become secondary ones, and every source is kept in the provenance.  The dev split
is fixed by the title's hash, so rebuilding never moves a paper between splits.

Usage: python tools/build_corpus.py [--exclude-bib PATH]
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
EXTRACTS = REPO_ROOT / "seeds" / "labelled" / "extracts"
OUTPUT = REPO_ROOT / "seeds" / "labelled" / "corpus.tsv"
DEFAULT_EXCLUDE = REPO_ROOT.parent / "shared" / "reference" / "seed-papers.bib"

SECTIONS = (
    "surveys",
    "data-parallel",
    "model-parallel",
    "pipeline-parallel",
    "moe",
    "memory",
    "communication",
    "hardware-systems",
    "optimization",
    "decentralized",
    "embeddings-recsys",
    "gnn-training",
    "applications",
)
DEV_MODULUS = 5  # one title in five (by hash) is held out as dev

YEAR_RE = re.compile(r"^(?P<venue>.*?)\s*(?P<year>(19|20)\d\d)$")


def normalise_title(title: str) -> str:
    """Lower-case ASCII letters and digits only, single-spaced: the dedup key."""
    text = unicodedata.normalize("NFKD", title)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    text = re.sub(r"[^a-z0-9]+", " ", text.lower())
    return text.strip()


def split_for(key: str) -> str:
    digest = hashlib.sha1(key.encode("utf-8")).hexdigest()
    return "dev" if int(digest, 16) % DEV_MODULUS == 0 else "train"


def clean_field(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@dataclass
class Row:
    title: str
    year: str
    venue: str
    sections: list[str]
    provenance: list[str] = field(default_factory=list)
    primary_votes: list[str] = field(default_factory=list)

    def settle_primary(self) -> None:
        """Primary = the section most sources list it under; ties go to the first source."""
        best = max(self.primary_votes, key=lambda s: (self.primary_votes.count(s), -self.primary_votes.index(s)))
        self.sections = [best] + [s for s in self.sections if s != best]


def parse_venue_year(text: str) -> tuple[str, str]:
    text = clean_field(text)
    match = YEAR_RE.match(text)
    if match:
        return clean_field(match.group("venue")), match.group("year")
    return text, ""


def read_extract(path: Path) -> list[tuple[str, str, str, list[str], str]]:
    """(title, venue, year, sections, provenance) for every kept line of one extract."""
    entries = []
    source = ""
    sections: list[str] | None = None
    heading = ""
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@source "):
            parts = [clean_field(p) for p in line[len("@source ") :].split("|")]
            source = f"{parts[0]}:{parts[1]}"
            continue
        if line.startswith("@heading "):
            heading, _, rule = line[len("@heading ") :].rpartition("->")
            heading = clean_field(heading)
            rule = rule.strip()
            if rule == "skip":
                sections = None
                continue
            sections = [s.strip() for s in rule.split(",")]
            unknown = [s for s in sections if s not in SECTIONS]
            if unknown:
                sys.exit(f"{path}:{lineno}: error: unknown section id {unknown}")
            continue
        if sections is None:
            continue
        if not source:
            sys.exit(f"{path}:{lineno}: error: title before any @source line")
        title, _, rest = line.partition(" | ")
        venue, year = parse_venue_year(rest)
        provenance = f"{source}#{heading}"
        entries.append((clean_field(title), venue, year, list(sections), provenance))
    return entries


def excluded_titles(bib: Path) -> set[str]:
    if not bib.is_file():
        return set()
    text = bib.read_text(encoding="utf-8", errors="replace")
    titles = re.findall(r"^\s*title\s*=\s*[{\"](.+?)[}\"]\s*,?\s*$", text, flags=re.M | re.I)
    return {normalise_title(t.replace("{", "").replace("}", "")) for t in titles}


def build(exclude: set[str]) -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for path in sorted(EXTRACTS.glob("*.txt")):
        for title, venue, year, sections, provenance in read_extract(path):
            key = normalise_title(title)
            if not key or key in exclude:
                continue
            row = rows.get(key)
            if row is None:
                rows[key] = Row(title, year, venue, sections, [provenance], [sections[0]])
                continue
            row.primary_votes.append(sections[0])
            row.sections += [s for s in sections if s not in row.sections]
            if provenance not in row.provenance:
                row.provenance.append(provenance)
            if not row.year and year:
                row.year = year
            if not row.venue and venue:
                row.venue = venue
    for row in rows.values():
        row.settle_primary()
    return rows


def write(rows: dict[str, Row], output: Path) -> None:
    lines = ["title\tyear\tvenue\tsections\tsplit\tprovenance"]
    for key in sorted(rows):
        row = rows[key]
        fields = [
            row.title,
            row.year,
            row.venue,
            ",".join(row.sections),
            split_for(key),
            " ; ".join(row.provenance),
        ]
        lines.append("\t".join(clean_field(f).replace("\t", " ") for f in fields))
    output.write_text("\n".join(lines) + "\n", encoding="utf-8")


def summary(rows: dict[str, Row]) -> str:
    counts = {s: {"train": 0, "dev": 0, "any": 0} for s in SECTIONS}
    for key, row in rows.items():
        split = split_for(key)
        counts[row.sections[0]][split] += 1
        for section in row.sections:
            counts[section]["any"] += 1
    out = ["| section | primary train | primary dev | rows carrying it |", "|---|---|---|---|"]
    for section in SECTIONS:
        c = counts[section]
        out.append(f"| `{section}` | {c['train']} | {c['dev']} | {c['any']} |")
    total_dev = sum(1 for key in rows if split_for(key) == "dev")
    out.append(f"| total | {len(rows) - total_dev} | {total_dev} | {len(rows)} |")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exclude-bib", type=Path, default=DEFAULT_EXCLUDE)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args()
    rows = build(excluded_titles(args.exclude_bib))
    write(rows, args.output)
    print(summary(rows))


if __name__ == "__main__":
    main()
