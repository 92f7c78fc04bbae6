"""Rebuilds that patch the last build (patch.py): the same bytes as a build in full, after any edit."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from helpers import SEEDS_TAXONOMY, TOPICS, outputs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surveytool.build import BuildResult, build
from surveytool.errors import OutputError
from surveytool.options import CACHE_FOLDER
from surveytool.pipeline import Options, analyse
from surveytool.rebuild.changes import changed_span
from surveytool.rebuild.memo import BuildCache
from surveytool.rebuild.snapshot import SNAPSHOT_FILE, load_snapshot

PRELUDE = "@string{venue = {Proceedings of Things}}\n\n"


def _entry(key: str, title: str, year: int, abstract: str | None = None) -> str:
    lines = [
        f"@inproceedings{{{key},",
        f"  title = {{{title}}},",
        "  author = {Author, Ada and Other, Bo},",
        "  booktitle = venue,",
        f"  year = {{{year}}},",
    ]
    if abstract:
        lines.append(f"  abstract = {{{abstract}}},")
    return "\n".join(lines) + "\n}\n"


def _entries(count: int) -> list[str]:
    # Every other entry has an abstract: its paragraph prints its source lines beside the snippet.
    return [
        _entry(
            f"paper{i}",
            f"{TOPICS[i % len(TOPICS)][0]}, part {i}",
            2015 + i % 9,
            f"We study {TOPICS[i % len(TOPICS)][1]}. Variant {i}." if i % 2 else None,
        )
        for i in range(count)
    ]


def _text(entries: list[str]) -> str:
    return PRELUDE + "\n".join(entries)


def _rebuild(source: Path | tuple[Path, ...], out: Path, fresh: Path, **options) -> BuildResult:
    """A rebuild with the cache of ``out``, checked against a build in full from the same key pins:
    the same bytes in every file, the same findings and counts."""
    sources = source if isinstance(source, tuple) else (source,)
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir()
    if (out / "surveytool.lock.json").exists():
        shutil.copy(out / "surveytool.lock.json", fresh)
    result = build(Options(sources=sources, build_cache=out / CACHE_FOLDER, **options), out)
    expected = build(Options(sources=sources, **options), fresh).summary
    # A .bib output edited by hand is kept as references.bib.bak beside what the build writes (test_incremental).
    assert {name: data for name, data in outputs(out).items() if ".bak" not in name} == outputs(fresh)
    assert (result.summary.findings, result.summary.entries, result.summary.resolved, result.summary.sections) == (
        expected.findings,
        expected.entries,
        expected.resolved,
        expected.sections,
    )
    return result


def _patched(result: BuildResult) -> tuple[int, int] | None:
    """(entries kept, entries read again) if the build patched the last one, else None."""
    return result.summary.reused.get("entries")


@pytest.fixture
def library(tmp_path: Path) -> tuple[Path, Path, Path]:
    source, out, fresh = tmp_path / "library.bib", tmp_path / "out", tmp_path / "fresh"
    source.write_text(_text(_entries(8)), encoding="utf-8")
    assert _patched(_rebuild(source, out, fresh)) is None  # nothing to patch yet
    return source, out, fresh


def _edit(source: Path, old: str, new: str) -> None:
    text = source.read_text(encoding="utf-8")
    assert old in text
    source.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_nothing_changed_and_a_title_edit_are_patched(library):
    source, out, fresh = library
    assert _patched(_rebuild(source, out, fresh)) == (8, 0)
    _edit(source, "part 5}", "part five}")
    result = _rebuild(source, out, fresh)
    assert _patched(result) == (7, 1)
    assert result.summary.reused["fragments"] == (15, 1)  # its paragraph; its table row does not print its title
    assert "part five" in (out / "references.bib").read_text(encoding="utf-8")


def test_entries_below_an_added_line_move_in_entries_json_and_the_chapter(library):
    source, out, fresh = library
    _edit(source, "@inproceedings{paper2,\n", "@inproceedings{paper2,\n  note = {one more line},\n")
    assert _patched(_rebuild(source, out, fresh)) == (7, 1)
    assert '"sources": ["' + f"{source}:{_line_of(source, 'paper7')}" + '"]' in (out / "entries.json").read_text(
        encoding="utf-8"
    )


def _line_of(source: Path, key: str) -> int:
    return next(n for n, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1) if f"{{{key}," in line)


def test_entries_added_and_deleted_are_patched(library):
    source, out, fresh = library
    _edit(
        source,
        "@inproceedings{paper4,",
        _entry("added", "Sequence parallelism of long contexts", 2023) + "\n@inproceedings{paper4,",
    )
    assert _patched(_rebuild(source, out, fresh)) == (8, 1)
    text = source.read_text(encoding="utf-8")
    start = text.index("@inproceedings{paper6,")
    source.write_text(text[:start] + text[text.index("@inproceedings{paper7,") :], encoding="utf-8")
    assert _patched(_rebuild(source, out, fresh)) == (8, 0)
    assert "paper6" not in (out / "references.bib").read_text(encoding="utf-8")


CANNOT_PATCH = {
    # The new entry is the same work as paper3: they merge.
    "duplicate": lambda source, out: _edit(
        source,
        "@inproceedings{paper4,",
        _entry("again", "Scaling laws for language models, part 3", 2018) + "\n@inproceedings{paper4,",
    ),
    # Two entries with one key: one of them is given another.
    "key taken": lambda source, out: _edit(source, "@inproceedings{paper5,", "@inproceedings{paper1,"),
    # BibTeX compares keys ignoring case: Paper1 is paper1's key too, and one of them is given another.
    "key taken in another case": lambda source, out: _edit(source, "@inproceedings{paper5,", "@inproceedings{Paper1,"),
    # A key BibTeX cannot read: a build in full writes the entry under a key of its own.
    "key with a space": lambda source, out: _edit(source, "@inproceedings{paper5,", "@inproceedings{paper 5,"),
    "macro": lambda source, out: _edit(source, "{Proceedings of Things}", "{Proceedings of Other Things}"),
    "comment between entries": lambda source, out: _edit(
        source, "@inproceedings{paper5,", "% a note\n@inproceedings{paper5,"
    ),
    ".bib output edited": lambda source, out: (out / "references.bib").write_text(
        (out / "references.bib").read_text(encoding="utf-8") + "% mine\n", encoding="utf-8"
    ),
    "lock file edited": lambda source, out: (out / "surveytool.lock.json").write_text(
        (out / "surveytool.lock.json").read_text(encoding="utf-8").replace('"paper3"', '"renamed3"'), encoding="utf-8"
    ),
}


@pytest.mark.parametrize("edit", CANNOT_PATCH)
def test_what_a_patch_cannot_give_is_built_in_full(library, edit):
    source, out, fresh = library
    CANNOT_PATCH[edit](source, out)
    assert _patched(_rebuild(source, out, fresh)) is None
    assert (out / "references.bib.bak").exists() == (edit == ".bib output edited")
    # And the next rebuild patches again (a note: a new title of paper6, sure of its section, would change what
    # the tagger's second pass learned, and "duplicate" leaves an entry that it tagged again).
    _edit(source, "@inproceedings{paper6,\n", "@inproceedings{paper6,\n  note = {one more line},\n")
    assert _patched(_rebuild(source, out, fresh)) == (len(_outputs_keys(out)) - 1, 1)


def test_a_sure_entry_edited_patches_unless_the_tagger_tagged_another_again(library):
    """A title edit of an entry sure of its section changes what the second pass learns from
    (``self_training.py``): patched while no other entry was tagged again, built in full once one was."""
    source, out, fresh = library
    _edit(source, "part 5}", "part five}")
    assert _patched(_rebuild(source, out, fresh)) == (7, 1)
    _edit(
        source,
        "@inproceedings{paper4,",
        _entry("unsure", "Scaling laws for language models, part 9", 2020) + "\n@inproceedings{paper4,",
    )
    assert _patched(_rebuild(source, out, fresh)) == (8, 1)  # tagged again itself, with what the others taught
    snapshot = load_snapshot(BuildCache(out / CACHE_FOLDER))
    assert snapshot is not None and snapshot.taught.unsure == {"unsure"} and len(snapshot.taught.teachers) == 8
    _edit(source, "part five}", "part 5}")
    assert _patched(_rebuild(source, out, fresh)) is None
    _edit(source, "@inproceedings{paper6,\n", "@inproceedings{paper6,\n  note = {one more line},\n")
    assert _patched(_rebuild(source, out, fresh)) == (8, 1)  # what it teaches has not changed


#: A second entry of paper3 with its abstract is as sure of its section: nothing in the library is left unsure,
#: so entries sure of theirs can change (``self_training.py``) and the build still patches.
PAPER3_ABSTRACT = f"We study {TOPICS[3][1]}. Variant 3."


def _duplicate_messages(result: BuildResult) -> list[str]:
    return [f.message for f in result.summary.findings if f.check == "duplicate-entry"]


def test_an_insertion_above_two_entries_of_one_work_is_patched_and_their_finding_names_their_new_lines(library):
    source, out, fresh = library
    _edit(
        source,
        "@inproceedings{paper5,",
        _entry("again", "Scaling laws for language models, part 3", 2018, PAPER3_ABSTRACT) + "\n@inproceedings{paper5,",
    )
    result = _rebuild(source, out, fresh)
    assert _patched(result) is None  # it shares paper3's identity
    [before] = _duplicate_messages(result)
    assert f"({source}:{_line_of(source, 'paper3')})" in before
    _edit(
        source,
        "@inproceedings{paper1,",
        _entry("added", "Sequence parallelism of long contexts", 2023) + "\n@inproceedings{paper1,",
    )
    result = _rebuild(source, out, fresh)  # the same findings as a build in full
    assert _patched(result) == (9, 1)
    [after] = _duplicate_messages(result)
    assert f"({source}:{_line_of(source, 'paper3')})" in after and f"({source}:{_line_of(source, 'again')})" in after


def test_an_insertion_above_an_at_string_defined_twice_is_patched_and_its_finding_names_the_new_line(library):
    source, out, fresh = library
    text = source.read_text(encoding="utf-8")
    source.write_text(
        _entry("first", "Sequence parallelism of long contexts", 2023)
        + "\n"
        + text
        + "\n@string{venue = {Proceedings of Others}}\n",
        encoding="utf-8",
    )
    assert _patched(_rebuild(source, out, fresh)) is None  # a macro changed
    source.write_text(
        _entry("added", "Tensor parallelism of transformer layers", 2022) + "\n" + source.read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    result = _rebuild(source, out, fresh)
    assert _patched(result) == (9, 1)
    [finding] = [f for f in result.summary.findings if f.check == "duplicate-key"]
    lines = source.read_text(encoding="utf-8").splitlines()
    assert f"(first at {source}:{lines.index(PRELUDE.strip()) + 1})" in finding.message
    assert finding.location.line == len(lines)


def test_a_key_that_reads_like_a_place_in_a_finding_is_built_in_full(library, monkeypatch):
    _, out, fresh = library
    monkeypatch.chdir(out.parent)
    source = Path("library.bib")  # shown as given: the key below then reads like one of its places
    _edit(
        source,
        "@inproceedings{paper5,",
        _entry("library.bib:40", "Scaling laws for language models, part 3", 2018, PAPER3_ABSTRACT)
        + "\n@inproceedings{paper5,",
    )
    [message] = _duplicate_messages(_rebuild(source, out, fresh))
    assert "'library.bib:40' (library.bib:" in message
    _edit(
        source,
        "@inproceedings{paper1,",
        _entry("added", "Sequence parallelism of long contexts", 2023) + "\n@inproceedings{paper1,",
    )
    assert _patched(_rebuild(source, out, fresh)) is None
    _edit(source, "part 6}", "part six}")  # nothing moved: patched again
    assert _patched(_rebuild(source, out, fresh)) == (9, 1)


def _outputs_keys(out: Path) -> list[str]:
    return [
        line for line in (out / "references.bib").read_text(encoding="utf-8").splitlines() if line.startswith("@inproc")
    ]


def test_another_taxonomy_or_option_is_built_in_full(library, tmp_path):
    source, out, fresh = library
    assert _patched(_rebuild(source, out, fresh, tags_field="keywords")) is None
    taxonomy = tmp_path / "taxonomy.toml"
    taxonomy.write_text(
        SEEDS_TAXONOMY.read_text(encoding="utf-8").replace('"gating network*" = 4', '"gating network*" = 0.5'),
        encoding="utf-8",
    )
    assert _patched(_rebuild(source, out, fresh, taxonomy=taxonomy)) is None


def test_an_entry_patched_in_reads_its_jabref_groups_as_a_build_in_full_does(tmp_path):
    # The patch tagged what it read again as if the tags were in "sections": each group name that is no
    # section was an unknown-tag error, which a build in full (and check) never reports.
    source, out, fresh = tmp_path / "library.bib", tmp_path / "out", tmp_path / "fresh"
    groups = ["  groups = {To read, Pipeline Parallelism},", "  groups = {Advisor picks},"]
    entries = [entry.replace("\n}", f"\n{groups[i % 2]}\n}}") for i, entry in enumerate(_entries(8))]
    source.write_text(_text(entries), encoding="utf-8")
    assert _patched(_rebuild(source, out, fresh, tags_field="groups")) is None
    _edit(source, "part 5}", "part five}")
    result = _rebuild(source, out, fresh, tags_field="groups")
    assert _patched(result) == (7, 1)
    assert [f for f in result.summary.findings if f.check in ("unknown-tag", "tag-variant")] == []


def test_an_entry_patched_in_whose_groups_name_sections_gets_the_tags_field_hint_a_build_in_full_gives(tmp_path):
    # needs-review and no-section name the --tags-field that would read an entry's groups of section ids; a patch
    # tagged the entries it read again without that hint.
    source, out, fresh = tmp_path / "library.bib", tmp_path / "out", tmp_path / "fresh"
    other = _entry("phonons", "Phonon transport in silicon nanowires", 2019).replace(
        "\n}", "\n  groups = {memory, model-parallel},\n}"
    )
    source.write_text(_text([*_entries(8), other]), encoding="utf-8")
    assert _patched(_rebuild(source, out, fresh)) is None
    _edit(source, "silicon nanowires", "germanium nanowires")
    result = _rebuild(source, out, fresh)
    assert _patched(result) == (8, 1)
    [hinted] = [f for f in result.summary.findings if f.key == "phonons" and f.check in ("needs-review", "no-section")]
    assert "--tags-field groups" in hinted.hint


def test_an_edit_in_one_of_two_files_is_patched_and_an_entry_can_move_between_them(library):
    source, out, fresh = library
    other = source.with_name("other.bib")
    other.write_text(_entry("elsewhere", "Gradient compression for data parallelism", 2021), encoding="utf-8")
    assert _patched(_rebuild((source, other), out, fresh)) is None  # other sources: built in full
    _edit(other, "Gradient compression", "Gradient sparsification")
    assert _patched(_rebuild((source, other), out, fresh)) == (8, 1)
    text = source.read_text(encoding="utf-8")
    moved = text[text.index("@inproceedings{paper7,") :]
    source.write_text(text[: text.index("@inproceedings{paper7,")], encoding="utf-8")
    other.write_text(other.read_text(encoding="utf-8") + "\n" + moved, encoding="utf-8")
    # Read again: the moved entry, and the entries before it in each file (a chunk's digest holds what follows it).
    assert _patched(_rebuild((source, other), out, fresh)) == (6, 3)


def test_findings_of_changed_entries_come_and_go(library):
    source, out, fresh = library
    _edit(source, "@inproceedings{paper3,\n", "@inproceedings{paper3,\n  sections = {no-such-section},\n")
    result = _rebuild(source, out, fresh)
    assert _patched(result) == (7, 1) and [f.check for f in result.summary.findings] == ["unknown-tag"]
    _edit(source, "  sections = {no-such-section},\n", "")
    result = _rebuild(source, out, fresh)
    assert _patched(result) == (7, 1) and result.summary.findings == ()


def test_a_refused_patched_build_leaves_the_folder_as_it_was(library):
    source, out, fresh = library
    main = out / "main.tex"
    mine = main.read_text(encoding="utf-8")
    main.write_text(mine.replace("\\begin{document}", "\\begin{document}\nMine."), encoding="utf-8")
    before = {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()}
    _edit(source, "part 5}", "part five}")
    with pytest.raises(OutputError, match="edited outside its notes regions"):
        build(Options(sources=(source,), build_cache=out / CACHE_FOLDER), out)
    assert {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()} == before
    main.write_text(mine, encoding="utf-8")
    _rebuild(source, out, fresh)  # whatever the refused build left in the cache


def test_the_survey_of_a_patched_build_is_analysed_when_asked_for(library):
    source, out, fresh = library
    _edit(source, "part 2}", "part two}")
    result = _rebuild(source, out, fresh)
    assert _patched(result) == (7, 1)
    assert result.survey.papers == analyse(Options(sources=(source,), lock_file=out / "surveytool.lock.json")).papers


def test_a_build_that_cannot_leave_a_snapshot_removes_the_last_one(library):
    source, out, fresh = library
    assert (out / CACHE_FOLDER / SNAPSHOT_FILE).exists()
    listing = source.with_name("list.txt")
    listing.write_text(
        "Related papers of: An anchor paper\n\nWe study pipeline parallelism across many devices...\n", encoding="utf-8"
    )
    build(Options(sources=(source, listing), build_cache=out / CACHE_FOLDER), out)
    assert not (out / CACHE_FOLDER / SNAPSHOT_FILE).exists()


# Edits of a library of 8 entries, applied one after the other.
EDIT = st.one_of(
    st.tuples(st.just("title"), st.integers(0, 7), st.sampled_from(["Revised", "A", "Über", "{GPU}s", "🚀 rockets"])),
    st.tuples(st.just("line"), st.integers(0, 7), st.just("")),
    st.tuples(st.just("year"), st.integers(0, 7), st.sampled_from(["1999", "2024", "n.d."])),
    st.tuples(st.just("abstract"), st.integers(0, 7), st.sampled_from(["", "A new abstract about expert routing."])),
    st.tuples(st.just("insert"), st.integers(0, 8), st.sampled_from(["fresh", "paper3"])),
    st.tuples(st.just("delete"), st.integers(0, 7), st.just("")),
    st.tuples(st.just("key"), st.integers(0, 7), st.sampled_from(["renamed", "paper0", "my key"])),
    st.tuples(st.just("comment"), st.integers(0, 7), st.just("")),
    st.tuples(st.just("crossref"), st.integers(0, 7), st.sampled_from(["Paper1", "paper2", "vol", "nowhere"])),
    st.tuples(st.just("volume"), st.integers(0, 8), st.sampled_from(["vol", "paper5"])),
)


def _apply(entries: list[str], edit: tuple[str, int, str], counter: int) -> None:
    kind, index, word = edit
    index = min(index, len(entries) - 1 if kind != "insert" else len(entries))
    if not entries and kind != "insert":
        return
    if kind == "title":
        entries[index] = entries[index].replace("title = {", f"title = {{{word} ", 1)
    elif kind == "line":
        entries[index] = entries[index].replace(",\n", ",\n  note = {a line more},\n", 1)
    elif kind == "year":
        start = entries[index].index("year = {") + len("year = {")
        entries[index] = entries[index][:start] + word + entries[index][entries[index].index("}", start) :]
    elif kind == "abstract":
        lines = [line for line in entries[index].split("\n") if not line.startswith("  abstract")]
        if word:
            lines.insert(-2, f"  abstract = {{{word}}},")
        entries[index] = "\n".join(lines)
    elif kind == "insert":  # a new work, or a copy of paper3's title (a duplicate to merge)
        title = f"New work number {counter}" if word == "fresh" else "Scaling laws for language models, part 3"
        entries.insert(index, _entry(f"new{counter}", title, 2020))
    elif kind == "delete":
        del entries[index]
    elif kind == "key":
        key = entries[index][len("@inproceedings{") : entries[index].index(",")]
        entries[index] = entries[index].replace(key, word if word == "paper0" else f"{word}{counter}", 1)
    elif kind == "comment":
        entries[index] = "% a comment\n" + entries[index]
    elif kind == "crossref":  # a child of another entry, of a volume, or of a name no entry holds
        entries[index] = re.sub(
            r"  (booktitle = venue|crossref = \{\w+\}),\n", f"  crossref = {{{word}}},\n", entries[index]
        )
    elif kind == "volume":  # a volume that lends its title and year, or one that takes another entry's key
        entries.insert(index, f"@proceedings{{{word},\n  title = {{Proceedings of Things}},\n  year = {{2019}},\n}}\n")


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(EDIT, min_size=1, max_size=4), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_a_rebuild_after_any_edits_gives_the_bytes_of_a_build_in_full(tmp_path_factory, edits, newline, volume):
    folder = tmp_path_factory.mktemp("edits")
    source, out, fresh = folder / "library.bib", folder / "out", folder / "fresh"
    entries = _entries(8)
    if volume:  # a library with a crossref family from the start: the edits reach it more often
        _apply(entries, ("volume", 2, "vol"), 0)
        _apply(entries, ("crossref", 5, "vol"), 0)
    source.write_bytes(_text(entries).replace("\n", newline).encode("utf-8"))
    _rebuild(source, out, fresh)
    for counter, edit in enumerate(edits):
        _apply(entries, edit, counter)
        source.write_bytes(_text(entries).replace("\n", newline).encode("utf-8"))
        _rebuild(source, out, fresh)  # patched or in full, the same bytes, findings and counts


@given(st.text("ab\n", max_size=12), st.text("ab\n", max_size=12))
def test_the_changed_span_lies_between_the_longest_common_prefix_and_suffix(old, new):
    prefix, suffix = changed_span(old, new)
    assert old[:prefix] == new[:prefix] and old[len(old) - suffix :] == new[len(new) - suffix :]
    assert prefix + suffix <= min(len(old), len(new))
    assert prefix == min(len(old), len(new)) or old[prefix] != new[prefix]  # no longer prefix
    if prefix + suffix < min(len(old), len(new)):
        assert old[len(old) - suffix - 1] != new[len(new) - suffix - 1]  # no longer suffix


def test_a_patch_learns_from_the_same_tagged_entries_and_a_changed_tag_builds_in_full(library):
    source, out, fresh = library
    _edit(source, "@inproceedings{paper3,\n", "@inproceedings{paper3,\n  sections = {hardware-systems},\n")
    assert _patched(_rebuild(source, out, fresh)) is None  # the tagger learns from a new tag: every entry may move
    _edit(source, "part 5}", "part five}")  # an untagged entry: tagged by what the same tags taught
    assert _patched(_rebuild(source, out, fresh)) == (7, 1)
    _edit(source, "{hardware-systems}", "{memory}")
    assert _patched(_rebuild(source, out, fresh)) is None


def _keys_in_bib(out: Path) -> list[str]:
    return re.findall(r"^@\w+\{([^,\n]+),$", (out / "references.bib").read_text(encoding="utf-8"), re.M)


def test_an_entry_that_becomes_a_crossref_parent_is_patched_with_its_child_and_moves_last(library):
    source, out, fresh = library
    assert _keys_in_bib(out)[:2] == ["paper0", "paper1"]
    child = _entry("child", "Pipeline schedules for long contexts", 2023).replace(
        "  booktitle = venue,\n", "  crossref = {Paper1},\n"
    )
    _edit(source, "@inproceedings{paper4,", child + "\n@inproceedings{paper4,")
    # The child prints the year and venue its parent lends: the parent is read again and rebuilt with it.
    assert _patched(_rebuild(source, out, fresh)) == (7, 2)
    assert _keys_in_bib(out)[-1] == "paper1"  # BibTeX inherits only from a parent after its children
    _edit(source, "  crossref = {Paper1},\n", "")
    assert _patched(_rebuild(source, out, fresh)) == (7, 2)  # the child's old parent goes back among the others
    assert _keys_in_bib(out)[:2] == ["child", "paper0"]
    _edit(source, "part 6}", "part six}")
    assert _patched(_rebuild(source, out, fresh)) == (8, 1)  # no parent left: the edited entry alone


def test_an_edit_of_a_volume_or_its_child_is_patched_with_the_whole_family(library):
    source, out, fresh = library
    volume = "@proceedings{vol, title = {Proceedings of Things 2020}, year = 2020}\n\n"
    child = "@inproceedings{child,\n  crossref = {vol},\n  title = {Pipeline schedules},\n  author = {Doe, J},\n}\n\n"
    sibling = child.replace("{child,", "{sibling,").replace("Pipeline schedules", "Expert routing")
    _edit(source, "@inproceedings{paper4,", volume + child + sibling + "@inproceedings{paper4,")
    assert _patched(_rebuild(source, out, fresh)) == (7, 4)  # paper3's chunk now ends before another entry type
    _edit(source, "part 6}", "part six}")  # the volume stays out of the chapter, the children keep its year
    assert _patched(_rebuild(source, out, fresh)) == (10, 1)
    chapter = (out / "related_work.tex").read_text(encoding="utf-8")
    assert "{child}" in chapter and "{vol}" not in chapter
    for parent_or_child in ("Things 2020}", "Pipeline schedules}", "year = 2020}"):
        _edit(source, parent_or_child, parent_or_child.replace("}", " again}"))  # the year or title it lends
        assert _patched(_rebuild(source, out, fresh)) == (8, 3)
    assert "Proceedings of Things 2020 again" in (out / "entries.json").read_text(encoding="utf-8")
    _edit(source, "@proceedings{vol,", "@proceedings{volume,")  # its children name no entry now: it is cited
    assert _patched(_rebuild(source, out, fresh)) == (8, 3)
    assert "{volume}" in (out / "related_work.tex").read_text(encoding="utf-8")


def test_a_volume_whose_last_child_leaves_it_is_placed_in_a_patch(library):
    source, out, fresh = library
    volume = "@proceedings{vol, title = {Proceedings of Things 2020}, year = 2020}\n\n"
    child = "@inproceedings{child,\n  crossref = {vol},\n  title = {Pipeline schedules},\n  author = {Doe, J},\n}\n\n"
    _edit(source, "@inproceedings{paper4,", child + volume + "@inproceedings{paper4,")
    _rebuild(source, out, fresh)
    assert not any(f.key == "vol" for f in _rebuild(source, out, fresh).summary.findings)
    _edit(source, "  crossref = {vol},\n", "  booktitle = venue,\n")
    result = _rebuild(source, out, fresh)
    assert _patched(result) == (8, 2)  # the child, and the volume read again: now a work to place like any other
    assert "vol" in {f.key for f in result.summary.findings if f.check in ("needs-review", "no-section")}


def test_a_child_that_shares_its_title_with_another_entry_is_patched_when_its_volume_changes(library):
    source, out, fresh = library
    volume = "@proceedings{vol, title = {Proceedings of Things 2020}, year = 2020}\n\n"
    child = "@inproceedings{child,\n  crossref = {vol},\n  title = {Pipeline schedules for training large models on many devices},\n  author = {Doe, J},\n}\n\n"
    # The thesis behind the paper: another work, kept apart, that shares the paper's title.
    twin = "@phdthesis{twin,\n  title = {Pipeline schedules for training large models on many devices},\n  author = {Doe, J},\n  school = {MIT},\n  year = 2021,\n}\n\n"
    _edit(source, "@inproceedings{paper4,", child + volume + twin + "@inproceedings{paper4,")
    assert {"child", "twin"} <= set(_keys_in_bib(_rebuild(source, out, fresh) and out))
    _edit(source, "Things 2020}", "Things, 2020}")
    assert _patched(_rebuild(source, out, fresh)) == (9, 2)  # the twins stay as they were, findings and keys


@pytest.mark.parametrize(
    ("parent", "child_names"),
    [
        (
            "@book{vol,\n  title = {Proceedings of Things},\n  year = {2020},\n  ids = {volAlias},\n}\n",
            "crossref = {volAlias}",
        ),
        (
            "@misc{shared,\n  title = {Shared venue},\n  booktitle = {Conf on Stuff},\n  year = {2020},\n}\n",
            "xdata = {shared}",
        ),
    ],
    ids=["crossref through ids", "xdata naming a misc"],
)
def test_a_parent_a_child_names_by_alias_or_xdata_is_rebuilt_with_its_child(library, parent, child_names):
    source, out, fresh = library
    child = (
        f"@inproceedings{{child,\n  {child_names},\n  title = {{Pipeline schedules}},\n  author = {{Doe, J}},\n}}\n\n"
    )
    _edit(source, "@inproceedings{paper4,", parent + "\n" + child + "@inproceedings{paper4,")
    _rebuild(source, out, fresh)
    _edit(source, "{2020}", "{2024}")  # what the parent lends: a patch of the parent alone would miss the child
    assert _patched(_rebuild(source, out, fresh)) == (8, 2)


def test_a_new_entry_that_takes_a_name_a_dangling_crossref_gives_is_rebuilt_with_its_child(library):
    source, out, fresh = library
    child = (
        "@inproceedings{child,\n  crossref = {conf20},\n  title = {Pipeline schedules},\n  author = {Doe, J},\n}\n\n"
    )
    _edit(source, "@inproceedings{paper4,", child + "@inproceedings{paper4,")
    _rebuild(source, out, fresh)
    volume = "@book{proc2020,\n  title = {Proceedings of Things},\n  year = {2020},\n  ids = {conf20},\n}\n\n"
    _edit(source, "@inproceedings{paper5,", volume + "@inproceedings{paper5,")
    assert _patched(_rebuild(source, out, fresh)) == (7, 3)  # the volume, its child, paper4 (now before a @book)
    assert "Proceedings of Things" in (out / "related_work.tex").read_text(encoding="utf-8")


def test_two_entries_a_crossref_may_name_are_built_in_full(library):
    source, out, fresh = library
    child = (
        "@inproceedings{child,\n  crossref = {conf20},\n  title = {Pipeline schedules},\n  author = {Doe, J},\n}\n\n"
    )
    volume = "@book{proc2020,\n  title = {Proceedings of Things},\n  year = {2020},\n  ids = {conf20},\n}\n\n"
    _edit(source, "@inproceedings{paper4,", child + volume + "@inproceedings{paper4,")
    _rebuild(source, out, fresh)
    # Which of two entries lends depends on the order of every entry: only a build in full knows it.
    _edit(source, "@inproceedings{paper5,", volume.replace("proc2020", "other2020") + "@inproceedings{paper5,")
    assert _patched(_rebuild(source, out, fresh)) is None


def test_a_volume_no_entry_names_is_patched_like_any_other_entry(library):
    source, out, fresh = library
    volume = "@proceedings{vol,\n  title = {Proceedings of Things 2020},\n  year = {2020},\n}\n\n"
    _edit(source, "@inproceedings{paper4,", volume + "@inproceedings{paper4,")
    _rebuild(source, out, fresh)
    _edit(source, "Things 2020}", "Things, 2020}")
    assert _patched(_rebuild(source, out, fresh)) == (len(_outputs_keys(out)), 1)  # the volume is no @inproceedings


CHAIN = (
    "@inproceedings{c1,\n  crossref = {vol},\n  title = {Pipeline schedules},\n  author = {Doe, J},\n}\n\n"
    "@proceedings{vol,\n  crossref = {series},\n  title = {Proceedings of Things 2020},\n  ids = {volA},\n}\n\n"
    "@proceedings{series,\n  title = {Series of Things},\n  year = {2019},\n  publisher = {ACM},\n}\n\n"
    "@inproceedings{c2,\n  crossref = {VOLA},\n  title = {Expert routing},\n  author = {Roe, R},\n}\n\n"
)


@pytest.mark.parametrize(
    "edits",
    [
        [("{2019}", "{2018}"), ("publisher = {ACM}", "publisher = {IEEE}")],  # the top of the chain lends through vol
        [("  crossref = {series},\n", ""), ("Things 2020}", "Things, 2020}")],  # the middle leaves the chain
        [("@proceedings{series", "@book{series"), ("ids = {volA}", "ids = {volB}")],  # cited or not; c2 dangles
        [("crossref = {VOLA}", "crossref = {c1}"), ("crossref = {vol},", "crossref = {c2},")],  # a cycle
    ],
    ids=["top", "middle", "type and alias", "cycle"],
)
def test_edits_along_a_crossref_chain_are_patched_with_the_whole_family(library, edits):
    source, out, fresh = library
    _edit(source, "@inproceedings{paper4,", CHAIN + "@inproceedings{paper4,")
    _rebuild(source, out, fresh)
    for old, new in edits:
        _edit(source, old, new)
        kept, read = _patched(_rebuild(source, out, fresh)) or (None, None)  # the same bytes as a build in full
        assert read is not None and read >= 2, (old, new)


def test_a_volume_in_one_file_and_its_child_in_another_are_patched_together(tmp_path):
    mine, theirs, out, fresh = tmp_path / "mine.bib", tmp_path / "volumes.bib", tmp_path / "out", tmp_path / "fresh"
    mine.write_text(
        _text(_entries(4)) + "\n@inproceedings{child,\n  crossref = {vol},\n  title = {Pipeline schedules},\n}\n",
        encoding="utf-8",
    )
    theirs.write_text(
        "@proceedings{vol,\n  title = {Proceedings of Things 2020},\n  year = 2020,\n}\n", encoding="utf-8"
    )
    _rebuild((mine, theirs), out, fresh)
    _edit(theirs, "year = 2020", "year = 2021")
    assert _patched(_rebuild((mine, theirs), out, fresh)) == (4, 2)
    assert '"year": "2021"' in (out / "entries.json").read_text(encoding="utf-8")


def test_a_crossref_loop_is_patched_with_its_volume_last_as_a_build_in_full_writes_it(library):
    # The child's key sorts first; the volume is written last all the same, in a patch too.
    source, out, fresh = library
    volume = "@proceedings{zvol,\n  title = {Proceedings of Things 2020},\n  year = 2020,\n  crossref = {child},\n}\n\n"
    child = "@inproceedings{child,\n  crossref = {zvol},\n  title = {Pipeline schedules},\n  author = {Doe, J},\n}\n\n"
    _edit(source, "@inproceedings{paper4,", volume + child + "@inproceedings{paper4,")
    _rebuild(source, out, fresh)
    written = (out / "references.bib").read_text(encoding="utf-8")
    assert written.index("{child,") < written.index("{zvol,")
    _edit(source, "part 6}", "part six}")
    assert _patched(_rebuild(source, out, fresh)) is not None  # the same bytes as a build in full


def test_a_new_entry_under_the_key_of_a_merged_duplicate_is_built_in_full(tmp_path):
    # twin1 is paper1 twice, merged (--merge-duplicates): a new work keyed twin1 undoes that merge in a full build.
    source, out, fresh = tmp_path / "library.bib", tmp_path / "out", tmp_path / "fresh"
    entries = _entries(4)
    source.write_text(_text([*entries, entries[1].replace("{paper1,", "{twin1,")]), encoding="utf-8")
    _rebuild(source, out, fresh, merge_duplicates=True)
    assert '"aliases": ["twin1"]' in (out / "entries.json").read_text(encoding="utf-8")
    _edit(source, "@inproceedings{paper3,", _entry("twin1", "Expert routing", 2022) + "\n@inproceedings{paper3,")
    assert _patched(_rebuild(source, out, fresh, merge_duplicates=True)) is None


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "latin-1"])
def test_a_library_saved_in_another_encoding_rebuilds_as_a_build_in_full_writes(library, encoding):
    # Saved again by an editor with a byte-order mark, as UTF-16 (Notepad's "Unicode") or as Latin-1, then edited.
    source, out, fresh = library
    text = source.read_text(encoding="utf-8").replace("part 3}", "part 3, Über alles}")
    source.write_bytes(text.encode(encoding))
    _rebuild(source, out, fresh)
    source.write_bytes(text.replace("part 5}", "part five}").encode(encoding))
    # Only UTF-8 text is patched: a Latin-1 file builds in full, with its encoding warning.
    assert (_patched(_rebuild(source, out, fresh)) is None) == (encoding == "latin-1")
    source.write_bytes(text.encode("utf-8"))
    _rebuild(source, out, fresh)


def test_a_key_added_with_other_code_points_than_a_key_that_looks_the_same_is_built_in_full(library):
    # ü typed as one character in one key and pasted as u and a combining diaeresis in another: the keys look the
    # same, and a build in full warns (biber reads them as one key). A patch left that warning out.
    source, out, fresh = library
    _edit(source, "@inproceedings{paper1,", "@inproceedings{m\u00fcller1,")
    _rebuild(source, out, fresh)
    _edit(source, "@inproceedings{paper5,", "@inproceedings{mu\u0308ller1,")
    result = _rebuild(source, out, fresh)
    assert _patched(result) is None
    assert [f.check for f in result.summary.findings if f.key == "mu\u0308ller1"] == ["duplicate-key"]
