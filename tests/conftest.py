"""Shared fixtures: a build of the bundled seeds, golden files, LaTeX availability."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
GOLDEN = Path(__file__).resolve().parent / "golden"
IN_CI = os.environ.get("CI", "").lower() == "true"
HAVE_LATEX = shutil.which("latexmk") is not None and shutil.which("pdflatex") is not None

# In CI a missing TeX installation is a failure, never a silent skip.
requires_latex = pytest.mark.skipif(not HAVE_LATEX and not IN_CI, reason="latexmk/pdflatex not installed")


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", help="rewrite tests/golden from the current outputs")


@pytest.fixture(scope="session")
def update_golden(request) -> bool:
    return request.config.getoption("--update-golden")


def run_cli(*args: str, cwd: Path | None = None, check: bool = False, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m surveytool`` as a user would, in a separate process (``stdin``: text piped in)."""
    result = subprocess.run([sys.executable, "-m", "surveytool", *args], cwd=cwd, capture_output=True, text=True,
                            input=stdin)
    if check and result.returncode != 0:
        raise AssertionError(f"surveytool {' '.join(args)} failed ({result.returncode}):\n{result.stderr}")
    return result


@pytest.fixture(scope="session")
def seeds_build(tmp_path_factory) -> Path:
    """An output folder built from the bundled seeds, shared by the tests that only read it."""
    out = tmp_path_factory.mktemp("seeds") / "out"
    run_cli("build", "--out", str(out), check=True)
    return out


def compile_latex(folder: Path, *extra: str) -> subprocess.CompletedProcess:
    if not HAVE_LATEX:
        pytest.fail("latexmk and pdflatex are required (install TeX Live: see .ci/run)")
    return subprocess.run(["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", *extra, "main.tex"],
                          cwd=folder, capture_output=True, text=True, errors="replace", timeout=300)
