"""White space after a block's ``@`` (``@  misc  {  m4  ,``), or a line break before its ``{``: BibTeX and biber read
an entry, and so does surveytool."""

import pytest
from helpers import run_cli

from surveytool.bibtex.fields import render_bibliography
from surveytool.bibtex.reader import read_bibtex

GOOD = "@misc{good1, title = {Good One}, author = {Roe, Jane}, year = 2020, sections = {moe}}\n\n"
SPACED = "@  misc  {  m4  ,  title = {T} }"


def _keys(text: str) -> list[str]:
    return [p.key for p in read_bibtex(text, "coauthor.bib").papers]


def test_an_entry_with_spaces_after_its_at_sign_is_read_with_its_key_and_nothing_to_report():
    # bibtexparser took it for text between entries: a commented-entry warning, and bib -o wrote it (at)misc.
    for text in (SPACED + "\n", GOOD + SPACED + "\n", SPACED + "\n\n" + GOOD):
        document = read_bibtex(text, "coauthor.bib")
        (paper,) = [p for p in document.papers if p.key == "m4"]
        assert (paper.entry_type, paper.fields["title"], paper.raw) == ("misc", "T", SPACED)
        assert not document.findings, document.findings
        assert not [b for b in document.blocks if b.kind == "comment"]


@pytest.mark.parametrize(
    "entry",
    [
        "@\tarticle\t{m4, title = {T}}",
        "@ misc{m4, title = {T}}",
        "@ Misc ( m4, title = {T} )",  # parentheses: bibtexparser reads it, not the fast path
        "@ misc{m4, title = {T}, title = {U}}",  # a field named twice: BibTeX reads its first value
        "@ misc{m4, title = {A line\\\\{\\em x} end}}",  # a brace after \\, read as BibTeX and TeX read it
        "  @  misc  {m4,\n  title = {T},\n}",
        "@misc\n{m4,\n  title = {T},\n}",  # a line break before the brace: hand-edited files have it
        "@misc\r\n{m4,\r\n  title = {T},\r\n}",
        "@Article \n\n  {m4, title = {T}}",
        "@\nmisc\n(m4, title = {T})",
        "@misc\n{m4, title = {T}, title = {U}}",
    ],
)
def test_every_spaced_entry_keeps_its_key_and_is_written_as_an_entry(entry):
    text = GOOD + entry + "\n\n" + GOOD.replace("good1", "good2")
    document = read_bibtex(text, "coauthor.bib")
    assert [p.key for p in document.papers] == ["good1", "m4", "good2"], document.findings
    assert "commented-entry" not in [f.check for f in document.findings]
    (paper,) = [p for p in document.papers if p.key == "m4"]
    assert text.count(paper.raw) == 1 and paper.raw.strip().startswith("@")  # bib --in-place finds it in the file
    written = render_bibliography(list(document.papers), document.blocks)
    assert "\n@misc{m4," in written or "\n@article{m4," in written
    assert _keys(written) == ["good1", "good2", "m4"]


def test_a_spaced_string_preamble_and_comment_are_read_as_blocks():
    text = '@ string {s = "Spaced"}\n@ preamble { "" }\n@ comment { a note }\n\n@misc{m, title = s}\n'
    document = read_bibtex(text, "coauthor.bib")
    assert [b.kind for b in document.blocks] == ["string", "preamble", "comment"]
    assert document.papers[0].fields["title"] == "Spaced" and not document.findings, document.findings


def test_bib_writes_the_entry_in_place_changes_only_its_tag_and_build_cites_it(tmp_path):
    source = tmp_path / "refs.bib"
    bib = GOOD + "@  misc  {  m4  ,  title = {Spaced Heads}, author = {Doe, John}, year = 2021, sections = {MoE} }\n"
    source.write_bytes(bib.encode())
    result = run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path)
    assert "commented-entry" not in result.stderr and result.returncode == 0, result.stderr
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert "@misc{m4," in written and "(at)" not in written
    result = run_cli("bib", "--in-place", "refs.bib", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert source.read_bytes() == bib.replace("{MoE}", "{moe}").encode()  # every other byte as written
    for _ in range(2):  # the second build reads the file through the rebuild's chunk memo
        result = run_cli("build", "refs.bib", "--out", "out", "--no-figure", "--no-plot", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert "@misc{m4," in (tmp_path / "out" / "references.bib").read_text(encoding="utf-8")
        source.write_bytes(source.read_bytes() + b"\n@misc{late, title = {Late}, sections = {moe}}\n")


def test_an_entry_inside_a_spaced_comment_stays_in_the_comment():
    text = GOOD + "@ comment { set aside:\n@misc{m4, title = {T}}\n}\n"
    document = read_bibtex(text, "coauthor.bib")
    assert [p.key for p in document.papers] == ["good1"]
    assert [f.check for f in document.findings] == ["commented-entry"]
    written = render_bibliography(list(document.papers), document.blocks)
    assert "@ comment { set aside:\n(at)misc{m4, title = {T}}\n}" in written


def test_an_entry_with_its_brace_on_the_next_line_is_read_and_bib_in_place_changes_only_its_tag(tmp_path):
    # It was text between entries to bibtexparser: a commented-entry warning, and the key was lost from the .bib
    # surveytool writes.
    entry = "@misc\n{m4,\n  title = {Broken Heads},\n  author = {Doe, John},\n  year = 2021,\n  sections = {MoE},\n}\n"
    for newline in ("\n", "\r\n"):
        bib = (GOOD + entry + "\n" + GOOD.replace("good1", "good2")).replace("\n", newline)
        document = read_bibtex(bib, "refs.bib")
        assert [p.key for p in document.papers] == ["good1", "m4", "good2"] and not document.findings
        (paper,) = [p for p in document.papers if p.key == "m4"]
        assert (paper.entry_type, paper.fields["title"], paper.sources[0].line) == ("misc", "Broken Heads", 3)
        source = tmp_path / "refs.bib"
        source.write_bytes(bib.encode())
        result = run_cli("bib", "--in-place", "refs.bib", cwd=tmp_path)
        assert result.returncode == 0 and "commented-entry" not in result.stderr, result.stderr
        assert source.read_bytes() == bib.replace("{MoE}", "{moe}").encode()  # every other byte as written


def test_a_comment_with_its_brace_on_the_next_line_holds_the_entry_inside_it():
    text = GOOD + "@comment\n{ set aside:\n@misc{m4, title = {T}}\n}\n"
    document = read_bibtex(text, "coauthor.bib")
    assert [p.key for p in document.papers] == ["good1"]
    assert [f.check for f in document.findings] == ["commented-entry"]
