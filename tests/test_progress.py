"""Progress shows on a terminal and never in piped output."""

import os
import pty
import subprocess
import sys

from conftest import run_cli


def test_terminal_shows_stages_and_pipes_show_only_results(tmp_path):
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "surveytool", "build", "--out", str(tmp_path / "t")],
                               stdin=follower, stdout=subprocess.PIPE, stderr=follower, cwd=tmp_path)
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
    assert process.returncode == 0
    assert all(name in shown for name in (b"reading", b"tagging", b"rendering"))  # the bar named the stages
    assert b"7/7" in shown  # and counted them
    assert b"41 entries" in stdout
    piped = run_cli("build", "--out", str(tmp_path / "p"), check=True)
    assert "tagging" not in piped.stderr and "tagging" not in piped.stdout
