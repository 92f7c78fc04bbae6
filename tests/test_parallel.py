"""Work shared with a forked child (forked.py) gives exactly what one process gives."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path
from unittest.mock import ANY

import pytest
from helpers import CORPUS, TRICKY, library
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surveytool import build as outputs
from surveytool import parallel as forked
from surveytool.analysis.merge import merge_duplicates
from surveytool.analysis.tagging.tagger import Tagger, tag_papers, text_of
from surveytool.analysis.taxonomy import load_taxonomy
from surveytool.bibtex.fields import render_bibliography
from surveytool.bibtex.reader import read_bibtex
from surveytool.build import build
from surveytool.errors import OutputError
from surveytool.model import frozen_mapping
from surveytool.options import CACHE_FOLDER
from surveytool.output.entries_json import entries_json
from surveytool.parallel import JOBS_VARIABLE, Beside, FromBothEnds, can_fork, map_beside, run_beside
from surveytool.pipeline import Options
from surveytool.rebuild.bib_reading import ReusingBibReader
from surveytool.rebuild.memo import Memo
from surveytool.rebuild.snapshot import save_snapshot
from surveytool.rebuild.tagging_reuse import ReusingTagger, _tagged_text
from surveytool.resources import default_taxonomy

# CI runs on Linux, where this file never skips.
pytestmark = pytest.mark.skipif(
    not hasattr(os, "fork") or sys.platform == "darwin", reason="surveytool forks only on Linux and the BSDs"
)


@pytest.fixture(autouse=True)
def two_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fork as on any machine with two cores, whatever this one has."""
    monkeypatch.setattr(forked, "cores", lambda: 2)
    assert can_fork()


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch):
    """Call a function with every read, tagging and writing shared with a forked child, however small
    (``in_one_process=True``: shared the same way, but as where there is no fork: all done here)."""

    def call(function, *args, in_one_process: bool = False, **kwargs):
        with monkeypatch.context() as patch:
            patch.setattr(forked, "SHARE_FROM_ENTRIES", 0)
            if in_one_process:
                patch.setenv(JOBS_VARIABLE, "1")
            return function(*args, **kwargs)

    return call


def reusing_by(first: Tagger, known: dict, memo: Memo | None = None):
    """A build's ``tag_all_by``: each tagger's tags from ``memo``; what the child computed ahead is the first's."""
    return lambda chosen: lambda todo: ReusingTagger(chosen, memo).tag_all(todo, known if chosen is first else None)


def test_the_background_part_runs_in_another_process_unless_told_not_to(monkeypatch: pytest.MonkeyPatch):
    here = os.getpid()
    mine, theirs = run_beside(os.getpid, os.getpid)
    assert mine == here and theirs != here
    monkeypatch.setenv(JOBS_VARIABLE, "1")
    assert run_beside(os.getpid, os.getpid) == (here, here)


def test_a_map_keeps_the_order():
    for count in (0, 1, 7, 100):
        results = map_beside(lambda n: (os.getpid(), n * n), list(range(count)), list, tuple)
        assert [square for _, square in results] == [n * n for n in range(count)]


def _slow_square(n: int) -> tuple[int, int]:
    time.sleep(0.001)
    return os.getpid(), n * n


def _wait_for_the_child(work: FromBothEnds, items: int) -> None:
    deadline = time.monotonic() + 30
    while work._read(0) < items and time.monotonic() < deadline:  # what the child has published
        time.sleep(0.005)


def test_both_ends_meet_while_this_process_was_busy_elsewhere():
    here = os.getpid()
    with FromBothEnds(_slow_square, range(400), list, tuple) as work:
        _wait_for_the_child(work, 2 * FromBothEnds.BATCH)  # this process "merges duplicates" meanwhile
        results = work.results()
    assert [square for _, square in results] == [n * n for n in range(400)]
    pids = [pid for pid, _ in results]
    assert pids[0] != here and pids[-1] == here  # the child from the front, this process from the back
    assert pids == sorted(pids, key=lambda pid: pid == here)  # one switch: each side's part is contiguous
    assert pids.count(here) >= FromBothEnds.BATCH and 400 - pids.count(here) >= 2 * FromBothEnds.BATCH


def test_what_a_failing_child_did_not_deliver_is_computed_here():
    here = os.getpid()

    def fails_in_the_child(n: int) -> tuple[int, int]:
        if os.getpid() != here and n >= 40:
            raise RuntimeError("the child cannot go on")
        return _slow_square(n)

    with FromBothEnds(fails_in_the_child, range(300), list, tuple) as work:
        _wait_for_the_child(work, FromBothEnds.BATCH)
        results = work.results()
    assert [square for _, square in results] == [n * n for n in range(300)]
    assert {pid for pid, _ in results} == {here}  # the child's answer never came: all of it here


def test_without_a_fork_this_process_does_it_all(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(JOBS_VARIABLE, "1")
    here = os.getpid()
    with FromBothEnds(_slow_square, range(50)) as work:
        assert [pid for pid, _ in work.results()] == [here] * 50


def test_a_child_that_fails_leaves_its_part_to_this_process():
    here = os.getpid()

    def fails_in_the_child() -> list[int]:
        if os.getpid() != here:
            raise RuntimeError("the child cannot do it")
        return [1, 2, 3]

    assert run_beside(fails_in_the_child, lambda: "mine") == ("mine", [1, 2, 3])
    with Beside(fails_in_the_child) as pending:
        assert pending.result() is None


def test_a_child_not_collected_is_stopped_and_reaped():
    with Beside(lambda: time.sleep(60)) as pending:
        pid = pending._pid
        assert pid
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already reaped: no zombie left behind


def test_a_failure_here_stops_the_child():
    started = time.perf_counter()
    with pytest.raises(ValueError):
        run_beside(lambda: time.sleep(60), lambda: int("not a number"))
    assert time.perf_counter() - started < 30


@pytest.mark.parametrize("path", [*CORPUS, None], ids=lambda p: p.name if p else "tricky")
def test_a_shared_read_equals_a_whole_read(path: Path | None, shared):
    text = path.read_text(encoding="utf-8", errors="replace") if path else TRICKY
    whole = read_bibtex(text, "x.bib")  # small: one process, one part
    assert shared(ReusingBibReader(), text, "x.bib") == whole
    assert shared(ReusingBibReader(), text, "x.bib", in_one_process=True) == whole
    # With a cache: what the child read is stored as this process stores what it reads.
    shared_memo, whole_memo = Memo({}), Memo({})
    assert shared(ReusingBibReader(shared_memo), text, "x.bib") == whole
    ReusingBibReader(whole_memo)(text, "x.bib")
    assert shared_memo.used() == whole_memo.used()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(TRICKY.splitlines(keepends=True)), min_size=1, max_size=14))
def test_any_text_reads_the_same_shared_or_whole(shared, lines: list[str]):
    text = "".join(lines)
    assert shared(ReusingBibReader(), text, "x.bib") == read_bibtex(text, "x.bib")


def test_tagging_ahead_gives_the_tags_of_tagging_afterwards(shared):
    taxonomy = load_taxonomy(default_taxonomy())
    read = read_bibtex(library(40), "x.bib").papers
    papers = merge_duplicates([*read, read[3]])  # a paper read twice: tagged once
    # Merging or resolving can change a paper's text after the child tagged it as read.
    changed = [
        p if i % 5 else replace(p, fields=frozen_mapping({**p.fields, "title": "Changed after reading"}))
        for i, p in enumerate(papers)
    ]
    expected = tag_papers(changed, taxonomy)  # few: one process
    tagger = Tagger(taxonomy)
    with shared(ReusingTagger(tagger).tag_beside, read) as ahead:
        known = ahead.result()
    assert len(known) == len({text_of(p) for p in read})  # every text read: the child's end and this process's
    assert shared(tag_papers, changed, taxonomy, tagger, tag_all_by=reusing_by(tagger, known)) == expected
    memo = Memo({})
    assert shared(tag_papers, changed, taxonomy, tagger, tag_all_by=reusing_by(tagger, known, memo)) == expected
    # Every tag stored, whoever computed it (the first tagger's; the second's too, for those it tagged again).
    first = ReusingTagger(tagger, memo)
    assert {first.memo_key(_tagged_text(p)) for p in changed} <= set(memo.used())
    assert shared(tag_papers, changed, taxonomy, in_one_process=True) == expected


def test_a_shared_bibliography_is_written_as_a_whole_one(shared):
    papers = read_bibtex(library(25), "x.bib").papers
    whole = render_bibliography(papers)
    assert shared(render_bibliography, papers) == whole
    assert shared(render_bibliography, papers, in_one_process=True) == whole


def test_shared_entries_json_is_made_as_a_whole_one(shared):
    papers = read_bibtex(library(25), "x.bib").papers
    whole = entries_json(papers)
    assert shared(entries_json, papers) == whole
    assert shared(entries_json, papers, in_one_process=True) == whole


def test_a_shared_build_writes_what_a_build_in_one_part_writes(tmp_path: Path, shared):
    source = tmp_path / "library.bib"
    source.write_text(library(30), encoding="utf-8")
    for name in ("shared", "whole"):
        (tmp_path / name).mkdir()
    together = shared(build, Options(sources=(source,)), tmp_path / "shared").survey
    whole = build(Options(sources=(source,)), tmp_path / "whole").survey
    assert together.papers == whole.papers and together.findings == whole.findings
    assert sorted(p.name for p in (tmp_path / "shared").rglob("*")) == sorted(
        p.name for p in (tmp_path / "whole").rglob("*")
    )
    for path in sorted((tmp_path / "whole").rglob("*")):
        if path.is_file():
            assert (tmp_path / "shared" / path.relative_to(tmp_path / "whole")).read_bytes() == path.read_bytes(), (
                path.name
            )


def test_a_refused_shared_build_leaves_the_folder_as_it_was(tmp_path: Path, shared):
    source = tmp_path / "library.bib"
    source.write_text(library(30), encoding="utf-8")
    out = tmp_path / "out"
    shared(build, Options(sources=(source,)), out)
    main = out / "main.tex"
    main.write_text(
        main.read_text(encoding="utf-8").replace("\\begin{document}", "\\begin{document}\nMine."), encoding="utf-8"
    )
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    source.write_text(library(31), encoding="utf-8")  # a .bib and entries.json that would differ
    with pytest.raises(OutputError, match="edited outside its notes regions"):
        shared(build, Options(sources=(source,)), out)
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before


def test_a_shared_patched_build_leaves_the_data_files_and_the_snapshot_to_the_child(
    tmp_path: Path, shared, monkeypatch
):
    # The child's answer crosses as marshal data: one it cannot send would be computed again here.
    here = []
    monkeypatch.setattr(outputs, "save_snapshot", lambda *args: here.append(args) or save_snapshot(*args))
    source = tmp_path / "library.bib"
    source.write_text(library(30), encoding="utf-8")
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    first = shared(build, Options(sources=(source,), build_cache=out / CACHE_FOLDER), out)
    assert first.summary.reused["bibtex"] == (0, 31) and here == [(out / CACHE_FOLDER, ANY)]  # in full: saved here
    here.clear()
    source.write_text(source.read_text(encoding="utf-8").replace("part 7}", "part seven}"), encoding="utf-8")
    second = shared(build, Options(sources=(source,), build_cache=out / CACHE_FOLDER), out)
    assert second.summary.reused["entries"] == (29, 1) and here == []  # patched: the child saved it
    fresh.mkdir()
    shutil.copy(out / "surveytool.lock.json", fresh)
    build(Options(sources=(source,)), fresh)
    assert all(
        (out / name).read_bytes() == (fresh / name).read_bytes()
        for name in ("references.bib", "entries.json", "related_work.tex", "main.tex")
    )


def test_a_refused_shared_patched_build_leaves_the_folder_as_it_was(tmp_path: Path, shared):
    source = tmp_path / "library.bib"
    source.write_text(library(30), encoding="utf-8")
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    options = Options(sources=(source,), build_cache=out / CACHE_FOLDER)
    shared(build, options, out)
    main = out / "main.tex"
    mine = main.read_text(encoding="utf-8")
    main.write_text(mine.replace("\\begin{document}", "\\begin{document}\nMine."), encoding="utf-8")
    before = {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()}
    source.write_text(source.read_text(encoding="utf-8").replace("part 7}", "part seven}"), encoding="utf-8")
    with pytest.raises(OutputError, match="edited outside its notes regions"):
        shared(build, options, out)  # the child may have saved a snapshot of files never moved into place
    assert {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()} == before
    main.write_text(mine, encoding="utf-8")
    fresh.mkdir()
    shutil.copy(out / "surveytool.lock.json", fresh)
    shared(build, options, out)
    build(Options(sources=(source,)), fresh)
    assert all(
        (out / name).read_bytes() == (fresh / name).read_bytes()
        for name in ("references.bib", "entries.json", "related_work.tex", "main.tex", "surveytool.lock.json")
    )


def test_a_child_does_its_part_alone():
    assert run_beside(can_fork, can_fork) == (True, False)


def test_an_interrupt_while_waiting_for_the_child_stops_it_and_propagates():
    class Interrupted(Exception):
        pass

    def interrupt(signum, frame):
        raise Interrupted

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        # Interrupted, not an error from closing the pipe twice.
        with pytest.raises(Interrupted), Beside(lambda: time.sleep(60)) as pending:
            pid = pending._pid
            signal.setitimer(signal.ITIMER_REAL, 0.2)
            pending.result()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
