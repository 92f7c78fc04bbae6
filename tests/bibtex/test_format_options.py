"""Formatting options of a written .bib (bibtex-tidy's where they overlap): each on real output, re-parsed."""

from pathlib import Path

import bibtexparser
import pytest
from helpers import CORPUS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surveytool.analysis.keys import assign_keys
from surveytool.bibtex.fields import render_bibliography
from surveytool.bibtex.format_options import STANDARD, TIDY_FIELD_ORDER, BibFormat, bib_format
from surveytool.bibtex.reader import read_bibtex
from surveytool.sources.read import read_source

LIBRARY = """@string{icml = "International Conference on Machine Learning"}

@inproceedings{shazeer2017,
  title = {Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer},
  author = {Noam Shazeer and Azalia Mirhoseini and Krzysztof Maziarz and {Google Brain and Friends}},
  booktitle = icml,
  year = 2017,
  month = {March},
  note = {},
  abstract = {Conditional computation, where parts of the network are active on a per-example basis, promises capacity.},
  file = {shazeer.pdf},
}

@article{huang2019,
  title = "{GPipe}: EFFICIENT TRAINING OF GIANT NEURAL NETWORKS USING {PIPELINE} PARALLELISM",
  author = {Huang, Yanping and Schr\\"odinger, Erwin},
  journal = "Neural " # "Information Processing",
  year = {2019},
  month = "3",
  pages = {1--10},
  url = {https://example.org/a/rather/long/path/that/must/never/be/broken/at/any/column/at/all},
}
"""


def written(fmt: BibFormat, source: str = LIBRARY) -> str:
    document = read_bibtex(source, "lib.bib")
    return render_bibliography(document.papers, document.blocks, fmt=fmt)


def entries(text: str) -> dict[str, dict[str, str]]:
    """The entries bibtexparser reads in ``text`` (raw values), after checking that it reads every block."""
    library = bibtexparser.parse_string(text)
    assert not library.failed_blocks, [b.error for b in library.failed_blocks]
    return {e.key: {f.key: f.value for f in e.fields} for e in library.entries}


def plain(text: str) -> dict[str, dict[str, str]]:
    """The plain text of every field, as surveytool reads it back."""
    return {p.key: dict(p.fields) for p in read_bibtex(text, "out.bib").papers}


def field_line(text: str, key: str, field: str) -> str:
    entry = text[text.index("{" + key + ",") :]
    return next(line for line in entry.splitlines() if line.strip().startswith(field + " "))


def test_the_standard_format_is_the_layout_written_before_and_an_empty_table_keeps_it():
    assert bib_format({}) == STANDARD
    document = read_bibtex(LIBRARY, "lib.bib")
    assert written(STANDARD) == render_bibliography(document.papers, document.blocks)
    assert written(BibFormat()) == written(STANDARD)  # a default made elsewhere takes the general path
    # The standard indent asked for: the standard layout, remembered as asked for (see in_place_layout).
    asked = bib_format({"space": 2})
    assert asked == STANDARD and asked.indent_given and written(asked) == written(STANDARD)
    assert "  author = {Noam Shazeer and" in written(STANDARD)


def test_omit_leaves_out_the_named_fields_and_keeps_the_others():
    text = written(bib_format({"omit": ["abstract", "FILE"]}))
    fields = entries(text)["shazeer2017"]
    assert "abstract" not in fields and "file" not in fields
    assert {"title", "author", "booktitle", "year", "month", "note"} <= set(fields)


def test_sort_fields_writes_the_named_fields_first_and_the_others_in_the_standard_order():
    text = written(bib_format({"sort_fields": ["year", "title"]}))
    standard = list(entries(written(STANDARD))["huang2019"])
    assert list(entries(text)["huang2019"]) == ["year", "title", *[f for f in standard if f not in ("year", "title")]]
    tidy = list(entries(written(bib_format({"sort_fields": True})))["huang2019"])
    assert tidy[:4] == ["title", "author", "year", "month"] and tidy.index("journal") < tidy.index("pages")
    assert TIDY_FIELD_ORDER[0] == "title"
    assert plain(text) == plain(written(STANDARD))


def test_space_and_tab_set_the_indent():
    four = written(bib_format({"space": 4}))
    assert field_line(four, "huang2019", "pages") == "    pages = {1--10},"
    tab = written(bib_format({"tab": True}))
    assert field_line(tab, "huang2019", "pages") == "\tpages = {1--10},"
    assert plain(four) == plain(tab) == plain(written(STANDARD))


def test_align_puts_each_equals_sign_in_one_column_as_bibtex_tidy_does():
    text = written(bib_format({"align": 14}))
    lines = [line for line in text.splitlines() if line.startswith("  ") and "=" in line]
    assert {line.index("=") for line in lines} == {16}
    assert field_line(text, "huang2019", "pages") == "  pages         = {1--10},"
    assert plain(text) == plain(written(STANDARD))


def test_curly_encloses_quoted_values_and_numbers_in_braces_and_leaves_macros():
    text = written(bib_format({"curly": True}))
    assert field_line(text, "huang2019", "title").startswith("  title = {{GPipe}: ")
    assert field_line(text, "huang2019", "journal") == "  journal = {Neural } # {Information Processing},"
    assert field_line(text, "shazeer2017", "year") == "  year = {2017},"
    assert field_line(text, "shazeer2017", "booktitle") == "  booktitle = icml,"
    assert plain(text) == plain(written(STANDARD))


def test_no_curly_writes_quotes_except_where_a_quote_would_end_the_value():
    text = written(bib_format({"curly": False}))
    assert field_line(text, "shazeer2017", "title").startswith('  title = "Outrageously Large')
    assert field_line(text, "huang2019", "author") == '  author = {Huang, Yanping and Schr\\"odinger, Erwin},'
    assert field_line(text, "huang2019", "pages") == '  pages = "1--10",'
    assert entries(text)["huang2019"]["pages"] == "1--10"
    assert plain(text) == plain(written(STANDARD))


def test_numeric_writes_numbers_bare():
    text = written(bib_format({"numeric": True}))
    assert field_line(text, "huang2019", "year") == "  year = 2019,"
    assert field_line(text, "huang2019", "pages") == "  pages = {1--10},"
    assert entries(text)["huang2019"]["year"] == "2019"
    assert plain(text) == plain(written(STANDARD))


def test_months_writes_every_month_as_its_macro():
    standard = written(STANDARD)
    assert field_line(standard, "shazeer2017", "month") == "  month = {March},"
    text = written(bib_format({"months": True}))
    assert field_line(text, "shazeer2017", "month") == "  month = mar,"
    assert field_line(text, "huang2019", "month") == "  month = mar,"
    read = plain(text)
    assert read["shazeer2017"]["month"] == read["huang2019"]["month"] == "March"


def test_remove_empty_fields_leaves_out_the_empty_note_only_when_asked():
    assert "note" in entries(written(STANDARD))["shazeer2017"]
    fields = entries(written(bib_format({"remove_empty_fields": True})))["shazeer2017"]
    assert "note" not in fields and "title" in fields


def test_max_authors_ends_a_longer_list_with_and_others_and_a_braced_name_is_one_author():
    two = entries(written(bib_format({"max_authors": 2})))["shazeer2017"]["author"]
    assert two == "Noam Shazeer and Azalia Mirhoseini and others"
    three = entries(written(bib_format({"max_authors": 3})))["shazeer2017"]["author"]
    assert three == "Noam Shazeer and Azalia Mirhoseini and Krzysztof Maziarz and others"
    four = written(bib_format({"max_authors": 4}))
    assert plain(four)["shazeer2017"]["author"] == plain(written(STANDARD))["shazeer2017"]["author"]
    assert plain(written(bib_format({"max_authors": 1})))["huang2019"]["author"] == "Huang, Yanping and others"


def test_wrap_breaks_long_values_at_spaces_and_never_breaks_a_url():
    text = written(bib_format({"wrap": 60}))
    long_lines = [line for line in text.splitlines() if len(line) > 60 and not line.startswith("@string")]
    assert [line.split("=")[0].strip() for line in long_lines] == ["url"]
    title = text[text.index("  title = {Outrageously") :].splitlines()
    assert title[1].startswith(" " * len("  title = {")) and not title[1].startswith(" " * (len("  title = {") + 1))
    assert all(line == line.rstrip() for line in text.splitlines())
    assert entries(text)["shazeer2017"]["abstract"].count("\n") >= 1
    assert plain(text) == plain(written(STANDARD))


def test_drop_all_caps_title_cases_capital_text_and_keeps_protected_words_and_mixed_case():
    text = written(bib_format({"drop_all_caps": True}))
    fields = plain(text)
    assert (
        fields["huang2019"]["title"] == "GPipe: Efficient Training of Giant Neural Networks Using PIPELINE Parallelism"
    )
    assert fields["shazeer2017"]["title"] == plain(written(STANDARD))["shazeer2017"]["title"]
    shouting = LIBRARY.replace('Huang, Yanping and Schr\\"odinger, Erwin', 'HUANG, Y. AND SCHR\\"ODINGER, E.')
    shouting = shouting.replace('Neural " # "Information Processing', 'NEURAL " # "INFORMATION PROCESSING')
    shouting = shouting.replace("Outrageously Large Neural Networks: The", '{\\"O}UTRAGEOUSLY LARGE NEURAL NETWORKS: A')
    shouting = shouting.replace("Sparsely-Gated Mixture-of-Experts Layer", "SPARSELY-GATED MIXTURE-OF-EXPERTS LAYER")
    assert shouting.count("NEURAL") == 3
    text = written(bib_format({"drop_all_caps": True}), shouting)
    assert field_line(text, "huang2019", "author") == '  author = {Huang, Y. and Schr\\"odinger, E.},'
    assert field_line(text, "shazeer2017", "title") == (
        '  title = {{\\"O}utrageously Large Neural Networks: A Sparsely-Gated Mixture-of-Experts Layer},'
    )
    assert (
        field_line(text, "huang2019", "journal") == '  journal = "NEURAL " # "INFORMATION PROCESSING",'
    )  # a concatenation: as written


def test_every_option_at_once_writes_a_bib_that_bibtexparser_reads_whole():
    fmt = bib_format(
        {
            "omit": ["file"],
            "sort_fields": True,
            "tab": True,
            "align": 14,
            "curly": False,
            "numeric": True,
            "months": True,
            "remove_empty_fields": True,
            "max_authors": 2,
            "wrap": 50,
            "drop_all_caps": True,
        }
    )
    fields = entries(written(fmt))
    assert set(fields) == {"shazeer2017", "huang2019"}
    assert fields["huang2019"]["month"] == "mar" and fields["huang2019"]["year"] == "2019"


# Options that change only the layout: every field reads back as the standard layout's does.
LAYOUTS = [
    BibFormat(space=4, align=14, wrap=40),
    BibFormat(tab=True, curly=True, numeric=True, sort_fields=TIDY_FIELD_ORDER),
    BibFormat(curly=False, wrap=30),
]


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_layout_options_keep_every_field_of_real_bib_files(path: Path):
    result = read_source(path, path.name, "bib")
    papers, _ = assign_keys(result.papers)
    standard = plain(render_bibliography(papers, result.blocks))
    for fmt in LAYOUTS:
        text = render_bibliography(papers, result.blocks, fmt=fmt)
        assert plain(text) == standard, fmt


# Values with what a layout could break: braces, quotes, accents, control spaces, @, %, # and long runs of words.
_PIECES = st.recursive(
    st.text(alphabet='abcXYZ  "@#%~-,.:', max_size=12) | st.sampled_from(['\\"o', "\\ ", "\\&", "naïve"]),
    lambda inner: st.lists(inner, max_size=4).map(lambda parts: "{" + "".join(parts) + "}"),
    max_leaves=12,
)
_VALUES = st.lists(_PIECES, min_size=1, max_size=8).map(lambda parts: "{" + " ".join(parts) + "}")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=_VALUES, note=_VALUES, fmt=st.sampled_from(LAYOUTS + [BibFormat(curly=False, align=20, wrap=20)]))
def test_a_layout_never_changes_what_a_value_reads_as(title, note, fmt):
    source = f"@misc{{k, title = {title}, note = {note}, year = {{2020}}}}\n"
    document = read_bibtex(source, "lib.bib")
    if not document.papers:
        return  # not an entry bibtexparser reads (the reader reports it): nothing to lay out
    standard = render_bibliography(document.papers, document.blocks)
    text = render_bibliography(document.papers, document.blocks, fmt=fmt)
    assert plain(text) == plain(standard)
    assert bibtexparser.parse_string(text).failed_blocks == []


EVERYTHING = bib_format(
    {
        "sort_fields": True,
        "tab": True,
        "align": 14,
        "numeric": True,
        "months": True,
        "remove_empty_fields": True,
        "max_authors": 1,
        "wrap": 24,
        "drop_all_caps": True,
    }
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(title=_VALUES, author=_VALUES, month=_VALUES, curly=st.sampled_from([True, False, None]))
def test_every_option_keeps_an_entry_valid_bibtex(title, author, month, curly):
    source = f"@misc{{k, title = {title}, author = {author} # {{ and X}}, month = {month}, year = 2020}}\n"
    document = read_bibtex(source, "lib.bib")
    if not document.papers:
        return
    fmt = bib_format({"curly": curly}, EVERYTHING) if curly is not None else EVERYTHING
    text = render_bibliography(document.papers, document.blocks, fmt=fmt)
    assert bibtexparser.parse_string(text).failed_blocks == []
    assert list(plain(text)) == ["k"]
