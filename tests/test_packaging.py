"""A non-editable install carries the templates and seeds, and builds from any folder."""

import os
import subprocess
import sys
import zipfile

from helpers import ROOT


def test_wheel_carries_templates_and_seeds_and_builds_from_anywhere(tmp_path):
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
    )
    [wheel] = wheels.glob("surveytool-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "surveytool/templates/related_work.tex.j2",
        "surveytool/templates/main.tex.j2",
        "surveytool/seeds/taxonomy.toml",
        "surveytool/seeds/catalog.bib",
        "surveytool/seeds/000_0483e03c741bc276.txt",
        "surveytool/seeds/002_4f31b26c0b2a06bc.txt",
    ):
        assert needed in names, needed
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
        check=True,
        capture_output=True,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target)}
    where = subprocess.run(
        [sys.executable, "-c", "import surveytool; print(surveytool.__file__)"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(target))
    result = subprocess.run(
        [sys.executable, "-m", "surveytool", "build", "--out", "out"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "41 entries, 38 resolved" in result.stdout
    seeds_bib = (elsewhere / "out" / "references.bib").read_text(encoding="utf-8")
    assert (ROOT / "tests" / "golden" / "seeds" / "references.bib").read_text(encoding="utf-8") == seeds_bib
