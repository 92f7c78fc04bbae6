"""The author's notes in any script compile with `build --pdf`, and LaTeX's errors about them read as written."""

import re

import pytest
from helpers import requires_latex, run_cli

from surveytool.output.latex_log import log_text

ENTRY = "@misc{lee2020, title = {Pipeline Parallel Training}, author = {Ann Lee}, year = 2020}\n"


def built_with_notes(tmp_path, prose, pdf=True):
    (tmp_path / "refs.bib").write_text(ENTRY, encoding="utf-8")
    run_cli("build", "refs.bib", "--out", "out", cwd=tmp_path, check=True)
    chapter = tmp_path / "out" / "related_work.tex"
    marker = "% surveytool: begin notes introduction\n"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace(marker, marker + prose), encoding="utf-8")
    return run_cli("build", "refs.bib", "--out", "out", *(["--pdf"] if pdf else []), cwd=tmp_path)


@requires_latex
def test_notes_in_chinese_greek_and_with_accents_compile_and_are_kept(tmp_path):
    prose = "大模型训练 is costly: $α ≤ β$, a naïve façade — Müller's ∑.\n"
    result = built_with_notes(tmp_path, prose)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "main.pdf").exists()
    main = (tmp_path / "out" / "main.tex").read_text(encoding="utf-8")
    assert "\\DeclareUnicodeCharacter{5927}{\\stchar{5927}}" in main  # no glyph in pdfLaTeX: a visible marker
    assert "\\DeclareUnicodeCharacter{03B1}" in main and "\\DeclareUnicodeCharacter{00EF}" in main
    assert prose in (tmp_path / "out" / "related_work.tex").read_text(encoding="utf-8")


@requires_latex
def test_an_error_in_the_notes_is_reported_in_their_own_script(tmp_path):
    result = built_with_notes(tmp_path, "\\begin{引用}x\\end{引用}\n")
    assert result.returncode == 1
    assert "LaTeX Error: Environment 引用 undefined." in result.stderr


def test_a_log_reads_as_utf_8_with_any_other_byte_as_latin_1():
    assert log_text("Environment 引用 undefined, é".encode() + b" \xe9 \xe5\xa4\n") == (
        "Environment 引用 undefined, é é å¤\n"
    )


@requires_latex
def test_a_package_the_notes_need_goes_in_main_tex_s_preamble_notes_and_survives_rebuilds(tmp_path):
    comment = "Kept.\n\\begin{comment}\nA draft sentence, not printed.\n\\end{comment}\n"
    assert built_with_notes(tmp_path, comment).returncode == 1  # comment.sty is not loaded by main.tex itself
    main = tmp_path / "out" / "main.tex"
    marker = "% surveytool: begin notes preamble\n"
    main.write_text(main.read_text(encoding="utf-8").replace(marker, marker + "\\usepackage{comment}\n"), "utf-8")
    rebuilt = run_cli("build", "refs.bib", "--out", "out", "--pdf", cwd=tmp_path)
    assert rebuilt.returncode == 0, rebuilt.stderr
    run_cli("build", "refs.bib", "--out", "out", "--dialect", "biblatex", cwd=tmp_path, check=True)
    assert f"{marker}\\usepackage{{comment}}\n" in main.read_text(encoding="utf-8")


@requires_latex
def test_a_file_the_notes_input_that_is_not_there_is_named_at_its_line_in_the_chapter(tmp_path):
    result = built_with_notes(tmp_path, "As shown in \\input{nothere} the table.\n")
    assert result.returncode == 1
    lines = (tmp_path / "out" / "related_work.tex").read_text(encoding="utf-8").splitlines()
    line = lines.index("As shown in \\input{nothere} the table.") + 1
    # It was placed in main.tex at the chapter's line number, as a package to install.
    assert f"out/related_work.tex:{line}: the file nothere.tex is not found (check its name" in result.stderr
    assert "install it" not in result.stderr


@requires_latex
def test_a_latex_error_longer_than_tex_s_log_lines_is_reported_whole(tmp_path):
    result = built_with_notes(tmp_path, "Points: \\begin{enumerate}\\item one\n")
    assert result.returncode == 1
    # TeX wraps its log at 79 characters: the message was cut after "ended by \end{docu".
    assert re.search(
        r"LaTeX Error: \\begin\{enumerate\} on input line \d+ ended by \\end\{document\}\.$", result.stderr, re.M
    )


@requires_latex
@pytest.mark.parametrize(
    ("notes", "said"),
    [
        ("Some {\\bfseries bold words.\n", "a '{{' opened on line {line}"),
        ("\\iftrue Kept.\n", "the \\iftrue on line {line}"),
    ],
)
def test_a_brace_or_conditional_the_notes_leave_open_is_reported(tmp_path, notes, said):
    # pdflatex writes the PDF and says only in its log that the document ended inside it: the build said nothing.
    result = built_with_notes(tmp_path, notes)
    assert result.returncode == 1 and (tmp_path / "out" / "main.pdf").exists()
    line = (tmp_path / "out" / "related_work.tex").read_text(encoding="utf-8").splitlines().index(notes.strip()) + 1
    said = said.format(line=line)
    assert f"out/main.log: {said} of the file TeX was then reading is never closed" in result.stderr


def test_a_suggestion_the_author_copied_into_the_notes_is_theirs_and_not_counted_as_left_out(tmp_path):
    # The chapter says to move what one keeps of a draft --llm paragraph into the notes; a build counted the
    # copied header line as a suggestion it left out ("1 paragraph(s) suggested by draft --llm left out").
    copied = "% surveytool: suggested by draft --llm from this theme's papers only\nGPipe splits the model.\n"
    result = built_with_notes(tmp_path, copied, pdf=False)
    assert result.returncode == 0, result.stderr
    assert "suggested by draft --llm left out" not in result.stderr + result.stdout
    assert copied in (tmp_path / "out" / "related_work.tex").read_text(encoding="utf-8")
