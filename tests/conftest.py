"""Shared fixtures and hooks: a build of the bundled seeds, golden files (helpers.py has the shared functions)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import settings

sys.path.insert(0, str(Path(__file__).resolve().parent))  # helpers.py, for tests in any folder below

from helpers import IN_CI, run_cli  # noqa: E402

# A gate must not fail on the luck of a draw: CI replays the same examples every run (a found failure is
# then fixed, not retried away), while a developer's runs keep searching with fresh ones.
settings.register_profile("ci", derandomize=True)
if IN_CI:
    settings.load_profile("ci")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", help="rewrite tests/golden from the current outputs")


@pytest.fixture(scope="session")
def update_golden(request) -> bool:
    return request.config.getoption("--update-golden")


@pytest.fixture(scope="session")
def seeds_build(tmp_path_factory) -> Path:
    """An output folder built from the bundled seeds, shared by the tests that only read it."""
    out = tmp_path_factory.mktemp("seeds") / "out"
    run_cli("build", "--out", str(out), check=True)
    return out
