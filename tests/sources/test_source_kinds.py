"""Files that are surely no source are refused by name, not read as a paper list."""

import pytest
from helpers import run_cli

from surveytool.errors import InputError
from surveytool.sources.read import read_source

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
