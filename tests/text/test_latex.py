import logging
import re

from helpers import run_cli
from hypothesis import event, given
from hypothesis import strategies as st

from surveytool.text.latex import (
    LatexMarkup,
    comment_text,
    encode_bibtex_title,
    encode_bibtex_value,
    escape_text,
    latex_to_text,
    math_to_text,
    usable_key,
)
from surveytool.text.latex_decode import quick_decode, quick_latex_to_text


def test_specials_are_escaped_and_inert():
    escaped = escape_text(r"\immediate\write18{rm -rf ~} 50% & $x_1$ #1 ^ <a|b>")
    assert "\\immediate" not in escaped and "\\write18" not in escaped
    assert escaped == (
        r"\textbackslash{}immediate\textbackslash{}write18\{rm -rf \textasciitilde{}\} 50\% \& "
        r"\$x\_1\$ \#1 \textasciicircum{} \textless{}a\textbar{}b\textgreater{}"
    )


def test_markup_is_not_escaped_twice():
    markup = LatexMarkup(r"\citet{a}")
    assert escape_text(markup) is markup


def test_non_ascii_becomes_macros_and_unknown_chars_a_visible_marker():
    assert escape_text("Müller café") == r"M{\"u}ller caf{\'e}"
    assert escape_text("中") == r"\stchar{4E2D}"


def test_comment_text_stays_on_one_line():
    assert comment_text("a\nb\r\nc ^^M") == "a b c ^ ^M"


def test_bibtex_title_protects_only_words_a_style_would_damage():
    assert encode_bibtex_title("GShard: Scaling Giant Models on GPUs") == "{GShard}: Scaling Giant Models on {GPUs}"
    assert encode_bibtex_title("End-to-End Training with GPT-2") == "End-to-End Training with {GPT-2}"
    assert encode_bibtex_title("R&D in Zürich") == r"{R\&D} in Z{\"u}rich"


def test_bibtex_value_escapes_plain_text():
    assert encode_bibtex_value("50% of A_B & C#") == r"50\% of A\_B \& C\#"


def test_latex_to_text_round_trips_what_we_encode():
    for text in ("Müller & Søren", "50% of A_B", "GShard: GPUs, “quotes”"):
        assert latex_to_text(encode_bibtex_title(text)) == text


def test_quick_decoder_agrees_with_pylatexenc_on_common_markup():
    for value in (
        r"M{\"u}ller and Caf\'e na{\"\i}ve",
        r"a cluster{\textellipsis}",
        r"50\% of A\_B \c{c}a",
        r"{GShard}: Scaling {GPUs}",
        r"\textbraceleft{}x\textbraceright{} \& R\&D",
    ):
        assert quick_latex_to_text(value) == latex_to_text(value), value


# Pieces of a value without commands: those quick_decode's short way reads (words, spaces, braces, ligatures whole or
# split by braces, letters beyond ASCII, composed or not), and those that send it the long way (a tie, a dollar, a
# NUL: the long way's mark for a tie). Half the values are of the first alone: their codes are read modulo their number.
SHORT_WAY_PIECES = [*"a Z1 ? - -- --- -{}- ` `` ' '' { } {x} \u00e9 e\u0301 \u00df".split(), " ", "\t", "\n", "\u3000"]
PLAIN_PIECES = [*SHORT_WAY_PIECES, "~", "$", "${x}--$", "\0"]
_PIECE_CODES = st.text(alphabet=st.sampled_from([chr(i) for i in range(len(PLAIN_PIECES))]), max_size=20)


def _plain_value(short_way_only: bool, codes: str) -> str:
    count = len(SHORT_WAY_PIECES) if short_way_only else len(PLAIN_PIECES)
    return "".join(PLAIN_PIECES[ord(code) % count] for code in codes)


@given(st.builds(_plain_value, st.booleans(), _PIECE_CODES))
def test_a_value_without_commands_decodes_as_one_with_a_command(value):
    # Without a backslash, a dollar or a tie, quick_decode takes a short way: a \relax after the value, which
    # prints nothing, sends it the long way (pages with their dashes, titles with braces and accents).
    event("short way" if not re.search(r"[\\$~\0]", value) else "long way")
    assert quick_decode(value) == quick_decode(value + "\\relax")


def test_ligatures_and_braces_alone_decode_to_their_characters():
    assert quick_latex_to_text("2613--2621") == "2613\u20132621"
    assert (
        quick_latex_to_text("{GPU}s ``fast'' ---- {\u0065\u0301}t\u00e9")
        == "GPUs \u201cfast\u201d \u2014- \u00e9t\u00e9"
    )


def test_the_tex_logos_and_spaces_written_as_commands_keep_their_text():
    value = r"Typesetting with \LaTeX\ and \TeX{} and {\BibTeX}: 5\,GB, \LaTeXe"
    assert latex_to_text(value) == "Typesetting with LaTeX and TeX and BibTeX: 5 GB, LaTeX2e"
    assert latex_to_text(value + r"; \dag") == latex_to_text(value) + "; †"  # through pylatexenc as well
    assert latex_to_text(r"Plain\\ line and \TeX~book") == "Plain line and TeX book"  # a tie is no space it eats


def test_line_breaks_paragraphs_and_spacing_commands_end_a_word():
    for break_ in (r"\newline", r"\newline{}", r"\\", r"\par", r"\par{}", r"\space", r"\quad"):
        value = f"Scaling{break_}Laws" if break_.endswith("}") or break_ == r"\\" else f"Scaling{break_} Laws"
        assert quick_latex_to_text(value) == "Scaling Laws", value
        assert latex_to_text(value) == "Scaling Laws", value
        assert latex_to_text(value + r" \dag") == "Scaling Laws †", value  # through pylatexenc too


def test_a_line_break_with_its_star_and_length_is_one_space():
    # \\*[2pt] is one command: its star and length are no text ("Plain [2pt]text" was the quick decoding).
    for value in (r"Plain\\[2pt]text", r"Plain\\*text", r"Plain\\*[1ex]text", "Plain\\\\ \n *[{1ex}]text"):
        assert quick_latex_to_text(value) == "Plain text", value
        assert latex_to_text(value) == "Plain text", value
        assert latex_to_text(value + r" \dag") == "Plain text †", value  # through pylatexenc as well
    # A bracket after a space, a second star or a second length is text, for pylatexenc too.
    for value in (r"Plain\\ [2pt]text", r"Plain\\**text", r"Plain\\[2pt][3pt]text", r"Plain\\{}[2pt]text"):
        assert quick_latex_to_text(value) + " †" == latex_to_text(value + r" \dag"), value


def test_an_accent_or_tie_after_a_line_break_is_text_of_the_next_line():
    # The second backslash of \\ began an accent: Plain\\'e was "Plainé" (with \\e, an unknown command, dropped).
    for value, text in (
        (r"Plain\\'quoted'", "Plain 'quoted'"),
        (r"Plain\\~text", "Plain text"),
        (r"Plain\\\'etude", "Plain \u00e9tude"),
        (r"Plain\\\~n", "Plain \u00f1"),
    ):
        assert quick_latex_to_text(value) == text, value
        assert latex_to_text(value + r" \dag") == text + " †", value  # through pylatexenc as well


def test_math_right_after_a_line_break_stays_as_written():
    # The $ after \\ was taken for an escaped one: the math was decoded as text (its braces dropped, "$x_1$").
    value = r"Plain\\$x_{1}$ and\\$\alpha$ text"
    assert quick_latex_to_text(value) == "Plain $x_{1}$ and $\\alpha$ text"
    assert latex_to_text(value) == latex_to_text(value + r" \dag")[: -len(" †")] == "Plain $x_{1}$ and $\\alpha$ text"


def test_slash_is_a_slash():
    # \slash prints a / (a line may break after it); it read as nothing: "input\slash output" was "inputoutput".
    for value in (r"input\slash output", r"input\slash{}output"):
        assert quick_latex_to_text(value) == "input/output", value
        assert latex_to_text(value) == "input/output", value
        assert latex_to_text(value + r" \dag") == "input/output †", value  # through pylatexenc as well


def test_inverted_marks_written_as_ligatures_are_their_characters():
    # TeX reads ?` and !` as the ligatures ¿ and ¡; the quick decoder kept them as written, and pylatexenc did not,
    # so a title decoded otherwise when some other command sent it to pylatexenc.
    value = r"?`Qu\'e es? !`Ol\'e!"
    assert quick_latex_to_text(value) == latex_to_text(value) == "\u00bfQu\u00e9 es? \u00a1Ol\u00e9!"
    assert latex_to_text(value + r" \dag") == latex_to_text(value) + " †"
    assert latex_to_text("?``a") == quick_latex_to_text("?``a") == "\u00bf`a"  # as TeX, left to right
    for text in ("?`", "!`a", "Why?`Quoted'"):
        assert latex_to_text(encode_bibtex_title(text)) == text  # what we write is kept apart


def test_a_title_broken_with_newline_is_the_same_work_as_one_without(tmp_path):
    entry = "@misc{%s,\n  title = {%s},\n  author = {Jared Kaplan},\n  year = 2020,\n}\n"
    (tmp_path / "refs.bib").write_text(
        entry % ("kaplan2020", "Scaling Laws for Neural Language Models")
        + entry % ("kaplan20", r"Scaling\newline Laws for Neural Language Models"),
        encoding="utf-8",
    )
    result = run_cli("check", "refs.bib", "--checks", "duplicate-entry", cwd=tmp_path)
    assert "[duplicate-entry]" in result.stderr, result.stderr
    assert "kaplan2020" in result.stderr and "kaplan20" in result.stderr
    run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path, check=True)
    assert r"title = {Scaling\newline Laws for Neural Language Models}" in (tmp_path / "out.bib").read_text()


STRAY = "@article{e10,\n  author = {Doe, Jane},\n  title = {Pipeline parallel a^^\\input},\n  journal = {J},\n  year = 2001,\n}\n"


def test_pylatexenc_logs_nothing_while_surveytool_decodes(caplog):
    caplog.set_level(logging.DEBUG)
    assert latex_to_text("Pipeline parallel a^^\\input") == "Pipeline parallel a^^"
    assert [r for r in caplog.records if r.name.startswith("pylatexenc")] == []
    assert not logging.getLogger("pylatexenc.latex2text").disabled  # only while surveytool called it


def test_stderr_holds_only_findings_for_a_value_pylatexenc_stumbles_on(tmp_path):
    # pylatexenc warned "Expected exactly one argument for '\\input' ! Got = []" on stderr, outside any finding.
    (tmp_path / "refs.bib").write_text(STRAY)
    for args in (["bib", "refs.bib", "-o", "out.bib"], ["build", "refs.bib", "--out", "out", "-q"]):
        result = run_cli(*args, cwd=tmp_path)
        assert result.returncode == 1 and "Expected exactly" not in result.stderr
        lines = result.stderr.splitlines()
        assert lines and all(
            re.match(r"refs\.bib:\d+: (error|warning|info) \[[a-z-]+\] .+ \(.+\)$", line) for line in lines
        )
        assert "refs.bib:3: error [dangerous-macro] field 'title' of 'e10'" in result.stderr


def test_a_key_with_a_control_character_cannot_be_cited():
    # \cite{a^^?b} stops pdfLaTeX ("Text line contains an invalid character"), \cite{a^^Ab} ("Missing \endcsname").
    for key in ("a\x7fb", "a\x01b", "a\x1bb", "a\x00b", "a\x9bb"):
        assert not usable_key(key), repr(key)
    for key in ("shazeer2017", "müller:2020/x", "a@b.c-d_e"):
        assert usable_key(key), key


def test_c1_controls_are_dropped_from_text_as_c0_ones_are():
    # U+009B is CSI to terminals that read 8-bit controls; in a chapter pdfLaTeX stops at it (not set up for use).
    assert escape_text("a\x1b[2Jb\x9b2Jc\x85d") == "a[2Jb2Jcd"


def test_math_nested_deeper_than_the_decoder_recurses_is_kept_as_written():
    # pylatexenc reads groups recursively: a title's $...$ with braces a thousand deep crashed build and export
    # (RecursionError) once the chapter printed a title's math as its characters.
    deep = "$" + "{" * 2000 + "x" + "}" * 2000 + "$"
    assert math_to_text(f"Title {deep} and $\\alpha$") == f"Title {deep} and α"
    # The same for any text: export decodes each name part again, and a part nested as deep crashed it.
    assert latex_to_text("{" * 3000 + 'M\\"uller' + "}" * 3000) == "Müller"


def test_an_accent_on_an_empty_group_prints_nothing_as_pylatexenc_reads_it():
    # The quick decoder left the backslash: "a\~{}b" was "a\~b", and "ab" once another command sent it to pylatexenc.
    for value, text in ((r"a\~{}b", "ab"), (r"a\'{} b", "a b"), (r"\^{ }x", "x"), (r"Q\"{}", "Q"), (r"\~{}\^{}", "")):
        assert quick_latex_to_text(value) == text, value
        assert latex_to_text(value + r" \dag") == (text + " †").lstrip(), value  # through pylatexenc as well


def test_an_escaped_dollar_inside_math_neither_ends_it_nor_opens_more_math():
    # The math ended at its \$, and the next $ opened math up to the \$ of "\$5", which stayed as written.
    for value, text in (
        (r"$a\$b$ and \$5", r"$a\$b$ and $5"),
        (r"\$5 and $x\$$ and \$6", r"$5 and $x\$$ and $6"),
        (r"$\$$ costs \$", r"$\$$ costs $"),
    ):
        assert quick_latex_to_text(value) == text, value
        assert latex_to_text(value + r" \dag") == text + " †", value  # through pylatexenc as well


# Pieces of values the quick decoder reads whole: accents on a letter or on nothing, escaped and line-break-led
# dollars, math with an escaped dollar or brace inside. Math pieces are whole, so that a value never leaves math open.
_DECODED_PIECES = st.sampled_from(
    [*"a Z ~ { }".split(), " ", r"\~{}", r"\'{}", r"\^{ }", r"\~n", r"\'{e}", r"\$", r"\\", r"\%", "$x$"]
    + [r"$a\$b$", r"$\$$", r"$a\{b$", r"$\\$", r"\textbf{x}"]
)


@given(st.lists(_DECODED_PIECES, max_size=12).map("".join))
def test_the_quick_decoder_reads_accents_dollars_and_math_as_pylatexenc_does(value):
    assert (quick_latex_to_text(value) + " †").lstrip() == latex_to_text(value + r" \dag"), value
