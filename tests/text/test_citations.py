"""A command starts at a backslash that is not itself escaped: after a line break (\\\\) "citet{x}" is text."""

import pytest
from helpers import run_cli

from surveytool.text.citations import citations, cite_key_spans

LOREM = "@misc{lorem2020, title = {Lorem Ipsum Dolor Sit Amet}, author = {Ann Lee}, year = 2020}\n"


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("First line\\\\citet{x} is text.", []),  # \\ then the letters "citet{x}"
        ("First line\\\\\\citet{x} cites.", ["x"]),  # \\ then \citet{x}
        ("\\\\\\\\citep{x}", []),  # two line breaks
        ("Costs 5\\%\\citep{x} and \\{\\cite{y}", ["x", "y"]),  # control symbols before a citation
        ("\\\\[2pt]\\cite{x}", ["x"]),
    ],
)
def test_a_backslash_escaped_by_a_backslash_starts_no_citation(text, keys):
    found, _ = citations(text)
    assert [c.key for c in found] == keys
    assert [text[start:end] for start, end, _ in cite_key_spans(text)] == keys


def test_notes_with_a_line_break_before_the_word_citet_name_no_removed_paper(tmp_path):
    source = tmp_path / "lorem.bib"
    source.write_text(LOREM, encoding="utf-8")
    out = tmp_path / "out"
    run_cli("build", str(source), "--out", str(out), check=True)
    chapter = out / "related_work.tex"
    marker = "% surveytool: begin notes unclassified\n"
    notes = "A table row\\\\citet{gone1999} ends, and \\\\\\citet{lost2001} cites.\n"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace(marker, marker + notes), encoding="utf-8")
    again = run_cli("build", str(source), "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert "gone1999" not in again.stderr
    assert "your notes cite 'lost2001', which is not in the bibliography" in again.stderr
