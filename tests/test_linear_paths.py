"""Inputs that used to take quadratic time (or end in a recursion traceback) are read in linear time.

Each case of tests/benchmarks/pathological.py runs at twice the size it was reported at, under a bound
many times what a linear reader needs on a loaded machine and far under what the quadratic one took.
"""

import importlib.util
import json
import sys
import time

import pytest
from helpers import BENCHMARKS, run_cli

from surveytool.bibtex.values import value_to_text
from surveytool.sources.read import read_source
from surveytool.text.citations import citations

HARNESS = BENCHMARKS / "pathological.py"
spec = importlib.util.spec_from_file_location("pathological", HARNESS)
pathological = sys.modules["pathological"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pathological)

SECONDS = 8.0


@pytest.mark.parametrize("case", pathological.CASES, ids=lambda case: case.name)
def test_each_pathological_input_is_read_in_linear_time(case):
    assert pathological.time_case(case, scale=2) < SECONDS


def test_a_cite_after_a_long_run_of_spaces_and_newlines_is_still_found():
    text = "intro\n\\citep" + " " * 50_000 + "\n  [see]\n{late2020, other}" + " \\cite" + " " * 50_000
    found, cites_all = citations(text)
    assert [(c.key, c.line) for c in found] == [("late2020", 2), ("other", 2)]
    assert not cites_all


def test_many_unclosed_options_and_groups_are_each_read_once():
    text = "\\cite[" * 20_000 + "\n" + "\\cite{a{" * 20_000 + "\n\\cite{last}\n"
    start = time.perf_counter()
    found, _ = citations(text)
    assert time.perf_counter() - start < SECONDS
    assert [(c.key, c.line) for c in found] == [("last", 3)]


def test_braces_in_an_optional_argument_are_not_taken_for_the_keys():
    assert [c.key for c in citations("\\cite[see {x}]{key}")[0]] == ["key"]


def test_check_tex_with_a_cite_followed_by_spaces_reports_the_cites_around_it(tmp_path):
    (tmp_path / "refs.bib").write_text("@misc{known, title = {Known}, year = 2020}\n", encoding="utf-8")
    (tmp_path / "paper.tex").write_text("\\cite" + " " * 40_000 + "\n\\cite{known,ghost}\n", encoding="utf-8")
    result = run_cli("check", "refs.bib", "--tex", "paper.tex", "--checks", "cite-undefined", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "paper.tex:2: error [cite-undefined] \\cite of 'ghost'" in result.stdout + result.stderr


def test_a_header_title_padded_with_spaces_is_kept_and_trimmed(tmp_path):
    source = tmp_path / "list.txt"
    source.write_text(
        "Related papers:   Attention" + " " * 40_000 + "Is All You Need   \n\nA snippet …\n", encoding="utf-8"
    )
    anchor, snippet = read_source(source).papers
    assert anchor.title == "Attention" + " " * 40_000 + "Is All You Need"
    assert snippet.sources[0].line == 3


def test_every_csl_item_is_located_on_the_line_of_its_id(tmp_path):
    items = [{"id": f"item{n}", "title": f"Paper {n}"} for n in range(3000)]
    items.insert(5, {"id": 42, "title": "A numeric id"})
    source = tmp_path / "items.json"
    source.write_text(json.dumps(items, indent=1), encoding="utf-8")
    lines = source.read_text(encoding="utf-8").splitlines()
    id_lines = {str(item["id"]): f'"id": {json.dumps(item["id"])},' for item in items}
    papers = read_source(source).papers
    assert len(papers) == len(items)
    for paper in papers:
        assert lines[paper.sources[0].line - 1].strip() == id_lines[paper.key]


def test_braces_nested_hundreds_deep_around_an_unknown_macro_decode_without_a_traceback(tmp_path):
    assert value_to_text("{" * 400 + "\\unknownmacro Deep Title" + "}" * 400) == "Deep Title"
    (tmp_path / "deep.bib").write_text(
        "@article{deep, title = {" + "{" * 400 + "\\foo x" + "}" * 400 + "}, year = 2020}\n", encoding="utf-8"
    )
    result = run_cli("parse", "deep.bib", "--json", cwd=tmp_path)
    # \foo is outside the LaTeX allowlist: reported as an error finding, not a traceback.
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "[dangerous-macro]" in result.stderr
    assert json.loads(result.stdout)[0]["title"] == "x"
