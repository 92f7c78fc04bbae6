"""Files that are surely no source are refused by name, not read as a paper list."""

import os

import pytest
from helpers import run_cli

from surveytool.errors import InputError
from surveytool.sources.read import read_source, read_sources

PAPER = "\\documentclass{article}\n\\begin{document}\nAs \\cite{smith2020} shows.\n\\end{document}\n"


@pytest.mark.parametrize(
    ("command", "name", "hint"),
    [
        ("check", "paper.tex", "(did you mean --tex paper.tex?)"),
        ("parse", "tax.toml", "(did you mean --taxonomy tax.toml, or --config tax.toml?)"),
        ("build", "my.sty", "(give a .txt, .bib, .ids or CSL-JSON file)"),
        ("tag", "thesis.CLS", "(give a .txt, .bib, .ids or CSL-JSON file)"),
    ],
)
def test_a_latex_or_toml_file_given_as_a_source_is_refused_with_a_hint(tmp_path, command, name, hint):
    (tmp_path / name).write_text(PAPER, encoding="utf-8")
    result = run_cli(command, name, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith(f"{name}: error: is a ") and result.stderr.rstrip().endswith(hint)
    assert len(result.stderr.splitlines()) == 1 and not result.stdout


def test_kind_list_still_reads_such_a_file_as_a_list(tmp_path):
    path = tmp_path / "notes.tex"
    path.write_text(PAPER, encoding="utf-8")
    with pytest.raises(InputError):
        read_source(path)
    assert len(read_source(path, kind="list").papers) == 1
    result = run_cli("parse", "--kind", "list", "notes.tex", cwd=tmp_path)
    assert result.returncode == 0 and "notes.tex:1" in result.stdout


def test_an_id_in_brackets_with_a_full_stop_after_it_is_the_same_work_as_the_bare_id(tmp_path):
    ids = tmp_path / "mine.ids"
    ids.write_text(
        '10.1000/xyz123\n<https://doi.org/10.1000/xyz123>.\narXiv:2101.03961v2.\n"arxiv.org/abs/2101.03961".\n',
        encoding="utf-8",
    )
    result = read_source(ids)
    assert not result.findings
    assert [dict(p.fields) for p in result.papers] == [
        {"doi": "10.1000/xyz123"},
        {"doi": "10.1000/xyz123"},
        {"eprint": "2101.03961v2", "archiveprefix": "arXiv"},
        {"eprint": "2101.03961", "archiveprefix": "arXiv"},
    ]


def test_a_file_named_twice_through_a_link_or_a_hard_link_is_read_once(tmp_path):
    # Read twice, each entry was a duplicate-key "identical copy" of itself, and the hint said to delete the copy.
    (tmp_path / "refs.bib").write_text("@misc{a,\n  title = {Sparse experts},\n  year = 2021,\n}\n", encoding="utf-8")
    (tmp_path / "link.bib").symlink_to("refs.bib")
    os.link(tmp_path / "refs.bib", tmp_path / "hard.bib")
    read = read_sources([(tmp_path / n, n) for n in ("refs.bib", "link.bib", "hard.bib", "./refs.bib")])
    assert [(p.key, str(p.sources[0])) for p in read.papers] == [("a", "refs.bib:1")]
    result = run_cli("check", "refs.bib", "link.bib", "hard.bib", "--checks", "duplicate-key", cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (0, "no problems found\n", "")
