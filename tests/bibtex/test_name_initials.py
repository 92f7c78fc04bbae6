"""Name parts opening with a command that prints a TeX special ({\\textbraceright}x, {\\_}x): sane initials from
biber and from BibTeX, and a document that compiles, in what ``build`` and ``bib -o`` write for each dialect."""

import re

import pytest
from helpers import compile_latex, requires_latex, run_cli

# A hostile co-author's names: a brace, an underscore, a brace before a braced letter.
AUTHORS = "{\\_}x Mallory and Eve, {\\textbraceright}x{z} and {\\textbraceright}x Trent"
ENTRY = f"@article{{a1, author = {{{AUTHORS}}}, title = {{T}}, journal = {{J}}, year = 2020, sections = {{surveys}}}}\n"


def test_biblatex_gets_each_such_part_in_one_group_and_bibtex_gets_the_names_as_written(tmp_path):
    (tmp_path / "refs.bib").write_text(ENTRY, encoding="utf-8")
    written = {}
    for dialect in ("bibtex", "biblatex"):
        run_cli("bib", "refs.bib", "-o", f"{dialect}.bib", "--dialect", dialect, cwd=tmp_path, check=True)
        text = (tmp_path / f"{dialect}.bib").read_text(encoding="utf-8")
        [written[dialect]] = re.findall(r"author = \{(.*)\},", text)
    assert written["bibtex"] == AUTHORS  # BibTeX's initials are sane as written: "_." and "}."
    assert written["biblatex"] == (
        "{\\textunderscore{}x} Mallory and Eve, {\\textbraceright{}x{z}} and {\\textbraceright{}x} Trent"
    )
    assert (tmp_path / "refs.bib").read_text(encoding="utf-8") == ENTRY


@requires_latex
@pytest.mark.latex
@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
def test_such_names_compile_with_sane_initials_and_labels_in_both_dialects(tmp_path, dialect):
    (tmp_path / "refs.bib").write_text(ENTRY, encoding="utf-8")
    out = tmp_path / "out"
    run_cli("build", "refs.bib", "--out", "out", "--dialect", dialect, "--no-figure", "--no-plot", cwd=tmp_path)
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    assert not re.search(r"^! ", (out / "main.log").read_text(encoding="latin-1"), re.M)
    bbl = (out / "main.bbl").read_text(encoding="utf-8")
    if dialect == "biblatex":  # biber wrote "\\" for {\_}x, a raw "}" for {\textbraceright}x{z}
        assert re.findall(r"giveni=\{(.*?)\\bibinitperiod\}", bbl) == ["x", "x", "x"]
    else:  # a group {\textbraceright{}x} was a "von" part to BibTeX, and in natbib's label: "}x Trent"
        assert "(2020)Mallory, Eve, and Trent]{a1}" in bbl
