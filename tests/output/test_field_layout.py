"""A field added to a user's entry is named in the entry's layout: its "=" where the entry puts its own."""

import re

import pytest

from surveytool.output.field_layout import name_and_equals


def named(raw: str, name: str) -> str:
    """``name`` and its "=" as added on a line of its own, with the indent of the entry's last field."""
    fields = [(m.start(1), m.end()) for m in re.finditer(r"^[ \t]*(\w+)[ \t]*=[ \t]*", raw, re.M)]
    indent = re.findall(r"^([ \t]*)\w+[ \t]*=", raw, re.M)[-1]
    return name_and_equals(raw, fields, name, indent)


@pytest.mark.parametrize(
    "raw, name, expected",
    [
        ("@a{k,\n  title = {T},\n  year = 2020\n}", "publisher", "publisher = "),
        ("@a{k,\n  title={T},\n  year={2020}\n}", "doi", "doi="),  # as the entry spaces its names
        # Spaces to a column (bibtex-tidy --align): a shorter name padded to it, a longer one with one space.
        ("@a{k,\n  author    = {A},\n  title     = {T},\n  year      = 2020\n}", "doi", "doi       = "),
        ("@a{k,\n  author    = {A},\n  title     = {T}\n}", "publisher", "publisher = "),
        ("@a{k,\n  author    = {A},\n  title     = {T}\n}", "howpublished", "howpublished = "),
        # Tabs to a tab stop, 8 columns wide; a name past the stop gets one tab, as the entry's long names do.
        ("@a{k,\n\tauthor\t= {A},\n\ttitle\t= {T}\n}", "journal", "journal\t= "),
        ("@a{k,\n\tauthor\t= {A},\n\ttitle\t= {T}\n}", "doi", "doi\t= "),
        ("@a{k,\n\tauthor\t= {A},\n\ttitle\t= {T}\n}", "publisher", "publisher\t= "),
        ("@a{k,\n\tpages\t\t= {1},\n\tbooktitle\t= {B}\n}", "doi", "doi\t\t= "),
        # Lined up only at 4 columns a tab.
        ("@a{k,\n\ttitle\t\t= {T},\n\tpublisher\t= {P},\n\tdoi\t\t\t= {D}\n}", "url", "url\t\t\t= "),
        # Not lined up: spaced as the last field is.
        ("@a{k,\n  author  = {A},\n  title = {T},\n  year     = 2020\n}", "doi", "doi     = "),
    ],
)
def test_a_new_name_is_lined_up_as_the_entry_lines_up_its_own(raw, name, expected):
    assert named(raw, name) == expected


def test_an_entry_without_fields_on_lines_of_their_own_gets_the_spacing_of_its_last():
    raw = "@a{k, title  =  {T}, year =  2020}"
    fields = [(m.start(), m.end()) for m in re.finditer(r"\w+\s*=\s*", raw)]
    assert name_and_equals(raw, fields, "doi", "") == "doi =  "
    assert name_and_equals(raw, [], "doi", "  ") == "doi = "
