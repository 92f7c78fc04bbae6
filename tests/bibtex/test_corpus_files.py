"""Real-world .bib files (biber's test suite): read with no crash, nothing lost, written back the same."""

from collections.abc import Mapping
from pathlib import Path

import pytest
from helpers import BENCH, CORPUS, DATA, IN_CI

from surveytool.analysis.keys import assign_keys
from surveytool.bibtex.fields import render_bibliography
from surveytool.bibtex.reader import read_bibtex
from surveytool.sources.read import read_source
from surveytool.text.addresses import URL_FIELDS, web_address, www_links_to_the_web

#: biblatex's fields that the BibTeX dialect writes under the name BibTeX reads (a dated one: its year).
BIBTEX_NAME = {
    "journaltitle": "journal",
    "eprinttype": "archiveprefix",
    "date": "year",
    "eprintclass": "primaryclass",
    "institution": "school",  # of a thesis
}
# biblatex's kind of a thesis or report, which the BibTeX entry type says instead.
KIND_KEYS = {"phdthesis", "mathesis", "mastersthesis", "techreport", "resreport"}


def assert_written_as_bibtex(before: Mapping[str, str], after: Mapping[str, str], key: str) -> None:
    """Nothing lost: each field read back as it was, or under its BibTeX name when BibTeX had none."""
    for name, value in before.items():
        if after.get(name) == value or (name == "type" and name not in after and value.lower() in KIND_KEYS):
            continue
        bibtex = BIBTEX_NAME.get(name)
        # Written under the BibTeX name, which the entry lacked or already held the same (a year beside a date).
        assert bibtex and before.get(bibtex, after.get(bibtex)) == after.get(bibtex), (
            key,
            name,
            value,
            after.get(name),
        )
        assert value.lower().startswith(after[bibtex].lower()), (key, name, value, after[bibtex])
    assert set(after) - set(before) <= {"year", "month", "journal", "archiveprefix", "primaryclass", "school"}, key


def test_corpus_is_there():
    assert len(CORPUS) >= 50


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_every_entry_is_read_or_reported_and_survives_a_round_trip(path: Path):
    result = read_source(path, path.name, "bib")
    failed = [b for b in result.blocks if b.kind == "failed"]
    reported = {f.location.line for f in result.findings if f.check in ("bibtex-syntax", "duplicate-field")}
    assert {b.location.line for b in failed} <= reported  # no block is dropped silently
    papers, _ = assign_keys(result.papers)
    text = render_bibliography(papers, result.blocks)
    lines = set(text.splitlines())
    for block in failed:  # kept, line by line, as a comment BibTeX skips: no @ left to start a command
        kept = [f"% {line}".rstrip() for line in block.text.replace("@", "(at)").splitlines()]
        assert set(kept) <= lines and "@" not in "".join(kept)
    again = read_bibtex(text, "out.bib")
    fields_again = {p.key: dict(p.fields) for p in again.papers}
    # A field with LaTeX that stops the document where it stands (biblatex's \arabic{author}) prints literally.
    inert = {(f.key, f.message.split("'")[1]) for f in result.findings if f.check == "dangerous-macro" and f.key}
    for paper in papers:
        before, after = (
            {n: t for n, t in f.items() if (paper.key, n) not in inert} for f in (paper.fields, fields_again[paper.key])
        )
        assert_written_as_bibtex(before, after, paper.key)
    assert [b.text for b in again.blocks if b.kind == "string"] == [b.text for b in result.blocks if b.kind == "string"]
    # Writing is a fixed point (once a failed block, re-read out of its old context, has settled).
    settled = render_bibliography(again.papers, again.blocks)
    third = read_bibtex(settled, "again.bib")
    assert render_bibliography(third.papers, third.blocks) == settled


def test_non_utf8_files_are_read_with_a_warning():
    result = read_source(DATA / "corpus" / "biber" / "encoding1.bib", "encoding1.bib", "bib")
    assert result.papers
    assert any(f.check == "encoding" for f in result.findings)


BENCH = BENCH


# CI has shared/ beside the checkout: there the test must run (and fail if the files are missing).
@pytest.mark.skipif(not BENCH.exists() and not IN_CI, reason="the shared benchmark files are beside the checkout only")
@pytest.mark.parametrize("name", ["medium-refdb.bib", "large-merged.bib"])
def test_real_group_bibliographies_round_trip_exactly(name):
    """write(read(write(x))) == write(x) on 3k and 16k real entries (macros, crossrefs, broken blocks)."""
    result = read_source(BENCH / name, name, "bib")
    papers, _ = assign_keys(result.papers)
    text = render_bibliography(papers, result.blocks)
    again = read_bibtex(text, "out.bib")
    # Values with LaTeX outside the allowlist are written to print it literally: their text changes, once.
    # A finding names the field's line: the entry of that key whose lines hold it.
    dangerous = {(f.key, f.location.line) for f in result.findings if f.check == "dangerous-macro"}
    inert = {
        p.key
        for read, p in zip(result.papers, papers, strict=True)
        for key, line in dangerous
        if key == read.key and 0 <= line - read.sources[0].line <= read.raw.count("\n")
    }
    fields_again = {p.key: p.fields for p in again.papers}
    assert sorted(fields_again) == sorted(p.key for p in papers)
    for paper in papers:
        if paper.key in inert:
            continue
        # A url is written as a web address (x.org as https://x.org), one that leads to none (file://host/...) is left
        # out (url-scheme), and a value's \\url{www.x} is written \\url{https://www.x}.
        linked = {n for n, latex in paper.latex_fields.items() if www_links_to_the_web(latex) != latex}
        after = {n: t for n, t in fields_again[paper.key].items() if n not in linked}
        before = {
            n: web_address(t) if n in URL_FIELDS else t
            for n, t in paper.fields.items()
            if n not in linked and (n not in URL_FIELDS or web_address(t) is not None)
        }
        assert_written_as_bibtex(before, after, paper.key)
    assert render_bibliography(again.papers, again.blocks) == text


def test_a_block_that_fails_to_parse_is_kept_whole_with_the_text_the_parser_skipped():
    text = (
        "@article{a,\n  % author = {commented},\n  % 12th Conference, Zurich, August 24--28, 2014\n"
        "  title = {T},\n}\n\n@misc{b, title = {ok}}\n"
    )
    document = read_bibtex(text, "x.bib")
    [failed] = [b for b in document.blocks if b.kind == "failed"]
    assert failed.text == text.split("\n\n@misc")[0].rstrip()
    assert [p.key for p in document.papers] == ["b"]
    written = render_bibliography(document.papers, document.blocks)
    again = read_bibtex(written, "y.bib")
    assert render_bibliography(again.papers, again.blocks) == written
