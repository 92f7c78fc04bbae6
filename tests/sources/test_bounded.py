"""Inputs that are not files: each gets one line naming it, never a traceback."""

import pytest

from tests.helpers import run_cli


@pytest.mark.parametrize(
    "where",
    [
        ["build", "--out", "OUT", "FOLDER"],
        ["bib", "-o", "-", "FOLDER"],
        ["build", "--out", "OUT", "--taxonomy", "FOLDER", "LIST"],
        ["build", "--out", "OUT", "--catalog", "FOLDER", "LIST"],
    ],
)
def test_a_folder_given_as_a_file_is_one_line_naming_it(tmp_path, where):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "a.bib").write_text("@misc{a, title={A}}\n")
    paper_list = tmp_path / "list.txt"
    paper_list.write_text("Related papers for X\n\n1. We train a large model with pipelines ...\n")
    args = [{"FOLDER": str(folder), "OUT": str(tmp_path / "out"), "LIST": str(paper_list)}.get(a, a) for a in where]
    result = run_cli(*args)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert f"{folder}: " in result.stderr and "is a directory" in result.stderr
    assert len(result.stderr.strip().splitlines()) <= 2
