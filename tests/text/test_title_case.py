"""What BibTeX's change.case$ lowers in a title (words, commands, math) and the braces that keep it, checked
against real BibTeX: a title braced as ``protect_title_words`` braces it comes out of a lowering style as written."""

from __future__ import annotations

import re

import pytest
from helpers import requires_latex, run_bibtex

from surveytool.text.title_case import is_one_literal, needs_title_protection, protect_title_words

MIXED = r"{An $O(N \log N)$ Method with \LaTeX{} on GPUs via \emph{DeepSpeed} and \url{https://Example.ORG/X}}"


def test_math_is_one_stretch_never_split_by_braces():
    assert needs_title_protection(MIXED) == [r"$O(N \log N)$", r"\LaTeX", "GPUs"]
    assert protect_title_words(MIXED) == (
        r"{An {$O(N \log N)$} Method with {\LaTeX{}} on {GPUs} via \emph{DeepSpeed} and \url{https://Example.ORG/X}}"
    )
    # A word next to math is a word of its own; lowercase math, or capitals in braces inside it, need nothing.
    assert protect_title_words(r"{GPT-$3$ and $x_i$ and $\mathcal{O}(n)$}") == (
        r"{{GPT}-$3$ and $x_i$ and $\mathcal{O}(n)$}"
    )
    assert needs_title_protection(r"{Cost $\Theta(n)$}") == [r"$\Theta(n)$"]


def test_commands_with_capitals_are_braced_with_what_they_take():
    title = r"{Typesetting with \LaTeX\ and \TeX: Sch\H{o}n, \H o, \AA{}ngstr{\"o}m}"
    assert needs_title_protection(title) == [r"\LaTeX", r"\TeX", r"\H", r"\H", r"\AA"]
    assert protect_title_words(title) == (
        r"{Typesetting with {\LaTeX}\ and {\TeX}: Sch{\H{o}}n, {\H o}, {\AA{}}ngstr{\"o}m}"
    )
    # Lowercase commands and what is already braced are left alone.
    assert needs_title_protection(r"{\emph{DeepSpeed} on {\LaTeX} and {GPU}s \textbf{x}}") == []


def test_only_breaking_braces_commands_and_the_formulas_holding_them_not_words_or_plain_math():
    title = r"{GShard with \LaTeX, $O(N)$ and $\Re(z)$}"
    assert protect_title_words(title, only_breaking=True) == r"{GShard with {\LaTeX}, $O(N)$ and {$\Re(z)$}}"
    plain = "{GShard on GPUs}"
    assert protect_title_words(plain, only_breaking=True) is plain


@pytest.mark.parametrize(
    "title",
    [
        MIXED,
        r"{Typesetting with \LaTeX\ and \TeX}",
        r"{$N$-Body Methods on GPUs for \TeX{} Users}",
        r'"Quoted \LaTeX{} and $O(N)$ Title"',
    ],
)
def test_protecting_leaves_nothing_to_protect(title):
    protected = protect_title_words(title)
    assert needs_title_protection(protected) == []
    assert protect_title_words(protected) == protected


def test_one_literal():
    assert is_one_literal("{a {b} c}") and is_one_literal('"a {b}"')
    assert not is_one_literal("{a} # {b}") and not is_one_literal("macro") and not is_one_literal('"a" # "b"')


@requires_latex
def test_plain_bibtex_keeps_a_protected_title_as_written_and_lowers_an_unprotected_one(tmp_path):
    raw = r"{An $O(N \log N)$ Method with \LaTeX{} and \TeX\ on GPUs}"
    bib = f"@article{{raw, author = {{A, B}}, title = {raw}, journal = {{J}}, year = 2020}}\n"
    bib += (
        f"@article{{protected, author = {{A, B}}, title = {protect_title_words(raw)}, journal = {{J}}, year = 2020}}\n"
    )
    (tmp_path / "references.bib").write_text(bib)
    result, bbl = run_bibtex(tmp_path)
    assert result.returncode == 0, result.stdout
    items = dict(re.findall(r"\\bibitem\{(\w+)\}(.*?)(?=\\bibitem|\\end\{thebibliography\})", bbl, re.S))
    raw_item, protected_item = items["raw"], items["protected"]
    # What the check reports is what BibTeX lowers...
    assert r"$o(n \log n)$" in raw_item and r"\latex{}" in raw_item and r"\tex\ " in raw_item and "gpus" in raw_item
    # ...and with the braces it adds, every capital survives.
    assert r"{$O(N \log N)$}" in protected_item and r"{\LaTeX{}}" in protected_item and r"{\TeX}\ " in protected_item
    assert "{GPUs}" in protected_item


def test_a_control_word_braced_for_protection_still_swallows_the_spaces_after_it():
    # "\TeX book" prints TeXbook; "{\TeX} book" would print "TeX book".
    assert protect_title_words("{The \\TeX book}", only_breaking=True) == "{The {\\TeX }book}"
    assert protect_title_words("{\\TeX{} and \\LaTeX}", only_breaking=True) == "{{\\TeX{}} and {\\LaTeX}}"
