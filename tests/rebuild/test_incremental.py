"""Rebuilds that reuse the last build's work: same bytes as a fresh build, after any edit."""

from __future__ import annotations

import gc
import re
import shutil
from pathlib import Path

import pytest
from helpers import CORPUS, ENTRY, ROOT, SEEDS_TAXONOMY, TRICKY, library, outputs, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surveytool.bibtex.format_options import BibFormat
from surveytool.bibtex.reader import read_bibtex
from surveytool.build import build
from surveytool.options import DraftOptions
from surveytool.pipeline import Options
from surveytool.rebuild.bib_reading import ReusingBibReader
from surveytool.rebuild.memo import BuildCache, Memo


def _memo_of(text: str, path: str) -> Memo:
    memo = Memo({})
    ReusingBibReader(memo)(text, path)
    return memo


@pytest.mark.parametrize("path", [*CORPUS, None], ids=lambda p: p.name if p else "tricky")
def test_reading_with_half_the_chunks_cached_equals_reading_the_whole_file(path: Path | None):
    text = path.read_text(encoding="utf-8", errors="replace") if path else TRICKY
    whole = read_bibtex(text, "x.bib")
    stored = _memo_of(text, "x.bib").used()
    # Every other chunk is cached; the rest are parsed alone, each followed by its successor's start.
    half = Memo({key: value for index, (key, value) in enumerate(stored.items()) if index % 2})
    assert ReusingBibReader(half)(text, "x.bib") == whole
    assert (half.hits, half.misses) == (len(stored) // 2, len(stored) - len(stored) // 2)
    everything = Memo(dict(stored))
    assert ReusingBibReader(everything)(text, "x.bib") == whole
    assert everything.misses == 0


def test_cached_chunks_move_with_lines_added_above_them():
    memo = Memo(_memo_of(TRICKY, "x.bib").used())
    moved = "% two new\n% lines\n" + TRICKY
    again = ReusingBibReader(memo)(moved, "x.bib")
    assert again == read_bibtex(moved, "x.bib")
    assert memo.misses == 1  # only the first chunk (free text) changed


def test_a_changed_macro_rereads_the_entries_that_might_use_it():
    memo = Memo(_memo_of(TRICKY, "x.bib").used())
    edited = TRICKY.replace("{Defined after use}", "{Defined differently}")
    again = ReusingBibReader(memo)(edited, "x.bib")
    assert again == read_bibtex(edited, "x.bib")
    assert {p.key: p.fields.get("booktitle") for p in again.papers}["indented"] == "Defined differently"


EDITS = {
    "title": lambda text: text.replace("part 7}", "part seven}"),
    "added in the middle": lambda text: text.replace(
        "@inproceedings{paper9,",
        ENTRY.format(
            key="inserted",
            title="Tensor parallelism of transformer layers",
            author="New, Nia",
            year=2020,
            abstract="split each layer's matrices across devices",
        )
        + "\n@inproceedings{paper9,",
    ),
    "deleted": lambda text: text[: text.index("@inproceedings{paper3,")] + text[text.index("@inproceedings{paper4,") :],
    "macro": lambda text: text.replace("{Proceedings of Things}", "{Proceedings of Other Things}"),
    "merged duplicate": lambda text: (
        text
        + ENTRY.format(
            key="again",
            title="Pipeline parallelism for training giant models, part 0",
            author="Author0, Ada",
            year=2015,
            abstract="a preprint",
        )
    ),
}


@pytest.mark.parametrize("edit", EDITS)
def test_a_rebuild_after_an_edit_writes_what_a_fresh_build_writes(tmp_path: Path, edit: str):
    source = tmp_path / "library.bib"
    source.write_text(library(30), encoding="utf-8")
    reused, fresh = tmp_path / "reused", tmp_path / "fresh"
    options = Options(sources=(source,), build_cache=reused / ".surveytool-cache")
    first = build(options, reused).survey
    assert first.reused["bibtex"] == (0, 31)  # the @string and 30 entries, nothing cached yet

    source.write_text(EDITS[edit](source.read_text(encoding="utf-8")), encoding="utf-8")
    fresh.mkdir()
    shutil.copy(reused / "surveytool.lock.json", fresh)  # the same pinned keys as the rebuild has
    second = build(options, reused).survey
    expected = build(Options(sources=(source,)), fresh).survey
    assert outputs(reused) == outputs(fresh)
    assert second.papers == expected.papers and second.findings == expected.findings
    hits, misses = second.reused["bibtex"]
    assert hits >= 28 and misses <= 3 if edit != "macro" else misses == 31
    third = build(options, reused).survey  # the cache was brought up to date: nothing left to redo
    assert all(misses == 0 for _, misses in third.reused.values())


def test_a_taxonomy_change_retags_and_a_second_run_reuses_everything(tmp_path: Path):
    source = tmp_path / "library.bib"
    source.write_text(library(12), encoding="utf-8")
    out = tmp_path / "out"
    options = Options(sources=(source,), build_cache=out / ".surveytool-cache")
    assert build(options, out).summary.reused == {"bibtex": (0, 13), "fragments": (0, 24), "tags": (0, 12)}
    again = build(options, out).summary  # nothing changed: the last build is patched (patch.py)
    assert again.reused == {"entries": (12, 0), "fragments": (24, 0)}  # a paragraph and a row per paper

    taxonomy = tmp_path / "taxonomy.toml"
    taxonomy.write_text(
        SEEDS_TAXONOMY.read_text(encoding="utf-8").replace('"gating network*" = 4', '"gating network*" = 0.5'),
        encoding="utf-8",
    )
    retagged = build(Options(sources=(source,), taxonomy=taxonomy, build_cache=out / ".surveytool-cache"), out).survey
    assert retagged.reused["tags"] == (0, 12)  # another taxonomy: built in full
    assert retagged.papers == build(Options(sources=(source,), taxonomy=taxonomy), tmp_path / "fresh").survey.papers


def test_an_unreadable_or_foreign_cache_is_ignored(tmp_path: Path):
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / "bibtex.marshal").write_bytes(b"not a marshal stream")
    cache = BuildCache(folder)
    assert cache.memo("bibtex").get("anything") is None
    cache.memo("bibtex").put("k", ("v",))
    cache.save()
    assert BuildCache(folder).memo("bibtex").get("k") == ("v",)
    assert (folder / ".gitignore").read_text(encoding="utf-8").endswith("*\n")


def test_saving_keeps_only_what_the_run_used(tmp_path: Path):
    cache = BuildCache(tmp_path)
    memo = cache.memo("tags")
    memo.put("old", (1,))
    memo.put("kept", (2,))
    cache.save()
    second = BuildCache(tmp_path)
    assert second.memo("tags").get("kept") == (2,)
    second.save()
    third = BuildCache(tmp_path).memo("tags")
    assert third.get("old") is None and third.get("kept") == (2,)


def test_a_build_stopped_by_bad_input_leaves_no_out_folder_or_cache_behind(tmp_path: Path):
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    (tmp_path / "mine").mkdir()
    for source, out in (("nosuch.bib", "build"), ("empty.txt", "build"), ("nosuch.bib", "mine")):
        result = run_cli("build", source, "--out", out, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["empty.txt", "mine"]
    assert BuildCache(tmp_path / "cache").memo("bibtex").get("k") is None
    assert not (tmp_path / "cache").exists()


def test_the_cli_says_what_it_reused_and_can_be_told_not_to(tmp_path: Path):
    source = tmp_path / "library.bib"
    source.write_text(library(5), encoding="utf-8")
    run_cli("build", str(source), "--out", "out", cwd=tmp_path, check=True)
    # A comment between entries is a kept block: no patch, a build in full that reuses what it can.
    source.write_text(
        source.read_text(encoding="utf-8").replace("@inproceedings{paper2,", "% a note\n@inproceedings{paper2,"),
        encoding="utf-8",
    )
    in_full = run_cli("build", str(source), "--out", "out", cwd=tmp_path, check=True)
    # The three entries below the note moved a line, and their paragraphs print their lines.
    assert (
        "reused from the last build: 5 of 6 .bib blocks read, 5 of 5 entries tagged, "
        "7 of 10 chapter paragraphs and table rows" in in_full.stdout
    )
    source.write_text(source.read_text(encoding="utf-8").replace("part 3}", "part three}"), encoding="utf-8")
    patched = run_cli("build", str(source), "--out", "out", cwd=tmp_path, check=True)
    assert (
        "reused from the last build: 4 of 5 entries kept as they were (the others read and tagged again), "
        "9 of 10 chapter paragraphs and table rows" in patched.stdout
    )
    (tmp_path / "plain").mkdir()
    shutil.copy(tmp_path / "out" / "surveytool.lock.json", tmp_path / "plain")  # the same pinned keys
    run_cli("build", str(source), "--out", "plain", "--no-reuse", cwd=tmp_path, check=True)
    assert not (tmp_path / "plain" / ".surveytool-cache").exists()
    assert outputs(tmp_path / "plain") == outputs(tmp_path / "out")


def test_a_build_leaves_the_cycle_collector_as_it_found_it(tmp_path: Path):
    source = tmp_path / "library.bib"
    source.write_text(library(3) + "@article{broken, title = {never closed\n", encoding="utf-8")
    assert gc.isenabled()
    build(Options(sources=(source,)), tmp_path / "on")
    assert gc.isenabled()
    gc.disable()
    try:
        build(Options(sources=(source,)), tmp_path / "off")
        assert not gc.isenabled()
    finally:
        gc.enable()


# Fragments of BibTeX, good and broken: block starts at and inside lines, unbalanced delimiters,
# newlines after backslashes (which bibtexparser does not count), macros and concatenations.
FRAGMENT = st.sampled_from(
    [
        "@article{",
        "@string{",
        "@STRING{m = {x}}",
        "@comment{",
        "@misc(",
        "@preamble{",
        "  @book{",
        "}",
        "{",
        ")",
        "(",
        '"',
        ",",
        " = ",
        "\n",
        "\n",
        "\n",
        "\r\n",
        "\\\n",
        "\\\\",
        "\t@string(",
        " ",
        "k1",
        "k2",
        "title",
        "year = 2001",
        "m # {y}",
        "abc",
        "é",
        "%",
        "@",
    ]
)
BIBTEX = st.lists(FRAGMENT, max_size=40).map("".join)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(BIBTEX, BIBTEX, st.integers(min_value=0), st.integers(min_value=0, max_value=12), st.integers(min_value=0))
def test_any_text_read_with_another_texts_cache_reads_as_it_does_alone(before, insert, where, cut, drop):
    """The cache of one text, used to read an edit of it (text replaced, a chunk forgotten)."""
    where %= len(before) + 1
    after = before[:where] + insert + before[where + cut :]
    stored = _memo_of(before, "x.bib").used()
    forgotten = drop % (len(stored) + 1)
    memo = Memo({key: value for index, (key, value) in enumerate(stored.items()) if index != forgotten})
    assert ReusingBibReader(memo)(after, "x.bib") == read_bibtex(after, "x.bib")


def test_a_cache_whose_keys_stay_but_values_change_is_saved(tmp_path: Path):
    # Swapping two definitions of one macro changes what every entry reads (the first wins)
    # but not the chunks' texts: the same keys, all with new values.
    first, second = "@string{venue = {First}}\n\n", "@string{venue = {Second}}\n\n"
    entries = library(4)[library(4).index("@inproceedings") :]
    middle = entries.index("@inproceedings{paper2,")
    source = tmp_path / "library.bib"
    source.write_text(first + entries[:middle] + second + entries[middle:], encoding="utf-8")
    out = tmp_path / "out"
    options = Options(sources=(source,), build_cache=out / ".surveytool-cache")
    build(options, out)
    source.write_text(second + entries[:middle] + first + entries[middle:], encoding="utf-8")
    assert build(options, out).survey.reused["bibtex"] == (0, 6)
    again = build(options, out).survey
    assert again.reused["bibtex"] == (6, 0)
    assert {p.fields["booktitle"] for p in again.papers} == {"Second"}


def test_a_formatted_bib_is_patched_in_its_format_and_another_format_builds_in_full(tmp_path: Path):
    source = tmp_path / "library.bib"
    source.write_text(library(6), encoding="utf-8")
    reused, fresh = tmp_path / "reused", tmp_path / "fresh"
    options = Options(sources=(source,), build_cache=reused / ".surveytool-cache")
    tidy = DraftOptions(bib_format=BibFormat(align=14, omit=("abstract",), wrap=40))
    build(options, reused, tidy)
    source.write_text(source.read_text(encoding="utf-8").replace("part 3}", "part three}"), encoding="utf-8")
    patched = build(options, reused, tidy).summary
    assert "entries" in patched.reused  # the last build was patched (patch.py)
    fresh.mkdir()
    shutil.copy(reused / "surveytool.lock.json", fresh)
    build(Options(sources=(source,)), fresh, tidy)
    assert outputs(reused) == outputs(fresh)
    text = (reused / "references.bib").read_text(encoding="utf-8")
    assert "three}" in text and "abstract" not in text and "\n  title         = {" in text
    standard = build(options, reused).summary
    assert "entries" not in standard.reused  # another layout: every entry written again
    assert "\n  title = {" in (reused / "references.bib").read_text(encoding="utf-8")


def test_a_list_entry_written_into_a_bib_is_tagged_as_a_bib_entry_not_from_the_lists_memo(tmp_path: Path):
    # A paragraph of a related-paper list is exempt from the "of the field, by its title" factor; the same
    # paper as a .bib entry (the list converted to a .bib) is not, so its tags are not the list entry's.
    seeds = (ROOT / "seeds" / "002_4f31b26c0b2a06bc.txt").read_text(encoding="utf-8").split("\n\n")
    snippet = next(paragraph for paragraph in seeds if paragraph.startswith("Techniques such as ensembling"))
    listed = tmp_path / "list.txt"
    listed.write_text(f"{seeds[0]}\n\n{snippet}\n", encoding="utf-8")
    reused, fresh = tmp_path / "reused", tmp_path / "fresh"
    build(Options(sources=(listed,), build_cache=reused / ".surveytool-cache"), reused)
    written = (reused / "references.bib").read_text(encoding="utf-8")
    converted = tmp_path / "library.bib"
    converted.write_text(re.sub(r"(?m)^  sections = .*\n", "", written), encoding="utf-8")
    fresh.mkdir()
    shutil.copy(reused / "surveytool.lock.json", fresh)
    build(Options(sources=(converted,), build_cache=reused / ".surveytool-cache"), reused)
    build(Options(sources=(converted,)), fresh)
    assert outputs(reused) == outputs(fresh)


def test_a_hand_edit_of_the_written_bib_is_kept_as_a_backup_when_the_build_writes_it_anew(tmp_path: Path):
    # Each build writes references.bib anew: an edit made there (a title corrected in the wrong file) was lost unsaid.
    source = tmp_path / "library.bib"
    source.write_text(library(3), encoding="utf-8")
    run_cli("build", str(source), "--out", "out", cwd=tmp_path, check=True)
    written = tmp_path / "out" / "references.bib"
    fresh = written.read_bytes()
    run_cli("build", str(source), "--out", "out", cwd=tmp_path, check=True)
    assert not (tmp_path / "out" / "references.bib.bak").exists()  # a build that finds its own file keeps none
    edited = fresh.replace(b"year = {20", b"year = {19", 1)
    for round in (1, 2):
        written.write_bytes(edited if round == 1 else edited + b"% and a second edit\n")
        rebuilt = run_cli("build", str(source), "--out", "out", cwd=tmp_path, check=True)
        assert (
            "out/references.bib: changed since the last build wrote it; kept as out/references.bib.bak"
            in rebuilt.stderr
        )
        assert written.read_bytes() == fresh
    assert (tmp_path / "out" / "references.bib.bak.1").read_bytes() == edited  # the first backup is kept too
    assert (tmp_path / "out" / "references.bib.bak").read_bytes() == edited + b"% and a second edit\n"


def test_a_hand_edit_of_the_written_bib_is_kept_also_when_the_build_cannot_patch(tmp_path: Path):
    # The edit was found only where the last build is patched: with --overrides (never patched) it was lost.
    source = tmp_path / "library.bib"
    source.write_text(library(3), encoding="utf-8")
    (tmp_path / "ov.toml").write_text("", encoding="utf-8")
    run_cli("build", str(source), "--out", "out", "--overrides", "ov.toml", cwd=tmp_path, check=True)
    written = tmp_path / "out" / "references.bib"
    edited = written.read_bytes() + b"% a note of mine\n"
    written.write_bytes(edited)
    rebuilt = run_cli("build", str(source), "--out", "out", "--overrides", "ov.toml", cwd=tmp_path, check=True)
    assert "out/references.bib: changed since the last build wrote it; kept as out/references.bib.bak" in rebuilt.stderr
    assert (tmp_path / "out" / "references.bib.bak").read_bytes() == edited
