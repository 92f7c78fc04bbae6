"""`-` as a source (standard input) and as -o (standard output), the way shell pipelines use them."""

import json

from helpers import MESSY_BIB, ZOTERO_ITEMS, run_cli

# No header, no blank line before the entry, a comment first: nothing a list reader would call BibTeX by its look.
PIPED_BIB = "% exported by JabRef\n" + MESSY_BIB


def test_bibtex_piped_in_is_read_as_bibtex_and_printed_with_o_dash(tmp_path):
    result = run_cli("bib", "-", "-o", "-", cwd=tmp_path, stdin=PIPED_BIB)
    assert result.returncode == 0, result.stderr
    assert (
        result.stdout.startswith("% exported by JabRef\n\n@article{fontaine2020alpha,\n")
        and "sections = {surveys,moe}," in result.stdout
    )
    assert "1 entry written to standard output" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no file named "-", no lock file


def test_each_kind_of_source_on_stdin_is_told_apart_or_named_with_kind(tmp_path):
    csl = run_cli("parse", "--json", "-", cwd=tmp_path, stdin=json.dumps(ZOTERO_ITEMS))
    assert csl.returncode == 0, csl.stderr
    entries = json.loads(csl.stdout)
    assert {e["key"] for e in entries} >= {"fedus2022switch", "vaswani2017attention"}
    assert all(s.startswith("<stdin>:") for e in entries for s in e["sources"])

    ids = run_cli("parse", "--json", "-", cwd=tmp_path, stdin="10.1145/3320060\n2006.16668\n")
    assert [(e["origin"], e["key"]) for e in json.loads(ids.stdout)] == [
        ("identifier", "bennun2019demystifying"),
        ("identifier", "lepikhin2021gshard"),
    ]

    listed = run_cli(
        "parse",
        "--json",
        "-",
        cwd=tmp_path,
        stdin="Related papers - GShard\n1. We route tokens to experts.\n2. We split layers into stages.\n",
    )
    assert sorted(s for e in json.loads(listed.stdout) for s in e["sources"]) == ["<stdin>:1", "<stdin>:2", "<stdin>:3"]

    # Text that looks like BibTeX is still a list when the user says so.
    text = "@misc{a, title={not an entry}} is how one cites it.\n"
    as_list = run_cli("parse", "--json", "--kind", "list", "-", cwd=tmp_path, stdin=text)
    assert as_list.returncode == 0, as_list.stderr
    assert [e["origin"] for e in json.loads(as_list.stdout)] == ["snippet"]
    as_csl = run_cli(
        "export", "-", "--kind", "csl", "-f", "csl-json", "-o", "-", cwd=tmp_path, stdin=json.dumps(ZOTERO_ITEMS)
    )
    assert as_csl.returncode == 0, as_csl.stderr
    assert "fedus2022switch" in {i["id"] for i in json.loads(as_csl.stdout)}


def test_export_o_dash_prints_and_a_bad_kind_is_bad_usage(tmp_path):
    (tmp_path / "mine.bib").write_text(MESSY_BIB, encoding="utf-8")
    printed = run_cli("export", "mine.bib", "-o", "-", cwd=tmp_path, check=True)
    assert printed.stdout.startswith("# ") and not (tmp_path / "-").exists()
    bad = run_cli("bib", "-", "--kind", "yaml", "-o", "-", cwd=tmp_path, stdin=MESSY_BIB)
    assert bad.returncode == 2 and "--kind" in bad.stderr and "Traceback" not in bad.stderr


def test_draft_o_dash_prints_the_chapter_and_writes_no_file(tmp_path):
    (tmp_path / "mine.bib").write_text(MESSY_BIB, encoding="utf-8")
    printed = run_cli("draft", "mine.bib", "-o", "-", cwd=tmp_path, check=True)
    assert printed.stdout.startswith("% surveytool: checksum ") and "\\citet{" in printed.stdout
    assert "wrote the chapter" in printed.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.bib"]
    piped = run_cli("draft", "-", "-o", "-", cwd=tmp_path, stdin=MESSY_BIB, check=True)
    assert piped.stdout == printed.stdout


def test_nothing_piped_in_is_a_one_line_error(tmp_path):
    result = run_cli("parse", "-", cwd=tmp_path, stdin="")
    assert result.returncode == 2
    assert result.stderr.strip() == "<stdin>: error: is empty (remove it from the sources or add papers to it)"


def test_a_list_numbered_with_brackets_or_quoting_an_entry_is_still_a_list(tmp_path):
    numbered = run_cli(
        "parse",
        "--json",
        "-",
        cwd=tmp_path,
        stdin="[1] We route each token to two experts.\n\n[2] We split the layers into stages.\n",
    )
    assert numbered.returncode == 0, numbered.stderr
    assert [e["origin"] for e in json.loads(numbered.stdout)] == ["snippet", "snippet"]
    quoting = run_cli(
        "parse",
        "--json",
        "-",
        cwd=tmp_path,
        stdin="Related papers: X\n\n@misc{a, title={Y}} is how one cites this routing paper.\n",
    )
    assert {e["origin"] for e in json.loads(quoting.stdout)} == {"anchor", "snippet"}


def test_in_place_on_standard_input_is_bad_usage(tmp_path):
    result = run_cli("bib", "--in-place", "-", cwd=tmp_path, stdin=MESSY_BIB)
    assert result.returncode == 2 and "-o -" in result.stderr and not (tmp_path / "-").exists()
