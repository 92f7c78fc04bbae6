"""A brace after a backslash that moves where BibTeX ends a value: the entry is read as BibTeX reads it, or refused."""

import re

import pytest
from helpers import bibtex_as_written_and_rewritten, bibtex_balanced, requires_latex, run_cli
from hypothesis import given
from hypothesis import strategies as st

from surveytool.bibtex.brace_bounds import COUNTED_BY_TEX
from surveytool.bibtex.fields import render_bibliography
from surveytool.bibtex.reader import read_bibtex
from surveytool.model import Severity
from surveytool.rebuild.bib_reading import ChunkRun

GOOD = "@misc{good1, title = {Good One}, author = {Roe, Jane}, year = 2020, sections = {moe}}\n\n"
AFTER = "\n\n@misc{good2, title = {Good Two}, author = {Doe, John}, year = 2022, sections = {moe}}\n"
# BibTeX ends the title at \\} (a line break, then a brace it counts, as TeX does), stops at the text after it
# and reads on from the next @: an entry of its own. bibtexparser skips the brace and reads one long title.
SMUGGLED = "@misc{evil, title = {A \\\\} @misc{hidden, title={Hidden}, author={Mallory}}}, year = 2021}"
# The brace after \\ opens a group for BibTeX: the title runs on to the entry's end, the note inside it.
RUN_ON = "@misc{evil, title = {A \\\\{ title}, note = {@misc{hidden, title={x}}}, year = 2021}"


def _bib(entry: str) -> str:
    return GOOD + entry + AFTER


def _refusal(bib: str):
    document = read_bibtex(bib, "coauthor.bib")
    (finding,) = [f for f in document.findings if f.check == "bibtex-syntax"]
    return document, finding


def test_an_entry_bibtex_reads_inside_a_title_is_an_error_naming_both_keys_and_neither_is_read():
    document, finding = _refusal(_bib(SMUGGLED))
    assert [p.key for p in document.papers] == ["good1", "good2"]
    assert (finding.severity, finding.key, finding.location.line) == (Severity.ERROR, "evil", 3)
    assert finding.message.startswith("entry 'evil' is read otherwise by BibTeX, which reads a brace or a quote after")
    assert "ends field 'title' after '{A \\\\}' (line 3)" in finding.message
    assert "reads @misc{hidden} (line 3) as a block of its own" in finding.message
    assert "\\\\ put a space before a brace" in finding.hint and "\\textbraceright{} for a lone one" in finding.hint
    (failed,) = [b for b in document.blocks if b.kind == "failed"]
    assert failed.text == SMUGGLED  # kept as written, every byte


def test_a_brace_after_a_line_break_is_refused_not_written_unbraced():
    document, finding = _refusal(_bib(RUN_ON))
    assert finding.key == "evil" and "counts the brace after \\\\ on line 3, as TeX does" in finding.message
    assert [p.key for p in document.papers] == ["good1", "good2"]
    written = render_bibliography(document.papers, document.blocks)
    assert "\\textbraceleft{}A" not in written and "@misc{hidden" not in written
    for line in written.splitlines():
        if " = " in line and not line.startswith("%"):
            value = line.split(" = ", 1)[1].rstrip(",")
            assert value[0] in '{"' or value.isdigit(), line
            assert bibtex_balanced(value), line


def test_the_refusal_names_a_field_as_the_entry_writes_it():
    # An IEEE export writes Title: the refusal said 'title', which a case-sensitive search of the file misses.
    _, ended = _refusal(_bib(SMUGGLED.replace("title = {A", "Title = {A")))
    assert "ends field 'Title' after '{A \\\\}' (line 3)" in ended.message
    _, runs_on = _refusal(_bib("@misc{evil, Title = {A \\\\{ {b}, year = 2021}"))
    assert "reads field 'Title' on past its end, into the entries after it" in runs_on.message


def test_a_value_bibtex_reads_on_past_the_entry_is_not_said_to_end():
    # It said "BibTeX ends field 'title' after '' (line 3), reads field 'title' on past its end": BibTeX ends it nowhere.
    _, runs_on = _refusal(_bib("@misc{evil, title = {A \\\\{ {b}, year = 2021}"))
    assert "BibTeX reads field 'title' on past its end, into the entries after it, and counts" in runs_on.message
    assert "ends field" not in runs_on.message


@pytest.mark.parametrize(
    "block",
    [
        "@misc{evil, title = {A \\} @misc{hidden, title={H}}}, year = 2021}",  # an escaped brace, TeX's too
        '@misc{evil, title = "A \\} @misc{hidden, title={H}}", year = 2021}',  # between quotes
        '@misc{evil, title = "M\\"uller @misc{hidden, title={H}}", year = 2021}',  # a quote BibTeX ends it at
        "@misc(evil, title = {A \\} @misc{hidden, title={H}}}, year = 2021)",  # in parentheses
        "@string{x = {A \\} @misc{hidden, title={H}}}}",
        '@preamble{ "A \\} @misc{hidden, title={H}}" }',
    ],
)
def test_every_block_that_hides_an_entry_from_surveytool_is_refused(block):
    document, finding = _refusal(_bib(block))
    assert [p.key for p in document.papers] == ["good1", "good2"], block
    assert "reads @misc{hidden} (line 3) as a block of its own" in finding.message
    assert not [b for b in document.blocks if b.kind in ("string", "preamble")]


def test_escaped_braces_that_leave_the_blocks_as_they_are_are_read_as_before():
    # Paired: nothing differs. A lone one within one entry: value_braces.py reports it and writes it paired.
    paired = read_bibtex(_bib("@misc{sets, title = {Sets \\{a, b\\} and x}, year = 2021}"), "x.bib")
    assert [p.key for p in paired.papers] == ["good1", "sets", "good2"]
    assert not [f for f in paired.findings if f.severity is Severity.ERROR]
    lone = read_bibtex(_bib("@misc{k2, title = {A \\} b}, year = 2021}"), "x.bib")
    assert [p.key for p in lone.papers] == ["good1", "k2", "good2"]
    assert [f.check for f in lone.findings if f.severity is Severity.ERROR] == ["lone-escaped-brace"]


LINE_BREAKS = '@misc{breaks, title = {A line\\\\{\\em x} end}, note = "Ends with a break\\\\", year = 2021}'


def test_a_brace_or_quote_after_a_line_break_is_read_as_bibtex_and_tex_read_it():
    # bibtexparser skipped the brace after \\ and ended the title at "x}", so the entry was refused.
    document = read_bibtex(_bib(LINE_BREAKS), "x.bib")
    assert [p.key for p in document.papers] == ["good1", "breaks", "good2"]
    assert not [f for f in document.findings if f.severity is Severity.ERROR], document.findings
    paper = document.papers[1]
    assert paper.latex_fields["title"] == "{A line\\\\{\\em x} end}"
    assert paper.latex_fields["note"] == '"Ends with a break\\\\"'
    written = render_bibliography(document.papers, document.blocks)
    assert "title = {A line\\\\{\\em x} end}," in written


def test_an_entry_with_a_brace_after_a_line_break_has_its_tag_mended_in_place_and_keeps_every_other_byte(tmp_path):
    source = tmp_path / "refs.bib"
    tagged = LINE_BREAKS.replace("year = 2021}", "sections = {MoE}, year = 2021}")
    source.write_bytes(_bib(tagged).encode())
    result = run_cli("bib", "--in-place", "refs.bib", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert source.read_text(encoding="utf-8") == _bib(tagged).replace("{MoE}", "{moe}")


# A quoted piece BibTeX and bibtexparser (masked) end at the quote after \\; the next piece holds an @ entry.
QUOTE_AFTER_BREAK = '@misc{q, title = {T}, note = "a\\\\" # " @misc{hidden, title={H}} ", year = 2021}'


def test_a_quote_after_a_line_break_ends_its_piece_for_the_checks_and_the_writer_too():
    # value_braces took the quote after \\ for text: a false inner-quote error, and the written note was
    # {a\\" \# } @misc{hidden, ...} ", where BibTeX stopped at the text after the braces and read @misc{hidden}.
    document = read_bibtex(_bib(QUOTE_AFTER_BREAK), "x.bib")
    assert [p.key for p in document.papers] == ["good1", "q", "good2"]
    assert not [f for f in document.findings if f.severity is Severity.ERROR], document.findings
    written = render_bibliography(document.papers, document.blocks)
    assert 'note = "a\\\\" # " @misc{hidden, title={H}} ",' in written


def test_a_masked_chunk_bibtexparser_reads_other_values_in_is_refused():
    # Masked, bibtexparser ends the note at the quote inside braces and loses the year; BibTeX reads it whole.
    entry = '@misc{m, title = {A\\\\{x} y}, note = "{a\\\\"}", year = 2021}'
    document, finding = _refusal(_bib(entry))
    assert finding.key == "m" and [p.key for p in document.papers] == ["good1", "good2"]


@pytest.mark.parametrize("note", ["{a\\\\{b\\}}", '"{\\\\"}"', '"a\\\\" # "b"'])
def test_in_place_finds_the_fields_after_a_value_both_readers_read_alike(tmp_path, note):
    # field_spans counted the { after \\ but not the \\} after it, so the note ran on over the tags field
    # and a second one was written; a quote after \\ inside braces ended the note, and no tag was written.
    source = tmp_path / "refs.bib"
    entry = f"@misc{{n, title = {{T}}, note = {note}, sections = {{MoE}}, year = 2021}}"
    source.write_bytes(_bib(entry).encode())
    result = run_cli("bib", "--in-place", "refs.bib", cwd=tmp_path)
    assert "tags-not-written" not in result.stderr and "[inner-quote]" not in result.stderr, result.stderr
    assert source.read_text(encoding="utf-8") == _bib(entry).replace("{MoE}", "{moe}")


def test_a_rebuild_does_not_patch_in_a_refused_entry_as_a_paper():
    text = _bib("@misc{evil, title = {A \\\\{ title}, year = 2021}")  # plain to the fast path, refused here
    start = text.index("@misc{evil")
    run = ChunkRun(text, start, text.index("@misc{good2"), text.count("\n", 0, start), "x.bib")
    assert not run.holds_one_plain_entry(0)  # it gives no paper: the whole file is read again
    assert [p.key for p in read_bibtex(text, "x.bib").papers] == ["good1", "good2"]


def test_bib_and_check_report_it_and_in_place_leaves_it_as_written(tmp_path):
    source = tmp_path / "refs.bib"
    bib = _bib(SMUGGLED).replace("sections = {moe}}\n\n@misc{evil", "sections = {MoE}}\n\n@misc{evil")
    source.write_bytes(bib.encode())
    for command in (["check", "refs.bib"], ["bib", "refs.bib", "-o", "out.bib"]):
        result = run_cli(*command, cwd=tmp_path)
        assert "refs.bib:3: error [bibtex-syntax] entry 'evil' is read otherwise by BibTeX" in result.stderr, command
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert "@misc{hidden" not in written and "@misc{evil" not in written
    assert "% (at)misc{evil, title = {A \\\\} (at)misc{hidden, title={Hidden}" in written
    run_cli("bib", "--in-place", "refs.bib", cwd=tmp_path)
    # Only the tag that had to change is written: the refused entry keeps every byte.
    assert source.read_bytes() == _bib(SMUGGLED).encode()


@requires_latex
@pytest.mark.latex
def test_bibtex_reads_the_hidden_entry_in_the_file_as_written_and_not_in_the_one_written(tmp_path):
    (_, bbl), (result, written_bbl) = bibtex_as_written_and_rewritten(tmp_path, _bib(SMUGGLED))
    assert "\\bibitem{hidden}" in bbl  # the attack, as BibTeX reads the co-author's file
    assert result.returncode == 0 and "error message" not in result.stdout, result.stdout
    assert "\\bibitem{hidden}" not in written_bbl and "\\bibitem{evil}" not in written_bbl
    assert "\\bibitem{good1}" in written_bbl and "\\bibitem{good2}" in written_bbl
    (_, bbl), (result, written_bbl) = bibtex_as_written_and_rewritten(tmp_path, _bib(RUN_ON))
    assert result.returncode == 0 and "error message" not in result.stdout, result.stdout
    assert "\\bibitem{good1}" in written_bbl and "\\bibitem{good2}" in written_bbl and "evil" not in written_bbl


@requires_latex
@pytest.mark.latex
def test_bibtex_reads_no_entry_of_a_quoted_piece_after_a_line_break_in_the_one_written(tmp_path):
    (_, bbl), (result, written_bbl) = bibtex_as_written_and_rewritten(tmp_path, _bib(QUOTE_AFTER_BREAK))
    assert "\\bibitem{hidden}" not in bbl and "\\bibitem{q}" in bbl
    assert result.returncode == 0 and "error message" not in result.stdout, result.stdout
    assert "\\bibitem{hidden}" not in written_bbl and "\\bibitem{q}" in written_bbl


COMMENTED = "@Comment{ an entry set aside:\n@misc{good2, title={Hidden}, author={Mallory}}\n}"


def test_an_entry_inside_a_comment_is_reported_and_kept_out_of_the_written_bib():
    document = read_bibtex(COMMENTED + "\n\n" + GOOD + AFTER.strip(), "coauthor.bib")
    [finding] = [f for f in document.findings if f.check == "commented-entry"]
    assert finding.severity is Severity.WARNING and finding.location.line == 2
    assert finding.message.startswith("@misc{good2} inside this comment is read by BibTeX as an entry")
    assert [p.key for p in document.papers] == ["good1", "good2"]
    written = render_bibliography(document.papers, document.blocks)
    assert written.startswith("@Comment{ an entry set aside:\n(at)misc{good2, title={Hidden}, author={Mallory}}\n}")
    # Comments BibTeX reads no entry from stay as written: JabRef's metadata, an address.
    for kept in ("@Comment{jabref-meta: databaseType:bibtex;}", "@comment{mail me@example.org soon}"):
        document = read_bibtex(kept + "\n\n" + GOOD, "x.bib")
        assert [b.text for b in document.blocks] == [kept] and not document.findings
        assert render_bibliography(document.papers, document.blocks).startswith(kept + "\n")


# Entries BibTeX reads and bibtexparser does not: a newline after the @, a type of any characters, an
# address before a brace; in @comment{...}, in @comment(...) and in the text between entries (after other text on
# its line: at the start of a line, test_spaced_heads reads it as an entry).
OTHER_OPENINGS = (
    "@comment{ x @\nmisc{good2, title={Hidden}, author={Mallory}} }",
    "@comment( x @-{good2, title={Hidden}, author={Mallory}} )",
    "Mail me@example.org {good2, title={Hidden}, author={Mallory}}",
    "Set aside: @misc\n{good2, title={Hidden}, author={Mallory}}",
)


@pytest.mark.parametrize("comment", OTHER_OPENINGS)
def test_any_entry_bibtex_reads_in_a_comment_is_reported_and_kept_out_of_the_written_bib(comment):
    document = read_bibtex(comment + "\n\n" + GOOD + AFTER.strip(), "coauthor.bib")
    [finding] = [f for f in document.findings if f.check == "commented-entry"]
    assert "{good2} inside this comment is read by BibTeX as an entry" in finding.message
    written = render_bibliography(document.papers, document.blocks)
    comment_written, _, _ = written.partition("@misc{good1,")
    assert "Mallory" in comment_written and "(at)" in comment_written
    assert comment_written.replace("@comment{", "").replace("@comment(", "").count("@") == 0
    again = read_bibtex(written, "references.bib")
    assert render_bibliography(again.papers, again.blocks) == written and not again.findings


@requires_latex
@pytest.mark.latex
def test_bibtex_cites_the_commented_entry_of_the_file_as_written_and_not_of_the_one_written(tmp_path):
    # Before the entry of the same key, BibTeX cites the commented one instead.
    (_, bbl), (result, written_bbl) = bibtex_as_written_and_rewritten(tmp_path, COMMENTED + "\n\n" + GOOD + AFTER)
    assert "Mallory" in bbl and "Doe" not in bbl
    assert result.returncode == 0 and "Doe" in written_bbl and "Mallory" not in written_bbl
    for comment in OTHER_OPENINGS:
        (_, bbl), (result, written_bbl) = bibtex_as_written_and_rewritten(tmp_path, comment + "\n\n" + GOOD + AFTER)
        assert "Mallory" in bbl and "Doe" not in bbl, comment
        assert result.returncode == 0 and "Doe" in written_bbl and "Mallory" not in written_bbl, comment


@given(st.text(alphabet='\\{}"a', max_size=14))
def test_a_mark_counted_by_tex_is_one_after_a_whole_run_of_an_even_number_of_backslashes(text):
    # Each run of backslashes read whole: TeX takes them two by two, and an odd one escapes the mark after it.
    runs = [run for run in re.finditer(r"\\+", text) if len(run.group()) % 2 == 0]
    counted = [(run.start(), run.end() + 1) for run in runs if text[run.end() : run.end() + 1] in ("{", "}", '"')]
    assert [found.span() for found in COUNTED_BY_TEX.finditer(text)] == counted
