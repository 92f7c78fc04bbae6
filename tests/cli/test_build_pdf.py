"""`surveytool build --pdf` leads with the root cause of a failed LaTeX run, then its summary."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import ROOT, requires_latex, run_cli


def test_build_pdf_names_the_undefined_command_in_the_documents_title_first(tmp_path):
    (tmp_path / "tpl").mkdir()
    template = (ROOT / "templates" / "main.tex.j2").read_text(encoding="utf-8")
    assert "\\title{\\VAR{title}}" in template
    (tmp_path / "tpl" / "main.tex.j2").write_text(
        template.replace("\\title{\\VAR{title}}", "\\title{\\VAR{title} with \\surveyname}"), encoding="utf-8"
    )
    result = run_cli("build", "--out", "out", "--pdf", "--templates", "tpl", cwd=tmp_path)
    assert result.returncode == 1
    problems = [line for line in result.stderr.splitlines() if line.startswith("out/")]
    assert re.fullmatch(
        r"out/main\.tex:\d+: \\surveyname is not defined \(a package is missing, or the document or a template "
        r"uses a command of its own\)",
        problems[0],
    ), result.stderr
    # TeX meets the title where \maketitle typesets it: the line it names is at or just after that.
    main = (tmp_path / "out" / "main.tex").read_text(encoding="utf-8").splitlines()
    maketitle = next(number for number, text in enumerate(main, 1) if "\\maketitle" in text)
    assert maketitle <= int(problems[0].split(":")[1]) <= maketitle + 1
    assert "Traceback" not in result.stderr


def test_after_a_compile_by_hand_an_error_in_the_bibliography_is_still_placed_there(tmp_path):
    # A log without -file-line-error names no file, and latexmk saw nothing to redo: main.tex:10 was blamed.
    # (A command the user allowed that main.tex does not define: an error no check can foresee.)
    (tmp_path / "refs.bib").write_text(
        "@article{a1,\n  author = {Doe, Jane},\n  title = {The \\mycmd{} parameter of pipelines},\n"
        "  journal = {J},\n  year = {2020},\n  sections = {surveys}\n}\n",
        encoding="utf-8",
    )
    (tmp_path / "surveytool.toml").write_text('[latex]\nallow = ["\\\\mycmd"]\n', encoding="utf-8")
    run_cli("build", "refs.bib", "--out", "out", cwd=tmp_path, check=True)
    by_hand = subprocess.run(
        ["latexmk", "-pdf", "-interaction=nonstopmode", "main.tex"], cwd=tmp_path / "out", capture_output=True
    )
    log = (tmp_path / "out" / "main.log").read_text("latin-1")
    assert by_hand.returncode != 0 and "\n! Undefined control sequence." in log
    result = run_cli("build", "refs.bib", "--out", "out", "--pdf", cwd=tmp_path)
    assert result.returncode == 1
    first = next(line for line in result.stderr.splitlines() if line.startswith("out/"))
    assert re.fullmatch(
        r"out/main\.bbl:\d+: \\mycmd is not defined \(it comes from the entry 'a1', out/references\.bib:1, "
        r"read from refs\.bib:1\)",
        first,
    )


@requires_latex
def test_build_pdf_in_a_folder_last_compiled_with_the_other_dialect_compiles(tmp_path):
    # The .bbl BibTeX wrote stopped biblatex ("File 'main.bbl' not created by biblatex"), and biber read the
    # .bcf a biblatex run left after the switch back: each switch failed once before a rerun compiled.
    (tmp_path / "refs.bib").write_text(
        "@article{a1,\n  author = {Doe, Jane},\n  title = {Pipeline Schedules},\n"
        "  journal = {J},\n  year = {2020},\n  sections = {surveys}\n}\n",
        encoding="utf-8",
    )
    for dialect in ("bibtex", "biblatex", "bibtex"):
        result = run_cli("build", "refs.bib", "--out", "out", "--pdf", "--dialect", dialect, cwd=tmp_path)
        assert result.returncode == 0, (dialect, result.stderr)


def _running_in(folder: Path) -> list[int]:
    """The processes (not zombies) working in ``folder``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            working_here = entry.name.isdigit() and Path(os.readlink(entry / "cwd")) == folder
            if working_here and (entry / "stat").read_text().split(") ")[-1][:1] != "Z":
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@requires_latex
@pytest.mark.skipif(not Path("/proc/self/cwd").exists(), reason="finds latexmk's processes through /proc")
def test_a_build_stopped_while_latexmk_runs_stops_latexmk_too(tmp_path):
    # latexmk runs in a session of its own (for its timeout): a build killed or closed with its terminal left it
    # and pdflatex running, for ever on the author's definition that calls itself.
    (tmp_path / "refs.bib").write_text("@misc{a1, title = {Pipeline Schedules}, author = {Doe, Jane}, year = 2020}\n")
    run_cli("build", "refs.bib", "--out", "out", cwd=tmp_path, check=True)
    chapter, out = tmp_path / "out" / "related_work.tex", (tmp_path / "out").resolve()
    marker = "% surveytool: begin notes introduction\n"
    chapter.write_text(chapter.read_text().replace(marker, marker + "\\def\\spin{\\spin}\\spin\n"))
    for stop in (signal.SIGTERM, signal.SIGINT):
        build = subprocess.Popen(
            [sys.executable, "-m", "surveytool", "build", "refs.bib", "--out", "out", "--pdf"],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's shell starts it
        )
        try:
            deadline = time.monotonic() + 60
            while not (tmp_path / "out" / "main.log").exists() and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(1)
            assert _running_in(out), "latexmk did not start"
            build.send_signal(stop)
            assert build.wait(timeout=30) != 0
            assert b"Traceback" not in build.stderr.read()
            deadline = time.monotonic() + 10
            while _running_in(out) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not _running_in(out), f"left running after {stop.name}"
        finally:
            build.kill()
            build.communicate()
            (tmp_path / "out" / "main.log").unlink(missing_ok=True)
