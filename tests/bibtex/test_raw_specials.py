"""Raw &, %, # and _ in .bib values: found where LaTeX would misread them, escaped once, and left alone in addresses."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from surveytool.bibtex.fields import bibtex_fields
from surveytool.bibtex.raw_specials import LITERAL_FIELDS, escaped_in, escaped_specials, raw_specials
from surveytool.bibtex.reader import read_bibtex


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("{50% faster training}", r"{50\% faster training}"),
        ("{Science & Engineering}", r"{Science \& Engineering}"),
        (r"{R\&D at 50\% already}", r"{R\&D at 50\% already}"),  # escaped once, never twice
        (r"{a line \\& a raw one}", r"{a line \\\& a raw one}"),  # \\ is a line break: the & after it is raw
        ('"Tom & Jerry" # { & Co}', r'"Tom \& Jerry" # { \& Co}'),
        (r"{$a & b$ and 10%}", r"{$a \& b$ and 10\%}"),
        (
            r"{see \url{https://x.org/a%20b?c=1&d=2} & \href {https://y.org/%7E}{50% off}}",
            r"{see \url{https://x.org/a\%20b?c=1&d=2} \& \href {https://y.org/\%7E}{50\% off}}",
        ),
        ("{C# code and snake_case names}", r"{C\# code and snake\_case names}"),
        ('"F# in quotes" # { and x_y} # acm_press', r'"F\# in quotes" # { and x\_y} # acm_press'),  # joins, a name
        (
            r"{$x_i$ for \ensuremath{y_j} \cite{a_b} \doi{10.1/a_b} and z_k}",
            r"{$x_i$ for \ensuremath{y_j} \cite{a_b} \doi{10.1/a_b} and z\_k}",
        ),
        (r"{already \# and \_}", r"{already \# and \_}"),
        (  # the argument of \text or \mbox is text in math too: there a raw _ stops the document
            r"{$\text{a_b}$, \ensuremath{\mbox{c_d} x_e} and \text{$y_f$}}",
            r"{$\text{a\_b}$, \ensuremath{\mbox{c\_d} x_e} and \text{$y_f$}}",
        ),
    ],
)
def test_raw_specials_are_escaped_and_in_a_link_address_only_percents_and_hashes(value, written):
    assert escaped_specials(value) == written
    assert raw_specials(written) == []


def test_a_value_without_them_is_returned_itself():
    value = r"{Plain \& escaped}"
    assert escaped_specials(value) is value


@given(st.text(alphabet='ab&%#_\\{}" $', max_size=30))
def test_escaping_is_idempotent_and_adds_only_backslashes(value):
    once = escaped_specials(value)
    assert escaped_specials(once) == once
    assert once.replace("\\", "") == value.replace("\\", "")


def test_written_fields_escape_them_but_addresses_and_files_keep_them():
    text = (
        "@article{g04, author = {Roe, Rich}, title = {Pipeline parallelism: Tom & Jerry at 50%},\n"
        "  journal = {Science & Engineering}, year = 2002, url = {https://x.org/?a=1&b=50%25},\n"
        "  doi = {10.1000/a&b%c}, file = {:C\\:/papers/50% faster.pdf:PDF}, note = {R\\&D}}\n"
    )
    [paper] = read_bibtex(text, "refs.bib").papers
    written = dict(bibtex_fields(paper))
    assert written["title"] == r"{Pipeline parallelism: Tom \& Jerry at 50\%}"
    assert written["journal"] == r"{Science \& Engineering}"
    assert written["note"] == r"{R\&D}"
    assert written["url"] == "{https://x.org/?a=1&b=50%25}" and written["doi"] == "{10.1000/a&b%c}"
    assert written["file"] == "{:C\\:/papers/50% faster.pdf:PDF}"
    assert {"url", "doi", "eprint", "file"} <= LITERAL_FIELDS


def test_a_field_commented_out_tex_style_is_left_out_and_the_fields_after_it_are_kept():
    # BibTeX has no comments inside an entry: written back, the line stopped it before the year.
    text = "@article{a, title = {50% off},\n  % note = {50% & more},\n  year = 2020}\n"
    [paper] = read_bibtex(text, "refs.bib").papers
    assert dict(bibtex_fields(paper)) == {"title": r"{50\% off}", "year": "2020"}


def test_a_field_no_style_prints_that_starts_with_an_address_keeps_it_as_written():
    # Custom link fields (downloads = {https://x.org/a_b.pdf PDF}) are no text: their users' tools read them as is.
    link = "{https://x.org/a_b.pdf?x=1&y=2 PDF}"
    assert not escaped_in("downloads", link) and escaped_in("downloads", "{C# and a_b}")
    assert escaped_in("note", link)  # a style prints the note: a raw _ there stops the document
