"""LaTeX of the allowlist that biber decodes into a TeX special or a character pdfLaTeX does not know, in the .bbl."""

import re
import subprocess

import pytest
from helpers import compiled_with_biber, field_in_each_dialect, requires_latex

from surveytool.text.latex import char_spelling, declared_chars

ENTRY = "@misc{p1, author = {Eve Mallory}, title = {Costs \\textdollar 5 or \\textdollar{}6}, year = 2020}\n"


def test_textdollar_is_written_as_a_dollar_sign_for_biber_and_as_it_is_for_bibtex(tmp_path):
    titles = field_in_each_dialect(tmp_path, ENTRY, "title")
    assert titles["bibtex"] == "{Costs \\textdollar 5 or \\textdollar{}6}"
    assert titles["biblatex"] == "{Costs \\$5 or \\${}6}"  # the space TeX skips after \textdollar goes with it


@requires_latex
@pytest.mark.latex
def test_a_title_with_textdollar_compiles_with_biber_and_prints_the_dollars(tmp_path):
    # biber wrote \field{title}{Costs $5 or $6}: math from one to the other, "Missing $ inserted" at a lone one.
    (tmp_path / "refs.bib").write_text(ENTRY.replace(" or \\textdollar{}6", ""), encoding="utf-8")
    out = compiled_with_biber(tmp_path)
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "main.pdf", "-"], cwd=out, capture_output=True, text=True, check=True
    ).stdout
    assert "Costs $5" in text


def test_main_tex_declares_what_biber_decodes_accents_into():
    # x with a caron has no character of its own: biber writes x and a combining caron, which inputenc does not know.
    declared = declared_chars('@misc{a, title = {\\v{x}, \\"{x}, \\v{} and \\c{ }, but \\"{} and \\v{S}}}')
    assert {code: char_spelling(code) for code in declared} == {
        "0160": "{\\v{S}}",  # Š, which inputenc knows
        "030C": "\\v{}",  # a caron on nothing: after x, or alone
        "0327": "\\c{}",
        "1E8D": '\\"{x}',  # ẍ
    }


@requires_latex
@pytest.mark.latex
def test_accents_biber_decodes_into_characters_beyond_inputenc_compile_with_biber(tmp_path):
    # biber wrote \field{title}{x̌ and ẍ and ̌}: "Unicode character ̌ (U+030C) not set up for use with LaTeX".
    entry = '@misc{p1, author = {Eve Mallory}, title = {Accents \\v{x} and \\"{x} and \\v{} and \\c{ }}, year = 2020}\n'
    (tmp_path / "refs.bib").write_text(entry, encoding="utf-8")
    out = compiled_with_biber(tmp_path)
    assert not re.search(r"^! ", (out / "main.log").read_text(encoding="latin-1"), re.M)


@requires_latex
@pytest.mark.latex
def test_an_accent_on_nothing_in_a_title_gets_an_empty_group_more_for_biber_and_compiles(tmp_path):
    # biber wrote \field{title}{Tildes {\~}x and \~}: "Argument of \T1\~ has an extra }", no bibliography.
    entry = "@misc{p1, author = {Eve Mallory}, title = {Tildes {\\~{}}x and \\~{ }}, year = 2020}\n"
    titles = field_in_each_dialect(tmp_path, entry, "title")
    assert titles == {"bibtex": "{Tildes {\\~{}}x and \\~{ }}", "biblatex": "{Tildes {\\~{}{}}x and \\~{}{}}"}
    out = compiled_with_biber(tmp_path)
    assert "\\field{title}{Tildes {\\~{}{}}x and \\~{}{}}" in (out / "main.bbl").read_text(encoding="utf-8")
