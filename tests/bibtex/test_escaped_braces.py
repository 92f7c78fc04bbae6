"""A lone escaped brace: BibTeX counts it, so a message names the brace as written, not the fragment TeX then reads."""

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
