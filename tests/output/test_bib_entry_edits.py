"""Field-level edits of an entry's text: only the edited fields' bytes change, in the entry's own layout."""

import pytest

from surveytool.output.bib_entry_edits import edit_fields


def test_fields_with_nested_braces_quotes_and_concatenation_are_found_whole():
    raw = '@inproceedings{k, title = {A {B {C}} d}, note = "x {"} y" # macro # {z},\n  year = 2020}'
    edited = edit_fields(raw, [("title", "{T}"), ("note", "{N}"), ("year", "{2021}"), ("doi", "{d}")])
    assert edited == "@inproceedings{k, title = {T}, note = {N},\n  year = {2021},\n  doi = {d}}"


def test_new_fields_follow_the_last_in_its_indent_spacing_and_line_ends():
    raw = "@article{k,\r\n\ttitle={T},\r\n\tyear={2020}\r\n}"
    assert edit_fields(raw, [("doi", "{10.1/x}"), ("pages", "{1--2}")]) == (
        "@article{k,\r\n\ttitle={T},\r\n\tyear={2020},\r\n\tdoi={10.1/x},\r\n\tpages={1--2}\r\n}"
    )


def test_a_trailing_comma_stays_after_the_new_last_field():
    raw = "@article{k,\n  title = {T},\n}\n"
    assert edit_fields(raw, [("doi", "{10.1/x}")]) == "@article{k,\n  title = {T},\n  doi = {10.1/x},\n}\n"


def test_an_entry_on_one_line_stays_on_one_line():
    assert edit_fields("@misc(k, title = {T})", [("doi", "{d}")]) == "@misc(k, title = {T}, doi = {d})"


def test_a_renamed_field_takes_the_old_ones_place_and_the_type_keeps_its_case():
    raw = "@Article{k,\n  Title = {T},\n  journal = {arXiv preprint arXiv:1811.06965},\n  year = {2018}\n}"
    edited = edit_fields(raw, [("booktitle", "{NeurIPS}")], ("journal", "booktitle"), "inproceedings")
    assert edited == "@Inproceedings{k,\n  Title = {T},\n  booktitle = {NeurIPS},\n  year = {2018}\n}"


def test_a_renamed_field_is_lined_up_as_the_entry_lines_up_its_own():
    raw = "@article{k,\n  title     = {T},\n  journal   = {arXiv preprint},\n  year      = {2018}\n}"
    edited = edit_fields(raw, [("booktitle", "{NeurIPS}")], ("journal", "booktitle"), "inproceedings")
    assert edited == "@inproceedings{k,\n  title     = {T},\n  booktitle = {NeurIPS},\n  year      = {2018}\n}"


def test_an_existing_value_is_replaced_in_place_whatever_its_delimiters():
    raw = '@article{k, pages = "1-99", year = 2020}'
    assert edit_fields(raw, [("pages", "{1--15}"), ("year", "{2021}")]) == "@article{k, pages = {1--15}, year = {2021}}"


@pytest.mark.parametrize(
    "raw",
    [
        "@article{k, title = {unclosed}",
        "@article{k, title {T}}",
        "not an entry",
        "@article{k}",
        "@article{k, note = {see \\}}",  # the reader's note runs to the end: no brace is left to close the entry
    ],
)
def test_text_that_is_not_one_plain_entry_is_left_alone(raw):
    assert edit_fields(raw, [("doi", "{d}")]) is None


@pytest.mark.parametrize(
    "field",
    [
        "note = {see \\} below}",  # BibTeX closes the value at the escaped brace
        'note = "x { y"',  # BibTeX reads on past the quote
        'note = "K\\"oln"',  # BibTeX ends the value at \"
    ],
)
def test_an_entry_the_reader_and_bibtex_read_otherwise_is_left_alone(field):
    # The fields after such a value are not where the reader found them; a field could be added twice.
    assert edit_fields(f"@article{{k,\n  title = {{T}},\n  {field}\n}}", [("note", "{N}")]) is None


def test_remarks_between_fields_stay_and_the_fields_around_them_are_edited_once():
    # The reader names the field after a remark line by its own name, and leaves a field commented out whole out.
    raw = "@article{k,\n  % doi = {old},\n  title = {T},\n  % a remark\n  note = {N}\n}"
    edited = edit_fields(raw, [("note", "{M}"), ("doi", "{d}")])
    assert edited == "@article{k,\n  % doi = {old},\n  title = {T},\n  % a remark\n  note = {M},\n  doi = {d}\n}"


@pytest.mark.parametrize("newline", ["\r", "\r\n"])
def test_a_new_field_gets_a_line_of_its_own_with_old_mac_and_windows_line_ends(newline):
    raw = "@article{k,\n  title = {T},\n  year = {2020}\n}".replace("\n", newline)
    expected = "@article{k,\n  title = {T},\n  year = {2020},\n  doi = {d}\n}".replace("\n", newline)
    assert edit_fields(raw, [("doi", "{d}")]) == expected
