"""Magic comments an editor reads at the top of a chapter (TeXShop, TeXstudio, LaTeX Workshop) and the Local
Variables block Emacs reads at its end are no edits: a rebuild keeps them where they are, byte for byte."""

import pytest
from helpers import run_cli

from surveytool.output.editor_lines import editor_lines
from surveytool.output.notes_regions import edited_outside_regions, regions, stamp

LOREM = "@misc{lorem2020, title = {Lorem Ipsum Dolor Sit Amet}, author = {Ann Lee}, year = 2020}\n"
IPSUM = "@misc{ipsum2021, title = {Ipsum Dolor Sit Amet Again}, author = {Bo Chen}, year = 2021}\n"
MARKER = "% surveytool: begin notes unclassified\n"
NOTES = "Both \\citet{lorem2020} and I disagree.\n"
MAGIC = (
    '% -*- mode: latex; TeX-master: "main" -*-\n'  # Emacs's file variables line
    "% !TEX root = main.tex\n%!TEX program = pdflatex\n% !TeX spellcheck = en_GB\n\n"
)
EMACS = '\n%%% Local Variables:\n%%% mode: latex\n%%% TeX-master: "main"\n%%% End:\n'


def built(tmp_path):
    source = tmp_path / "lorem.bib"
    source.write_text(LOREM, encoding="utf-8")
    out = tmp_path / "out"
    run_cli("build", str(source), "--out", str(out), check=True)
    return source, out / "related_work.tex"


@pytest.mark.parametrize("newline", [b"\n", b"\r\n"], ids=["lf", "crlf"])
def test_magic_comments_and_a_local_variables_block_are_kept_byte_for_byte_by_a_rebuild(tmp_path, newline):
    source, chapter = built(tmp_path)
    generated = chapter.read_text(encoding="utf-8").replace(MARKER, MARKER + NOTES)
    chapter.write_bytes((MAGIC + generated + EMACS).encode("utf-8").replace(b"\n", newline))
    head, tail = MAGIC.encode().replace(b"\n", newline), EMACS.encode().replace(b"\n", newline)
    source.write_text(LOREM + IPSUM, encoding="utf-8")  # the chapter changes: a paper is added
    again = run_cli("build", str(source), "--out", str(tmp_path / "out"))
    assert again.returncode == 0, again.stderr
    rebuilt = chapter.read_bytes()
    assert rebuilt.startswith(head + b"% surveytool: checksum ")
    assert rebuilt.endswith(b"\\end{figure}" + newline + tail)
    assert b"ipsum2021" in rebuilt and (MARKER + NOTES).encode().replace(b"\n", newline) in rebuilt
    assert not (tmp_path / "out" / "related_work.tex.bak").exists()
    # The checksum leaves them out: the next rebuild neither refuses nor moves them.
    assert run_cli("build", str(source), "--out", str(tmp_path / "out")).returncode == 0
    assert chapter.read_bytes() == rebuilt


@pytest.mark.parametrize(
    ("above", "below"),
    [
        ("% TEX root = main.tex\n", ""),  # no "!": a comment of the author's
        ("% mode: latex -*-\n", ""),  # one "-*-": no file variables line
        ("% my own remark\n% !TEX root = main.tex\n", ""),
        ("", "%%% Local Variables:\n%%% mode: latex\n%%% End:\nMore text.\n"),  # text after the block
        ("", "%%% Local Variables:\n% mode: latex\n%%% End:\n"),  # a line without the block's prefix
        ("", "%%% Local Variables:\n%%% mode: latex\n"),  # no End: line
        ("", "Local Variables:\nEnd:\n"),  # not in comments: LaTeX would print it
    ],
)
def test_other_lines_above_or_below_the_chapter_are_still_refused_as_edits(tmp_path, above, below):
    source, chapter = built(tmp_path)
    edited = above + chapter.read_text(encoding="utf-8") + below
    chapter.write_text(edited, encoding="utf-8")
    refused = run_cli("build", str(source), "--out", str(tmp_path / "out"))
    assert refused.returncode == 2
    assert "was edited outside its notes regions" in refused.stderr
    assert chapter.read_text(encoding="utf-8") == edited


def test_a_magic_comment_inside_the_chapter_is_an_edit_and_one_at_the_top_is_not():
    text = stamp("% Generated.\n% surveytool: begin notes a\nmine\n% surveytool: end notes a\n\\section{A}\n")
    assert not edited_outside_regions("% !TEX root = main.tex\n" + text)
    lines = text.split("\n")
    assert edited_outside_regions("\n".join([*lines[:2], "% !TEX root = main.tex", *lines[2:]]))


@pytest.mark.parametrize("prefix", ["%", "%%%", "  % "])
def test_a_local_variables_block_is_read_with_the_prefix_its_first_line_has(prefix):
    block = f"{prefix} Local Variables: \n{prefix} mode: latex\n{prefix} End: \n\n"
    text = stamp("% Generated.\n% surveytool: begin notes a\n% surveytool: end notes a\n") + "\n" + block
    assert editor_lines(text).tail == "\n" + block
    assert not edited_outside_regions(text)


def test_stamping_puts_the_checksum_below_the_magic_comments_and_the_notes_stay_notes():
    text = MAGIC + "% Generated.\n% surveytool: begin notes a\nmine\n% surveytool: end notes a\n" + EMACS
    stamped = stamp(text)
    assert stamped.startswith(MAGIC + "% surveytool: checksum ") and stamped.endswith(EMACS)
    assert regions(stamped) == {"a": "mine\n"} and stamp(stamped) == stamped


def test_a_magic_comment_below_the_checksum_line_is_refused_with_a_hint_to_move_it_above(tmp_path):
    source, chapter = built(tmp_path)
    first, rest = chapter.read_text(encoding="utf-8").split("\n", 1)
    chapter.write_text(f"{first}\n% !TEX root = main.tex\n{rest}", encoding="utf-8")
    refused = run_cli("build", str(source), "--out", str(tmp_path / "out"))
    assert refused.returncode == 2 and ":2:" in refused.stderr
    assert "kept above the '% surveytool: checksum' line: move it there" in refused.stderr
    chapter.write_text(f"{first}\n% a remark of mine\n{rest}", encoding="utf-8")
    assert "move your text between" in run_cli("build", str(source), "--out", str(tmp_path / "out")).stderr
