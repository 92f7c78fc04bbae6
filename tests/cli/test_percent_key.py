"""A key holding ``%`` (``@misc{a%b,``): BibTeX reads it, but biber and LaTeX take the ``%`` for a comment's start."""

import re

import pytest
from helpers import compile_latex, requires_latex, run_cli

# As a hand-typed .bib writes it: CRLF, the key with a percent sign, a second entry after it.
BIB = (
    "@misc{a%b,\r\n  author = {Eve Mallory},\r\n  title = {Tea},\r\n  year = 2020,\r\n}\r\n\r\n"
    "@misc{c1,\r\n  author = {Bob Trent},\r\n  title = {Coffee},\r\n  year = 2021,\r\n}\r\n"
)


@requires_latex
@pytest.mark.latex
@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
def test_a_key_with_a_percent_sign_is_written_under_a_new_key_reported_and_the_document_compiles(tmp_path, dialect):
    # The key was reported but written unchanged: biber read the rest of the line as a comment and the biblatex
    # document lost its whole bibliography; the chapter printed "[key a\%b cannot be cited]" in both dialects.
    (tmp_path / "refs.bib").write_bytes(BIB.encode())
    out = tmp_path / "out"
    result = run_cli(
        "build", "refs.bib", "--out", "out", "--dialect", dialect, "--no-figure", "--no-plot", cwd=tmp_path
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    [line] = [line for line in result.stderr.splitlines() if "[unusable-key]" in line]
    assert line.startswith("refs.bib:1: error [unusable-key] entry key 'a%b' has '%'")
    assert line.endswith("under the new key 'mallory2020tea' (cite this entry as 'mallory2020tea')")
    written = (out / "references.bib").read_text(encoding="utf-8")
    assert re.findall(r"^@misc\{(.*),$", written, re.M) == ["c1", "mallory2020tea"]
    assert "\\citet{mallory2020tea}" in (out / "related_work.tex").read_text(encoding="utf-8")
    compiled = compile_latex(out)
    assert compiled.returncode == 0, compiled.stdout[-3000:]
    bbl = (out / "main.bbl").read_text(encoding="utf-8")
    assert "Mallory" in bbl and "Trent" in bbl
    assert (tmp_path / "refs.bib").read_bytes() == BIB.encode()
