import gc
from pathlib import Path
from types import FrameType

from surveytool.bibtex.fields import render_bibliography
from surveytool.bibtex.reader import read_bibtex
from surveytool.bibtex.values import value_to_text

SAMPLE = """% My library
@string{acm = "ACM Press"}
@preamble{"\\newcommand{\\noop}[1]{}"}

@article{knuth1984,
  author = {Donald E. Knuth and M{\\"u}ller, J.},
  title = {Literate {Programming}},
  publisher = acm # " Inc.",
  month = jan,
  year = 1984,
  sections = {Surveys; moe},
}

@article{broken, title = {unbalanced
@misc{twice, title = {a}, title = {b}}
@misc{knuth1984, title = {Same key again}}
"""


def test_entries_macros_preamble_and_comments_are_read():
    document = read_bibtex(SAMPLE, "lib.bib")
    knuth = document.papers[0]
    assert knuth.key == "knuth1984" and knuth.entry_type == "article"
    assert knuth.fields["author"] == "Donald E. Knuth and Müller, J."
    assert knuth.fields["publisher"] == "ACM Press Inc."
    assert knuth.fields["month"] == "January"
    assert knuth.latex_fields["publisher"] == 'acm # " Inc."'
    assert knuth.explicit_tags == ("Surveys", "moe")
    assert knuth.sources[0].line == 5
    kinds = [b.kind for b in document.blocks]
    assert kinds[:3] == ["comment", "string", "preamble"]


def test_broken_blocks_are_reported_with_line_and_kept():
    document = read_bibtex(SAMPLE, "lib.bib")
    checks = {(f.check, f.location.line) for f in document.findings}
    assert ("bibtex-syntax", 14) in checks
    assert ("duplicate-field", 15) in checks
    # A key used twice is reported once keys are given, naming the new key (tests/analysis/test_duplicates.py).
    assert [p.key for p in document.papers] == ["knuth1984", "twice", "knuth1984"]  # the second one is kept
    failed = [b.text for b in document.blocks if b.kind == "failed"]
    assert any("unbalanced" in t for t in failed) and not any("twice" in t for t in failed)


def test_a_field_named_twice_keeps_its_entry_and_its_first_value_as_bibtex_does():
    # BibTeX reads the entry with the first value ("I'm ignoring twice's extra title field"); it was a failed
    # block, written as a comment by bib -o (its key gone), and a repeat in another case took the last value.
    text = (
        "@misc{twice,\n  title = {One},\n  title = {Two},\n  year = 2018,\n}\n"
        "@misc{cased,\n  title = {Three},\n  sections = {moe},\n  SECTIONS = {memory},\n  TITLE = {\\input{x}},\n}\n"
    )
    document = read_bibtex(text, "lib.bib")
    twice, cased = document.papers
    assert (twice.key, twice.fields["title"], twice.fields["year"]) == ("twice", "One", "2018")
    assert (cased.fields["title"], cased.explicit_tags) == ("Three", ("moe",))
    assert not [b for b in document.blocks if b.kind == "failed"]
    found = sorted((f.check, f.location.line, f.key) for f in document.findings)
    assert found == [
        ("dangerous-macro", 10, "cased"),  # a value BibTeX ignores is still checked, on its own line: biber may read it
        ("duplicate-field", 3, "twice"),
        ("duplicate-field", 9, "cased"),
        ("duplicate-field", 10, "cased"),
    ]
    dangerous = next(f for f in document.findings if f.check == "dangerous-macro")
    assert dangerous.hint.startswith("delete this value: BibTeX ignores it, the .bib surveytool writes leaves it out")
    written = render_bibliography(list(document.papers), document.blocks)
    assert "@misc{twice," in written and "title = {One}" in written and "Two" not in written
    assert "input" not in written


def test_round_trip_keeps_macros_and_original_values():
    document = read_bibtex(SAMPLE, "lib.bib")
    papers = [document.papers[0]]
    text = render_bibliography(papers, document.blocks)
    assert '@string{acm = "ACM Press"}' in text
    assert 'publisher = acm # " Inc."' in text
    assert "month = jan" in text
    assert 'author = {Donald E. Knuth and M{\\"u}ller, J.}' in text
    assert "unbalanced" in text  # the failed block survives verbatim
    again = read_bibtex(text, "out.bib")
    assert again.papers[0].fields == papers[0].fields
    assert render_bibliography(again.papers, again.blocks) == text


def test_value_to_text_concatenation_with_hash_inside_braces():
    assert value_to_text('{C\\# and F\\#} # " rocks"') == "C# and F# rocks"


def test_a_pylatexenc_decode_leaves_no_cycle_through_the_readers_frames():
    # pylatexenc keeps the exception ending its input in a local: a cycle through its traceback.
    # A run pauses the cycle collector, so the reader's frames (and the file's text) must stay out of it.
    text = "@article{a, title={Written with the {\\textregistered} sign}}\n" * 3
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        document = read_bibtex(text, "refs.bib")
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        frames = {
            f"{Path(o.f_code.co_filename).name}:{o.f_code.co_name}" for o in gc.garbage if isinstance(o, FrameType)
        }
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    assert document.papers[0].title == "Written with the ® sign"
    assert any(name.startswith("__init__.py:get_latex_nodes") for name in frames)  # pylatexenc ran and left its cycle
    assert not {name for name in frames if name.startswith(("reader.py", "chunks.py", "values.py", "read.py"))}


def test_a_dangerous_macro_is_reported_at_its_fields_line():
    # A co-author's entry as the wild writes it: CRLF, a preamble line, the field lines below the key.
    text = (
        "@preamble{ {\\providecommand{\\x}{}} }\r\n"
        "\r\n"
        "@article{trick2021,\r\n"
        "  author = {A. Author},\r\n"
        "  title  = {Harmless},\r\n"
        "  journal = {J},\r\n"
        "  note   = {\\immediate\\write18{rm -rf ~}},\r\n"
        "  year   = 2021\r\n"
        "}\r\n"
    )
    findings = read_bibtex(text, "coauthor.bib").findings
    found = [f for f in findings if f.check == "dangerous-macro" and f.key == "trick2021"]
    assert [(f.location.path, f.location.line) for f in found] == [("coauthor.bib", 7)]
    assert "field 'note' of 'trick2021'" in found[0].message


def test_a_key_written_with_a_character_no_one_sees_is_unusable_naming_it():
    # Pasted from a web page or a PDF: BibTeX keeps a no-break space before the comma (the reader stripped it) or a
    # zero-width space in the key, so \cite{smith2020} as typed found no entry, and check said nothing.
    text = "@misc{smith2020\u00a0,\n  title = {A},\n}\n@misc{lee\u200b2021,\n  title = {B},\n}\n@misc{müller2020,\n}\n"
    document = read_bibtex(text, "lib.bib")
    assert [p.key for p in document.papers] == ["smith2020", "lee\u200b2021", "müller2020"]  # keys kept as read
    found = [(f.check, f.location.line, f.key, f.message.split(": ")[-1]) for f in document.findings]
    assert found == [
        ("unusable-key", 1, "smith2020", "\\cite{smith2020} does not find the entry"),
        ("unusable-key", 4, "lee\u200b2021", "\\cite{lee2021} does not find the entry"),
    ]
    assert "U+00A0 (no-break space)" in document.findings[0].message
    assert "U+200B (zero width space)" in document.findings[1].message


def test_a_string_running_a_command_is_written_printing_it_literally():
    # Its fields were printed literally, but the @string kept \input: BibTeX keeps macros from one .bib to the next,
    # so \bibliography{references,theirs} ran it wherever the co-author's other file used the macro.
    text = (
        '@string{evil = "\\input{/etc/passwd}"}\n@string{acm = "ACM {\\em Press}"}\n@string{cut = "\\emph"}\n'
        '@misc{a, title = {A}, journal = evil # " x", publisher = acm, note = cut # "{b}"}\n'
    )
    document = read_bibtex(text, "lib.bib")
    written = render_bibliography(list(document.papers), document.blocks)
    assert "@string{evil = {\\textbackslash{}input{/etc/passwd}}}" in written
    assert '@string{acm = "ACM {\\em Press}"}' in written and '@string{cut = "\\emph"}' in written
    assert "\\input" not in written.replace("\\textbackslash{}input", "")
