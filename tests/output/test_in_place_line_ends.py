"""`bib --in-place` and `check --fix` write the lines they add with the file's own line ending: LF, CRLF or
old Mac's lone CR, and in a file that mixes them, the ending of the entry they edit or of most lines."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from surveytool.cli.app import app


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.output


NEW = "@article{n2,\n  author = {Roe, R},\n  title = {Mixture of experts},\n  year = 2021,\n}\n"
MINE = (
    "@article{cr1,\n  author = {Doe, Jane},\n  title = {ZeRO memory optimizations toward training trillion parameter"
    " models},\n  year = {2020},\n}\n\n@article{v,\n  title = {Sparse experts},\n  note = {},\n  year = 2020,\n"
    "  sections = {MoE},\n}\n"
)
#: What `bib --in-place mine.bib new.bib` makes of MINE: a tags line under the key line, a tag made its id,
#: and the new entry after a blank line.
MINE_TAGGED = (
    "@article{cr1,\n  sections = {memory,model-parallel},\n  author = {Doe, Jane},\n  title = {ZeRO memory "
    "optimizations toward training trillion parameter models},\n  year = {2020},\n}\n\n@article{v,\n  title = "
    "{Sparse experts},\n  note = {},\n  year = 2020,\n  sections = {moe},\n}\n\n@article{n2,\n  author = {Roe, R},\n"
    "  title = {Mixture of experts},\n  year = 2021,\n  sections = {moe},\n}\n"
)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_bib_in_place_writes_added_lines_with_the_file_s_own_line_ending(tmp_path: Path, newline: str):
    mine, new = tmp_path / "mine.bib", tmp_path / "new.bib"
    mine.write_bytes(MINE.replace("\n", newline).encode())
    new.write_text(NEW, encoding="utf-8")  # another file's endings are not this file's
    run("bib", "--in-place", str(mine), str(new))
    assert mine.read_bytes() == MINE_TAGGED.replace("\n", newline).encode()


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_check_fix_removes_an_empty_field_s_whole_line_whatever_the_line_ending(tmp_path: Path, newline: str):
    mine = tmp_path / "mine.bib"
    mine.write_bytes(MINE.replace("\n", newline).encode())
    run("check", "--fix", "--checks", "empty-field,tag-variant", str(mine))
    fixed = MINE.replace("  note = {},\n", "").replace("{MoE}", "{moe}")
    assert mine.read_bytes() == fixed.replace("\n", newline).encode()


def test_in_a_file_that_mixes_endings_a_field_takes_its_entry_s_and_a_new_entry_the_file_s(tmp_path: Path):
    # A file mixes endings when entries were pasted from elsewhere. A line added to an entry takes the ending
    # of that entry's lines, so the entry stays as its editor wrote it (and its diff is one line); a new entry
    # belongs to the whole file and takes the ending most of its lines have.
    first, second = MINE.split("\n\n")
    mine, new = tmp_path / "mine.bib", tmp_path / "new.bib"
    mine.write_bytes((first.replace("\n", "\r") + "\n\n" + second.replace("\n", "\r\n")).encode())
    new.write_text(NEW, encoding="utf-8")
    run("bib", "--in-place", str(mine), str(new))
    tagged_first, tagged_second, added = MINE_TAGGED.split("\n\n")
    expected = tagged_first.replace("\n", "\r") + "\n\n" + tagged_second.replace("\n", "\r\n")
    assert mine.read_bytes() == (expected + "\r\n\r\n" + added.replace("\n", "\r\n")).encode()


@pytest.mark.parametrize("newline", ["\r\n", "\r"], ids=["CRLF", "CR"])
def test_findings_name_the_same_lines_whatever_the_line_ending(tmp_path: Path, newline: str):
    # Lines counted by LF alone put every entry of an old Mac file on line 1, and two keys read at one place
    # looked like one key used twice (a false duplicate-key).
    (tmp_path / "lf").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "lf" / "mine.bib").write_text(MINE, encoding="utf-8")
    (tmp_path / "other" / "mine.bib").write_bytes(MINE.replace("\n", newline).encode())
    found = [run("check", str(tmp_path / folder / "mine.bib")).replace(folder, "") for folder in ("lf", "other")]
    assert found[0] == found[1]
    assert "mine.bib:11: warning [tag-variant]" in found[1] and "duplicate-key" not in found[1]  # its tags field
