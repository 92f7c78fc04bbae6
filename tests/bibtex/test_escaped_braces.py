"""A lone escaped brace: BibTeX counts it, so a message names the brace as written, and the .bib written spells it."""

import subprocess

import pytest
from helpers import bibtex_balanced, requires_latex, run_bibtex, run_cli
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from surveytool.bibtex.fields import bibtex_fields
from surveytool.bibtex.reader import read_bibtex
from surveytool.model import Finding, Severity
from surveytool.text.latex_allowlist import BRACE_TOKEN
from surveytool.text.latex_inert import balanced_for_bibtex


def _dangerous(bib: str) -> list[Finding]:
    return [f for f in read_bibtex(bib, "x.bib").findings if f.check == "dangerous-macro"]


def _listing(finding: Finding) -> str:
    return finding.message.split("outside the allowlist: ", 1)[1]


def test_a_lone_escaped_closing_brace_is_named_as_written_with_a_hint():
    # BibTeX ends the braced piece at the \}, so the # of \# joins what follows: TeX would read \0.
    (finding,) = _dangerous("@misc{k, title = {\\} \\# 0}, year = 2020}\n")
    listing = _listing(finding)
    assert listing.startswith("\\} (an unbalanced brace: "), listing
    assert listing.index("\\}") < listing.index("\\0")  # what TeX then reads is still said, after it
    assert "\\textbraceright{}" in finding.hint and "allow =" not in finding.hint


def test_a_lone_escaped_opening_brace_is_named_and_other_offences_still_are():
    (finding,) = _dangerous('@misc{k, title = "A \\{ \\input{x} b", year = 2020}\n')
    listing = _listing(finding)
    assert listing.startswith("\\{ (an unbalanced brace: "), listing
    assert "\\input (not in the LaTeX allowlist)" in listing


def test_paired_escaped_braces_leave_the_message_as_it_was():
    (finding,) = _dangerous("@misc{k, title = {A \\{x\\} \\input{y}}, year = 2020}\n")
    assert _listing(finding) == "\\input (not in the LaTeX allowlist)"
    assert "allow =" in finding.hint


# The two entries of the report: commands after the lone brace (\} \# 0), and the brace alone (A \} b).
WITH_COMMANDS = "@misc{k1, title = {\\} \\# 0}, year = 2020}\n"
ONLY_BRACE = "@misc{k2, title = {A \\} b}, year = 2021}\n"


def _tex_balanced(value: str) -> bool:
    """Whether the braces TeX groups by (not \\{ or \\}) balance."""
    return bibtex_balanced(BRACE_TOKEN.sub(lambda m: m.group() if len(m.group()) == 1 else "", value))


def _written(bib: str) -> dict[str, str]:
    document = read_bibtex(bib, "x.bib")
    (paper,) = document.papers
    return dict(bibtex_fields(paper))


def test_a_value_made_inert_is_balanced_as_bibtex_counts_braces():
    written = _written(WITH_COMMANDS)
    assert written["title"] == "{{\\textbraceright{} \\textbackslash{}0}}"
    assert bibtex_balanced(written["title"]) and written["year"] == "2020"


def test_a_lone_escaped_brace_without_commands_is_an_error_with_where_and_a_hint():
    (finding,) = [f for f in read_bibtex("\n" + ONLY_BRACE, "refs.bib").findings if f.check != "no-section"]
    assert (finding.check, finding.severity, finding.key) == ("lone-escaped-brace", Severity.ERROR, "k2")
    assert (finding.location.path, finding.location.line) == ("refs.bib", 2)
    assert finding.message == (
        "field 'title' of 'k2' has \\} (an unbalanced brace: BibTeX counts an escaped brace too, so the value is "
        "not read as written); the .bib surveytool writes has \\textbraceright{} there "
        "(check and bib --in-place leave it as you wrote it)"
    )
    assert "\\textbraceright{}" in finding.hint and "pair" in finding.hint


def test_a_lone_escaped_brace_is_written_as_the_text_command_that_prints_it():
    assert _written(ONLY_BRACE)["title"] == "{A \\textbraceright{} b}"
    # A lone opening one too, and paired escaped braces stay as written.
    assert _written("@misc{k, title = {\\{x\\} and \\{ y}}")["title"] == "{\\{x\\} and \\textbraceleft{} y}"


def test_paired_escaped_braces_are_neither_reported_nor_changed():
    bib = "@misc{k, title = {Sets \\{a, b\\} and {\\{c\\}}}}\n"
    assert [f for f in read_bibtex(bib, "x.bib").findings if f.check == "lone-escaped-brace"] == []
    assert _written(bib)["title"] == "{Sets \\{a, b\\} and {\\{c\\}}}"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="{}\\ a#", max_size=24))
def test_every_value_written_is_balanced_as_bibtex_and_tex_count_braces(text):
    document = read_bibtex(f"@misc{{k, title = {{{text}}}, year = 2020}}\n", "x.bib")
    assume([p.key for p in document.papers] == ["k"])
    for name, value in bibtex_fields(document.papers[0]):
        assert bibtex_balanced(value) and _tex_balanced(value), (name, value)
    assert bibtex_balanced(balanced_for_bibtex(text)) and _tex_balanced(balanced_for_bibtex(text))


def test_bib_writes_both_entries_balanced_and_in_place_leaves_them_as_written(tmp_path):
    source = tmp_path / "refs.bib"
    source.write_bytes((WITH_COMMANDS + "\n" + ONLY_BRACE).encode())
    result = run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path)
    assert "[lone-escaped-brace] field 'title' of 'k2'" in result.stderr and "[dangerous-macro]" in result.stderr
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert "title = {{\\textbraceright{} \\textbackslash{}0}}," in written
    assert "title = {A \\textbraceright{} b}," in written
    before = source.read_bytes()
    result = run_cli("bib", "--in-place", "refs.bib", cwd=tmp_path)
    assert "[lone-escaped-brace]" in result.stderr and source.read_bytes() == before
    # A tag changed in place changes the tag only: the title keeps its lone brace.
    source.write_bytes(ONLY_BRACE.replace("year", "sections = {MoE}, year").encode())
    run_cli("bib", "--in-place", "refs.bib", cwd=tmp_path)
    assert source.read_bytes() == ONLY_BRACE.replace("year", "sections = {moe}, year").encode()


@requires_latex
@pytest.mark.latex
def test_real_bibtex_reads_every_field_of_both_entries_as_written(tmp_path):
    (tmp_path / "refs.bib").write_text(WITH_COMMANDS + "\n" + ONLY_BRACE, encoding="utf-8")
    run_cli("bib", "refs.bib", "-o", "references.bib", cwd=tmp_path)
    result, bbl = run_bibtex(tmp_path)
    assert result.returncode == 0 and "error message" not in result.stdout, result.stdout
    assert "{\\textbraceright{} \\textbackslash{}0}, 2020." in bbl and "A \\textbraceright{} b, 2021." in bbl
    compiled = subprocess.run(["pdflatex", "-interaction=nonstopmode", "all.tex"], cwd=tmp_path, capture_output=True)
    assert compiled.returncode == 0 and b"\n! " not in (tmp_path / "all.log").read_bytes()


def test_the_hints_say_what_each_command_does_with_the_value(tmp_path):
    # A co-author's title with a shell escape, and one with a lone brace: check and --in-place write no value.
    bib = "@misc{k1, title = {Fast \\immediate\\write18{ls} GPUs}, year = 2020, sections = {moe}}\n\n"
    bib += ONLY_BRACE.replace("year", "sections = {moe}, year")
    source = tmp_path / "refs.bib"
    source.write_bytes(bib.encode())
    for command in (["check", "refs.bib"], ["bib", "--in-place", "refs.bib"], ["bib", "refs.bib", "-o", "out.bib"]):
        stderr = run_cli(*command, cwd=tmp_path).stderr
        assert "written to print literally" not in stderr, command
        macro = next(line for line in stderr.splitlines() if "[dangerous-macro]" in line)
        assert "(a .bib surveytool writes (build, bib -o) prints it literally, your file keeps it; delete it" in macro
        brace = next(line for line in stderr.splitlines() if "[lone-escaped-brace]" in line)
        assert "(check and bib --in-place leave it as you wrote it)" in brace, command
    assert source.read_bytes() == bib.encode()  # as the hints say of check and --in-place
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")  # and of bib -o
    assert "\\textbackslash{}immediate\\textbackslash{}write18" in written and "A \\textbraceright{} b" in written
