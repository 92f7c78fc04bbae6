"""A chapter saved with old Mac (CR) or Windows (CRLF) line endings is read as one saved with Unix ones: its notes'
citations are checked, and the characters they use are declared to pdfLaTeX."""

import pytest
from helpers import compile_latex, requires_latex, run_cli

LOREM = "@misc{lorem2020, title = {Lorem Ipsum Dolor Sit Amet}, author = {Ann Lee}, year = 2020}\n"
NOTES = "The \u03b1 of \\citet{lorem2020} differs from \\citet{gone1999}.\n"


def saved_with(tmp_path, newline: bytes):
    source = tmp_path / "lorem.bib"
    source.write_text(LOREM, encoding="utf-8")
    out = tmp_path / "out"
    assert run_cli("build", str(source), "--out", str(out)).returncode == 0
    chapter = out / "related_work.tex"
    marker = "% surveytool: begin notes unclassified\n"
    text = chapter.read_text(encoding="utf-8").replace(marker, marker + NOTES)
    chapter.write_bytes(text.encode("utf-8").replace(b"\n", newline))
    line = text[: text.index(NOTES)].count("\n") + 1
    return source, out, line


@pytest.mark.parametrize("newline", [b"\r", b"\r\n"], ids=["cr", "crlf"])
def test_a_citation_in_notes_saved_with_other_line_endings_that_leads_nowhere_is_named_with_its_line(tmp_path, newline):
    source, out, line = saved_with(tmp_path, newline)
    again = run_cli("build", str(source), "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert f"related_work.tex:{line}: your notes cite 'gone1999', which is not in the bibliography" in again.stderr
    assert "cite 'lorem2020'" not in again.stderr


@requires_latex
@pytest.mark.parametrize("newline", [b"\r", b"\r\n"], ids=["cr", "crlf"])
def test_a_character_in_notes_saved_with_other_line_endings_is_declared_and_the_chapter_compiles(tmp_path, newline):
    source, out, _ = saved_with(tmp_path, newline)
    assert run_cli("build", str(source), "--out", str(out)).returncode == 0
    assert "\\DeclareUnicodeCharacter{03B1}" in (out / "main.tex").read_text(encoding="utf-8")
    compiled = compile_latex(out)
    assert compiled.returncode == 0, compiled.stdout[-3000:]


IPSUM = "@misc{ipsum2021, title = {Consectetur Adipiscing Elit}, author = {Bo Chen}, year = 2021}\n"
PASTED = b"Pasted from Word on Windows,\r\nline two.\r\n"


def rebuilt_with_another_paper(source, out):
    source.write_text(LOREM + IPSUM, encoding="utf-8")
    again = run_cli("build", str(source), "--out", str(out))
    assert again.returncode == 0, again.stderr
    written = (out / "related_work.tex").read_bytes()
    assert b"ipsum2021" in written
    return written


def test_a_chapter_saved_all_in_crlf_is_rebuilt_all_in_crlf(tmp_path):
    source, out, _ = saved_with(tmp_path, b"\r\n")
    written = rebuilt_with_another_paper(source, out)
    assert written.count(b"\n") == written.count(b"\r\n") > 0
    assert NOTES.encode().replace(b"\n", b"\r\n") in written


@pytest.mark.parametrize("most", [b"\n", b"\r\n"], ids=["lf-file", "crlf-file"])
def test_notes_with_line_ends_of_their_own_keep_them_and_generated_lines_take_the_files(tmp_path, most):
    source, out, _ = saved_with(tmp_path, most)
    chapter = out / "related_work.tex"
    other = b"\n" if most == b"\r\n" else b"\r\n"
    pasted = PASTED.replace(b"\r\n", other)
    notes = NOTES.encode().replace(b"\n", most)
    chapter.write_bytes(chapter.read_bytes().replace(notes, notes + pasted))
    written = rebuilt_with_another_paper(source, out)
    assert notes + pasted in written
    lines = written.replace(pasted, b"").splitlines(keepends=True)
    assert all(line.endswith(most) and not line.endswith(b"\r" + most) for line in lines)
