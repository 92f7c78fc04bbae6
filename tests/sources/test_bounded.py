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


def test_a_loop_of_symbolic_links_is_named_as_one_with_a_hint_that_helps(tmp_path):
    (tmp_path / "b.bib").symlink_to("a.bib")
    (tmp_path / "a.bib").symlink_to("b.bib")
    result = run_cli("check", "a.bib", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        "a.bib: error: is a symbolic link that leads back to itself "
        "(point the link at the file; ls -l shows where each link leads)\n"
    )


def test_a_link_to_a_file_that_is_gone_says_so_and_where_it_pointed(tmp_path):
    (tmp_path / "shared.bib").symlink_to("../moved/refs.bib")
    for command in (["check"], ["parse"], ["bib", "-o", "out.bib"], ["bib", "--in-place"]):
        result = run_cli(*command, "shared.bib", cwd=tmp_path)
        assert result.returncode == 2
        assert result.stderr == (
            "shared.bib: error: is a symbolic link to ../moved/refs.bib, which does not exist "
            "(point the link at the file, or name the file itself)\n"
        ), command
