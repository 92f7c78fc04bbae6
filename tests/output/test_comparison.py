"""Comparison tables of facts per section, in the chapter and entries.json, and their CSV and JSON exports."""

from __future__ import annotations

import csv
import io
import json

from helpers import compile_latex, requires_latex, run_cli

from surveytool.analysis.facts import paper_facts
from surveytool.analysis.taxonomy import load_taxonomy
from surveytool.model import Origin, Paper, Role, SourceLocation, Tag, frozen_mapping
from surveytool.output.chapter_view import chapter_groups, paper_view, view_groups
from surveytool.output.comparison import comparison_tables, fact_text, to_facts_csv
from surveytool.resources import default_taxonomy

BIB = r"""@inproceedings{big2021,
  title = {Training a Trillion-Parameter Model},
  author = {Ann Big},
  year = {2021},
  sections = {pipeline-parallel},
  abstract = {We train a model with 1.6 trillion parameters on 2048 TPU v3 cores using pipeline parallelism and reach a 3.5x speedup on C4.},
}

@inproceedings{fast2022,
  title = {Faster Pipelines},
  author = {Bo Fast},
  year = {2022},
  sections = {pipeline-parallel},
  abstract = {Our schedule reduces memory by 8x & runs on 3,072 A100 GPUs with data and pipeline parallelism; see 100% of $x_i$ \#1.},
}

@inproceedings{plain2023,
  title = {A Pipeline Without Numbers},
  author = {Cy Plain},
  year = {2023},
  sections = {pipeline-parallel},
  abstract = {We study schedules.},
}

@inproceedings{lone2020,
  title = {Alone in Its Section},
  author = {Di Lone},
  year = {2020},
  sections = {moe},
  abstract = {We train a 530B model on 1024 GPUs.},
}
"""


def paper(key: str, section: str, abstract: str) -> Paper:
    return Paper(
        Origin.BIBTEX,
        (SourceLocation("refs.bib", 1),),
        frozen_mapping({"title": f"Paper {key}", "year": "2021", "abstract": abstract}),
        key=key,
        tags=(Tag(section, Role.PRIMARY, 1.0),),
    )


def test_a_table_has_the_columns_of_the_facts_its_papers_state_and_a_row_per_paper_with_facts():
    taxonomy = load_taxonomy(default_taxonomy())
    papers = [
        paper("a", "memory", "We train 13 billion parameters on a single GPU."),
        paper("b", "memory", "It reduces memory by 4x."),
        paper("c", "memory", "No facts here."),
        paper("d", "moe", "We use expert parallelism."),  # alone in its section: no table
    ]
    tables = comparison_tables(chapter_groups(papers, taxonomy))
    assert list(tables) == ["memory"]
    table = tables["memory"]
    assert table.columns == ("Model size", "Hardware", "Reported gains")
    assert [row.key for row in table.rows] == ["a", "b"]
    assert table.rows[0].cells == ("13B", "1 × GPU", "")
    assert table.rows[1].cells == ("", "", "4× memory reduction")
    assert table.rows[0].evidence == ("13 billion parameters", "a single GPU")
    assert sum(float(w) for w in table.widths) <= 1.0


def test_views_read_back_from_a_snapshot_give_the_same_tables():
    taxonomy = load_taxonomy(default_taxonomy())
    papers = [paper("a", "memory", "We use 8 V100 GPUs."), paper("b", "memory", "It is 2.3 times faster.")]
    views = [paper_view(p) for p in papers]
    # A snapshot keeps views as plain tuples (marshal) and a patched build rebuilds them positionally.
    restored = [type(v)(*tuple(v)) for v in views]
    assert comparison_tables(view_groups(restored, taxonomy)) == comparison_tables(view_groups(views, taxonomy))


def test_cells_print_sizes_counts_and_gains_readably():
    found = paper_facts(
        paper("a", "memory", "1.2T params on 3,072 A100 GPUs, a 3.5x speedup and 76% scaling efficiency.")
    )
    assert [fact_text(f) for f in found] == [
        "1.2T",
        "3,072 × A100",
        "3.5× speedup",
        "76% scaling efficiency",
    ]


def test_the_chapter_shows_a_comparison_table_with_evidence_and_entries_json_the_facts(tmp_path):
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    out = tmp_path / "out"
    run_cli("build", str(tmp_path / "refs.bib"), "--out", str(out), check=True)
    chapter = (out / "related_work.tex").read_text(encoding="utf-8")
    assert chapter.count(r"\begin{longtable}") == 2  # the pipeline section's table and the summary table
    assert "Paper & Model size & Hardware & Reported gains & Datasets & Parallelism \\\\" in chapter
    assert (
        r"\citet{big2021} & 1.6T & 2,048 {\texttimes} TPU v3 core & 3.5{\texttimes} speedup & C4 & pipeline \\"
        in chapter
    )
    assert (
        r"\citet{fast2022} &  & 3,072 {\texttimes} A100 & 8{\texttimes} memory reduction &  & data; pipeline \\"
        in chapter
    )
    assert (
        "% Evidence: 1.6 trillion parameters | 2048 TPU v3 cores | 3.5x speedup | C4 | pipeline parallelism" in chapter
    )
    table = chapter[chapter.index("tab:rw-facts:pipeline-parallel") : chapter.index(r"\end{longtable}")]
    assert "big2021" in table and "plain2023" not in table  # no facts, no row
    assert "tab:rw-facts:moe" not in chapter  # one paper with facts in its section: no table
    entries = {e["key"]: e for e in json.loads((out / "entries.json").read_text(encoding="utf-8"))}
    assert entries["plain2023"]["facts"] == []
    assert entries["lone2020"]["facts"][0] == {
        "kind": "parameters",
        "value": 530_000_000_000,
        "evidence": {"field": "abstract", "span": [11, 21], "phrase": "530B model"},
    }
    # In the order the abstract states them; the table's columns are in a fixed order.
    assert [f["kind"] for f in entries["big2021"]["facts"]] == [
        "parameters",
        "hardware",
        "parallelism",
        "gain",
        "dataset",
    ]


@requires_latex
def test_a_chapter_with_a_comparison_table_of_hostile_text_compiles(tmp_path):
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    out = tmp_path / "out"
    run_cli("build", str(tmp_path / "refs.bib"), "--out", str(out), check=True)
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]


def test_export_writes_every_fact_as_csv_and_json_by_section(tmp_path):
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    result = run_cli("export", str(tmp_path / "refs.bib"), "--format", "facts-csv", check=True)
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert rows[0] == {
        "section": "pipeline-parallel",
        "key": "big2021",
        "kind": "parameters",
        "value": "1600000000000",
        "detail": "",
        "unit": "",
        "field": "abstract",
        "start": "22",
        "end": "45",
        "phrase": "1.6 trillion parameters",
    }
    assert {row["key"] for row in rows} == {"big2021", "fast2022", "lone2020"}
    result = run_cli("export", str(tmp_path / "refs.bib"), "-f", "facts-json", "-o", "facts.json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    sections = json.loads((tmp_path / "facts.json").read_text(encoding="utf-8"))
    assert [s["section"] for s in sections] == ["pipeline-parallel", "moe"]
    assert sections[1]["papers"] == [
        {
            "key": "lone2020",
            "facts": [
                {
                    "kind": "parameters",
                    "value": 530_000_000_000,
                    "evidence": {"field": "abstract", "span": [11, 21], "phrase": "530B model"},
                },
                {
                    "kind": "hardware",
                    "count": 1024,
                    "device": "GPU",
                    "evidence": {"field": "abstract", "span": [25, 34], "phrase": "1024 GPUs"},
                },
            ],
        }
    ]


def test_csv_export_of_no_facts_is_only_the_header():
    taxonomy = load_taxonomy(default_taxonomy())
    assert to_facts_csv([paper("a", "memory", "Nothing to see.")], taxonomy) == (
        "section,key,kind,value,detail,unit,field,start,end,phrase\n"
    )


def test_no_comparisons_leaves_only_the_summary_table(tmp_path):
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    out = tmp_path / "out"
    run_cli("build", str(tmp_path / "refs.bib"), "--out", str(out), "--no-comparisons", check=True)
    chapter = (out / "related_work.tex").read_text(encoding="utf-8")
    assert chapter.count(r"\begin{longtable}") == 1 and "tab:rw-facts:" not in chapter


def test_a_csv_cell_a_spreadsheet_would_run_starts_with_a_quote(tmp_path):
    hostile = (
        "@misc{+cmd,\n  title = {Sharded training},\n  year = 2021,\n  sections = {data-parallel},\n"
        "  abstract = {We train with data parallelism on 1024 GPUs.},\n}\n"
        "@misc{@sum,\n  title = {More sharded training},\n  year = 2022,\n  sections = {data-parallel},\n"
        "  abstract = {We train with data parallelism on 512 GPUs.},\n}\n"
    )
    (tmp_path / "refs.bib").write_text(hostile, encoding="utf-8")
    result = run_cli("export", str(tmp_path / "refs.bib"), "--format", "facts-csv", check=True)
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert {row["key"] for row in rows} == {"'+cmd", "'@sum"}
    assert all(not cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row.values())
