"""Comparison tables: per section, the facts its papers' abstracts state (analysis/facts.py), and their exports.

A table's columns are the kinds of fact its papers have; a section with fewer than two papers with
facts has no table (one row compares nothing). Every cell keeps the phrases it was read from.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from surveytool.analysis.facts import KINDS, Fact, fact_record, paper_facts
from surveytool.model import Paper, Taxonomy
from surveytool.output.chapter_view import GroupView, chapter_groups
from surveytool.text.control_chars import json_shown

#: A section needs this many papers with facts for a table.
MIN_ROWS = 2
HEADINGS = {
    "parameters": "Model size",
    "hardware": "Hardware",
    "gain": "Reported gains",
    "dataset": "Datasets",
    "parallelism": "Parallelism",
}
_DIMENSIONS = {"zero": "ZeRO/sharded", "model": "model (unspecified)"}
_SCALES = ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K"))


class ComparisonRow(NamedTuple):
    key: str
    cells: tuple[str, ...]  # one per column, "" where the paper states none
    evidence: tuple[str, ...]  # the phrases, in the order of the cells


@dataclass(frozen=True)
class ComparisonTable:
    section: str
    title: str
    columns: tuple[str, ...]  # headings
    widths: tuple[str, ...]  # a fraction of \linewidth per column, the paper's first
    rows: tuple[ComparisonRow, ...]


def fact_text(fact: Fact) -> str:
    """A fact as a table cell shows it: "1.6T", "2,048 × TPU v3 core", "3.5× speedup"."""
    if fact.kind == "parameters":
        return _size(int(fact.value))
    if fact.kind == "hardware":
        return f"{int(fact.value):,} × {fact.detail}"
    if fact.kind == "gain":
        value = f"{float(fact.value):g}"
        return f"{value}% {fact.detail}" if fact.unit == "%" else f"{value}× {fact.detail}"
    if fact.kind == "parallelism":
        return _DIMENSIONS.get(str(fact.value), str(fact.value))
    return str(fact.value)


def _size(count: int) -> str:
    for scale, letter in _SCALES:
        if count >= scale:
            return f"{count / scale:.4g}{letter}"
    return str(count)


def comparison_tables(groups: Sequence[GroupView]) -> dict[str, ComparisonTable]:
    """Section id -> its table, for the sections whose papers (primary there) have facts enough to compare."""
    tables = {}
    for group in groups:
        for section in group.sections:
            papers = [(view.key, [Fact._make(f) for f in view.facts]) for view in section.papers if view.facts]
            if len(papers) < MIN_ROWS:
                continue
            kinds = [kind for kind in KINDS if any(f.kind == kind for _, facts in papers for f in facts)]
            rows = []
            for key, facts in papers:
                cells = tuple("; ".join(fact_text(f) for f in facts if f.kind == kind) for kind in kinds)
                evidence = tuple(dict.fromkeys(f.phrase for kind in kinds for f in facts if f.kind == kind))
                rows.append(ComparisonRow(key, cells, evidence))
            share = 0.82 / len(kinds)
            tables[section.id] = ComparisonTable(
                section.id,
                section.title,
                tuple(HEADINGS[kind] for kind in kinds),
                ("0.16", *(f"{share:.3f}" for _ in kinds)),
                tuple(rows),
            )
    return tables


def _fact_rows(papers: Sequence[Paper], taxonomy: Taxonomy) -> list[tuple[str, str, Fact]]:
    """(section id, key, fact) for every fact of every paper, in chapter order."""
    by_key = {paper.key: paper for paper in papers}
    rows: list[tuple[str, str, Fact]] = []
    for group in chapter_groups(papers, taxonomy):
        for section in group.sections:
            for view in section.papers:
                rows.extend((section.id, view.key, fact) for fact in paper_facts(by_key[view.key]))
    return rows


def to_facts_json(papers: Sequence[Paper], taxonomy: Taxonomy) -> str:
    """Every paper's facts, by section (the comparison tables' data, also for sections too small for a table)."""
    sections: dict[str, dict[str, list[dict]]] = {}
    for section, key, fact in _fact_rows(papers, taxonomy):
        sections.setdefault(section, {}).setdefault(key, []).append(fact_record(fact))
    items = [
        {"section": section, "papers": [{"key": key, "facts": facts} for key, facts in by_key.items()]}
        for section, by_key in sections.items()
    ]
    return json_shown(json.dumps(items, indent=2, ensure_ascii=False)) + "\n"


CSV_COLUMNS = ("section", "key", "kind", "value", "detail", "unit", "field", "start", "end", "phrase")


def _inert_cell(value: object) -> object:
    """A text cell a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``, tab, CR first) starts with
    a quote instead: phrases and keys come from other people's files."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def to_facts_csv(papers: Sequence[Paper], taxonomy: Taxonomy) -> str:
    """One row per fact: section, paper, the normalised value and the phrase with its span."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for section, key, fact in _fact_rows(papers, taxonomy):
        row = (
            section,
            key,
            fact.kind,
            fact.value,
            fact.detail,
            fact.unit,
            fact.field,
            fact.start,
            fact.end,
            fact.phrase,
        )
        writer.writerow([_inert_cell(cell) for cell in row])
    return out.getvalue()
