"""`surveytool bib`: clean output, minimal-diff in-place updates, dialects, and real bibtex."""

import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
import threading

import pytest
from helpers import HAVE_LATEX, IN_CI, run_bibtex, run_cli

MY_BIB = """% my library
@string{icml = "International Conference on Machine Learning"}

@inproceedings{shazeer2017,
  title = {Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer},
  author = {Noam Shazeer and Azalia Mirhoseini},
  booktitle = icml,
  year = 2017,
  sections = {MoE},
}

@article{huang2019gpipe,
    title={{GPipe}: Efficient Training of Giant Neural Networks using Pipeline Parallelism},
    author={Huang, Yanping},   journal = {NeurIPS},
    year={2019}
}

@misc{untouched,   title = {Gradient compression for all-reduce}, sections = {communication}  }

@misc{typo, title = {Something}, sections = {comunication}}
"""


def test_in_place_changes_only_tags_that_must_change_and_adds_new_entries(tmp_path):
    bib = tmp_path / "my.bib"
    bib.write_text(MY_BIB, encoding="utf-8")
    extra = tmp_path / "extra.txt"
    extra.write_text(
        "Related papers: Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer\n\n"
        "We study tensor parallelism for training trillion parameter language models across many GPUs in a cluster…\n"
    )
    result = run_cli("bib", "--in-place", "my.bib", "extra.txt", cwd=tmp_path)
    assert result.returncode == 1  # the typo tag is an error finding
    assert "my.bib:4: shazeer2017: tags MoE -> moe" in result.stdout
    assert "my.bib:12: huang2019gpipe: tags (none) -> pipeline-parallel" in result.stdout
    text = bib.read_text(encoding="utf-8")
    before_lines, after_lines = MY_BIB.splitlines(), text.splitlines()
    changed = [line for line in after_lines[: len(before_lines) + 1] if line not in before_lines]
    # The tags field added to huang2019gpipe is written as most of its fields are: name={value}.
    assert changed == ["  sections = {moe},", "    sections={pipeline-parallel},"]
    assert "@misc{untouched,   title = {Gradient compression for all-reduce}, sections = {communication}  }" in text
    assert "@misc{typo, title = {Something}, sections = {comunication}}" in text  # unknown tags are never dropped
    assert text.count("@misc{anon-") == 1  # the new snippet; the anchor is shazeer2017 itself
    second = run_cli("bib", "--in-place", "my.bib", "extra.txt", cwd=tmp_path)
    assert "0 change(s)" in second.stdout and bib.read_text(encoding="utf-8") == text


def test_output_file_sorted_by_section_and_biblatex_fields(tmp_path):
    (tmp_path / "my.bib").write_text(MY_BIB, encoding="utf-8")
    run_cli("bib", "my.bib", "-o", "out.bib", "--sort", "section", "--dialect", "biblatex", cwd=tmp_path)
    text = (tmp_path / "out.bib").read_text(encoding="utf-8")
    order = [text.index("{" + key + ",") for key in ("huang2019gpipe", "shazeer2017", "untouched")]
    assert order == sorted(order)  # pipeline-parallel, moe, communication in taxonomy order
    assert "journaltitle = {NeurIPS}" in text and "date = {2019}" in text
    assert (tmp_path / "surveytool.lock.json").exists()


def test_bad_bib_usage(tmp_path):
    assert run_cli("bib", cwd=tmp_path).returncode == 2
    assert run_cli("bib", "-o", "x.bib", "--sort", "colour", cwd=tmp_path).returncode == 2
    (tmp_path / "blob.bin").write_bytes(b"\x7fELF\x02\x01\x00\x00")
    for target, words in (
        ("gone.bib", "no such file (check the path given with --in-place)"),
        ("blob.bin", "is not a text file (--in-place takes your .bib file)"),
    ):
        result = run_cli("bib", "--in-place", target, cwd=tmp_path)
        assert result.returncode == 2 and result.stderr == f"{target}: error: {words}\n"


HAVE_BIBER = shutil.which("biber") is not None


@pytest.mark.skipif(not HAVE_BIBER and not IN_CI, reason="biber not installed")
def test_biber_validates_the_biblatex_dialect_of_the_seeds(tmp_path):
    run_cli("bib", "-o", str(tmp_path / "references.bib"), "--dialect", "biblatex", check=True)
    (tmp_path / "all.tex").write_text(
        "\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage[backend=biber]{biblatex}\n"
        "\\addbibresource{references.bib}\\begin{document}\\nocite{*}\\printbibliography\\end{document}\n"
    )
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "all.tex"], cwd=tmp_path, capture_output=True)
    result = subprocess.run(
        ["biber", "--validate-datamodel", "all"], cwd=tmp_path, capture_output=True, text=True, errors="replace"
    )
    assert result.returncode == 0, result.stdout
    problems = [
        line
        for line in result.stdout.splitlines()
        if line.startswith(("WARN", "ERROR"))
        and "Field 'sections' invalid" not in line  # our tags field, which biblatex ignores
        and not ("Entry 'anon-" in line and "Missing mandatory field - one of 'date, year'" in line)
    ]
    assert not problems, problems  # resolved entries have every field their type requires


@pytest.mark.skipif(not HAVE_LATEX and not IN_CI, reason="bibtex not installed")
def test_real_bibtex_processes_every_seed_entry_without_errors(seeds_build, tmp_path):
    shutil.copy(seeds_build / "references.bib", tmp_path / "references.bib")
    result, bbl = run_bibtex(tmp_path, "\\usepackage[T1]{fontenc}\\usepackage{natbib}", "plainnat")
    assert result.returncode == 0 and "error message" not in result.stdout, result.stdout
    assert bbl.count("\\bibitem") == 41


def test_bib_output_that_is_a_link_is_written_through_to_its_target_and_stays_a_link(tmp_path):
    source = tmp_path / "mine.bib"
    source.write_text(
        "@article{smith2020, title = {Linked outputs}, author = {Ann Smith}, year = 2020}\n", encoding="utf-8"
    )
    shared = tmp_path / "shared"
    shared.mkdir()
    target = shared / "refs.bib"
    target.write_text("old contents\n", encoding="utf-8")
    target.chmod(0o640)
    link = tmp_path / "paper" / "references.bib"
    link.parent.mkdir()
    link.symlink_to("../shared/refs.bib")
    result = run_cli("bib", str(source), "-o", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and str(link.readlink()) == "../shared/refs.bib"
    assert "Linked outputs" in target.read_text(encoding="utf-8")
    assert (target.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in shared.iterdir()) == ["refs.bib"]  # no temporary file left beside it


@pytest.mark.parametrize("command", [("bib",), ("export", "--format", "markdown"), ("draft",)])
def test_an_output_that_is_a_pipe_or_a_link_to_dev_null_is_written_into_and_stays_what_it_was(tmp_path, command):
    # A rename over the output put a regular file in place of the pipe and of the link; run as root on
    # /dev/stdout or /dev/null itself, it replaced the machine's device node.
    source = tmp_path / "mine.bib"
    source.write_text("@article{smith2020, title = {Piped outputs}, author = {Ann Smith}, year = 2020}\n")
    link = tmp_path / "discarded.bib"
    link.symlink_to(os.devnull)
    result = run_cli(*command, str(source), "-o", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and stat.S_ISCHR(os.stat(os.devnull).st_mode)
    pipe = tmp_path / "pipe.bib"
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()))
    reader.start()
    result = run_cli(*command, str(source), "-o", str(pipe))
    reader.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(pipe.lstat().st_mode) and b"Piped outputs" in received[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["discarded.bib", "mine.bib", "pipe.bib"]  # no lock


def _keyed(key: str, title: str, section: str) -> str:
    return f"@article{{{key},\n  author = {{Doe, Jane}},\n  title = {{{title}}},\n  year = 2020,\n  sections = {{{section}}},\n}}\n"


MINE = _keyed("x", "Pipeline parallel training of deep networks", "pipeline-parallel")
COAUTHORS = _keyed("x", "Mixture of experts routing for sparse models", "moe")


def test_in_place_the_target_keeps_its_keys_and_an_added_entry_takes_a_new_one(tmp_path):
    # "refs.bib" sorts after "coauthor.bib": the order of the command line decides, not the names.
    (tmp_path / "refs.bib").write_text(MINE, encoding="utf-8")
    (tmp_path / "coauthor.bib").write_text(COAUTHORS, encoding="utf-8")
    result = run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path, check=True)
    text = (tmp_path / "refs.bib").read_text(encoding="utf-8")
    assert text.startswith(MINE)
    assert "@article{xb,\n" in text and text.count("@article{x,") == 1
    assert "coauthor.bib:1: warning [duplicate-key]" in result.stderr
    assert "(the entry at refs.bib:1 keeps it)" in result.stderr
    shutil.copy(tmp_path / "refs.bib", tmp_path / "references.bib")
    bibtex, bbl = run_bibtex(tmp_path)
    assert "Repeated entry" not in bibtex.stdout
    assert "\\bibitem{x}" in bbl and "\\bibitem{xb}" in bbl


def test_of_two_files_sharing_a_key_the_first_named_keeps_it_as_bibtex_would(tmp_path):
    (tmp_path / "zz.bib").write_text(MINE, encoding="utf-8")
    (tmp_path / "aa.bib").write_text(COAUTHORS, encoding="utf-8")
    run_cli("bib", "zz.bib", "aa.bib", "-o", "out.bib", cwd=tmp_path, check=True)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert "@article{x,\n  author = {Doe, Jane},\n  title = {Pipeline" in written
    assert "@article{xb,\n  author = {Doe, Jane},\n  title = {Mixture" in written


# A Zotero "Better BibLaTeX"-style export: BOM, tabs, CRLF, biblatex's date and journaltitle, no year or journal.
ZOTERO_BIBLATEX = (
    "\ufeff@article{lepikhin_gshard_2021,\r\n"
    "\ttitle = {{GShard}: Scaling Giant Models with Conditional Computation and Automatic Sharding},\r\n"
    "\tjournaltitle = {Journal of Machine Learning Research},\r\n"
    "\tauthor = {Lepikhin, Dmitry and Lee, HyoukJoong},\r\n"
    "\tdate = {2021-03},\r\n"
    "\teprinttype = {arxiv},\r\n"
    "\teprint = {2006.16668},\r\n"
    "}\r\n\r\n"
    "@article{fedus_switch_2022,\r\n"
    "\ttitle = {Switch Transformers: Scaling to Trillion Parameter Models},\r\n"
    "\tjournaltitle = {Journal of Machine Learning Research},\r\n"
    "\tauthor = {Fedus, William and Zoph, Barret},\r\n"
    "\tdate = {2022-01-15},\r\n"
    "}\r\n"
)


def test_a_biblatex_export_is_dated_by_its_date_field(tmp_path):
    (tmp_path / "zotero.bib").write_text(ZOTERO_BIBLATEX, encoding="utf-8", newline="")
    result = run_cli("parse", "zotero.bib", "--json", cwd=tmp_path, check=True)
    years = {e["key"]: e["year"] for e in json.loads(result.stdout)}
    assert years == {"lepikhin_gshard_2021": "2021", "fedus_switch_2022": "2022"}


def test_the_bibtex_dialect_writes_biblatex_fields_as_the_fields_bibtex_reads(tmp_path):
    (tmp_path / "zotero.bib").write_text(ZOTERO_BIBLATEX, encoding="utf-8", newline="")
    run_cli("bib", "zotero.bib", "-o", "references.bib", cwd=tmp_path, check=True)
    written = (tmp_path / "references.bib").read_text(encoding="utf-8")
    gshard = written[written.index("@article{lepikhin") :]
    assert "journal = {Journal of Machine Learning Research}" in gshard and "journaltitle" not in gshard
    assert "year = {2021}" in gshard and "month = mar" in gshard and "date =" not in gshard
    assert "archiveprefix = {arXiv}" in gshard and "eprinttype" not in gshard
    switch = written[written.index("@article{fedus") : written.index("@article{lepikhin")]
    assert "year = {2022}" in switch and "date = {2022-01-15}" in switch  # the day has no BibTeX field
    biblatex = run_cli("bib", "zotero.bib", "-o", "-", "--dialect", "biblatex", cwd=tmp_path, check=True).stdout
    assert "date = {2021-03}" in biblatex and "journaltitle = {Journal" in biblatex and "year =" not in biblatex


def written_by_bib(tmp_path, bib: str, *options: str) -> str:
    """``bib`` as refs.bib, and what ``surveytool bib refs.bib -o out.bib OPTIONS`` wrote of it."""
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    run_cli("bib", "refs.bib", "-o", "out.bib", *options, cwd=tmp_path, check=True)
    return (tmp_path / "out.bib").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("date", "month", "date_kept"),
    [
        ("2021", None, False),
        ("2021-12", "dec", False),
        ("2021/2022", None, True),  # a range: the year it starts, the range kept
        ("2021?", None, True),  # uncertain
        ("2021-03~", "mar", True),  # approximate
        ("2021-03-15T10:30", "mar", True),
        ("2021-21", None, True),  # spring: a season is no month
        ("2021-13", None, True),
        ("2021-00", None, True),
    ],
)
def test_every_biblatex_date_gives_the_year_bibtex_reads(tmp_path, date, month, date_kept):
    written = written_by_bib(
        tmp_path,
        "@article{k,\n  title = {Scaling Laws},\n  journal = {JMLR},\n  date = {" + date + "},\n"
        "  eprinttype = {arxiv},\n  eprint = {2001.08361},\n  eprintclass = {cs.LG},\n}\n",
    )
    assert "year = {2021}," in written and ("date = {" + date + "}" in written) == date_kept
    assert re.findall(r"month = (\w+),", written) == ([month] if month else [])
    assert "primaryclass = {cs.LG}" in written and "eprintclass" not in written
    found = run_cli("check", "out.bib", "--checks", "missing-field,year-malformed", cwd=tmp_path)
    assert found.returncode == 0, found.stderr


@pytest.mark.parametrize(
    ("dated", "written"),
    [
        ("year = 2021,\n  month = mar,", "date = {2021-03},"),
        ("year = 2021,\n  month = {12},", "date = {2021-12},"),
        ("year = 2021,", "date = {2021},"),
        ("year = 2021,\n  date = {2021-03-15},", "date = {2021-03-15},"),  # the year is the date's
        ("year = 2020,\n  date = {2021-03-15},", "year = 2020,\n  date = {2021-03-15},"),  # they disagree: both kept
        ("year = 2021,\n  month = {Spring},", "year = 2021,\n  month = {Spring},"),  # no month: kept as written
        ("year = {2021a},", "year = {2021a},"),
        ("year = {in press},", "year = {in press},"),
    ],
)
def test_the_biblatex_dialect_dates_an_entry_by_its_year_and_month_and_loses_neither(tmp_path, dated, written):
    (tmp_path / "refs.bib").write_text(
        "@article{k,\n  title = {Scaling Laws},\n  journal = {JMLR},\n  " + dated + "\n}\n", encoding="utf-8"
    )
    result = run_cli("bib", "refs.bib", "-o", "-", "--dialect", "biblatex", cwd=tmp_path, check=True).stdout
    dates = [line.strip() for line in result.splitlines() if re.match(r"\s*(year|month|date) =", line)]
    assert dates == [line.strip() for line in written.splitlines()]


@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
def test_a_field_the_conversion_fills_is_written_with_its_value_not_the_empty_one_it_replaces(tmp_path, dialect):
    written = written_by_bib(
        tmp_path,
        "@article{bl,\n  title = {Alpha},\n  author = {Doe, Jane},\n  journaltitle = {{J}ournal of {Things}},\n"
        "  journal = {},\n  year = {},\n  month = {},\n  date = {{2021-03}},\n}\n\n"
        "@article{bt,\n  title = {Beta},\n  author = {Doe, Jane},\n  journal = {{J}ournal of {Things}},\n"
        "  journaltitle = {},\n  year = 2021,\n  month = mar,\n  date = {},\n}\n",
        "--dialect",
        dialect,
    )
    journal = "journal" if dialect == "bibtex" else "journaltitle"
    # Each entry's journal, as written, under the dialect's name; its year and month, whichever field had them.
    assert written.count(f"  {journal} = {{{{J}}ournal of {{Things}}}},") == 2, written
    if dialect == "bibtex":
        assert written.count("year = {2021}") + written.count("year = 2021") == 2 and written.count("month = mar") == 2
    else:
        assert written.count("date = {2021-03}") + written.count("date = {{2021-03}}") == 2
    check = run_cli("check", "out.bib", "--dialect", dialect, "--checks", "missing-field", cwd=tmp_path)
    assert check.returncode == 0, check.stderr


def test_a_biblatex_file_written_as_bibtex_and_back_is_dated_as_it_was(tmp_path):
    dates = ["2021-03-15/2021-04", "2021-03-15T10:30:00Z", "2021-03~", "{2021-03-15}", "2021/2022"]
    entries = "".join(
        f"@article{{k{n},\n  title = {{T{n}}},\n  author = {{Doe, Jane}},\n  journaltitle = {{J}},\n  date = {{{d}}},\n}}\n\n"
        for n, d in enumerate(dates)
    )
    (tmp_path / "refs.bib").write_text(entries, encoding="utf-8")
    direct = run_cli("bib", "refs.bib", "-o", "-", "--dialect", "biblatex", cwd=tmp_path, check=True).stdout
    run_cli("bib", "refs.bib", "-o", "bibtex.bib", cwd=tmp_path, check=True)
    back = run_cli("bib", "bibtex.bib", "-o", "-", "--dialect", "biblatex", cwd=tmp_path, check=True).stdout
    assert back == direct and "year =" not in back and "month =" not in back
    for date in dates:
        assert f"date = {{{date}}}," in back


@pytest.mark.skipif(not HAVE_LATEX and not IN_CI, reason="bibtex not installed")
def test_real_bibtex_finds_the_year_and_journal_of_a_biblatex_export_written_as_bibtex(tmp_path):
    (tmp_path / "zotero.bib").write_text(ZOTERO_BIBLATEX, encoding="utf-8", newline="")
    run_cli("bib", "zotero.bib", "-o", "references.bib", cwd=tmp_path, check=True)
    result, bbl = run_bibtex(tmp_path)
    assert "Warning--empty journal" not in result.stdout and "Warning--empty year" not in result.stdout, result.stdout
    assert "2021" in bbl and "Journal of Machine Learning Research" in bbl


def test_check_says_a_missing_field_is_there_under_its_biblatex_name(tmp_path):
    (tmp_path / "zotero.bib").write_text(ZOTERO_BIBLATEX, encoding="utf-8", newline="")
    result = run_cli("check", "zotero.bib", cwd=tmp_path)
    missing = [line for line in result.stdout.splitlines() + result.stderr.splitlines() if "[missing-field]" in line]
    assert (
        len(missing) == 2
        and "it has biblatex's journaltitle, date" in missing[0]
        and "--dialect biblatex" in missing[0]
    )
    biblatex = run_cli("check", "zotero.bib", "--dialect", "biblatex", cwd=tmp_path)
    assert "[missing-field]" not in biblatex.stdout + biblatex.stderr


@pytest.mark.parametrize("date", ["-0044", "19XX", "../2021-03"])
def test_a_date_with_no_year_bibtex_could_read_is_not_sent_to_a_conversion_that_cannot_help(tmp_path, date):
    (tmp_path / "refs.bib").write_text(
        "@article{k,\n  title = {T},\n  author = {Doe, Jane},\n  journal = {J},\n  date = {" + date + "},\n}\n",
        encoding="utf-8",
    )
    found = run_cli("check", "refs.bib", "--checks", "missing-field", "--json", cwd=tmp_path)
    [finding] = json.loads(found.stdout)
    assert finding["hint"] == (
        f"check with --dialect biblatex if you use biblatex; else add the year its date '{date}' means"
    )


def test_an_approximate_date_given_by_a_string_macro_keeps_its_mark(tmp_path):
    written = written_by_bib(
        tmp_path,
        '@string{spring = "2021-03~"}\n\n@article{k,\n  title = {T},\n  author = {Doe, Jane},\n  journal = {J},\n'
        "  date = spring,\n}\n",
    )
    assert "year = {2021}," in written and "month = mar," in written and "date = spring," in written


def test_a_biblatex_date_merged_with_a_copy_that_has_the_year_still_gives_its_month(tmp_path):
    title = "GShard: Scaling Giant Models with Conditional Computation and Automatic Sharding"
    (tmp_path / "zotero.bib").write_text(
        f"@article{{z,\n  title = {{{title}}},\n  journaltitle = {{JMLR}},\n  date = {{2021-03}},\n}}\n",
        encoding="utf-8",
    )
    (tmp_path / "coauthor.bib").write_text(
        f"@article{{c,\n  title = {{{title}}},\n  journal = {{JMLR}},\n  year = 2021,\n}}\n", encoding="utf-8"
    )
    run_cli("bib", "zotero.bib", "coauthor.bib", "--merge-duplicates", "-o", "out.bib", cwd=tmp_path, check=True)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert "month = mar," in written and "date =" not in written and written.count("year =") == 1


ZOTERO_BIBLATEX_TYPES = """@report{r, author = {A, B}, title = {Rep}, institution = {MIT}, type = {techreport}, date = {2020}}
@thesis{t, author = {C, D}, title = {Thes}, institution = {ETH}, type = {phdthesis}, date = {2019}}
@thesis{m, author = {E, F}, title = {Mas}, institution = {ETH}, type = {mathesis}, date = {2019}}
@online{o, author = {G, H}, title = {Web}, url = {https://example.org}, date = {2021}}
@software{s, author = {I, J}, title = {Soft}, howpublished = {GitHub}, date = {2022}}
"""


@pytest.mark.skipif(not HAVE_LATEX and not IN_CI, reason="bibtex not installed")
def test_biblatex_entry_types_are_written_as_the_bibtex_types_a_style_defines(tmp_path):
    written = written_by_bib(tmp_path, ZOTERO_BIBLATEX_TYPES)
    types = {key: kind for kind, key in re.findall(r"^@(\w+)\{(\w+),", written, re.M)}
    assert types == {"m": "mastersthesis", "o": "misc", "r": "techreport", "s": "misc", "t": "phdthesis"}
    assert "type =" not in written and written.count("school = {ETH}") == 2 and "institution = {MIT}" in written
    (tmp_path / "references.bib").write_text(written, encoding="utf-8")
    result, bbl = run_bibtex(tmp_path)
    assert "isn't style-file defined" not in result.stdout and result.returncode == 0, result.stdout
    assert "PhD thesis, ETH" in bbl and "Master's thesis, ETH" in bbl and "Technical report, MIT" in bbl
    assert written_by_bib(tmp_path, ZOTERO_BIBLATEX_TYPES, "--dialect", "biblatex").count("@thesis{") == 2


def test_entries_on_one_line_are_told_apart_by_their_keys_not_their_line(tmp_path):
    # A one-line .bib, or CSL-JSON minified by pandoc or jq -c: every entry starts on line 1.
    line = "".join(
        f"@article{{{key}, author={{A, B}}, title={{Paper {n}}}, journal={{J}}, year=202{n}}} "
        for n, key in enumerate(("a1", "b1", "c1"))
    )
    (tmp_path / "one.bib").write_text(line + "\n", encoding="utf-8")
    items = [{"id": key, "type": "article-journal", "title": f"Item {key}"} for key in ("x", "y")]
    (tmp_path / "one.json").write_text(json.dumps(items, separators=(",", ":")), encoding="utf-8")
    result = run_cli("bib", "one.bib", "one.json", "-o", "out.bib", cwd=tmp_path, check=True)
    assert "duplicate-key" not in result.stderr, result.stderr
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert all(f"{{{key}," in written for key in ("a1", "b1", "c1", "x", "y"))
    (tmp_path / "dup.bib").write_text(line.replace("{b1,", "{a1,") + "\n", encoding="utf-8")
    result = run_cli("bib", "dup.bib", "-o", "dup-out.bib", cwd=tmp_path, check=True)
    [warning] = [w for w in result.stderr.splitlines() if "duplicate-key" in w]
    assert "entry key 'a1' is used again here" in warning and "under the new key 'a1b'" in warning
    assert "@article{a1b," in (tmp_path / "dup-out.bib").read_text(encoding="utf-8")


def test_a_key_with_a_space_is_written_under_a_new_key_that_bibtex_reads_and_the_message_names_it(tmp_path):
    (tmp_path / "spaced.bib").write_text(
        "@proceedings{Pipeline parallel JavaGrande2002,\n  title = {Java Grande},\n  year = 2002,\n}\n",
        encoding="utf-8",
    )
    result = run_cli("bib", "spaced.bib", "-o", "references.bib", cwd=tmp_path)
    [renamed] = [line for line in result.stderr.splitlines() if "does not read in a key" in line]
    new_key = re.search(r"under the new key '([^']+)'", renamed).group(1)
    written = (tmp_path / "references.bib").read_text(encoding="utf-8")
    assert f"@proceedings{{{new_key}," in written and "Pipeline parallel" not in written
    if HAVE_LATEX or IN_CI:
        bibtex, bbl = run_bibtex(tmp_path)
        assert "error message" not in bibtex.stdout and f"\\bibitem{{{new_key}}}" in bbl, bibtex.stdout


def test_the_blocks_kept_from_a_crlf_file_are_written_with_the_line_ends_of_the_rest(tmp_path):
    # JabRef on Windows: its metadata comment, an @string and an @preamble kept their CRs in bib -o's LF file.
    library = (
        '@preamble{"\\providecommand{\\noopsort}[1]{}"}\r\n\r\n@string{icml = {International Conference\r\n'
        "  on Machine Learning}}\r\n\r\n@article{a1,\r\n  title = {Pipeline parallel training},\r\n"
        "  journal = icml,\r\n  year = {2020},\r\n}\r\n\r\n"
        "@Comment{jabref-meta: databaseType:bibtex;}\r\n\r\n@Comment{jabref-meta: grouping:\r\n0 AllEntriesGroup:;\r\n}\r\n"
    )
    (tmp_path / "jabref.bib").write_bytes(library.encode("utf-8"))
    run_cli("bib", "jabref.bib", "-o", "out.bib", cwd=tmp_path, check=True)
    written = (tmp_path / "out.bib").read_bytes()
    assert b"\r" not in written
    assert b"@Comment{jabref-meta: grouping:\n0 AllEntriesGroup:;\n}" in written
    assert b"@string{icml = {International Conference\n  on Machine Learning}}" in written


def test_dev_stdout_sent_to_a_file_is_appended_to_and_gets_no_lock_beside_it(tmp_path):
    # /dev/stdout led to the shell's file: the .bib was renamed over it (a >> log lost its lines) and the lock
    # file went into /dev.
    source = tmp_path / "mine.bib"
    source.write_text("@article{smith2020, title = {Logged outputs}, author = {Ann Smith}, year = 2020}\n")
    log = tmp_path / "log.txt"
    log.write_text("earlier lines\n")
    (tmp_path / "stdout").symlink_to("/dev/stdout")
    with open(log, "ab") as stream:
        done = subprocess.run(
            [sys.executable, "-m", "surveytool", "bib", str(source), "-o", "stdout", "-q"],
            cwd=tmp_path,
            stdout=stream,
            check=False,
        )
    assert done.returncode == 0
    written = log.read_text()
    assert written.startswith("earlier lines\n") and "Logged outputs" in written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.txt", "mine.bib", "stdout"]


def test_the_rekey_command_a_merged_key_s_warning_gives_rewrites_its_citations_as_given(tmp_path):
    gpipe = (
        "@inproceedings{{{key},\n  title = {{GPipe: Efficient Training of Giant Neural Networks using Pipeline "
        "Parallelism}},\n  author = {{Huang, Yanping and Cheng, Youlong}},\n  booktitle = {{NeurIPS}},\n"
        "  year = {{2019}},\n}}\n"
    )
    (tmp_path / "my refs.bib").write_text(gpipe.format(key="huang_gpipe_2019"), encoding="utf-8", newline="\r\n")
    (tmp_path / "zotero.bib").write_text(gpipe.format(key="huang_gpipe_2019-1"), encoding="utf-8")
    result = run_cli("bib", "my refs.bib", "zotero.bib", "--merge-duplicates", "-o", "out.bib", cwd=tmp_path)
    [hint] = [line for line in result.stderr.splitlines() if "huang_gpipe_2019-1' is merged" in line]
    command = re.search(r"`surveytool (rekey [^`]*)`", hint)
    assert command, hint
    (tmp_path / "paper.tex").write_text("See \\cite{huang_gpipe_2019-1}.\n", encoding="utf-8")
    args = shlex.split(command.group(1).replace("FILE", "paper.tex"))
    run_cli(*args, cwd=tmp_path, check=True)
    assert (tmp_path / "paper.tex").read_text(encoding="utf-8") == "See \\cite{huang_gpipe_2019}.\n"
