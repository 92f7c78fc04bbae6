"""Name parts opening with a command that prints a TeX special ({\\textbraceright}x, {\\_}x) or with a group that
prints no letter ({\\TeX} Users Group, {}Jo): sane initials from biber and from BibTeX, and a document that compiles,
in what ``build`` and ``bib -o`` write for each dialect."""

import re

import pytest
from helpers import compile_latex, compiled_with_biber, field_in_each_dialect, requires_latex, run_cli

# A hostile co-author's names: a brace, an underscore, a brace before a braced letter; and the TeX Users Group as
# TUGboat's own .bib writes it, and an empty group before a name.
AUTHORS = "{\\_}x Mallory and Eve, {\\textbraceright}x{z} and {\\textbraceright}x Trent and {{\\TeX} Users Group} and {}Jo Smith"
ENTRY = f"@article{{a1, author = {{{AUTHORS}}}, title = {{T}}, journal = {{J}}, year = 2020, sections = {{surveys}}}}\n"
# biber splits its extended name format at every comma, a thin space's too: that part is quoted.
COMMA = "@misc{a2, author = {{\\,}y Comma}, title = {U}, year = 2021, sections = {surveys}}\n"


def test_biblatex_gets_such_names_with_their_initials_given_and_bibtex_gets_the_names_as_written(tmp_path):
    (tmp_path / "refs.bib").write_text(ENTRY + COMMA, encoding="utf-8")
    written = {}
    for dialect in ("bibtex", "biblatex"):
        run_cli("bib", "refs.bib", "-o", f"{dialect}.bib", "--dialect", dialect, cwd=tmp_path, check=True)
        text = (tmp_path / f"{dialect}.bib").read_text(encoding="utf-8")
        written[dialect], written[dialect + " comma"] = re.findall(r"author = \{(.*)\},", text)
    assert written["bibtex"] == AUTHORS  # BibTeX's initials are sane as written: "_." and "}."
    assert written["biblatex"] == (  # biber's extended name format: each such part with its initials
        "given={{\\_}x}, given-i=x, family={Mallory} and given={{\\textbraceright}x{z}}, given-i=x, family={Eve}"
        " and given={{\\textbraceright}x}, given-i=x, family={Trent} and family={{{\\TeX} Users Group}}, family-i=T"
        " and given={{}Jo}, given-i=J, family={Smith}"
    )
    assert written["biblatex comma"] == '"given={{\\,}y}", given-i=y, family={Comma}'
    assert (tmp_path / "refs.bib").read_text(encoding="utf-8") == ENTRY + COMMA


@requires_latex
@pytest.mark.latex
@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
def test_such_names_compile_with_sane_initials_and_labels_in_both_dialects(tmp_path, dialect):
    (tmp_path / "refs.bib").write_text(ENTRY + COMMA, encoding="utf-8")
    out = tmp_path / "out"
    run_cli("build", "refs.bib", "--out", "out", "--dialect", dialect, "--no-figure", "--no-plot", cwd=tmp_path)
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    assert not re.search(r"^! ", (out / "main.log").read_text(encoding="latin-1"), re.M)
    bbl = (out / "main.bbl").read_text(encoding="utf-8")
    if dialect == "biblatex":  # biber wrote "\\" for {\_}x, a raw "}" for {\textbraceright}x{z}, {\TeX} and {}Jo
        assert re.findall(r"giveni=\{(.*?)\\bibinitperiod\}", bbl) == ["y", "x", "x", "x", "J"]  # sorted: Comma first
        assert re.findall(r"familyi=\{(.*?)\\bibinitperiod\}", bbl) == ["C", "M", "E", "T", "T", "S"]
    else:  # a group {\textbraceright{}x} was a "von" part to BibTeX, and in natbib's label: "}x Trent"
        assert "(2020)Mallory, Eve, Trent, {{\\TeX} Users Group}, and Smith]{a1}" in " ".join(bbl.split())


# An accent on nothing as a name's first letter, or inside a name: biber wrote given={{\~}x} and family={Sm{\"}ith}.
# Unbraced, \~ is no tie to biber (family={Sm\~{}ith}), but it was taken for one: given={Al Sm\}, family={{}ith}.
EMPTY_ACCENT = '@misc{a3, author = {{\\~{}}x Smith and Jo Sm{\\"{ }}ith and Al Sm\\~{}ith}, title = {V}, year = 2022}\n'


def test_an_accent_on_nothing_in_a_name_gets_an_empty_group_more_for_biber_only(tmp_path):
    written = field_in_each_dialect(tmp_path, EMPTY_ACCENT, "author")
    assert written["bibtex"] == '{{\\~{}}x Smith and Jo Sm{\\"{ }}ith and Al Sm\\~{}ith}'
    assert written["biblatex"] == (
        '{given={{\\~{}{}}x}, given-i=x, family={Smith} and Jo Sm{\\"{}{}}ith'
        " and given={Al}, family={Sm\\~{}{}ith}, family-i=S}"
    )
    # Read again (bib --in-place, a rebuild), those names were cut at their commas and their ~ once more:
    # given={family={Smith}}, family={given={{\~{}{}}x}}, family-i=g, suffix={given-i=x}.
    run_cli("bib", "biblatex.bib", "-o", "again.bib", "--dialect", "biblatex", cwd=tmp_path, check=True)
    assert (tmp_path / "again.bib").read_bytes() == (tmp_path / "biblatex.bib").read_bytes()


@requires_latex
@pytest.mark.latex
def test_an_accent_on_nothing_in_a_name_compiles_with_biber(tmp_path):
    # LaTeX stopped: "Argument of \T1\~ has an extra }", and the document had no bibliography.
    (tmp_path / "refs.bib").write_text(EMPTY_ACCENT, encoding="utf-8")
    out = compiled_with_biber(tmp_path)
    assert not re.search(r"^! ", (out / "main.log").read_text(encoding="latin-1"), re.M)
    bbl = (out / "main.bbl").read_text(encoding="utf-8")
    assert re.findall(r"giveni=\{(.*?)\\bibinitperiod\}", bbl) == ["x", "J", "A"]
    assert re.findall(r"familyi=\{(.*?)\\bibinitperiod\}", bbl) == ["S", "S", "S"]
