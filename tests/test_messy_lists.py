"""Messy related-paper lists: every paragraph read, duplicates merged across files, nothing lost."""

import json

from conftest import DATA, run_cli
from surveytool.analysis.merge import merge_duplicates
from surveytool.sources.read import read_source

LISTS = DATA / "lists"


def test_each_variant_reads_every_paragraph_with_its_line():
    expected = {"crlf_bom_fullwidth.txt": (True, [3, 7, 9]), "cr_no_header.txt": (False, [1, 3]),
                "wrapped_dupes.txt": (True, [5, 9])}
    for name, (has_anchor, lines) in expected.items():
        result = read_source(LISTS / name, name)
        snippets = [p for p in result.papers if p.origin.value == "snippet"]
        assert [p.sources[0].line for p in snippets] == lines, name
        assert any(p.origin.value == "anchor" for p in result.papers) == has_anchor
    wrapped = read_source(LISTS / "wrapped_dupes.txt", "w.txt").papers[1]
    assert "router sends each token" in wrapped.fields["abstract"] and wrapped.truncated


def test_exact_near_exact_and_differently_cut_duplicates_merge_across_files():
    papers = []
    for path in sorted(LISTS.glob("*.txt")):
        papers.extend(read_source(path, path.name).papers)
    merged = merge_duplicates(papers)
    snippets = [p for p in merged if p.origin.value == "snippet"]
    # crlf: 3 paragraphs, two of them one paper (case/punctuation); cr: 2, one the pipeline paper cut
    # differently; wrapped: 2 copies of one paper cut at different points.
    assert len(snippets) == 4
    assert sorted(len(p.sources) for p in snippets) == [1, 2, 2, 2]


def test_build_on_messy_lists_loses_nothing(tmp_path):
    result = run_cli("parse", "--json", *map(str, sorted(LISTS.glob("*.txt"))), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    entries = json.loads(result.stdout)
    sources = sorted(s for e in entries for s in e["sources"])
    assert len(sources) == 7 + 2  # every paragraph and both anchors, each exactly once
    assert "cr_no_header.txt:1: info [list-header]" in result.stderr


def test_one_snippet_per_line_without_blank_lines_is_split_into_paragraphs(tmp_path):
    path = tmp_path / "dense.txt"
    path.write_text("Related papers: X\nA first snippet about pipeline parallelism…\nA second one about expert routing…\n"
                    "A third...\n\nA wrapped paragraph that\ncontinues on the next line…\n", encoding="utf-8")
    snippets = [p for p in read_source(path, "dense.txt").papers if p.origin.value == "snippet"]
    assert [(p.sources[0].line, p.fields["abstract"][:8]) for p in snippets] == [
        (2, "A first "), (3, "A second"), (4, "A third."), (6, "A wrappe")]
