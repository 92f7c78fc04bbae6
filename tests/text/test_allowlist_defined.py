"""Every command the allowlist keeps is defined in the document surveytool writes: an undefined one stops it."""

import subprocess

import pytest
from helpers import compile_latex, requires_latex, run_cli

from surveytool.text.latex_allowlist import encoder_commands
from surveytool.text.latex_commands import MATH_COMMANDS, PREAMBLE_COMMANDS, TEXT_COMMANDS

# Defined where the bibliography starts: the sorting tricks by main.tex (for biblatex at \begin{document}), \doi by
# plainnat's .bbl.
DEFINED_LATER = {"bibtex": PREAMBLE_COMMANDS | {"doi"}, "biblatex": frozenset()}
CONDITIONALS = {"ifmmode", "else", "fi"}  # primitives, which the checks below cannot name in skipped text


@requires_latex
@pytest.mark.latex
@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
def test_each_allowed_command_is_defined_in_the_main_tex_of_each_dialect(tmp_path, dialect):
    # \G (a double grave pdfLaTeX has no accent for) and pylatexenc's \cyra, \textphi, ... (characters surveytool
    # writes as [U+XXXX] itself) were allowed: a field holding one stopped the document (Undefined control sequence).
    # biblatex's lacked \enquote, \doi, \addcomma, \bibstring ...: \enquote{x} in a title stopped it.
    (tmp_path / "refs.bib").write_text("@misc{a, author = {Eve Mallory}, title = {T}, year = 2020}\n", encoding="utf-8")
    run_cli(
        "build", "refs.bib", "--out", "out", "--dialect", dialect, "--no-figure", "--no-plot", cwd=tmp_path, check=True
    )
    main = (tmp_path / "out" / "main.tex").read_text(encoding="utf-8")
    names = sorted((TEXT_COMMANDS | MATH_COMMANDS | encoder_commands()) - DEFINED_LATER[dialect] - CONDITIONALS)
    checks = "".join(f"\\ifdefined\\{name}\\else\\typeout{{UNDEFINED \\string\\{name}}}\\fi\n" for name in names)
    (tmp_path / "out" / "defined.tex").write_text(
        main[: main.index("\\begin{document}")] + "\\begin{document}\n" + checks + "\\end{document}\n",
        encoding="utf-8",
    )
    result = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "defined.tex"],
        cwd=tmp_path / "out",
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert [line for line in result.stdout.splitlines() if line.startswith("UNDEFINED")] == []


@requires_latex
@pytest.mark.latex
@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
def test_csquotes_in_the_notes_preamble_defines_enquote_and_the_document_compiles(tmp_path, dialect):
    # main.tex provided \enquote before the notes preamble: \usepackage{csquotes} there, what biblatex asks for in
    # its log, stopped the document ("Command \enquote already defined").
    entry = "@misc{a, author = {Eve Mallory}, title = {An \\enquote{Odd} Title}, year = 2020}\n"
    (tmp_path / "refs.bib").write_text(entry, encoding="utf-8")
    run_cli("build", "refs.bib", "--out", "out", "--dialect", dialect, "--no-figure", "--no-plot", cwd=tmp_path)
    main = tmp_path / "out" / "main.tex"
    marker = "% surveytool: begin notes preamble\n"
    main.write_text(main.read_text(encoding="utf-8").replace(marker, marker + "\\usepackage{csquotes}\n"), "utf-8")
    result = compile_latex(tmp_path / "out")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "Package: csquotes" in (tmp_path / "out" / "main.log").read_text(encoding="latin-1")
