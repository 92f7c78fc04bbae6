"""A @preamble's raw special characters are found as TeX reads them, and its definitions' parameters are kept."""

import pytest

from surveytool.bibtex.values import bibtex_value_offences, safe_bibtex_value
from surveytool.text.latex import latex_offences
from surveytool.text.preamble_text import definition_parameters


@pytest.mark.parametrize(
    ("preamble", "specials"),
    [
        ("A & B", ["&"]),  # "Misplaced alignment tab character &"
        ("50% of it", ["%"]),  # hides the rest of the .bbl's line
        ("a_b and a^b", ["_", "^"]),  # scripts outside math
        ("$x^2", ["$", "^"]),  # math that never closes; its ^ is then in text
        ("\\newcommand{\\noopsort}[1]{#2}", ["#"]),  # "Illegal parameter number in definition"
        ("\\providecommand{\\noopsort}{#1}", ["#"]),  # no argument declared
        ("\\def\\noopsort#2{}", ["#"]),  # parameters are numbered from 1
        ("#1 \\newcommand{\\noopsort}[1]{}", ["#"]),  # a parameter outside any definition
    ],
)
def test_a_raw_special_in_a_preamble_is_an_offence(preamble, specials):
    assert [o.text for o in latex_offences(preamble, preamble=True)] == specials


@pytest.mark.parametrize(
    "preamble",
    [
        "\\newcommand{\\noopsort}[1]{#1}",
        "\\providecommand*{\\noopsort}[2][x]{#1 #2}",  # an optional first argument, and its default
        "\\def\\noopsort#1#2{#2}",
        "\\newcommand{\\noopsort}[1]{\\def\\printfirst##1{##1}}",  # ## is the inner definition's parameter
        "$x_1^2$ and \\ensuremath{y_i} and \\& and \\% and \\_",
    ],
)
def test_definitions_math_and_escaped_specials_in_a_preamble_are_valid(preamble):
    assert latex_offences(preamble, preamble=True) == []


def test_in_a_field_the_same_characters_stay_unescaped_special_findings_not_offences():
    # A field's raw & is reported by unescaped-special and escaped when written (raw_specials.py).
    assert latex_offences("A & B", preamble=False) == []
    assert bibtex_value_offences("{A & B}") == ("", [])


def test_a_written_preamble_prints_its_specials_and_keeps_its_definitions_parameters():
    written = safe_bibtex_value('"\\providecommand{\\noopsort}[1]{#1} 50% done & \\ensuremath{x^2} a_b"', preamble=True)
    assert written == "{\\providecommand{\\noopsort}[1]{#1} 50\\% done \\& \\ensuremath{x^2} a\\_b}"
    assert latex_offences(written[1:-1], preamble=True) == []


def test_a_preamble_using_a_macro_with_a_raw_ampersand_is_read_through_the_macro():
    tex, offences = bibtex_value_offences('"x" # amp # "y"', {"amp": "&"}, preamble=True)
    assert tex == "x&y" and [o.text for o in offences] == ["&"]


def test_definition_parameters_are_where_the_hashes_of_declared_parameters_stand():
    value = "\\newcommand{\\a}[1]{#1 #2} \\def\\b#1{\\def\\c##1{##1#1}}"
    kept = sorted(definition_parameters(value))
    # not #2: \\a takes one argument; ## in \\c, the definition nested in \\b, and \\b's #1 there
    assert [value[i : i + 2] for i in kept] == ["#1", "#1", "##", "#1", "##", "#1", "#1"]


@pytest.mark.parametrize(
    ("preamble", "specials"),
    [
        # TeX checks a nested definition's # against the outer one: "Illegal parameter number in definition".
        ("\\newcommand{\\noopsort}{\\def\\printfirst#1{#1}}", ["#", "#"]),
        # ## outside a nested definition: \\noopsort{x} typesets a parameter character, and LaTeX stops.
        ("\\newcommand{\\noopsort}[1]{##1}", ["#", "#"]),
        ("\\newcommand{\\noopsort}[10]{}", ["\\newcommand"]),  # "You already have nine parameters"
    ],
)
def test_a_parameter_tex_rejects_in_a_nested_definition_or_past_nine_is_an_offence(preamble, specials):
    assert [o.text for o in latex_offences(preamble, preamble=True)] == specials
    written = safe_bibtex_value("{" + preamble + "}", preamble=True)
    assert latex_offences(written[1:-1], preamble=True) == [] and safe_bibtex_value(written, preamble=True) == written


def test_a_definition_written_to_print_defines_nothing_and_its_parameters_print_too():
    # Its \newcommand printed, the "#1" of its body would be a raw # in text, and the next reading would differ.
    written = safe_bibtex_value('"\\newcommand{\\leak}[1]{#1}"', preamble=True)
    assert "{\\#1}" in written and "{#1}" not in written
    assert safe_bibtex_value(written, preamble=True) == written
