"""End-to-end: `surveytool build` as a user runs it, against golden outputs."""

import json
import shutil

import pytest
from helpers import GOLDEN, ROOT, run_cli

OUTPUTS = ("references.bib", "related_work.tex", "main.tex", "entries.json", "surveytool.lock.json")


@pytest.mark.parametrize("name", OUTPUTS)
def test_seeds_build_matches_golden(seeds_build, update_golden, name):
    produced = (seeds_build / name).read_text(encoding="utf-8")
    golden = GOLDEN / "seeds" / name
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(produced, encoding="utf-8")
    assert produced == golden.read_text(encoding="utf-8"), f"{name} differs; rerun pytest --update-golden if intended"


def test_entries_json_schema_and_counts(seeds_build):
    entries = json.loads((seeds_build / "entries.json").read_text(encoding="utf-8"))
    assert len(entries) == 41
    assert sum(e["resolved"] for e in entries) == 38
    for entry in entries:
        assert {"key", "title", "year", "abstract", "tags", "resolved", "sources"} <= entry.keys()
        assert all(":" in s for s in entry["sources"])
        if not entry["resolved"]:
            assert entry["title"] is None and entry["abstract"]
    shared = [e for e in entries if len(e["sources"]) == 2]
    assert [e["title"] for e in shared] == ["Model-Parallel Model Selection for Deep Learning Systems"]
    assert {e["key"] for e in entries} >= {"lepikhin2021gshard", "liu2022dive"}


def test_every_bib_entry_is_cited_in_its_primary_section(seeds_build):
    chapter = (seeds_build / "related_work.tex").read_text(encoding="utf-8")
    entries = json.loads((seeds_build / "entries.json").read_text(encoding="utf-8"))
    bib = (seeds_build / "references.bib").read_text(encoding="utf-8")
    for entry in entries:
        assert f"{{{entry['key']},\n" in bib
        primary = entry["tags"][0] if entry["tags"] else "unclassified"  # left to place: listed as such
        section = chapter.split(f"\\label{{sec:rw:{primary}}}", 1)[1].split("\\subsubsection", 1)[0]
        assert f"\\citet{{{entry['key']}}}" in section, entry["key"]


def test_two_builds_are_byte_identical(tmp_path, seeds_build):
    run_cli("build", "--out", str(tmp_path / "again"), check=True)
    for name in OUTPUTS:
        assert (tmp_path / "again" / name).read_bytes() == (seeds_build / name).read_bytes(), name


def test_build_from_another_folder_writes_only_into_out(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    result = run_cli("build", cwd=work, check=True)
    assert "41 entries, 38 resolved, 3 unresolved" in result.stdout
    assert sorted(p.name for p in work.iterdir()) == ["build"]
    assert sorted(p.name for p in (work / "build").iterdir()) == sorted([*OUTPUTS, ".surveytool-cache"])


def test_existing_output_folder_is_updated_in_place(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    (out / "references.bib").write_text("stale")
    run_cli("build", "--out", str(out), check=True)
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "references.bib").read_text().startswith("@")


def test_added_list_changes_no_existing_key(tmp_path, seeds_build):
    extra = tmp_path / "extra.txt"
    extra.write_text(
        "Related papers: Another Anchor Paper Title Here\n\nWe study pipeline parallelism with micro-batches "
        "for training large language models across many accelerators in a cluster of machines…\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    shutil.copytree(seeds_build, out)
    seeds = sorted(ROOT.glob("seeds/*.txt"))
    run_cli("build", *map(str, seeds), str(extra), "--out", str(out), check=True)
    before = {e["abstract"] or e["title"]: e["key"] for e in json.loads((seeds_build / "entries.json").read_text())}
    after = {e["abstract"] or e["title"]: e["key"] for e in json.loads((out / "entries.json").read_text())}
    assert len(after) == len(before) + 2
    assert all(after[text] == key for text, key in before.items())


@pytest.mark.parametrize(
    "args, words",
    [
        (["build", "missing.txt"], "missing.txt: error: no such file"),
        (["build", "--taxonomy", "nope.toml"], "nope.toml: error: no such taxonomy file"),
        (["build", "--no-such-option"], "No such option"),
        (["build", "--level", "part"], "--level"),
    ],
)
def test_bad_usage_exits_2_with_one_clear_line(tmp_path, args, words):
    result = run_cli(*args, "--out", str(tmp_path / "o"), cwd=tmp_path)
    assert result.returncode == 2
    assert words in result.stderr
    assert "Traceback" not in result.stderr


def test_malformed_taxonomy_names_its_line(tmp_path):
    bad = tmp_path / "t.toml"
    bad.write_text('title = "x"\n[[sections]]\nid = "a"\ntitle = "A"\nkeywords = "oops"\n')
    result = run_cli("build", "--taxonomy", str(bad), "--out", str(tmp_path / "o"))
    assert result.returncode == 2
    assert f"{bad}:5: error: keywords must map phrases to numeric weights" in result.stderr


def test_empty_and_binary_sources_are_clear_errors(tmp_path):
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "blob.bib").write_bytes(b"\x00\x01\x02")
    for name, words in (("empty.txt", "is empty"), ("blob.bib", "is not a text file")):
        result = run_cli("build", name, "--out", "o", cwd=tmp_path)
        assert result.returncode == 2 and f"{name}: error: {words}" in result.stderr


def test_findings_at_error_level_exit_1_and_strict_makes_warnings_fatal(tmp_path):
    (tmp_path / "bad.bib").write_text(
        "@article{a, title = {Pipeline parallelism}, sections = {pipeline-parallel}}\n"
        "@article{b, title = {x}, sections = {moe-typo}}\n"
    )
    assert run_cli("build", "bad.bib", "--out", "o", cwd=tmp_path).returncode == 1
    (tmp_path / "ok.txt").write_text(
        "Related papers: x\n\nSome snippet about gradient compression for all-reduce in clusters of GPUs…\n"
    )
    assert run_cli("build", "ok.txt", "--out", "o", cwd=tmp_path).returncode == 0
    assert run_cli("build", "ok.txt", "--out", "o", "--strict", cwd=tmp_path).returncode == 1


def test_chapter_level_makes_a_report_with_a_chapter(tmp_path):
    run_cli("build", "--out", str(tmp_path), "--level", "chapter", check=True)
    assert "\\documentclass[11pt]{report}" in (tmp_path / "main.tex").read_text(encoding="utf-8")
    chapter = (tmp_path / "related_work.tex").read_text(encoding="utf-8")
    assert "\\chapter{Related Work on Large-Model Training}" in chapter and "\\section{Foundations}" in chapter


def test_render_outputs_gives_the_texts_build_writes(tmp_path):
    from surveytool.build import build, render_outputs
    from surveytool.output.notes_regions import stamp
    from surveytool.pipeline import Options, analyse

    build(Options(), tmp_path / "out")
    texts = render_outputs(analyse(Options(lock_file=tmp_path / "out" / "surveytool.lock.json")))
    for name, text in texts.items():
        written = (tmp_path / "out" / name).read_text(encoding="utf-8")
        assert written == (stamp(text) if name.endswith(".tex") else text), name
