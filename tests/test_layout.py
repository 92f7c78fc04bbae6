"""The tests mirror the package: a folder of tests for each folder of surveytool/, and none for anything else."""

from __future__ import annotations

from helpers import ROOT

PACKAGE = ROOT / "surveytool"
TESTS = ROOT / "tests"
#: Folders of tests that are not package folders: inputs, expected outputs, the benchmark harness.
NOT_MIRRORED = {"data", "golden", "benchmarks", "__pycache__"}


def _folders(top, skip=frozenset()):
    return {
        p.relative_to(top).as_posix() for p in top.rglob("*") if p.is_dir() and not set(p.relative_to(top).parts) & skip
    }


def test_every_package_folder_has_a_folder_of_tests_holding_tests():
    missing = sorted(
        folder for folder in _folders(PACKAGE, {"__pycache__"}) if not list((TESTS / folder).glob("test_*.py"))
    )
    assert missing == []


def test_every_folder_of_tests_is_a_package_folder():
    assert sorted(_folders(TESTS, NOT_MIRRORED) - _folders(PACKAGE, {"__pycache__"})) == []
