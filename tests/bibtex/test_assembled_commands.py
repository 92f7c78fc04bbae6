"""A command assembled from pieces BibTeX joins: a @string of a lone backslash, read as BibTeX reads it."""

import pytest
from helpers import bibtex_as_written_and_rewritten, requires_latex, run_cli

from surveytool.bibtex.fields import render_bibliography
from surveytool.bibtex.reader import read_bibtex
from surveytool.bibtex.values import bibtex_value_offences

# In BibTeX a backslash escapes no brace: {\} is a backslash, and the title is \input{y} in the co-author's own run.
ASSEMBLED = (
    "@string{bs = {\\}}\n"
    '@string{inp = "inp"}\n'
    "\n"
    "@misc{k1,\n"
    "  author = {Roe, Jane},\n"
    '  title = bs # inp # "ut{y}",\n'
    "  year = 2021,\n"
    "}\n"
)
DIRECT = ASSEMBLED.replace('bs # inp # "ut{y}"', "{\\input{y}}")


def _dangerous(text: str) -> list[tuple[int, str | None, str]]:
    findings = read_bibtex(text, "coauthor.bib").findings
    return [(f.location.line, f.key, f.message) for f in findings if f.check == "dangerous-macro"]


def test_a_string_of_a_lone_backslash_is_defined_as_bibtex_defines_it():
    # bibtexparser took \} for text and ran the @string on: a bibtex-syntax error, and bs undefined.
    document = read_bibtex(ASSEMBLED, "coauthor.bib")
    checks = [f.check for f in document.findings]
    assert "bibtex-syntax" not in checks and "undefined-string" not in checks, document.findings
    (string,) = [b for b in document.blocks if b.kind == "string" and b.key == "bs"]
    assert string.text == "@string{bs = {\\}}"


def test_a_command_assembled_from_pieces_is_reported_as_one_written_whole():
    assembled, direct = _dangerous(ASSEMBLED), _dangerous(DIRECT)
    field = "field 'title' of 'k1' has LaTeX outside the allowlist: \\input (not in the LaTeX allowlist)"
    assert (6, "k1", field) in [(line, key, message.split(" (a .bib")[0]) for line, key, message in assembled]
    assert [(line, message.split(" (a .bib")[0]) for line, key, message in direct if key] == [(6, field)]
    # The lone backslash is itself reported: a .bib surveytool writes prints it literally.
    assert any(message.startswith("@string 'bs'") and line == 1 for line, _, message in assembled)


@pytest.mark.parametrize("string", ["{\\}", '"\\"', '{{\\"u}\\}'])
def test_neither_the_string_nor_the_field_written_can_make_a_command(string):
    document = read_bibtex(ASSEMBLED.replace("{\\}}\n", string + "}\n", 1), "coauthor.bib")
    written = render_bibliography(list(document.papers), document.blocks)
    assert "@string{bs = {" in written and "\\textbackslash{}}}" in written.split("\n")[0], written
    assert "title = {" in written and "\\textbackslash{}input{y}}," in written
    assert "\\input" not in written.replace("\\textbackslash{}input", "")
    # No lone backslash is left for BibTeX to join with what follows it.
    again = read_bibtex(written, "references.bib")
    assert not [f for f in again.findings if f.check in ("dangerous-macro", "bibtex-syntax")], again.findings


def test_check_reports_the_assembled_command_and_bib_writes_it_literally(tmp_path):
    (tmp_path / "coauthor.bib").write_text(ASSEMBLED, encoding="utf-8")
    result = run_cli("check", "coauthor.bib", cwd=tmp_path)
    assert "coauthor.bib:6: error [dangerous-macro] field 'title' of 'k1'" in result.stderr, result.stderr
    assert "undefined-string" not in result.stderr and "bibtex-syntax" not in result.stderr
    result = run_cli("bib", "coauthor.bib", "-o", "references.bib", cwd=tmp_path)
    written = (tmp_path / "references.bib").read_text(encoding="utf-8")
    assert "@string{bs = {\\textbackslash{}}}" in written and "{\\textbackslash{}input{y}}" in written


def test_joined_pieces_one_ending_at_an_escaped_brace_are_refused_as_before():
    # Pieces joined in one value, with \} ending one: the checks read them as bibtexparser does; kept as a comment.
    document = read_bibtex('@misc{k, title = {\\} # "input{y}"}\n', "coauthor.bib")
    assert not document.papers and [b.kind for b in document.blocks] == ["failed"]
    written = render_bibliography(list(document.papers), document.blocks)
    assert all(line.startswith("%") for line in written.splitlines() if line)


@requires_latex
@pytest.mark.latex
def test_bibtex_runs_the_assembled_input_of_the_file_as_written_and_not_of_the_one_written(tmp_path):
    (_, bbl), (result, written_bbl) = bibtex_as_written_and_rewritten(tmp_path, ASSEMBLED)
    assert "\\input{y}" in bbl  # the attack, as BibTeX reads the co-author's file
    assert result.returncode == 0 and "\\bibitem{k1}" in written_bbl, result.stdout
    assert "\\input" not in written_bbl.replace("\\textbackslash{}input", "")


def test_a_preamble_of_a_lone_backslash_is_read_and_written_literally():
    document = read_bibtex("@preamble{ {\\} }\n\n@misc{k, title = {T}}\n", "coauthor.bib")
    assert [b.kind for b in document.blocks] == ["preamble"] and [p.key for p in document.papers] == ["k"]
    assert [f.check for f in document.findings] == ["dangerous-macro"]
    assert render_bibliography(list(document.papers), document.blocks).startswith("@preamble{{\\textbackslash{}}}\n")


def test_an_entry_bibtex_ends_a_value_of_at_an_escaped_brace_is_still_refused_and_left_as_written(tmp_path):
    # Read as BibTeX reads it, its fields would be found with bibtexparser's rules: in place, a second tags field.
    source = tmp_path / "refs.bib"
    bib = "@misc{x, title = {a\\}, sections = {MoE}}\n\n@misc{y, title = {b}, sections = {MoE}}\n"
    source.write_bytes(bib.encode())
    document = read_bibtex(bib, "refs.bib")
    assert [p.key for p in document.papers] == ["y"] and document.blocks[0].kind == "failed"
    assert run_cli("bib", "--in-place", "refs.bib", cwd=tmp_path).returncode == 1
    assert source.read_bytes() == bib.replace("{b}, sections = {MoE}", "{b}, sections = {moe}").encode()


def test_a_value_is_read_as_each_string_table_defines_it():
    # A value of one piece reads alike whatever the table (the reading is shared); one that uses a macro, as each
    # table defines the macro: a .bib is read with its own table and written against another.
    plain, joined = "{\\input{y}}", "{\\in} # m"
    first, second = {"m": '"put{y}"'}, {"m": '"x"'}
    assert bibtex_value_offences(plain, first) == bibtex_value_offences(plain, second)
    assert bibtex_value_offences(plain, second)[0] == "\\input{y}"
    assert bibtex_value_offences(joined, first)[0] == "\\input{y}"
    assert bibtex_value_offences(joined, second)[0] == "\\inx"
    assert [o.text for o in bibtex_value_offences(joined, second)[1]] == ["\\inx"]
