"""Allowed LaTeX that would stop the document where it stands is found and written inert; valid LaTeX is kept."""

import pytest

from surveytool.bibtex.linked_fields import linked_value
from surveytool.bibtex.raw_specials import escaped_specials
from surveytool.bibtex.values import safe_bibtex_value
from surveytool.text.latex_allowlist import Misplaced, find_offences
from surveytool.text.latex_context import DEEPEST, paired_dollars
from surveytool.text.latex_inert import render_inert


@pytest.mark.parametrize(
    ("value", "token"),
    [
        ("Use \\verb|x| here", "\\verb"),  # reads its argument verbatim: illegal in any argument
        ("A \\ifmmode x b", "\\ifmmode"),  # "Incomplete \ifmmode"
        ("A \\fi b", "\\fi"),
        ("A \\char b", "\\char"),  # "Missing number"
        ("A \\char 300 b", "\\char 300"),  # "Bad character code"
        ("A \\arabic{x} b", "\\arabic"),  # no such counter
        ("A \\| b", "\\|"),  # a math symbol in text: "Missing $ inserted"
        ("An \\alpha in text", "\\alpha"),
        ("A \\hspace{\\textbackslash{}fill} b", "\\hspace"),  # "Illegal unit of measure"
        ("A \\kern b", "\\kern"),
        ("$\\TeX$", "\\TeX"),  # "You can't use \spacefactor in math mode"
        ("\\emph{a\\par b}", "\\par"),
        ("{\\'}", "\\'"),  # "Argument of \' has an extra }"
        ("$\\frac{a}$", "\\frac"),
        ("$\\left( x$", "\\left"),
        ("$x\\limits$", "\\limits"),  # "Limit controls must follow a math operator"
        ("\\textbf{\\url{https://x.org/\\textbf{a}}}", "\\url"),
        ('$\\mathchar"8000$', '\\mathchar"8000'),
        ("A \\char92 b", "\\char92"),  # biber writes a backslash into the .bbl, which runs what follows
        ("A \\char'45 b", "\\char'45"),  # a %, which hides the rest of the line from TeX
        ("A \\char 13 b", "\\char 13"),
        ("A \\par \\\\ b", "\\\\"),  # "There's no line here to end": TeX is between paragraphs
        ("A \\par{\\em} \\newline b", "\\newline"),
    ],
)
def test_allowed_latex_that_stops_the_document_where_it_stands_is_an_offence(value, token):
    offences = find_offences(value)
    assert [o.text for o in offences] == [token], offences
    rendered = safe_bibtex_value("{" + value + "}")
    assert rendered != "{" + value + "}" and find_offences(rendered[1:-1]) == []


@pytest.mark.parametrize(
    "value",
    [
        "A \\ifmmode x\\else y\\fi{} b",
        "$\\ifmmode \\alpha\\else a\\fi$",
        'A \\char 233 b, \\char`\\\\ and \\char"41',
        "\\arabic{page}",
        "a\\hspace{1em plus 1fill}b\\hspace*{-1.5em}\\kern.5em",
        "$\\|x\\|$ and \\ensuremath{\\alpha} and \\mbox{$\\beta$}",
        "$x$$\\alpha$ and $$y$$",
        "\\textsuperscript{\\TeX} in $\\mbox{\\TeX}$",
        "a\\par b and \\emph{}",
        "a\\par b\\\\ c\\newline d \\\\ e",
        "$\\left\\{ x\\right.$ and $\\frac{a}{b}$ and \\^{} and \\'e",
        "\\textbf{\\url{https://x.org/a\\%20b\\#c\\_d}}",
    ],
)
def test_allowed_latex_valid_where_it_stands_is_kept(value):
    assert find_offences(value) == []


def test_an_offence_of_place_asks_to_move_the_command_not_to_allow_it():
    [offence] = find_offences("A \\| b")
    assert isinstance(offence, Misplaced) and "outside math" in offence.reason
    [unlisted] = find_offences("\\input{x}")
    assert not isinstance(unlisted, Misplaced)


def test_dollars_pair_only_within_their_group():
    assert paired_dollars("a $x$ b") == {2: 1, 4: 1}
    assert paired_dollars("A $ b") == {}
    assert paired_dollars("{$}x{$}") == {}
    assert paired_dollars("$$y$$") == {0: 2, 3: 2}


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("{A $ b}", "{A \\$ b}"),  # math that never closes
        ("{{$}x{$}}", "{{\\$}x{\\$}}"),  # closed in another group
        ("{A ^ b and x^2}", "{A \\^{} b and x\\^{}2}"),  # a superscript outside math
        ("{$x^2$ and \\ensuremath{y^2}}", "{$x^2$ and \\ensuremath{y^2}}"),
        ("{\\ensuremath{a%} and $b#$}", "{\\ensuremath{a\\%} and $b\\#$}"),  # a comment or parameter in math too
        ("{\\textbf{a#b}}", "{\\textbf{a\\#b}}"),
        (
            "{\\cite{a#b_c} \\textbf{\\url{https://x.org/a%20}}}",
            "{\\cite{a\\#b_c} \\textbf{\\url{https://x.org/a\\%20}}}",
        ),
    ],
)
def test_specials_that_stop_the_document_in_text_or_math_are_escaped(value, written):
    assert escaped_specials(value) == written
    assert escaped_specials(written) == written


def test_a_link_field_holds_the_address_alone():
    assert linked_value("url", "{\\url{https://x.org}}") == "{https://x.org}"
    assert linked_value("url", '"\\href{https://x.org/a}{here}"') == "{https://x.org/a}"
    assert linked_value("url", "{https://x.org/\\textbf{a}}") == "{https://x.org/\\textbackslash{}textbf{a}}"
    assert linked_value("url", "{https://x.org/a\\_b}") == "{https://x.org/a\\_b}"  # no command: as written
    assert linked_value("title", "{\\url{https://x.org}}") == "{\\url{https://x.org}}"


def test_groups_nested_deeper_than_tex_allows_are_written_as_printed_braces():
    text = "Deep " + "{" * 150 + "x" + "}" * 150 + " title"
    math = "Deep $" + "{" * 150 + "x" + "}" * 150 + "$ title"
    for value, left, right in ((text, r"\textbraceleft{}", r"\textbraceright{}"), (math, r"\{", r"\}")):
        offences = find_offences(value)
        assert len(offences) == 2 * (150 - DEEPEST) and {o.text for o in offences} == {"{", "}"}
        written = render_inert(value, offences)
        assert written.count(left) == written.count(right) == 150 - DEEPEST and not find_offences(written)
    shallow = "A " + "{" * DEEPEST + "x" + "}" * DEEPEST
    assert find_offences(shallow) == [] and render_inert(shallow) == shallow


def test_a_rewritten_value_keeps_the_scripts_of_its_ensuremath_and_prints_an_offence_there_in_an_mbox():
    # \textasciicircum in math is "invalid in math mode" and y^2 printed as text.
    written = render_inert("A \\foo and \\ensuremath{y^2 \\bar{x}_i \\foo} b_c")
    assert written == ("A \\textbackslash{}foo and \\ensuremath{y^2 \\bar{x}_i {\\mbox{\\textbackslash{}foo}}} b\\_c")


@pytest.mark.parametrize(
    ("value", "construct", "written"),
    [
        # What \cite reads is a list of keys: anything else stops in \csname ("Missing \endcsname") or \@citex.
        (
            "A \\cite{\\relax} b",
            "\\cite{\\relax}",
            "A \\textbackslash{}cite\\textbraceleft{}\\textbackslash{}relax\\textbraceright{} b",
        ),
        (
            "A \\cite{~} b",
            "\\cite{~}",
            "A \\textbackslash{}cite\\textbraceleft{}\\textasciitilde{}\\textbraceright{} b",
        ),
        (
            "\\cite{\\emph{x}}",
            "\\cite{\\emph{x}}",
            "\\textbackslash{}cite\\textbraceleft{}\\textbackslash{}emph\\textbraceleft{}x\\textbraceright{}\\textbraceright{}",
        ),
        (
            "\\cite{\\\\}",
            "\\cite{\\\\}",
            "\\textbackslash{}cite\\textbraceleft{}\\textbackslash{}\\textbackslash{}\\textbraceright{}",
        ),
        (
            "\\cite{\\input}",
            "\\cite{\\input}",
            "\\textbackslash{}cite\\textbraceleft{}\\textbackslash{}input\\textbraceright{}",
        ),
        (
            "\\cite{a ,b}",
            "\\cite{a ,b}",
            "\\textbackslash{}cite\\textbraceleft{}a ,b\\textbraceright{}",
        ),  # "White space in argument"
        (
            "\\bibstring{\\relax}",
            "\\bibstring{\\relax}",
            "\\textbackslash{}bibstring\\textbraceleft{}\\textbackslash{}relax\\textbraceright{}",
        ),
        # A character code: never a piece of it written literally (\char`\textbackslash{}a: "Improper alphabetic constant").
        ("\\char`\\a", "\\char`\\a", "\\textbackslash{}char`\\textbackslash{}a"),
        ('\\char"FF', '\\char"FF', '\\textbackslash{}char"FF'),  # BibTeX lowercases it to \char"ff: "Missing number"
        # \left, \right and \big read a delimiter ("Missing delimiter (. inserted)").
        (
            "$\\left(\\right\\relax$",
            "\\right\\relax",
            "${\\mbox{\\textbackslash{}left}}({\\mbox{\\textbackslash{}right\\textbackslash{}relax}}$",
        ),
        (
            "$\\left\\relax x\\right)$",
            "\\left\\relax",
            "${\\mbox{\\textbackslash{}left\\textbackslash{}relax}} x{\\mbox{\\textbackslash{}right}})$",
        ),
        ("$\\big\\relax$", "\\big\\relax", "${\\mbox{\\textbackslash{}big\\textbackslash{}relax}}$"),
        # A required argument after an optional one ("Missing } inserted"), a length \\ reads.
        ("$\\sqrt[3]$", "\\sqrt[3]", "${\\mbox{\\textbackslash{}sqrt[3]}}$"),
        ("A\\\\ [Review] b", "\\\\ [Review]", "A\\textbackslash{}\\textbackslash{} [Review] b"),
        # An argument of one token written literally stays one argument.
        ("$\\frac\\input x$", "\\input", "$\\frac{\\mbox{\\textbackslash{}input}} x$"),
        ("$x^\\input$", "\\input", "$x^{\\mbox{\\textbackslash{}input}}$"),
    ],
)
def test_a_construct_tex_cannot_read_is_reported_and_written_literally_as_a_whole(value, construct, written):
    offences = find_offences(value)
    assert construct in [o.text for o in offences], offences
    assert render_inert(value) == written
    assert find_offences(written) == []
    assert safe_bibtex_value("{" + value + "}") == "{" + written + "}"


@pytest.mark.parametrize(
    "value",
    [
        "\\cite{q1, q2} and \\cite[p.~5]{q1} and \\citep[see][]{a-b:c.d_e+f/g}",
        "\\bibstring{andothers}",
        "\\char`\\i, \\char`a, \\char\"41 and \\char'101",
        "\\char`~ and \\char`\\% and \\char`\\\\",
        "$\\left< x\\right>$ and $\\big( \\Bigr\\rangle$ and $\\left\\Vert x \\right/$",
        "$\\sqrt[3]{x}$ and $\\sqrt {y}$",
        "A\\\\[1cm] b\\\\*[2pt] c",
    ],
)
def test_constructs_tex_reads_are_kept(value):
    assert find_offences(value) == []
