"""Run latexmk on a build and say in plain words what went wrong."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from surveytool.output.latex_log import in_folder, log_text, root_causes, tex_errors
from surveytool.regular_files import Unusable, open_regular, read_regular

_SHOWN_UNDEFINED = 5
_FILE_NOT_FOUND = re.compile(r"File `(?P<file>[^']+)' not found")
_INSTALLED = (".sty", ".cls", ".def", ".cfg", ".fd", ".clo", ".ldf", ".bst", ".bbx", ".cbx", ".lbx", ".dbx")
# LaTeX quotes the key as `key', biblatex as 'key'.
_UNDEFINED = re.compile(r"(?:Citation|Reference) [`'](?P<key>[^']+)' on page \d+ undefined")
# A { or \begingroup, or a conditional, left open: TeX ends the document inside it and says so only in the log.
_ENDED_INSIDE = re.compile(
    r"^\(\\end occurred (?:inside a group at level \d+\)\s*### (?P<group>.+?) \(level \d+\) entered at line "
    r"(?P<line>\d+) \((?P<opener>.*?)\)|when (?P<test>\\\S+) on line (?P<test_line>\d+) was incomplete\))",
    re.M,
)


@dataclass(frozen=True)
class PdfReport:
    """``problems`` as ``file:line: what happened``, each file named from where the build folder was named."""

    ran: bool
    ok: bool
    problems: tuple[str, ...]
    pdf: Path | None


def explain_log(log: str, folder: Path, tex_name: str = "main.tex") -> list[str]:
    """Errors as ``file:line: what happened`` (``in_folder``); undefined citations only when nothing else failed."""
    problems = []
    for error in tex_errors(log, tex_name, ()):
        message = error.message
        missing = _FILE_NOT_FOUND.search(message)
        if missing and missing["file"].endswith(_INSTALLED):
            message = (
                f"the LaTeX package or file {missing['file']} is not installed (install it with your TeX distribution)"
            )
        elif missing:  # a file the document or the notes input (\input{...}, \includegraphics{...})
            message = (
                f"the file {missing['file']} is not found (check its name: it is read from the build folder, "
                "or the TeX installation)"
            )
        elif message.endswith(" is not defined") or message.startswith("Undefined control sequence"):
            message = f"{message.removesuffix('.')} (a package is missing, or a template uses a command of its own)"
        problems.append(f"{in_folder(folder, error.where)}: {message}")
    if problems:
        return problems  # undefined citations after a fatal error are only its consequence
    log_name = in_folder(folder, Path(tex_name).stem + ".log")
    for ended in _ENDED_INSIDE.finditer(log):
        opened = (
            f"a '{ended['opener']}' opened on line {ended['line']}"
            if ended["group"]
            else f"the {ended['test']} on line {ended['test_line']}"
        )
        problems.append(
            f"{log_name}: {opened} of the file TeX was then reading is never closed, and the rest of the document "
            "is set inside it (look in your notes, in the chapter or in main.tex's preamble)"
        )
    undefined = sorted(set(_UNDEFINED.findall(log)))
    tex = in_folder(folder, tex_name)
    for key in undefined[:_SHOWN_UNDEFINED]:
        problems.append(f"{tex}: '{key}' is cited or referenced but not defined")
    if len(undefined) > _SHOWN_UNDEFINED:
        problems.append(f"{tex}: and {len(undefined) - _SHOWN_UNDEFINED} more undefined citations or references")
    return problems


#: kpathsea settings (TeX Live, MiKTeX reads them too) that keep TeX from reading or writing files
#: outside the build folder, its subfolders and the TeX installation, or any dot file. A .bib
#: from elsewhere is untrusted input; the document itself needs nothing more.
PARANOID_FILE_ACCESS = {"openin_any": "p", "openout_any": "p"}


#: TeX wraps its log at 79 characters: an error message longer than that (a file's path and line before it) was
#: reported cut ("\\begin{itemize} on input line 105 ended by \\end{doc").
_UNWRAPPED_LOG = {"max_print_line": "100000"}


def paranoid_environment() -> dict[str, str]:
    """This process's environment with ``PARANOID_FILE_ACCESS``, and shell escape off for good measure."""
    environment = {**os.environ, **PARANOID_FILE_ACCESS, **_UNWRAPPED_LOG}
    environment["shell_escape"] = "f"
    return environment


_TEX_ERROR_WITHOUT_FILE = re.compile(r"^! ", re.M)
_LOADS_BIBLATEX = re.compile(r"^[^%\n]*\\usepackage\s*(?:\[[^\]]*\])?\s*\{biblatex\}", re.M)
_BIBLATEX_BBL = b"% $ biblatex auxiliary file $"
# What a run leaves that the next run reads: after a build with the other --dialect, LaTeX stops on the .bbl
# the other program wrote ("File 'main.bbl' not created by biblatex") and biber on a stale .bcf, once each way.
_RUN_FILES = (".bbl", ".bcf", ".run.xml", ".blg", ".aux", ".fdb_latexmk")


def _forget_the_other_dialects_run(folder: Path, tex_name: str) -> None:
    """Remove the files a run with the other bibliography program (BibTeX or biber) left beside ``tex_name``."""
    stem = Path(tex_name).stem
    try:
        biblatex = _LOADS_BIBLATEX.search(log_text(read_regular(folder / tex_name, 1 << 26, follow=True)))
    except (OSError, Unusable):
        return  # latexmk says what is wrong with the document
    try:
        stream, _ = open_regular(folder / f"{stem}.bbl", follow=False)
        with stream:
            bbl: bytes | None = stream.read(len(_BIBLATEX_BBL))
    except FileNotFoundError:
        bbl = None
    except (OSError, Unusable):
        return
    if biblatex:
        stale = bbl is not None and bbl != _BIBLATEX_BBL
    else:
        stale = bbl == _BIBLATEX_BBL or (folder / f"{stem}.bcf").exists()
    for suffix in _RUN_FILES if stale else ():
        with suppress(OSError):  # not there, or a folder of that name: nothing of a run to remove
            (folder / f"{stem}{suffix}").unlink()


def _tail(log_path: Path) -> str:
    """The log a former run left (its end, where errors stand), "" when there is none."""
    try:
        with log_path.open("rb") as stream:
            stream.seek(max(stream.seek(0, 2) - (1 << 20), 0))
            return log_text(stream.read())
    except OSError:
        return ""


@contextmanager
def _stopped_with(process: subprocess.Popen[str]) -> Iterator[None]:
    """latexmk's process group killed when this run stops before it ends (Ctrl-C, kill, a terminal closed): in a
    session of its own it ran on, pdflatex busy for ever on a definition calling itself, beside the next run."""
    previous: dict[int, object] = {}

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    if threading.current_thread() is threading.main_thread():  # only the main thread may handle signals
        for number in dict.fromkeys((signal.SIGTERM, getattr(signal, "SIGHUP", signal.SIGTERM))):  # no SIGHUP: once
            previous[number] = signal.signal(number, stop)
    try:
        yield
    except subprocess.TimeoutExpired:
        raise  # compile_pdf stops it and says so
    except BaseException:
        with suppress(OSError):  # already gone
            os.killpg(process.pid, signal.SIGKILL)
        raise
    finally:
        for number, handler in previous.items():
            signal.signal(number, cast(Any, handler))


def compile_pdf(folder: Path, tex_name: str = "main.tex", timeout: float = 600) -> PdfReport:
    """latexmk run in ``folder`` on ``tex_name``, and what went wrong; stopped after ``timeout`` seconds."""
    if shutil.which("latexmk") is None:
        return PdfReport(False, False, ("latexmk is not installed: install TeX Live to get a PDF",), None)
    engine = "-pdflatex=pdflatex -file-line-error -interaction=nonstopmode -halt-on-error %O %S"
    log_path = folder / (Path(tex_name).stem + ".log")
    _forget_the_other_dialects_run(folder, tex_name)
    # A log of a run by hand (no -file-line-error) names no file for its errors, and latexmk, finding nothing
    # changed since, would not run again: the report would place a bibliography's error in main.tex.
    force = ["-g"] if _TEX_ERROR_WITHOUT_FILE.search(_tail(log_path)) else []
    # Its own process group: on a timeout, pdflatex (which a definition calling itself keeps busy for ever)
    # goes with latexmk instead of running on.
    with subprocess.Popen(
        ["latexmk", "-pdf", *force, engine, tex_name],
        cwd=folder,
        env=paranoid_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
        start_new_session=True,
    ) as process:
        try:
            with _stopped_with(process):
                output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            where = in_folder(folder, log_path.name)
            cause = f"{where}: latexmk did not finish in {timeout:g} s and was stopped; its end shows where TeX was"
            return PdfReport(True, False, (cause,), None)
    result = subprocess.CompletedProcess(process.args, process.returncode, output)
    log = log_text(log_path.read_bytes()) if log_path.exists() else result.stdout
    problems = explain_log(log, folder, tex_name)
    pdf = folder / (Path(tex_name).stem + ".pdf")
    ok = result.returncode == 0 and not problems
    if not ok:
        problems = lead_with_causes(root_causes(folder, tex_name), problems, log, in_folder(folder, tex_name))
    if result.returncode != 0 and not problems:
        where = in_folder(folder, log_path.name if log_path.exists() else tex_name)
        problems = [f"{where}: latexmk failed (exit {result.returncode})"]
    return PdfReport(True, ok, tuple(problems), pdf if pdf.exists() else None)


def lead_with_causes(causes: list[str], summary: list[str], log: str, tex_name: str) -> list[str]:
    """The root causes first, then the summary without what they already say: an error at the same place,
    and the undefined citations one by one (a bibliography error leaves them all undefined), counted instead.
    ``tex_name``: the document as the places of both name it."""
    if not causes:
        return summary
    placed = {cause.split(": ", 1)[0] for cause in causes}
    undefined = set(_UNDEFINED.findall(log))
    rest = [line for line in summary if line.split(": ", 1)[0] not in placed | {tex_name}]
    if undefined and any(line.startswith(f"{tex_name}: ") for line in summary):
        noun = "citation or reference is" if len(undefined) == 1 else "citations or references are"
        rest.append(f"{tex_name}: {len(undefined)} {noun} undefined; fix the problems above first")
    return causes + rest
