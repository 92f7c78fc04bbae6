"""Braces BibTeX counts otherwise than they were written: in quoted pieces, across ``#``, in @string and @preamble."""

import pytest
from helpers import bibtex_as_written_and_rewritten, bibtex_balanced, requires_latex, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from surveytool.bibtex.fields import bibtex_fields, render_bibliography
from surveytool.bibtex.reader import read_bibtex
from surveytool.bibtex.value_braces import balanced_value, quoted_insides, quoted_plain_braces, value_lone_braces
from surveytool.model import Severity

# A co-author's file: a JabRef export edited by hand, with every trick of the review in it.
COAUTHOR = r"""% Exported by JabRef, then edited by hand
@string{acmpress = "ACM \{Press"}
@preamble{ "\providecommand{\noopsort}[1]{#1} \}" }

@inproceedings{lee2020sparse,
  title     = "Sparse {E}xperts { for Everyone",
  author    = "Lee, Ann and Park, Jun",
  booktitle = acmpress,
  year      = 2020,
  pages     = "1--10",
  sections  = {moe},
}

@article{kim2021sets,
  title   = "\{" # "Set" # "\}" # " Transformers",
  author  = {Kim, Bo},
  journal = "Journal of } Things",
  year    = {2021},
  note    = {read after the brace},
  sections = {moe},
}

@misc{zed2022below, title = {An Entry Below}, author = {Zed, Al}, year = 2022, sections = {moe}}
"""


def _brace_findings(bib: str) -> list[tuple[str, int, str]]:
    findings = read_bibtex(bib, "coauthor.bib").findings
    return [
        (f.check, f.location.line, f.message.split(" has ", 1)[0])
        for f in findings
        if f.check in ("lone-escaped-brace", "unbalanced-brace") and f.severity is Severity.ERROR and f.location
    ]


def test_each_brace_bibtex_misreads_is_an_error_on_its_line():
    assert _brace_findings(COAUTHOR) == [
        ("lone-escaped-brace", 2, "@string 'acmpress'"),
        ("lone-escaped-brace", 3, "@preamble"),
        ("unbalanced-brace", 6, "field 'title' of 'lee2020sparse'"),  # the field's line
        ("lone-escaped-brace", 15, "field 'title' of 'kim2021sets'"),
        # Found after a title whose first piece is "\{" (a quote after \{ ends it, as the reader reads it).
        ("unbalanced-brace", 17, "field 'journal' of 'kim2021sets'"),
    ]


def test_a_quoted_value_with_an_unbalanced_brace_is_named_with_what_bibtex_does_and_a_hint():
    (finding,) = read_bibtex('@misc{k, title = "x { y", year = 2001}\n', "refs.bib").findings[:1]
    assert (finding.check, finding.key, finding.location.line) == ("unbalanced-brace", "k", 1)
    assert finding.message.startswith("field 'title' of 'k' has { (a brace no brace in its quotes closes: ")
    assert "reads on past the closing quote" in finding.message and "\\textbraceleft{} there" in finding.message
    assert "in the same quoted piece" in finding.hint
    (closing,) = [f for f in read_bibtex('@misc{k, title = "x } y"}\n', "refs.bib").findings if f.check != "no-section"]
    assert "Unbalanced braces" in closing.message and "\\textbraceright{} there" in closing.message


def test_values_whose_pieces_balance_are_neither_reported_nor_changed():
    fine = [
        '"Proc. {ICLR} 2017"',  # braces paired within the quotes
        '"M{\\"u}ller and {"} quotes"',  # an accent in braces, and bibtexparser's {"}
        '"Sets \\{a\\}" # {, and {\\{b\\}}}',  # escaped braces paired within each piece
        '{Braced {"} with a quote}',
        "jan # { 2020}",
    ]
    for value in fine:
        bib = f"@misc{{k, title = {value}, year = 2020}}\n"
        assert _brace_findings(bib) == [], value
        assert dict(bibtex_fields(read_bibtex(bib, "x.bib").papers[0]))["title"] == value


def test_quoted_pieces_are_delimited_as_bibtexparser_delimits_them():
    value = '"a {" # {b "c" d} # "e {"} f" # "g\\"h"'
    assert [value[s:e] for s, e in quoted_insides(value)] == ["a {", 'e {"} f', 'g\\"h']


def test_escaped_braces_pair_only_within_their_piece():
    value = '"\\{" # "Set" # "\\}"'
    assert [o.text for o in value_lone_braces(value)] == ["\\{", "\\}"]
    assert [value[o.start : o.end] for o in value_lone_braces(value)] == ["\\{", "\\}"]
    assert value_lone_braces('"\\{\\}" # {\\{\\}}') == []
    # Braced pieces count alone too: BibTeX reads {\{} # {\}} as one piece, \{} # {\}.
    assert [o.text for o in value_lone_braces("{\\{} # {\\}}")] == ["\\{", "\\}"]
    # A plain brace an escaped one pairs with: the escaped one is lone, the plain one is not reported twice.
    assert [o.text for o in value_lone_braces('"{ \\}"')] == ["\\}"] and quoted_plain_braces('"{ \\}"') == []


def test_the_written_value_keeps_its_pieces_and_balances_each():
    written = dict(bibtex_fields(read_bibtex(COAUTHOR, "x.bib").papers[1]))
    assert written["title"] == '"\\textbraceleft{}" # "Set" # "\\textbraceright{}" # " Transformers"'
    assert written["journal"] == '"Journal of \\textbraceright{} Things"'
    assert balanced_value('"Sparse {E}xperts { for Everyone"') == '"Sparse {E}xperts \\textbraceleft{} for Everyone"'
    # A @preamble's value keeps the spaces around it.
    assert balanced_value(' "\\def\\x{ y" ') == ' "\\def\\x\\textbraceleft{} y" '
    fine = '"Proc. {ICLR}"'
    assert balanced_value(fine) is fine


def test_pieces_joined_after_balancing_are_checked_again_as_tex_reads_them():
    # As written BibTeX reads one piece, \{^" # "^5cinput\}; balanced, the pieces join into ^^5c: a backslash.
    bib = '@misc{k, title = "\\{^" # "^5cinput{/etc/passwd}\\}", year = 2020}\n'
    document = read_bibtex(bib, "x.bib")
    assert [f.check for f in document.findings if f.check != "no-section"] == ["dangerous-macro"]
    title = dict(bibtex_fields(document.papers[0]))["title"]
    assert "^^" not in title and "\\textasciicircum{}\\textasciicircum{}5cinput" in title


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet='{}\\ a"', max_size=8), min_size=1, max_size=3))
def test_every_quoted_piece_written_balances_as_bibtex_counts_braces(pieces):
    value = " # ".join('"' + piece.replace('"', "") + ' "' for piece in pieces)  # no \" closes a piece
    written = balanced_value(value)
    insides = quoted_insides(written)
    assert len(insides) == len(pieces), (value, written)
    assert all(bibtex_balanced(written[start:end]) for start, end in insides), (value, written)


def test_the_written_string_and_preamble_are_balanced():
    document = read_bibtex(COAUTHOR, "x.bib")
    written = render_bibliography(document.papers, document.blocks)
    assert '@string{acmpress = "ACM \\textbraceleft{}Press"}' in written
    assert '@preamble{ "\\providecommand{\\noopsort}[1]{#1} \\textbraceright{}" }' in written


def test_bib_writes_the_file_balanced_and_in_place_and_check_only_report(tmp_path):
    written = _reported_untouched_then_written(tmp_path, COAUTHOR, {"unbalanced-brace": 2, "lone-escaped-brace": 3})
    assert '@string{acmpress = "ACM \\textbraceleft{}Press"}' in written
    assert 'title = "Sparse {E}xperts \\textbraceleft{} for Everyone",' in written


@requires_latex
@pytest.mark.latex
def test_bibtex_loses_entries_of_the_file_as_written_and_reads_every_field_of_the_one_written(tmp_path):
    (_, bbl), (result, written_bbl) = bibtex_as_written_and_rewritten(tmp_path, COAUTHOR)
    # As written, the { of lee2020sparse's title runs on to the } of kim2021sets's journal: one entry is lost,
    # and lee2020sparse's title holds the text of both, its year and pages with it.
    assert "\\bibitem{kim2021sets}" not in bbl and 'author = "Lee' in bbl and "Ann~Lee" not in bbl
    bbl = written_bbl
    assert result.returncode == 0 and "error message" not in result.stdout, result.stdout
    assert "Ann Lee and Jun Park.\n\\newblock Sparse {E}xperts \\textbraceleft{} for everyone.\n" in bbl
    assert "\\newblock In {\\em ACM \\textbraceleft{}Press}, pages 1--10, 2020.\n" in bbl
    assert "\\newblock \\textbraceleft{}set\\textbraceright{} transformers.\n" in bbl
    assert "{\\em Journal of \\textbraceright{} Things}, 2021.\n\\newblock read after the brace.\n" in bbl
    assert "\\newblock An entry below, 2022." in bbl


# Hand-typed accents between quotes, as a co-author writes them after a Word document.
QUOTED_ACCENTS = r"""@string{tum = "Technische Universit\"at M{\"u}nchen"}
@article{mueller2019,
  author  = "M\"uller, Hans and Sch{\"o}n, Eva",
  title   = {Sharded Optimizer States},
  journal = "Proc. " # "G\"ottingen Workshop",
  year    = 2019,
  note    = tum,
  sections = {data-parallel},
}
@misc{after2020, title = {The Entry After}, author = {Roe, Jane}, year = 2020, sections = {surveys}}
"""


def test_a_quote_bibtex_ends_a_quoted_value_at_is_an_error_naming_it():
    findings = [f for f in read_bibtex(QUOTED_ACCENTS, "coauthor.bib").findings if f.check == "inner-quote"]
    assert [(f.location.line, f.message.split(" has ", 1)[0]) for f in findings] == [
        (1, "@string 'tum'"),
        (3, "field 'author' of 'mueller2019'"),
        (5, "field 'journal' of 'mueller2019'"),
    ]
    assert all(f.severity is Severity.ERROR and '{\\"u}' in f.hint for f in findings)
    assert 'has \\" (a quote outside braces: BibTeX ends the quoted value there' in findings[1].message
    # Braced, or in braces between quotes, a quote is only text to BibTeX.
    for fine in ('"M{\\"u}ller"', '{M\\"uller}', '"a {"} b"'):
        assert [
            f for f in read_bibtex(f"@misc{{k, author = {fine}}}\n", "x.bib").findings if f.check == "inner-quote"
        ] == []


def test_such_a_piece_is_written_in_braces_and_the_file_as_written_is_left_alone(tmp_path):
    written = _reported_untouched_then_written(tmp_path, QUOTED_ACCENTS, {"inner-quote": 3})
    assert '@string{tum = {Technische Universit\\"at M{\\"u}nchen}}' in written
    assert 'author = {M\\"uller, Hans and Sch{\\"o}n, Eva},' in written
    assert 'journal = "Proc. " # {G\\"ottingen Workshop},' in written


@requires_latex
@pytest.mark.latex
def test_bibtex_reads_every_field_of_the_written_file_and_not_of_the_file_as_written(tmp_path):
    (result, bbl), (written, written_bbl) = bibtex_as_written_and_rewritten(tmp_path, QUOTED_ACCENTS)
    assert "error message" in result.stdout and "Sharded optimizer states" not in bbl
    result, bbl = written, written_bbl
    assert result.returncode == 0 and "error message" not in result.stdout, result.stdout
    assert 'Hans M\\"uller and Eva Sch{\\"o}n.\n\\newblock Sharded optimizer states.\n' in bbl
    assert '{\\em Proc. G\\"ottingen Workshop}, 2019.\n\\newblock Technische Universit\\"at M{\\"u}nchen.' in bbl
    assert "\\newblock The entry after, 2020." in bbl


def _reported_untouched_then_written(tmp_path, bib: str, counts: dict[str, int]) -> str:
    """``check`` and ``bib --in-place`` report each check ``counts`` times and leave the file's bytes alone;
    then the text ``bib -o`` writes."""
    source = tmp_path / "coauthor.bib"
    source.write_bytes(bib.encode())
    for command in (["check", "coauthor.bib"], ["bib", "--in-place", "coauthor.bib"]):
        stderr = run_cli(*command, cwd=tmp_path).stderr
        assert {check: stderr.count(f"[{check}]") for check in counts} == counts, command
        assert source.read_bytes() == bib.encode(), command
    run_cli("bib", "coauthor.bib", "-o", "out.bib", cwd=tmp_path)
    return (tmp_path / "out.bib").read_text(encoding="utf-8")


# A lone brace between the quotes of a @string or @preamble: bibtexparser alone ended the block at a "}".
QUOTED_BLOCKS = r"""@string{s = "x } y"}
@preamble{"\newcommand{\noopsort}[1]{#1}}"}
@string(t = "b } c")
@article{k,
  author = {A, B},
  title = {T},
  journal = s # " and " # t,
  year = 2020,
  sections = {moe},
}
"""


def test_a_lone_brace_between_the_quotes_of_a_string_or_preamble_is_an_error_on_its_line():
    assert _brace_findings(QUOTED_BLOCKS) == [
        ("unbalanced-brace", 1, "@string 's'"),
        ("unbalanced-brace", 2, "@preamble"),
        ("unbalanced-brace", 3, "@string 't'"),
    ]
    document = read_bibtex(QUOTED_BLOCKS, "x.bib")
    assert [f.check for f in document.findings if f.severity is Severity.ERROR] == ["unbalanced-brace"] * 3
    assert [(b.kind, b.text) for b in document.blocks] == [
        ("string", '@string{s = "x } y"}'),
        ("preamble", '@preamble{"\\newcommand{\\noopsort}[1]{#1}}"}'),
        ("string", '@string{t = "b } c"}'),
    ]
    assert document.papers[0].fields["journal"] == "x y and b c"  # each @string still defines its macro


def test_such_a_string_and_preamble_are_written_balanced_and_the_file_as_written_is_left_alone(tmp_path):
    written = _reported_untouched_then_written(tmp_path, QUOTED_BLOCKS, {"unbalanced-brace": 3, "bibtex-syntax": 0})
    assert written.startswith(
        '@string{s = "x \\textbraceright{} y"}\n\n'
        '@preamble{"\\providecommand{\\noopsort}[1]{#1}\\textbraceright{}"}\n\n'
        '@string{t = "b \\textbraceright{} c"}\n\n'
        "@article{k,\n"
    )
    assert '  journal = s # " and " # t,\n' in written  # the macros still used


def test_a_parenthesis_in_braces_does_not_close_a_string_delimited_by_parentheses(tmp_path):
    bib = '@string(j = "a } b" # {c)d})\n@article{g1, author={A, B}, title={T}, journal=j, year=2020, sections={moe}}\n'
    written = _reported_untouched_then_written(tmp_path, bib, {"unbalanced-brace": 1, "bibtex-syntax": 0})
    assert written.startswith('@string{j = "a \\textbraceright{} b" # {c)d}}\n\n@article{g1,\n'), written
    assert "  journal = j,\n" in written


def test_a_string_or_preamble_with_a_line_break_before_its_delimiter_is_read_whole(tmp_path):
    # BibTeX reads line breaks around the type as it reads spaces; bibtexparser alone ended these at the lone "}"
    # (the macro s was '"x', and y"} text after it), with no finding.
    bib = QUOTED_BLOCKS.replace("@string{s", "@string\n{s").replace("@preamble{", "@\npreamble\n  {")
    bib = bib.replace("@string(t", "@ string \n(t")
    assert _brace_findings(bib) == [
        ("unbalanced-brace", 1, "@string 's'"),
        ("unbalanced-brace", 3, "@preamble"),
        ("unbalanced-brace", 6, "@string 't'"),
    ]
    assert read_bibtex(bib, "x.bib").papers[0].fields["journal"] == "x y and b c"
    written = _reported_untouched_then_written(tmp_path, bib, {"unbalanced-brace": 3, "bibtex-syntax": 0})
    assert written.startswith(
        '@string{s = "x \\textbraceright{} y"}\n\n'
        '@preamble{"\\providecommand{\\noopsort}[1]{#1}\\textbraceright{}"}\n\n'
        '@string{t = "b \\textbraceright{} c"}\n\n'
        "@article{k,\n"
    )


@requires_latex
@pytest.mark.latex
def test_bibtex_reads_the_string_and_preamble_written_and_stops_at_them_as_written(tmp_path):
    (result, _), (written, bbl) = bibtex_as_written_and_rewritten(tmp_path, QUOTED_BLOCKS)
    assert "Unbalanced braces" in result.stdout
    assert written.returncode == 0 and "error message" not in written.stdout, written.stdout
    assert "Warning" not in written.stdout, written.stdout
    assert "{\\em x \\textbraceright{} y and b \\textbraceright{} c}, 2020." in bbl, bbl
