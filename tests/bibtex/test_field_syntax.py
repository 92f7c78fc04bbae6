"""Entries BibTeX stops reading where bibtexparser reads on: a % remark between fields, a forgotten comma, an
@type with no brace. Each is an error with its line; the .bib surveytool writes is one BibTeX reads in full."""

from helpers import bibtex_as_written_and_rewritten, requires_latex, run_cli

from surveytool.bibtex.fields import render_bibliography
from surveytool.bibtex.reader import read_bibtex

COMMENTED_OUT = """@article{c1,
  author = {Ann Author},
  title = {Pipeline Parallel Training},
  journal = {J},
%  doi = {10.1000/xyz},
  year = 2020,
  volume = {7},
}
"""
REMARK_BEFORE_A_FIELD = (
    "@article{c2,\n  author = {Ann Author},\n  title = {T},\n  journal = {J},\n  % why\n  year = 2021,\n}\n"
)
REMARK_AFTER_A_VALUE = (
    "@book{c3,\n  author = {Ann Author},\n  title = {T},\n  publisher = {P},\n  year = {2022}   % checked\n}\n"
)
NO_COMMA = "@article{m1,\n  author = {Ann Author}\n  title = {Missing Comma},\n  journal = {J},\n  year = 2020,\n}\n"
NO_BRACE = "@article{ok,\n  author = {Ann Author},\n  title = {Fine},\n  journal = {J},\n  year = 2020,\n}\n\n@article k1,\n  author = {Lost, L.},\n  title = {Lost},\n  year = 2020,\n}\n"


def _errors(text: str) -> list[str]:
    return [f"{f.location}: {f.message}" for f in read_bibtex(text, "x.bib").findings if f.check == "bibtex-syntax"]


def test_a_remark_between_fields_is_an_error_at_its_line_and_the_fields_after_it_are_kept():
    [commented] = _errors(COMMENTED_OUT)
    assert commented.startswith("x.bib:5: entry 'c1' has a % remark between its fields")
    [paper] = read_bibtex(COMMENTED_OUT, "x.bib").papers
    assert dict(paper.fields) == {
        "author": "Ann Author",
        "title": "Pipeline Parallel Training",
        "journal": "J",
        "year": "2020",
        "volume": "7",
    }
    [before] = _errors(REMARK_BEFORE_A_FIELD)
    assert before.startswith("x.bib:5: entry 'c2' has a % remark")
    assert read_bibtex(REMARK_BEFORE_A_FIELD, "x.bib").papers[0].fields["year"] == "2021"
    [after] = _errors(REMARK_AFTER_A_VALUE)
    assert after.startswith("x.bib:5: field 'year' of 'c3' is followed by '% checked'")
    assert read_bibtex(REMARK_AFTER_A_VALUE, "x.bib").papers[0].latex_fields["year"] == "{2022}"


def test_a_forgotten_comma_and_an_entry_with_no_brace_are_errors_at_their_lines():
    [comma] = _errors(NO_COMMA)
    assert comma.startswith(
        "x.bib:2: field 'author' of 'm1' runs on into 'title = {Missing Comma}': a comma is missing"
    )
    [brace] = _errors(NO_BRACE)
    assert brace.startswith("x.bib:8: @article has no { after it")
    assert _errors('@misc{u, url = {https://x.org/?a=b&c=d%20e}, title = {a = b}, note = "x = y" # {z}}\n') == []


def test_two_fields_run_on_over_lines_are_quoted_on_the_findings_one_line():
    # A finding is one line (path:line: severity [check] message): the fields a missing comma ran into span two.
    text = "@article{m2,\n  journal = {J},\n  title = {A}\n  year = {2020}\n  pages = {3},\n  author = {B}\n}\n"
    [comma] = _errors(text)
    assert "\n" not in comma
    assert comma.startswith("x.bib:3: field 'title' of 'm2' runs on into 'year = {2020} pages = {3}': a comma")


def test_text_left_after_a_value_is_an_error_at_its_line_and_joined_values_are_not():
    # A co-author's edit gone wrong: a word after a number or after a closing brace; BibTeX expects a comma there.
    text = (
        "@article{a,\n  title = {A},\n  year = 2021 extra,\n  author = {Doe, J.},\n}\n"
        "@article{b,\n  title = {B},\n  journal = {Journal} extra,\n  year = 2020,\n}\n"
        '@article{c,\n  title = {C},\n  month = jan # " 1",\n  journal = {J} # { and } # "K",\n  year = 2020\n}\n'
    )
    assert _errors(text) == [
        "x.bib:3: field 'year' of 'a' is followed by 'extra' after its value: BibTeX expects a comma or the entry's "
        "end there and stops reading the entry; the .bib surveytool writes has the value without it (check and bib "
        "--in-place leave it as you wrote it)",
        "x.bib:8: field 'journal' of 'b' is followed by 'extra' after its value: BibTeX expects a comma or the "
        "entry's end there and stops reading the entry; the .bib surveytool writes has the value without it (check "
        "and bib --in-place leave it as you wrote it)",
    ]


def test_check_fails_on_each_and_leaves_the_file_as_it_is(tmp_path):
    for n, text in enumerate((COMMENTED_OUT, REMARK_AFTER_A_VALUE, NO_COMMA, NO_BRACE)):
        bib = tmp_path / f"{n}.bib"
        bib.write_text(text, encoding="utf-8")
        result = run_cli("check", str(bib))
        assert result.returncode == 1 and "error [bibtex-syntax]" in result.stderr, result.stderr
        assert "Traceback" not in result.stderr and bib.read_text(encoding="utf-8") == text


@requires_latex
def test_bibtex_reads_every_field_of_the_bib_surveytool_writes(tmp_path):
    (_, as_written_bbl), (run, bbl) = bibtex_as_written_and_rewritten(tmp_path, COMMENTED_OUT + REMARK_AFTER_A_VALUE)
    assert "2020" not in as_written_bbl  # BibTeX lost the year after the remark
    assert run.returncode == 0 and "error message" not in run.stdout, run.stdout
    assert "2020" in bbl and "7" in bbl and "2022" in bbl
    (_, _), (run, bbl) = bibtex_as_written_and_rewritten(tmp_path, NO_BRACE)
    assert run.returncode == 0 and "error message" not in run.stdout, run.stdout
    assert "Fine" in bbl and "Lost" not in bbl  # kept as a comment, as surveytool read it


# Text after a braced value, as a co-author's edit leaves it: a second group, a word, a command, a forgotten comma.
TEXT_AFTER = (
    "@article{k8,\n  title = {Expert routing} {\\em x},\n  year = 2020,\n  author = {A, B},\n  journal = {J},\n}\n"
    "@article{k9,\n  title = {Routing} extra,\n  year = 2021,\n  author = {C, D},\n  journal = {K},\n}\n"
    "@article{k7,\n  title = {X} \\par,\n  year = 2022,\n  author = {E, F},\n  journal = {L},\n}\n"
    '@article{k6,\n  author = {G, H},\n  title = "Quoted" "twice",\n  journal = {N},\n  year = 2024,\n}\n'
    "@article{k5,\n  author = {I, J},\n  title = {Y},\n  journal = {M} year = 2023,\n}\n"
)


def test_text_after_a_braced_value_is_an_error_on_its_line_and_written_as_bibtex_reads_the_value():
    assert [error.split(": BibTeX")[0] for error in _errors(TEXT_AFTER)] == [
        "x.bib:2: field 'title' of 'k8' is followed by '{\\em x}' after its value",
        "x.bib:8: field 'title' of 'k9' is followed by 'extra' after its value",
        "x.bib:14: field 'title' of 'k7' is followed by '\\par' after its value",
        "x.bib:21: field 'title' of 'k6' is followed by '\"twice\"' after its value",
        "x.bib:28: field 'journal' of 'k5' runs on into 'year = 2023': a comma is missing after its value, and "
        "BibTeX stops reading the entry there; the .bib surveytool writes has the comma and year (check and bib "
        "--in-place leave it as you wrote it)",
    ]
    document = read_bibtex(TEXT_AFTER, "x.bib")
    written = render_bibliography(document.papers, document.blocks)
    # The value BibTeX reads, without the text it stops at; after a forgotten comma, the field BibTeX would lose.
    for line in ("title = {Expert routing},", "title = {Routing},", "title = {X},", 'title = "Quoted",'):
        assert f"\n  {line}\n" in written
    assert "\n  journal = {M},\n" in written and "\n  year = 2023,\n" in written
    assert "{\\em x}" not in written and "extra" not in written and "\\par" not in written


def test_text_after_a_value_fails_check_and_bib_in_place_leaves_the_file_as_it_is(tmp_path):
    bib = tmp_path / "q.bib"
    bib.write_text(TEXT_AFTER, encoding="utf-8")
    result = run_cli("check", str(bib))
    assert result.returncode == 1 and result.stderr.count("error [bibtex-syntax]") == 5, result.stderr
    assert "q.bib:2: error [bibtex-syntax] field 'title' of 'k8'" in result.stderr
    assert "(delete it, or put it inside the value's braces)" in result.stderr
    result = run_cli("bib", str(bib), "--in-place")
    assert "Traceback" not in result.stderr and bib.read_text(encoding="utf-8") == TEXT_AFTER


@requires_latex
def test_bibtex_reads_every_field_of_the_bib_written_from_text_after_a_value(tmp_path):
    (_, as_written_bbl), (run, bbl) = bibtex_as_written_and_rewritten(tmp_path, TEXT_AFTER)
    assert "2020" not in as_written_bbl  # BibTeX stopped at the text after the title, and lost the year
    assert run.returncode == 0 and "error message" not in run.stdout and "Warning" not in run.stdout, run.stdout
    for field in ("Expert routing", "{\\em J}, 2020", "{\\em K}, 2021", "{\\em L}, 2022", "{\\em M}, 2023", "Quoted"):
        assert field in bbl, (field, bbl)
    assert "{\\em N}, 2024" in bbl


NO_NAME = (
    "@article{w1,\n  title = {Routing},\n  \\immediate\\write18 = {touch x},\n  author = {A, B},\n"
    "  a#b = {y},\n  9lives = {z},\n  journal = {J},\n  year = 2020,\n  bdsk-url-1 = {u},\n  __markedentry = {[me:1]},\n}\n"
)


def test_a_field_name_that_is_no_bibtex_name_is_an_error_at_its_line_and_left_out_of_the_written_bib(tmp_path):
    assert [e.split(", which")[0] for e in _errors(NO_NAME)] == [
        "x.bib:3: entry 'w1' has a field named '\\immediate\\write18'",
        "x.bib:5: entry 'w1' has a field named 'a#b'",
        "x.bib:6: entry 'w1' has a field named '9lives'",
    ]
    document = read_bibtex(NO_NAME, "x.bib")
    written = render_bibliography(document.papers, document.blocks)
    assert "write18" not in written and "a#b" not in written and "9lives" not in written
    assert "bdsk-url-1 = {u}" in written and "__markedentry = {[me:1]}" in written and "author = {A, B}" in written
    bib = tmp_path / "x.bib"
    bib.write_text(NO_NAME, encoding="utf-8")
    result = run_cli("bib", "--in-place", "x.bib", cwd=tmp_path)
    assert result.returncode == 1 and "error [bibtex-syntax]" in result.stderr
    kept = bib.read_text(encoding="utf-8")  # the user's own file keeps the fields (and gains a tag)
    assert "\\immediate\\write18 = {touch x}," in kept and "a#b = {y}," in kept and "9lives = {z}," in kept


def test_syntax_and_duplicate_field_errors_name_a_field_as_the_entry_writes_it():
    # Web of Science and IEEE write Title and NOTE; the errors said 'title' and 'note', which a case-sensitive
    # search of the file does not find.
    text = (
        "@Article{w1,\nAuthor = {Ann Author},\nTitle = {Expert Routing}\nJournal = {J},\n"
        "Year = {2022} % checked\n}\n\n@Article{w2,\nTitle = {T},\nNOTE = {One},\nnote = {Two},\n}\n"
    )
    found = [(f.check, f.location.line, f.message.split(":")[0]) for f in read_bibtex(text, "x.bib").findings]
    assert sorted(found) == [
        ("bibtex-syntax", 3, "field 'Title' of 'w1' runs on into 'Journal = {J}'"),
        (
            "bibtex-syntax",
            5,
            "field 'Year' of 'w1' is followed by '% checked', which BibTeX does not read as a comment",
        ),
        ("duplicate-field", 11, "entry 'w2' has the field 'NOTE' again"),
    ]


def test_allowlist_and_bidi_findings_name_a_field_as_the_entry_writes_it():
    text = "@Article{w3,\nTitle = {Routing \\input{x}},\nNOTE = {abc\u202etxt},\nYear = {2022},\n}\n"
    findings = read_bibtex(text, "x.bib").findings
    found = {(f.check, f.location.line, f.message.split(" has ")[0].split(" holds ")[0]) for f in findings}
    assert ("dangerous-macro", 2, "field 'Title' of 'w3'") in found
    assert ("bidi-control", 3, "field 'NOTE' of 'w3'") in found
