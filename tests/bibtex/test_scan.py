"""The fast path for plain entries reads exactly what bibtexparser reads, and takes the entries it should."""

from pathlib import Path

import pytest
from helpers import BENCH, CORPUS, IN_CI
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from surveytool.bibtex import chunks as bibtex_chunks
from surveytool.bibtex.reader import read_bibtex
from surveytool.bibtex.scan import scan_plain_entry
from surveytool.sources.read import read_text


def read_both(text: str, monkeypatch) -> tuple:
    """The document read with the fast path, and read by bibtexparser alone."""
    fast = read_bibtex(text, "x.bib")
    with monkeypatch.context() as patch:
        patch.setattr(bibtex_chunks, "scan_plain_entry", lambda chunk: None)
        slow = read_bibtex(text, "x.bib")
    return fast, slow


def test_a_typical_entry_is_read_by_the_fast_path():
    text = (
        "@InProceedings{smith2020,\n  title = {The {GPU} {Way {of {Training}}}},\n"
        '  author = "Smith, J. and M{\\"u}ller, K.",\n  year = 2020,\n  month = jan # "~1",\n'
        "  note = {50\\% \\{off\\}, a=b},\n}\n\nfree text after it\n"
    )
    entry = scan_plain_entry(text)
    assert entry is not None
    assert (entry.entry_type, entry.key) == ("inproceedings", "smith2020")
    assert entry.fields == [
        ("title", "{The {GPU} {Way {of {Training}}}}"),
        ("author", '"Smith, J. and M{\\"u}ller, K."'),
        ("year", "2020"),
        ("month", 'jan # "~1"'),
        ("note", "{50\\% \\{off\\}, a=b}"),
    ]
    assert entry.raw == text[: text.index("}\n\n") + 1]
    assert text[entry.end :] == "\n\nfree text after it\n"


@pytest.mark.parametrize(
    "text",
    [
        "@string{x = {y}}\n",  # other block types, even where they look like entries
        "@String{x, y = {z}}\n",
        "@comment{x, y = z}\n",
        "@commentary{x, y = z}\n",
        "@preamble{{x}}\n",
        "@article(k, title = {t})\n",  # parenthesis delimiters
        "@article{k}\n",  # no fields
        "@article{k, title = {a}, title = {b}}\n",  # a duplicate field
        "@article{k, title = {{{{{deep}}}}}}\n",  # nested deeper than four
        "@article{k, title = {unclosed}\n",
        "@article{k, title = {a} {b}, @misc{j, x = 1}\n",  # a block start inside
        '@article{k, title = "a {"} b"}\n',  # bibtexparser's {"} inside quotes
        "@article{k, title {a}}\n",  # no '='
        "@article{k,\\=}\n",  # an '=' or a comma after a backslash is no delimiter
        "@x{\\,}}\n",
        "free text\n",
    ],
)
def test_anything_not_plain_is_left_to_bibtexparser(text: str, monkeypatch):
    assert scan_plain_entry(text) is None
    fast, slow = read_both(text, monkeypatch)
    assert fast == slow


# Pieces that exercise each of bibtexparser's rules: delimiters, escapes, nesting, quotes, block starts.
PIECE = st.sampled_from(
    [
        "a",
        "B9",
        " ",
        "\n",
        "\t",
        "{",
        "}",
        '"',
        ",",
        "=",
        "#",
        "\\",
        "\\{",
        "\\}",
        '\\"',
        "\\,",
        '{"}',
        "@",
        "@x{",
        "(",
        ")",
        "%",
        "é",
        "\r\n",
        "\\\n",
    ]
)
VALUE_TEXT = st.lists(PIECE, max_size=12).map("".join)


@st.composite
def values(draw, depth: int = 0):
    kind = draw(st.sampled_from(["bare", "braced", "quoted", "concatenated"] if depth < 5 else ["bare"]))
    if kind == "bare":
        return draw(st.sampled_from(["2020", "jan", "x1", ""]))
    if kind == "quoted":
        return '"' + draw(VALUE_TEXT) + '"'
    if kind == "concatenated":
        return draw(values(depth + 1)) + " # " + draw(values(depth + 1))
    inner = draw(
        st.lists(st.one_of(VALUE_TEXT, values(depth + 1).map(lambda v: "{" + v.strip('{}"') + "}")), max_size=4)
    )
    return "{" + "".join(inner) + "}"


@st.composite
def bibtex_files(draw):
    parts = [draw(st.sampled_from(["", "% a comment\n", "text before\n"]))]
    for index in range(draw(st.integers(min_value=1, max_value=4))):
        names = draw(st.lists(st.sampled_from(["title", "author", "Year", "note", " x ", "title"]), max_size=4))
        fields = [f"{name} ={draw(st.sampled_from(['', ' ', chr(10)]))}{draw(values())}" for name in names]
        head = draw(st.sampled_from(["@article{", "@Misc {", "  @book\t{", "@inproceedings{"]))
        body = head + f"k{index}," + ",\n  ".join(fields) + draw(st.sampled_from(["", ",", ",\n"])) + "}"
        parts.append(body + draw(st.sampled_from(["\n", "\n\n", "\n% after\n", " trailing @ text\n", "\n\\\n"])))
    text = "".join(parts)
    # Sometimes one more piece anywhere, to break what was well formed.
    if draw(st.booleans()):
        at = draw(st.integers(min_value=0, max_value=len(text)))
        text = text[:at] + draw(PIECE) + text[at:]
    return text


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(text=bibtex_files())
@example(text='@article{k0,\n  title = "a \\" b",\n  note = {x \\} y}}\n')
@example(text="@article{k0, title = {a}\\\n}\n\nfree\n")
@example(text="@article{k0, title = {{{{a\\}b}}}}, note = {{{{a}}}\\{}}}\n")
@example(text="@article{k0,title = {a},}\r\n\r\n% after\r\n")
def test_files_read_the_same_with_and_without_the_fast_path(text: str, monkeypatch):
    fast, slow = read_both(text, monkeypatch)
    assert fast == slow


# Text with no structure at all, from the pieces bibtexparser's rules are about.
RAW = st.lists(
    st.sampled_from(
        [
            "@article{k,",
            "@misc{",
            " a = ",
            "{",
            "}",
            '"',
            ",",
            "=",
            "\\",
            "\n",
            "x",
            "#",
            "@",
            "(",
            ")",
            '{"}',
            "\\{",
            "\n@b{j,",
        ]
    ),
    max_size=40,
).map("".join)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(text=RAW)
@example(text="@article{k,\\=}")
@example(text="@article{k0,title ={\n@x{\\,}}\n")
def test_any_text_reads_the_same_with_and_without_the_fast_path(text: str, monkeypatch):
    fast, slow = read_both(text, monkeypatch)
    assert fast == slow


BENCH = BENCH


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_real_files_read_the_same_with_and_without_the_fast_path(path: Path, monkeypatch):
    text, _ = read_text(path, path.name)
    fast, slow = read_both(text, monkeypatch)
    assert fast == slow


@pytest.mark.skipif(not BENCH.exists() and not IN_CI, reason="the shared benchmark files are beside the checkout only")
def test_a_large_real_file_reads_the_same_and_mostly_through_the_fast_path(monkeypatch):
    text, _ = read_text(BENCH / "medium-refdb.bib", "medium-refdb.bib")
    fast, slow = read_both(text, monkeypatch)
    assert fast == slow
    chunks = bibtex_chunks.cut_chunks(text)
    scanned = sum(scan_plain_entry(text[c.start : c.end]) is not None for c in chunks)
    assert scanned > 0.8 * len(fast.papers)
