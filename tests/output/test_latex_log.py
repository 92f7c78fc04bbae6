"""A failed LaTeX run leads with its root cause: BibTeX's or biber's error, the undefined command, the entry behind it.

Each document here is compiled with the real latexmk, as `build --pdf` compiles a build.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from pathlib import Path

from surveytool.output.latex_log import bbl_entries, bibliography_errors, root_causes, tex_errors
from surveytool.output.latexmk import compile_pdf

NATBIB = """\\documentclass{article}
\\usepackage[authoryear,round]{natbib}
\\begin{document}
BODY
\\bibliographystyle{plainnat}
\\bibliography{references}
\\end{document}
"""

BIBLATEX = """\\documentclass{article}
\\usepackage[backend=biber]{biblatex}
\\addbibresource{references.bib}
\\begin{document}
BODY
\\printbibliography
\\end{document}
"""

GOOD = "@article{good,\n  title = {Good},\n  author = {Ann Author},\n  journal = {J},\n  year = 2020,\n}\n\n"
BROKEN = "@article{broken,\n  title = {Broken} extra,\n  author = {Bo Author},\n  journal = {J},\n  year = 2020,\n}\n"
MACRO = "@article{macro,\n  title = {Scaling \\foo{} Models},\n  author = {Bo Author},\n  journal = {J},\n  year = 2020,\n}\n"
CITES = "\\citet{good}, \\citep{broken} and \\citep{macro}. " * 3


def _compile(folder: Path, main: str, bib: str, body: str = CITES):
    folder.mkdir(exist_ok=True)
    (folder / "main.tex").write_text(main.replace("BODY", body), encoding="utf-8")
    (folder / "references.bib").write_text(bib, encoding="utf-8")
    with contextlib.chdir(folder.parent):  # the folder named as a user names it: the places are named from there
        return compile_pdf(Path(folder.name))


def test_a_bibtex_syntax_error_comes_first_and_the_citations_it_left_undefined_are_counted(tmp_path):
    report = _compile(tmp_path / "doc", NATBIB, GOOD + BROKEN)
    assert not report.ok
    assert report.problems == (
        "doc/references.bib:9: BibTeX: I was expecting a `,' or a `}' (near \"extra,\")",
        "doc/references.bib: no entry for 'macro', which the document cites",
        "doc/main.tex: 3 citations or references are undefined; fix the problems above first",
    )


def test_a_biber_syntax_error_is_placed_in_the_users_bib_not_bibers_temporary_copy(tmp_path):
    report = _compile(tmp_path / "doc", BIBLATEX, GOOD + BROKEN, "\\cite{good}, \\cite{broken} and \\cite{macro}.")
    assert not report.ok
    assert report.problems[0].startswith('doc/references.bib:9: biber: syntax error: found "extra"'), report.problems
    assert report.problems[-1].endswith("undefined; fix the problems above first")
    assert not [p for p in report.problems if "is cited or referenced but not defined" in p]


def test_an_undefined_command_in_an_entry_title_names_the_command_and_the_entry(tmp_path):
    report = _compile(tmp_path / "doc", NATBIB, GOOD + MACRO)
    assert not report.ok
    first = report.problems[0]
    assert re.fullmatch(
        r"doc/main\.bbl:\d+: \\foo is not defined \(it comes from the entry 'macro', doc/references\.bib:8\)", first
    ), report.problems
    bbl_line = int(first.split(":")[1])
    bbl = (tmp_path / "doc" / "main.bbl").read_text(encoding="utf-8").splitlines()
    assert "\\foo" in bbl[bbl_line - 1]


def test_a_command_a_child_inherits_is_placed_in_the_parent_that_holds_it(tmp_path):
    child = "@inproceedings{child,\n  title = {Child},\n  author = {Bo Author},\n  crossref = {conf},\n}\n\n"
    parent = "@proceedings{conf,\n  title = {Proc},\n  booktitle = {Proceedings of \\foo{} 2020},\n  year = 2020,\n}\n"
    report = _compile(tmp_path / "doc", NATBIB, GOOD + child + parent, "\\citet{good} and \\citep{child}.")
    assert re.fullmatch(
        r"doc/main\.bbl:\d+: \\foo is not defined \(it comes from the entry 'child', whose parent 'conf' holds it, "
        r"doc/references\.bib:14\)",
        report.problems[0],
    ), report.problems


def test_the_entry_is_also_named_where_the_build_read_it_the_file_to_edit(tmp_path):
    folder = tmp_path / "doc"
    folder.mkdir()
    sources = [
        {"key": "good", "sources": ["lib.bib:3"]},
        {"key": "macro", "sources": ["../mine/lib.bib:40", "b.bib:2"]},
    ]
    (folder / "entries.json").write_text(json.dumps(sources), encoding="utf-8")
    report = _compile(folder, NATBIB, GOOD + MACRO)
    assert re.fullmatch(
        r"doc/main\.bbl:\d+: \\foo is not defined \(it comes from the entry 'macro', doc/references\.bib:8, "
        r"read from \.\./mine/lib\.bib:40\)",
        report.problems[0],
    ), report.problems
    (folder / "entries.json").write_text("[{]", encoding="utf-8")  # not the build's: only the written .bib is named
    assert _compile(folder, NATBIB, GOOD + MACRO).problems[0].endswith("'macro', doc/references.bib:8)")


def test_with_biblatex_the_entry_is_found_by_the_command_it_holds(tmp_path):
    report = _compile(tmp_path / "doc", BIBLATEX, GOOD + MACRO, "\\cite{good} and \\cite{macro}.")
    # TeX reports the error where biblatex prints the bibliography: at \\end{document}, line 7.
    assert report.problems[0] == (
        "doc/main.tex:7: \\foo is not defined (it comes from the entry 'macro', doc/references.bib:8)"
    )


def test_an_undefined_command_in_the_document_is_named_and_an_old_blg_is_not_blamed(tmp_path):
    folder = tmp_path / "doc"
    assert _compile(folder, NATBIB, GOOD + BROKEN).problems[0].startswith("doc/references.bib:9: BibTeX")
    report = _compile(
        folder, NATBIB.replace("\\begin{document}", "\\title{On \\foo}\n\\begin{document}\\maketitle"), GOOD
    )
    assert report.problems == (
        "doc/main.tex:4: \\foo is not defined (a package is missing, or the document or a template uses a command of "
        "its own)",
    )


def test_an_error_the_summary_already_explains_is_left_to_its_words(tmp_path):
    main = NATBIB.replace("\\begin{document}", "\\usepackage{nosuchpackageanywhere}\n\\begin{document}")
    report = _compile(tmp_path / "doc", main, GOOD, "\\citet{good}.")
    # LaTeX reads the line after \\usepackage (for an optional date) before it stops: TeX's l.NN is that line.
    assert report.problems == (
        "doc/main.tex:4: the LaTeX package or file nosuchpackageanywhere.sty is not installed (install it with your "
        "TeX distribution)",
    )


def test_a_file_of_the_tex_installation_is_named_where_it_is_and_a_run_with_no_log_names_the_document(tmp_path):
    main = NATBIB.replace("\\documentclass{article}", "\\documentclass{article}\n\\usepackage[nosuchoption]{amsmath}")
    report = _compile(tmp_path / "doc", main, GOOD, "\\citet{good}.")
    place = report.problems[0].split(":")[0]
    assert os.path.isabs(place) and place.endswith("amsmath.sty"), report.problems  # not doc//usr/share/...
    (tmp_path / "empty").mkdir()
    with contextlib.chdir(tmp_path):
        failed = compile_pdf(Path("empty"))
    assert not failed.ok and len(failed.problems) == 1
    assert re.fullmatch(r"empty/main\.tex: latexmk failed \(exit \d+\)", failed.problems[0]), failed.problems


def test_a_clean_document_reports_nothing(tmp_path):
    report = _compile(tmp_path / "doc", NATBIB, GOOD, "\\citet{good}.")
    assert report.ok and report.problems == () and report.pdf is not None


def test_the_key_behind_a_bbl_line_is_the_last_bibitem_before_it():
    bbl = (
        "\\begin{thebibliography}{2}\n\\providecommand{\\natexlab}[1]{#1}\n\n"
        "\\bibitem[Author(2020{\\natexlab{a}})]{first}\nA.~Author.\n\\newblock Good.\n\n"
        "\\bibitem{second}\nB.\n\\newblock \\foo.\n\\end{thebibliography}\n"
    )
    entries = bbl_entries(bbl)
    assert [(e.key, e.line) for e in entries] == [("first", 4), ("second", 8)]
    # Without -file-line-error the place is TeX's "l.NN" line, and the entry is the one holding the command.
    log = "! Undefined control sequence.\nl.10 \\newblock \\foo\n                  .\n"
    [error] = tex_errors(log, "main.tex", entries)
    assert (error.where, error.message, error.keys) == ("main.tex:10", "\\foo is not defined", ("second",))
    in_bbl = tex_errors("./main.bbl:10: Undefined control sequence.\nl.10 \\newblock \\foo\n", "main.tex", entries)
    assert [(e.where, e.message, e.keys) for e in in_bbl] == [("main.bbl:10", "\\foo is not defined", ("second",))]


def test_blg_lines_of_bibtex_and_biber():
    bibtex = (
        "Database file #1: references.bib\n"
        "Repeated entry---line 17 of file references.bib\n : @article{good\n :                ,\n"
        "I'm skipping whatever remains of this entry\n"
        'Warning--I didn\'t find a database entry for "nowhere"\n'
        "I couldn't open style file nostyle.bst\n---line 3 of file main.aux\n"
    )
    assert bibliography_errors(bibtex) == (
        [
            'references.bib:17: BibTeX: Repeated entry (near ",")',
            "main.aux:3: BibTeX: I couldn't open style file nostyle.bst",
        ],
        ["nowhere"],
    )
    biber = (
        "[353] bibtex.pm:1518> INFO - Found BibTeX data source 'refs.bib'\n"
        "[429] Utils.pm:399> ERROR - BibTeX subsystem: /tmp/biber_tmp_x/abc_1.utf8, line 4, syntax error: found x\n"
        "[552] Biber.pm:130> WARN - I didn't find a database entry for 'ghost' (section 0)\n"
        "[560] Biber.pm:130> ERROR - Cannot find 'other.bib'!\n"
    )
    assert bibliography_errors(biber, "paper.blg") == (
        ["refs.bib:4: biber: syntax error: found x", "paper.blg: biber: Cannot find 'other.bib'!"],
        ["ghost"],
    )


def test_a_log_with_many_errors_and_a_long_bbl_is_read_in_linear_time(tmp_path):
    count = 20_000
    (tmp_path / "main.bbl").write_text(
        "".join(f"\\bibitem{{k{i}}}\nText \\cmd{chr(97 + i % 26)}.\n" for i in range(count))
    )
    (tmp_path / "main.log").write_text(
        "".join(
            f"./main.bbl:{2 * i + 2}: Undefined control sequence.\nl.{2 * i + 2} Text \\cmd{chr(97 + i % 26)}\n"
            for i in range(count)
        )
    )
    start = time.perf_counter()
    causes = root_causes(tmp_path)
    assert time.perf_counter() - start < 8.0
    assert causes[0] == f"{tmp_path}/main.bbl:2: \\cmda is not defined (it comes from the entry 'k0')"
    assert len(causes) == 5


def _working_in(folder: Path) -> list[int]:
    """The processes whose working directory is ``folder``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and os.readlink(entry / "cwd") == str(folder):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_a_document_that_loops_is_stopped_at_the_timeout_with_every_tex_process_it_started(tmp_path):
    folder = tmp_path / "loop"
    folder.mkdir()
    (folder / "main.tex").write_text("\\documentclass{article}\\begin{document}\\def\\x{\\x}\\x\\end{document}\n")
    started = time.monotonic()
    report = compile_pdf(folder, timeout=5)
    assert time.monotonic() - started < 60
    assert not report.ok and report.pdf is None
    assert report.problems == (
        f"{folder}/main.log: latexmk did not finish in 5 s and was stopped; its end shows where TeX was",
    )
    assert _working_in(folder.resolve()) == []
