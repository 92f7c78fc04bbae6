"""The habits the code keeps, checked where the tests run (and before each commit: .pre-commit-config.yaml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ["surveytool", "tests", "tools"]


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.mark.parametrize(
    "command", [("ruff", "format", "--check", *CHECKED), ("ruff", "check", *CHECKED)], ids=["ruff format", "ruff check"]
)
def test_the_code_is_formatted_and_lint_free(command):
    result = _run(*command)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_package_type_checks():
    result = _run("mypy")  # files and settings: [tool.mypy] in pyproject.toml
    assert result.returncode == 0, result.stdout + result.stderr
