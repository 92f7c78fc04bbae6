"""The benchmark harness runs end to end (its figures are for BENCHMARKS.md, never asserted here)."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from helpers import BENCHMARKS, DATA

HARNESS = BENCHMARKS / "bench.py"


def test_harness_measures_commands_stages_scales_and_rebuilds(tmp_path: Path):
    shutil.copy(DATA / "corpus" / "biber" / "examples.bib", tmp_path / "medium-refdb.bib")
    result = subprocess.run(
        [
            sys.executable,
            str(HARNESS),
            "--bench-dir",
            str(tmp_path),
            "--files",
            "medium",
            "--scales",
            "1",
            "2",
            "--repeat",
            "1",
            "--rebuilds",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    for command in (
        "bibtexparser parse+write",
        "surveytool bib",
        "surveytool tag",
        "surveytool build",
        "surveytool bib --in-place",
    ):
        assert re.search(rf"\| 2x \| {re.escape(command)} \| [\d.]+ \| [\d.]+ \| [\d.]+ \| \d+ \|", result.stdout), (
            command
        )
    for step in ("rebuild, nothing changed", "rebuild after editing one title", "rebuild after inserting one entry"):
        assert re.search(rf"\| {step} \| [\d.]+ \| [\d.]+ \|", result.stdout), step
    assert "stage time per copy, relative to 1x" in result.stdout
    assert re.search(r"machine: \d+ CPUs usable; two processes at once do \d\.\d\dx the work of one", result.stdout)
    assert re.search(r"machine at the end: two processes at once do \d\.\d\dx the work of one", result.stdout)


def test_harness_says_where_the_files_are_missing(tmp_path: Path):
    result = subprocess.run(
        [sys.executable, str(HARNESS), "--bench-dir", str(tmp_path), "--files", "medium"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "medium-refdb.bib: not found" in result.stderr


def test_the_tag_outlier_benchmark_finds_slips_it_planted():
    script = BENCHMARKS / "tag_outliers.py"
    result = subprocess.run(
        [sys.executable, str(script), "--libraries", "6", "--size", "20", "--json"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert figures["libraries"] == 6 and figures["sure_of_another"] == 0.6
    assert figures["found"] > 0  # a random section is seldom one the tagger could believe
