"""One build at a time into an out folder: a second waits for the first, or stops naming the folder."""

import fcntl
import os
import subprocess
import sys
import threading

import pytest
from helpers import LOREM, built_with_notes, run_cli

from surveytool.errors import OutputError
from surveytool.output.out_lock import building_into

NOTES = "My own words on these papers.\n"


def held(folder):
    """The folder locked as a running build holds it, from another open file description."""
    handle = os.open(folder, os.O_RDONLY)
    fcntl.flock(handle, fcntl.LOCK_EX)
    return handle


def test_a_build_into_a_folder_another_build_holds_stops_with_exit_1_naming_it(tmp_path):
    source, out, _ = built_with_notes(tmp_path, NOTES)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    handle = held(out)
    try:
        second = run_cli("build", str(source), "--out", str(out))
    finally:
        os.close(handle)
    assert second.returncode == 1, second.stderr
    assert f"{out}: error: another surveytool build is writing into this folder" in second.stderr
    assert "Traceback" not in second.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before


def test_a_second_build_waits_for_the_first_to_let_go(tmp_path):
    source, out, _ = built_with_notes(tmp_path, NOTES)
    handle = held(out)
    threading.Timer(1.0, os.close, [handle]).start()
    second = run_cli("build", str(source), "--out", str(out))
    assert second.returncode == 0, second.stderr
    assert NOTES in (out / "related_work.tex").read_text(encoding="utf-8")


def test_two_builds_at_once_both_finish_and_keep_the_notes(tmp_path):
    source, out, _ = built_with_notes(tmp_path, NOTES)
    command = [sys.executable, "-m", "surveytool", "build", str(source), "--out", str(out)]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for run in runs:
        _, err = run.communicate()
        assert run.returncode == 0, err
    assert NOTES in (out / "related_work.tex").read_text(encoding="utf-8")
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".") and p.name != ".surveytool-cache") == []


def test_a_build_that_stops_before_writing_leaves_no_folder_it_made(tmp_path):
    (tmp_path / "refs.bib").write_text(LOREM, encoding="utf-8")
    (tmp_path / "bad.toml").write_text('title = "Survey"\n[[section]\nid = "x"\n', encoding="utf-8")
    stopped = run_cli("build", "refs.bib", "--taxonomy", "bad.toml", "--out", "new/out", cwd=tmp_path)
    assert stopped.returncode == 2, stopped.stderr
    assert not (tmp_path / "new").exists()


def test_folders_made_for_a_build_that_stops_are_removed_and_a_folder_with_files_stays(tmp_path):
    with pytest.raises(OutputError), building_into(tmp_path / "new" / "out"):
        raise OutputError("stopped")
    assert sorted(tmp_path.iterdir()) == []
    with pytest.raises(OutputError), building_into(tmp_path / "new" / "out"):
        (tmp_path / "new" / "out" / "kept.txt").write_text("mine", encoding="utf-8")
        raise OutputError("stopped")
    assert (tmp_path / "new" / "out" / "kept.txt").read_text(encoding="utf-8") == "mine"
