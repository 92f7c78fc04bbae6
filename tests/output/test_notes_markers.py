"""A notes marker line deleted or changed by hand: the refusal names that line and says how to mend it."""

import pytest
from helpers import run_cli

from surveytool.output.notes_regions import regions

ENTRY = "@misc{lee2020, title = {Pipeline Parallel Training}, author = {Ann Lee}, year = 2020}\n"
BEGIN, END = "% surveytool: begin notes introduction\n", "% surveytool: end notes introduction\n"
COMMENTED = "\\begin{comment}\n% surveytool: end notes introduction\n\\end{comment}\n"


@pytest.mark.parametrize(
    ("edit", "marker", "says"),
    [
        ((END, ""), BEGIN, "has no '% surveytool: end notes introduction' line below it"),
        ((BEGIN, ""), END, "has no '% surveytool: begin notes introduction' line above it"),
        ((BEGIN, BEGIN.replace("introduction", "intro")), BEGIN.replace("introduction", "intro"), "not of 'intro'"),
        ((END, COMMENTED + END), END, "comes after its region ended on line"),
    ],
    ids=["end deleted", "begin deleted", "id changed", "end line in a comment"],
)
def test_a_marker_line_deleted_or_changed_is_named_with_how_to_mend_it(tmp_path, edit, marker, says):
    (tmp_path / "refs.bib").write_text(ENTRY, encoding="utf-8")
    run_cli("build", "refs.bib", "--out", "out", cwd=tmp_path, check=True)
    chapter = tmp_path / "out" / "related_work.tex"
    text = chapter.read_text(encoding="utf-8").replace(BEGIN, BEGIN + "My introduction, 大.\n")
    edited = text.replace(*edit)
    chapter.write_text(edited, encoding="utf-8")
    refused = run_cli("build", "refs.bib", "--out", "out", cwd=tmp_path)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    lines = edited.splitlines(keepends=True)
    line = len(lines) - lines[::-1].index(marker) if marker == END else lines.index(marker) + 1
    assert refused.stderr.startswith(f"out/related_work.tex:{line}: error: '{marker.strip()}")
    assert says in refused.stderr and "then rebuild" in refused.stderr
    assert chapter.read_text(encoding="utf-8") == edited  # nothing overwritten


def test_a_copied_marker_pair_is_named_at_both_places(tmp_path):
    # The pair copied under another heading: a generic "edited outside its notes regions" named the first region.
    (tmp_path / "refs.bib").write_text(ENTRY, encoding="utf-8")
    run_cli("build", "refs.bib", "--out", "out", cwd=tmp_path, check=True)
    chapter = tmp_path / "out" / "related_work.tex"
    text = chapter.read_text(encoding="utf-8").replace(BEGIN, BEGIN + "My introduction.\n")
    first = text.splitlines().index(BEGIN.strip()) + 1
    lines = text.splitlines(keepends=True)
    at = next(n for n, line in enumerate(lines) if n > first and line.startswith("% surveytool: begin notes "))
    edited = "".join(lines[:at] + [BEGIN, "More of it, here.\n", END] + lines[at:])
    chapter.write_text(edited, encoding="utf-8")
    refused = run_cli("build", "refs.bib", "--out", "out", cwd=tmp_path)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert refused.stderr.startswith(
        f"out/related_work.tex:{at + 1}: error: the notes markers of 'introduction' are on line {first} and again on "
        f"line {at + 1}: a copied pair"
    ), refused.stderr
    assert f"move the text of the second pair into the first (line {first})" in refused.stderr
    assert chapter.read_text(encoding="utf-8") == edited


def _built_with_introduction(tmp_path, notes):
    (tmp_path / "refs.bib").write_text(ENTRY, encoding="utf-8")
    run_cli("build", "refs.bib", "--out", "out", cwd=tmp_path, check=True)
    chapter = tmp_path / "out" / "related_work.tex"
    return chapter, chapter.read_text(encoding="utf-8").replace(BEGIN, BEGIN + notes)


@pytest.mark.parametrize("marker", [BEGIN, END], ids=["begin", "end"])
@pytest.mark.parametrize("indent", ["\t", "    "], ids=["tab", "spaces"])
@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["LF", "CRLF"])
def test_white_space_before_a_marker_line_keeps_the_notes(tmp_path, marker, indent, newline):
    # It was taken for a deleted marker line (exit 2, "put ... back") though the line was there.
    notes = "My introduction, 大.\n\tIndented by me.\n"
    chapter, text = _built_with_introduction(tmp_path, notes)
    chapter.write_bytes(text.replace(marker, indent + marker).replace("\n", newline).encode("utf-8"))
    rebuilt = run_cli("build", "refs.bib", "--out", "out", cwd=tmp_path)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert regions(chapter.read_bytes().decode("utf-8").replace("\r\n", "\n"))["introduction"] == notes
    assert b"\r\n" in chapter.read_bytes() if newline == "\r\n" else b"\r" not in chapter.read_bytes()


def test_a_chapter_indented_throughout_keeps_its_notes_and_an_edit_in_it_is_named_with_its_line(tmp_path):
    notes = "My introduction.\n"
    chapter, text = _built_with_introduction(tmp_path, notes)
    indented = "".join("\t" + line for line in text.splitlines(keepends=True))
    chapter.write_text(indented, encoding="utf-8")
    run_cli("build", "refs.bib", "--out", "out", cwd=tmp_path, check=True)
    assert regions(chapter.read_text(encoding="utf-8"))["introduction"] == "\t" + notes
    lines = indented.splitlines(keepends=True)
    at = next(n for n, line in enumerate(lines) if "\\section" in line or "\\chapter" in line)
    lines[at] = lines[at].replace("{", "{My ", 1)
    chapter.write_text("".join(lines), encoding="utf-8")
    refused = run_cli("build", "refs.bib", "--out", "out", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"out/related_work.tex:{at + 1}: error: was edited outside its notes regions")
