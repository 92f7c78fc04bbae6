"""Progress shows on a terminal and never in piped output."""

import os
import pty
import subprocess
import sys

import pytest
from helpers import run_cli


def _on_a_terminal(*args: str, cwd) -> tuple[int, bytes, bytes]:
    """(exit code, what the terminal showed on stderr, stdout) of a run whose stderr is a terminal."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "surveytool", *args], stdin=follower, stdout=subprocess.PIPE, stderr=follower, cwd=cwd
    )
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    stdout, _ = process.communicate(timeout=60)
    os.close(leader)
    return process.returncode, shown, stdout


def test_terminal_shows_stages_and_pipes_show_only_results(tmp_path):
    returncode, shown, stdout = _on_a_terminal("build", "--out", str(tmp_path / "t"), cwd=tmp_path)
    assert returncode == 0
    assert all(name in shown for name in (b"reading", b"tagging", b"rendering"))  # the bar named the stages
    assert b"6/6" in shown  # and counted them
    assert b"41 entries" in stdout
    piped = run_cli("build", "--out", str(tmp_path / "p"), check=True)
    assert "tagging" not in piped.stderr and "tagging" not in piped.stdout


def test_a_run_stopped_between_stages_takes_its_bar_down(tmp_path):
    # A template is compiled when the chapter is rendered, with the bar running; the process leaves
    # without the interpreter's exit handlers, so the CLI itself must stop the bar.
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "related_work.tex.j2").write_text("\\BLOCK{if }broken\n", encoding="utf-8")
    returncode, shown, _ = _on_a_terminal(
        "build", "--out", str(tmp_path / "t"), "--templates", "templates", cwd=tmp_path
    )
    assert returncode == 2
    assert b"related_work.tex.j2:1" in shown and b"tagging" in shown  # stopped after the bar had shown stages
    hidden, restored = shown.rfind(b"\x1b[?25l"), shown.rfind(b"\x1b[?25h")
    assert hidden >= 0 and restored > hidden  # the cursor the bar hid is shown again


@pytest.mark.parametrize(
    ("command", "stages"),
    [
        (["parse"], 5),
        (["tag"], 5),
        (["resolve"], 5),
        (["check"], 5),
        (["export", "-o", "list.md"], 5),
        (["bib", "-o", "out.bib"], 6),
        (["bib", "--in-place", "mine.bib"], 5),
        (["draft", "-o", "chapter.tex"], 6),
    ],
)
def test_every_command_that_analyses_shows_its_stages_on_a_terminal(tmp_path, command: list[str], stages: int):
    (tmp_path / "mine.bib").write_text(
        "@article{a, title = {Pipeline parallelism for training}, year = 2020}\n", encoding="utf-8"
    )
    returncode, shown, _ = _on_a_terminal(*command, cwd=tmp_path)
    assert returncode in (0, 1)  # 1: findings at error level in the seeds' checks
    assert b"reading" in shown and f"{stages}/{stages}".encode() in shown
