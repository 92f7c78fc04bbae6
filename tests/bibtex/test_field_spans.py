"""Fields found again in an entry's text: the same names and values the reader read, on every real entry."""

import re
from pathlib import Path

import pytest
from helpers import BENCH, CORPUS, IN_CI
from hypothesis import example, given
from hypothesis import strategies as st

from surveytool.bibtex.field_spans import field_spans, line_in, literal_inner, value_end
from surveytool.bibtex.reader import read_bibtex
from surveytool.output.field_fixes import reads_alike
from surveytool.sources.read import read_text_file

TAGS_FIELD = "sections"


def _mismatches(path: Path) -> tuple[int, list[str]]:
    """(entries, the raw text of those whose fields are found otherwise than the reader read them)."""
    text, _ = read_text_file(path, path.name)
    papers = read_bibtex(text.text, path.name, TAGS_FIELD).papers
    return len(papers), [p.raw for p in papers if not reads_alike(p.raw, p.latex_fields, (TAGS_FIELD,))]


# A TeX-style "%" remark (BibTeX knows none, and bibtex-syntax reports it) can still run into a field's value
# where the reader cannot strip it (a remark then a field); those entries are the only ones read otherwise,
# and --fix leaves them be.
_PERCENT_LINE = re.compile(r"(?<!\\)%")


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_every_field_of_biber_s_test_files_is_found_with_the_value_read(path: Path):
    _, differ = _mismatches(path)
    assert [raw for raw in differ if not _PERCENT_LINE.search(raw)] == []


# CI has shared/ beside the checkout: there the test must run (and fail if the file is missing).
@pytest.mark.skipif(not BENCH.exists() and not IN_CI, reason="the shared benchmark files are beside the checkout only")
def test_every_field_of_the_large_bench_file_is_found_with_the_value_read():
    large = BENCH / "large-merged.bib"
    entries, differ = _mismatches(large)
    assert [raw for raw in differ if not _PERCENT_LINE.search(raw)] == []
    assert entries > 15_000 and len(differ) < 20


def test_spans_know_quotes_concatenations_nested_braces_and_parentheses():
    raw = '@Article(k,\r\n  Title = "A {"}quoted{"} \\" title",\n  journal = acm # { Press},note={a {b {c}} d}\n)'
    spans = field_spans(raw)
    assert [(s.name, s.value(raw)) for s in spans] == [
        ("title", '"A {"}quoted{"} \\" title"'),
        ("journal", "acm # { Press}"),
        ("note", "{a {b {c}} d}"),
    ]
    assert [line_in(raw, s.start, 10) for s in spans] == [11, 12, 12]
    assert literal_inner("{a {b} c}") == (1, "a {b} c")
    assert literal_inner("{a} # {b}") is None and literal_inner("acm") is None and literal_inner('"a" # "b"') is None


def _closing_brace(raw: str, position: int) -> int | None:
    depth = 0
    for match in re.finditer(r"\\.|[{}]", raw[position:], re.S):  # a backslash takes the character after it along
        if match.group() in "{}":
            depth += 1 if match.group() == "{" else -1
            if depth == 0:
                return position + match.end()
    return None


def _closing_quote(raw: str, position: int) -> int | None:
    for match in re.finditer(r'\\.|"', raw[position + 1 :], re.S):
        at = position + 1 + match.start()
        if match.group() == '"' and not (raw[at - 1] == "{" and raw[at + 1 : at + 2] == "}"):  # {"} is text
            return at + 1
    return None


@given(st.text(alphabet='{}"\\a', max_size=16))
@example("{" * 6 + "a\\}" + "}" * 6 + "b")  # nested deeper than one search reads
@example('"a {"} \\" {"b"} c" d')
def test_a_braced_or_quoted_value_ends_where_its_brace_or_quote_closes(text):
    # No #: the value is its first part.
    for position, char in enumerate(text):
        if char == "{":
            assert value_end(text, position, bibtex=False) == _closing_brace(text, position)
        elif char == '"':
            assert value_end(text, position, bibtex=False) == _closing_quote(text, position)
