"""`bib`'s formatting flags and the [bib] table of surveytool.toml, as a user runs them."""

import bibtexparser
import pytest
from helpers import HAVE_LATEX, IN_CI, ROOT, compile_latex, requires_latex, run_bibtex, run_cli

MINE = """@inproceedings{shazeer2017,
  title = {Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer},
  author = {Noam Shazeer and Azalia Mirhoseini and Krzysztof Maziarz},
  booktitle = {International Conference on Learning Representations},
  year = 2017,
  month = {March},
  abstract = {The capacity of a neural network to absorb information is limited by its number of parameters.},
  file = {shazeer.pdf},
  sections = {moe},
}

@article{huang2019gpipe,
  title = "{GPipe}: Efficient Training of Giant Neural Networks using Pipeline Parallelism",
  author = {Huang, Yanping},
  journal = {Advances in Neural Information Processing Systems},
  year = {2019},
  note = {},
  sections = {pipeline-parallel},
}
"""


@pytest.fixture
def mine(tmp_path):
    (tmp_path / "mine.bib").write_text(MINE, encoding="utf-8")
    return tmp_path


def parsed(text: str) -> dict[str, dict[str, str]]:
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks
    return {e.key: {f.key: f.value for f in e.fields} for e in library.entries}


def test_flags_format_the_written_bib_and_bibtexparser_reads_it(mine):
    result = run_cli(
        "bib", "mine.bib", "-o", "out.bib", "--omit", "abstract,file", "--align", "14", "--months", "--max-authors",
        "2", "--remove-empty-fields", "--sort-fields", "bibtex-tidy", "--numeric", "--no-curly", cwd=mine,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    text = (mine / "out.bib").read_text(encoding="utf-8")
    assert '  title         = "Outrageously Large' in text
    assert "  month         = mar,\n" in text and "  year          = 2017,\n" in text
    entries = parsed(text)
    assert list(entries["shazeer2017"])[:4] == ["title", "author", "year", "month"]
    assert entries["shazeer2017"]["author"] == "Noam Shazeer and Azalia Mirhoseini and others"
    assert "abstract" not in entries["shazeer2017"] and "file" not in entries["shazeer2017"]
    assert "note" not in entries["huang2019gpipe"]


def test_the_bib_table_formats_the_output_and_a_flag_wins_over_it(mine):
    (mine / "surveytool.toml").write_text('[bib]\nspace = 4\nmonths = true\nomit = ["abstract"]\n', encoding="utf-8")
    run_cli("bib", "mine.bib", "-o", "out.bib", check=True, cwd=mine)
    text = (mine / "out.bib").read_text(encoding="utf-8")
    assert "\n    month = mar,\n" in text and "abstract" not in text
    run_cli("bib", "mine.bib", "-o", "out.bib", "--no-months", "--indent", "1", check=True, cwd=mine)
    text = (mine / "out.bib").read_text(encoding="utf-8")
    assert "\n month = {March},\n" in text and "abstract" not in text


def test_an_indent_given_as_a_flag_wins_over_a_tab_in_the_bib_table(mine):
    # The table's tab = true would otherwise go on indenting with a tab whatever --space asks.
    (mine / "surveytool.toml").write_text("[bib]\ntab = true\n", encoding="utf-8")
    run_cli("bib", "mine.bib", "-o", "out.bib", check=True, cwd=mine)
    assert "\n\tmonth = {March},\n" in (mine / "out.bib").read_text(encoding="utf-8")
    run_cli("bib", "mine.bib", "-o", "out.bib", "--space", "4", check=True, cwd=mine)
    assert "\n    month = {March},\n" in (mine / "out.bib").read_text(encoding="utf-8")
    run_cli("bib", "mine.bib", "-o", "out.bib", "--space", "4", "--tab", check=True, cwd=mine)
    assert "\n\tmonth = {March},\n" in (mine / "out.bib").read_text(encoding="utf-8")


def test_without_options_the_layout_is_the_standard_one(mine):
    run_cli("bib", "mine.bib", "-o", "out.bib", check=True, cwd=mine)
    text = (mine / "out.bib").read_text(encoding="utf-8")
    assert "  month = {March},\n  abstract = {The capacity" in text and "  note = {},\n" in text


@pytest.mark.parametrize(
    "setting, message",
    [
        ("wrap = 5", "[bib] wrap must be 0 (never) or a column of 20 or more, not 5 (wrap = 80)"),
        ('omit = "abstract"', "[bib] omit must be a list of field names, not 'abstract'"),
        ('curly = "yes"', "[bib] curly must be true or false, not 'yes' (curly = true)"),
        ("max_authors = -1", "[bib] max_authors must be a whole number, 0 (all) or more, not -1"),
        ("colour = true", "unknown setting(s) in [bib]: colour"),
    ],
)
def test_a_wrong_bib_setting_is_one_line_with_file_line_and_hint(mine, setting, message):
    (mine / "surveytool.toml").write_text(f"# settings\n[bib]\nalign = 14\n{setting}\n", encoding="utf-8")
    result = run_cli("bib", "mine.bib", "-o", "out.bib", cwd=mine)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"surveytool.toml:4: error: {message}") and len(result.stderr.splitlines()) == 1
    assert not (mine / "out.bib").exists()


def test_a_wrong_flag_value_is_bad_usage(mine):
    result = run_cli("bib", "mine.bib", "-o", "out.bib", "--wrap", "5", cwd=mine)
    assert result.returncode == 2 and "--wrap" in result.stderr and "Traceback" not in result.stderr
    assert run_cli("bib", "mine.bib", "-o", "out.bib", "--omit", "a b", cwd=mine).returncode == 2


def test_in_place_lays_out_the_new_entries_as_asked_and_leaves_the_users_own(mine):
    (mine / "extra.bib").write_text(
        "@misc{zhang2023, title = {MICRO-BATCH PIPELINE PARALLELISM FOR GIANT MODELS}, author = {Zhang, Wei},\n"
        "  year = {2023}, month = {5}, note = {x},\n"
        "  abstract = {We split the layers into pipeline stages across devices and feed micro-batches.}}\n",
        encoding="utf-8",
    )
    result = run_cli(
        "bib", "--in-place", "mine.bib", "extra.bib", "--months", "--tab", "--drop-all-caps", "--omit", "note,sections",
        cwd=mine,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    text = (mine / "mine.bib").read_text(encoding="utf-8")
    assert text.startswith(MINE)  # the user's entries, byte for byte
    added = text[len(MINE) :]
    assert "\ttitle = {Micro-Batch Pipeline Parallelism for Giant Models},\n" in added and "\tmonth = may,\n" in added
    added_fields = parsed(text)["zhang2023"]
    assert added_fields["month"] == "may" and "note" not in added_fields
    assert "sections" in added_fields  # omitted, the tags would come back as an edit on the next run
    again = run_cli("bib", "--in-place", "mine.bib", "--omit", "note,sections", cwd=mine)
    assert "0 change(s)" in again.stdout and (mine / "mine.bib").read_text(encoding="utf-8") == text


def test_help_lists_the_formatting_options():
    result = run_cli("bib", "--help")
    for flag in ("--omit", "--sort-fields", "--align", "--curly", "--max-authors", "--wrap", "--drop-all-caps"):
        assert flag in result.stdout


def test_help_shows_no_default_wrap_width_since_nothing_is_wrapped_by_default():
    from surveytool.bibtex.format_options import STANDARD

    # "(80)" read as a default, as "(2)" of --space is one; without --wrap nothing is wrapped.
    shown = " ".join(run_cli("bib", "--help", check=True).stdout.replace("│", " ").split())
    assert STANDARD.wrap == 0 and "at spaces (80)" not in shown
    assert "Break lines longer than this at spaces, e.g. 80. Default: no wrapping." in shown
    assert "Spaces before each field (2)." in shown and STANDARD.space == 2


@pytest.mark.skipif(not HAVE_LATEX and not IN_CI, reason="bibtex not installed")
def test_real_bibtex_reads_a_bib_written_with_every_option(mine):
    run_cli(
        "bib", "mine.bib", "-o", "references.bib", "--omit", "file", "--sort-fields", "year,title", "--tab",
        "--align", "14", "--curly", "--months", "--remove-empty-fields", "--max-authors", "1", "--wrap", "40",
        "--drop-all-caps", check=True, cwd=mine,
    )  # fmt: skip
    result, bbl = run_bibtex(mine, "\\usepackage{natbib}", "plainnat")
    assert result.returncode == 0 and "Warning" not in result.stdout, result.stdout
    bbl = " ".join(bbl.split())  # bibtex breaks its own lines
    assert bbl.count("\\bibitem") == 2
    assert "Noam Shazeer et~al." in bbl and "March 2017" in bbl  # one author kept, the month macro expanded


@requires_latex
def test_build_writes_references_bib_in_the_bib_table_layout_and_it_compiles(mine):
    (mine / "surveytool.toml").write_text(
        '[bib]\nalign = 14\nmonths = true\nmax_authors = 1\nwrap = 50\nomit = ["abstract", "file"]\n',
        encoding="utf-8",
    )
    result = run_cli("build", "mine.bib", "--out", "out", cwd=mine)
    assert result.returncode == 0, result.stderr
    text = (mine / "out" / "references.bib").read_text(encoding="utf-8")
    assert "  month         = mar,\n" in text and "abstract" not in text
    assert "{Noam Shazeer and others}" in text
    compiled = compile_latex(mine / "out")
    assert compiled.returncode == 0, compiled.stdout[-3000:]
    assert "error message" not in (mine / "out" / "main.blg").read_text(encoding="latin-1")


def test_the_readme_example_and_bib_table_work_as_written(mine):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Formatting the `.bib`") :]
    command = next(line for line in section.splitlines() if line.startswith("surveytool bib "))
    table = section[section.index("```toml\n") + len("```toml\n") : section.index("```\n\n", section.index("```toml"))]
    (mine / "surveytool.toml").write_text(table, encoding="utf-8")
    args = command.split()[1:]
    args[args.index("refs.bib")] = "mine.bib"
    result = run_cli(*args, cwd=mine)
    assert result.returncode == 0, result.stderr
    text = (mine / "references.bib").read_text(encoding="utf-8")
    assert "  month         = mar,\n" in text and "abstract" not in text
