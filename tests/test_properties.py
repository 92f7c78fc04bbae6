"""Round-trip and stability properties of the BibTeX writer and the keys, with hypothesis."""

import json
from dataclasses import replace

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from surveytool.analysis.key_lock import LOCK_VERSION, dump_pins, load_pins
from surveytool.analysis.keys import assign_keys
from surveytool.bibtex.fields import _value_as_read, macros_of, render_bibliography
from surveytool.bibtex.names import label_safe
from surveytool.bibtex.reader import read_bibtex
from surveytool.bibtex.values import written_as_read
from surveytool.model import Origin, Paper, Resolution, SourceLocation, frozen_mapping
from surveytool.text.latex import without_control_chars
from surveytool.text.normalize import normalize, opening_words, strip_truncation

# Words with LaTeX specials, accents, typographic marks and characters with no LaTeX spelling.
WORD = st.text(alphabet=st.sampled_from(list("abcXYZ019&%$#_{}~^\\<>|-:'\"éüñßçøÅ–—“”’…中文")), min_size=1, max_size=8)
TEXT = st.lists(WORD, min_size=1, max_size=8).map(" ".join)
NAME = st.tuples(
    st.sampled_from(["Ann", "Zoë", "J.", "Ólafur"]), st.sampled_from(["Lee", "Müller", "O'Neil", "van Dam"])
)


@st.composite
def papers(draw):
    count = draw(st.integers(min_value=1, max_value=6))
    result = []
    for index in range(count):
        authors = draw(st.lists(NAME, min_size=1, max_size=3))
        fields = {
            "title": f"{draw(TEXT)} {index}",
            "author": " and ".join(f"{g} {f}" for g, f in authors),
            "year": str(draw(st.integers(1990, 2030))),
            "abstract": draw(TEXT),
        }
        result.append(
            replace(
                Paper(Origin.SNIPPET, (SourceLocation("l.txt", index + 1),), frozen_mapping(fields)),
                resolution=Resolution("catalog", "k", "abstract", 1.0),
            )
        )
    return result


def keyed(generated):
    return assign_keys(generated)[0]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(papers())
def test_write_read_write_is_byte_identical(generated):
    text = render_bibliography(keyed(generated))
    again = read_bibtex(text, "out.bib")
    assert not again.findings
    assert render_bibliography(again.papers, again.blocks) == text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(papers())
def test_titles_names_and_abstracts_read_back_as_the_same_text(generated):
    written = keyed(generated)
    again = {p.key: p for p in read_bibtex(render_bibliography(written), "out.bib").papers}
    for paper in written:
        for field in ("title", "author", "abstract"):
            assert again[paper.key].fields[field] == paper.fields[field], field


@settings(max_examples=100, deadline=None)
@given(papers(), papers(), st.data())
def test_keys_are_stable_under_insertion_and_removal(first, extra, data):
    moved = [
        replace(
            p,
            sources=(SourceLocation("m.txt", 100 + i),),
            fields=frozen_mapping({**p.fields, "title": p.fields["title"] + " new"}),
        )
        for i, p in enumerate(extra)
    ]
    before, pins = assign_keys(first)
    kept = [p for p in first if data.draw(st.booleans())]
    after, _ = assign_keys(kept + moved, pins)
    old = {p.sources: p.key for p in before}
    for paper in after:
        if paper.sources in old:
            assert paper.key == old[paper.sources]
    assert len({p.key for p in after}) == len(after)


# Pieces of abstracts: accents precomposed and combining, quotes that separate words, ligatures,
# characters that fold to two, ellipses that mark a cut, and runs long enough to be cut early.
PIECE = st.sampled_from(
    [
        "word",
        "Émile",
        "nai\u0308ve",
        "don’t",
        "e\u0301",
        "—",
        "...",
        "…",
        " ",
        "  ",
        "\n",
        "$x_1$",
        "ﬁne",
        "İ",
        "ß",
        "中文",
        "x" * 40,
        "a",
        "-",
        "''",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECE, max_size=400).map("".join), st.integers(min_value=1, max_value=70))
@example("x" * 80 + " more words", 1)  # the cut splits the only word
@example("word " * 40 + "cut…", 38)  # the ellipsis drops the cut word, at the end only
@example("word$x_1$" + "x" * 40 + "...", 1)  # ... and that word can be the whole text
def test_the_opening_words_of_a_text_are_those_of_the_whole_text_normalized(text: str, count: int):
    assert opening_words(text, count) == normalize(strip_truncation(text)).split()[:count]


@settings(max_examples=300, deadline=None)
@given(pins=st.dictionaries(st.text(), st.text(), max_size=8))
@example(pins={})
@example(pins={"doi:10.1/x": "smith2020", 'title:ü \\ "q"': "m\u00fcller\u20282021\U0001f600"})
def test_the_lock_file_is_what_json_writes_with_indentation_and_reads_back(pins: dict[str, str], tmp_path_factory):
    expected = (
        json.dumps({"version": LOCK_VERSION, "keys": dict(sorted(pins.items()))}, indent=2, ensure_ascii=False) + "\n"
    )
    assert dump_pins(pins) == expected
    path = tmp_path_factory.mktemp("lock") / "surveytool.lock.json"
    path.write_text(dump_pins(pins), encoding="utf-8")
    assert load_pins(path) == pins


# Pieces of a user's value: most values have nothing the writer rewrites (words, braces, ligatures, letters beyond
# ASCII, a tie), and are written as read at once; the others hold a command, a caret, a join, a special, a control
# character or a ], and go through the checks.
AS_READ_PIECES = [*"Scaling laws a { } {GPU}s {{BERT}} \" -- --- `` '' ~ é Müller ß 中文 e\u0301".split(), " ", "\n"]
REWRITTEN_PIECES = [*"\\emph{x} \\'e \\& \\ \\newline \\input $x^2$ ^^ # & % _ ]".split(), "\x01"]
# Each piece drawn as one character, its index (a text is drawn faster than a list); half the values are of pieces
# written as read alone: their codes are read modulo the number of those.
PIECES = AS_READ_PIECES + REWRITTEN_PIECES
_CODES = st.text(alphabet=st.sampled_from([chr(i) for i in range(len(PIECES))]), max_size=8)


def _value(shape: str, as_read_only: bool, codes: str) -> str:
    count = len(AS_READ_PIECES) if as_read_only else len(PIECES)
    return shape % "".join(PIECES[ord(code) % count] for code in codes)


# A user's value as read: braced (most values), quoted, bare or joined.
READ_VALUE = st.builds(
    _value, st.sampled_from(["{%s}", "{%s}", "{%s}", '"%s"', "%s", "{%s} # m"]), st.booleans(), _CODES
)


@settings(max_examples=400, deadline=None)
@given(READ_VALUE, st.sampled_from(["title", "url", "year", "month", "groups", "note", "author"]))
def test_a_value_written_as_read_is_one_the_writer_would_write_unchanged(value, name):
    # The writer's short way (fields._value) for a value written_as_read accepts, and its long way, agree.
    macros = macros_of([("m", "{x}"), ("ab", "{\\relax}")])
    macros.spelled_out.add("ab")
    rewritten = label_safe(
        name, without_control_chars(_value_as_read(Paper(Origin.BIBTEX, ()), name, "t", macros, value))
    )
    event("written as read" if written_as_read(value) else "rewritten")
    assert not written_as_read(value) or rewritten == value
