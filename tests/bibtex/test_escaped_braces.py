"""A lone escaped brace: BibTeX counts it, so a message names the brace as written, and a value made inert balances it."""

from surveytool.bibtex.fields import bibtex_fields
from surveytool.bibtex.reader import read_bibtex
from surveytool.model import Finding


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


# Commands after a lone brace: the value is printed literally.
WITH_COMMANDS = "@misc{k1, title = {\\} \\# 0}, year = 2020}\n"


def _bibtex_balanced(value: str) -> bool:
    """Whether BibTeX, which counts every brace (escaped too), reads ``value`` as one balanced group."""
    depth = 0
    for char in value:
        depth += (char == "{") - (char == "}")
        if depth < 0:
            return False
    return depth == 0


def _written(bib: str) -> dict[str, str]:
    document = read_bibtex(bib, "x.bib")
    (paper,) = document.papers
    return dict(bibtex_fields(paper))


def test_a_value_made_inert_is_balanced_as_bibtex_counts_braces():
    written = _written(WITH_COMMANDS)
    assert written["title"] == "{{\\textbraceright{} \\textbackslash{}0}}"
    assert _bibtex_balanced(written["title"]) and written["year"] == "2020"
