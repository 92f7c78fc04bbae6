"""Following a LaTeX document's \\input, \\include, \\subfile and \\import from its main file, and reading its .aux."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from surveytool.text.citations import Citation, citations
from surveytool.text.tex_aux import aux_citations
from surveytool.text.tex_inputs import (
    TexInput,
    Unreadable,
    include_only_names,
    read_document,
    tex_inputs,
)


def _read(path: Path, shown: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise Unreadable("no such file") from None
    except IsADirectoryError:
        raise Unreadable("is a directory, not a file") from None


def _write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder / "main.tex"


def _document(folder: Path, files: dict[str, str], shown: str = "main.tex"):
    main = _write(folder, files)
    return read_document(main, shown, main.read_text(encoding="utf-8"), _read)


def _cited(document) -> list[tuple[str, str, int]]:
    return [(path, c.key, c.line) for path, text in document.files for c in citations(text)[0]]


def _warnings(document) -> list[str]:
    return [f"{f.location.path}:{f.location.line}: {f.message}" for f in document.findings if f.location]


def test_every_input_command_is_found_outside_comments_and_longer_command_names_are_not():
    text = (
        "\\input{a} \\input b\n"
        "\\include{c}\\inputencoding{utf8} \\includegraphics{fig} \\includeonly{c}\n"
        "% \\input{commented}\n"
        '\\subfile{sec/d.tex} \\import{dir/}{e} \\subimport*{x}{y} \\input{"quoted name"}\n'
        "\\newcommand\\chapter[1]{\\input{#1}}\n"
    )
    assert tex_inputs(text) == [
        TexInput("input", "a", "", 1),
        TexInput("input", "b", "", 1),
        TexInput("include", "c", "", 2),
        TexInput("subfile", "sec/d.tex", "", 4),
        TexInput("import", "e", "dir/", 4),
        TexInput("subimport", "y", "x", 4),
        TexInput("input", "quoted name", "", 4),
    ]


def test_aux_citations_of_bibtex_and_biblatex_and_the_aux_files_of_included_chapters():
    aux = (
        "\\relax\n\\citation{a,b}\n\\citation{ c }\n\\abx@aux@cite{0}{d}\n\\abx@aux@cite{e}\n"
        "\\@input{chapters/one.aux}\n\\citation{*}\n"
    )
    found, inputs = aux_citations(aux)
    assert found == [
        Citation("a", 2),
        Citation("b", 2),
        Citation("c", 3),
        Citation("d", 4),
        Citation("e", 5),
        Citation("*", 7),
    ]
    assert inputs == [("chapters/one.aux", 6)]


def test_inputs_are_followed_depth_first_relative_to_the_main_folder_with_tex_appended(tmp_path):
    document = _document(
        tmp_path,
        {
            "main.tex": "\\cite{m1}\n\\input{sections/intro}\n\\include{chapters/one}\n\\subfile{sections/last.tex}\n",
            "sections/intro.tex": "\n\\citep{i1}\n\\input{sections/deeper}\n",
            "sections/deeper.tex": "\\citet{d1}\n",
            "chapters/one.tex": "\\cite{c1}\n",
            "sections/last.tex": "\\cite{l1}\n",
        },
    )
    assert [path for path, _ in document.files] == [
        "main.tex",
        os.path.join("sections", "intro.tex"),
        os.path.join("sections", "deeper.tex"),
        os.path.join("chapters", "one.tex"),
        os.path.join("sections", "last.tex"),
    ]
    assert [(key, line) for _, key, line in _cited(document)] == [
        ("m1", 1),
        ("i1", 2),
        ("d1", 1),
        ("c1", 1),
        ("l1", 1),
    ]
    assert document.findings == ()


def test_paths_are_shown_beside_the_main_file_as_the_user_named_it(tmp_path):
    (tmp_path / "paper").mkdir()
    main = _write(tmp_path / "paper", {"main.tex": "\\input{body}\n", "body.tex": "\\input{gone}\n"})
    document = read_document(main, "paper/main.tex", main.read_text(), _read)
    assert [path for path, _ in document.files] == ["paper/main.tex", "paper/body.tex"]
    assert _warnings(document) == ["paper/body.tex:1: \\input{gone}: no such file (paper/gone.tex, paper/gone)"]


def test_a_missing_file_is_one_warning_on_the_line_that_names_it_and_the_rest_is_still_read(tmp_path):
    document = _document(
        tmp_path,
        {"main.tex": "\\cite{a}\n\n\\include{missing}\n\\input{present}\n", "present.tex": "\\cite{b}\n"},
    )
    assert _warnings(document) == ["main.tex:3: \\include{missing}: no such file (missing.tex)"]
    assert [f.check for f in document.findings] == ["tex-input"]
    assert [key for _, key, _ in _cited(document)] == ["a", "b"]


def test_a_folder_named_like_an_input_is_reported_not_read(tmp_path):
    (tmp_path / "figures").mkdir()
    document = _document(tmp_path, {"main.tex": "\\input{figures}\n"})
    assert _warnings(document) == ["main.tex:1: figures is a directory, not a file"]


def test_a_cycle_is_reported_once_with_its_chain_and_a_file_input_twice_is_read_once(tmp_path):
    document = _document(
        tmp_path,
        {
            "main.tex": "\\input{a}\n\\input{b}\n\\input{a}\n",
            "a.tex": "\\cite{x}\n\\input{b}\n",
            "b.tex": "\\cite{y}\n\\input{a}\n",
        },
    )
    assert [path for path, _ in document.files] == ["main.tex", "a.tex", "b.tex"]
    assert _warnings(document) == ["b.tex:2: \\input cycle: main.tex -> a.tex -> b.tex -> a.tex"]
    assert [key for _, key, _ in _cited(document)] == ["x", "y"]
    itself = _document(tmp_path, {"main.tex": "\\input{main}\n"})
    assert _warnings(itself) == ["main.tex:1: \\input cycle: main.tex -> main.tex"]


@pytest.mark.parametrize("name", ["../outside", "/etc/hostname", "link"])
def test_a_file_outside_the_main_files_folder_is_not_read(tmp_path, name):
    (tmp_path / "outside.tex").write_text("\\cite{secret}\n")
    (tmp_path / "paper").mkdir()
    (tmp_path / "paper" / "link.tex").symlink_to(tmp_path / "outside.tex")
    main = _write(tmp_path / "paper", {"main.tex": f"\\input{{{name}}}\n"})
    document = read_document(main, "main.tex", main.read_text(), _read)
    assert [path for path, _ in document.files] == ["main.tex"]
    assert _warnings(document) == [
        f"main.tex:1: \\input{{{name}}} names a file outside the folder of main.tex; it was not followed"
    ]


def test_a_file_named_by_a_macro_is_reported_and_a_macro_parameter_is_not(tmp_path):
    document = _document(tmp_path, {"main.tex": "\\newcommand\\part[1]{\\input{#1}}\n\\input{\\sectiondir/a}\n"})
    assert _warnings(document) == [
        "main.tex:2: \\input{\\sectiondir/a} names its file with a macro; it was not followed"
    ]


def test_import_is_relative_to_the_main_folder_and_subimport_and_inner_inputs_to_the_imported_file(tmp_path):
    document = _document(
        tmp_path,
        {
            "main.tex": "\\import{parts/}{one}\n",
            "parts/one.tex": "\\cite{p1}\n\\input{two}\n\\subimport{deeper/}{three}\n",
            "parts/two.tex": "\\cite{p2}\n",
            "parts/deeper/three.tex": "\\cite{p3}\n\\import{parts/}{two}\n",
        },
    )
    assert [key for _, key, _ in _cited(document)] == ["p1", "p2", "p3"]
    assert document.findings == ()


def test_the_aux_of_the_main_file_and_of_included_chapters_are_read_when_present(tmp_path):
    files = {
        "main.tex": "\\include{chapter}\n",
        "chapter.tex": "\\cite{a}\n",
        "main.aux": "\\relax\n\\citation{a}\n\\@input{chapter.aux}\n\\@input{../elsewhere.aux}\n",
        "chapter.aux": "\\relax\n\\abx@aux@cite{0}{b}\n",
    }
    (tmp_path / "elsewhere.aux").write_text("\\citation{secret}\n")
    (tmp_path / "paper").mkdir()
    main = _write(tmp_path / "paper", files)
    document = read_document(main, "main.tex", main.read_text(), _read)
    assert [(a.path, a.citation.key, a.citation.line) for a in document.aux] == [
        ("main.aux", "a", 2),
        ("chapter.aux", "b", 2),
    ]
    (tmp_path / "paper" / "main.aux").unlink()
    assert read_document(main, "main.tex", main.read_text(), _read).aux == ()


def test_a_subfiles_inputs_are_read_from_its_folder_first_then_from_the_main_files(tmp_path):
    document = _document(
        tmp_path,
        {
            "main.tex": "\\subfile{chapters/one}\n\\include{chapters/two.tex}\n",
            "chapters/one.tex": "\\documentclass[../main.tex]{subfiles}\n\\input{table}\n\\input{shared}\n",
            "chapters/table.tex": "\\cite{beside}\n",
            "shared.tex": "\\cite{from-main-folder}\n",
            "chapters/two.tex": "\\cite{two}\n",
        },
    )
    assert [key for _, key, _ in _cited(document)] == ["beside", "from-main-folder", "two"]
    assert document.findings == ()


def test_a_subfiles_own_preamble_is_not_read_from_the_main_file_but_is_a_file_of_the_document(tmp_path):
    # With \\begin{document} the subfile compiles on its own; the subfiles package reads only its body into the main.
    one = (
        "\\documentclass[../main.tex]{subfiles}\n\\nocite{preamble}\\input{alone-macros}\\input{gone}\n"
        "\\begin{document}\\input{body}\n\\end{document}\n"
    )
    files = {
        "main.tex": "\\begin{document}\\subfile{chapters/one}\n",
        "chapters/one.tex": one,
        "chapters/alone-macros.tex": "\\nocite{alone}\n",
        "chapters/body.tex": "\\cite{body}\n",
    }
    document = _document(tmp_path, files)
    assert [(path, key, line) for path, key, line in _cited(document)] == [("chapters/body.tex", "body", 1)]
    assert document.findings == ()
    # Every file of the document (what rekey rewrites): the preamble's too, as compiling the subfile alone reads it.
    main = tmp_path / "main.tex"
    every = read_document(main, "main.tex", main.read_text(), _read, every_file=True)
    assert [key for _, text in every.files for key in (c.key for c in citations(text)[0])] == [
        "preamble",
        "alone",
        "body",
    ]
    assert _warnings(every) == [
        "chapters/one.tex:2: \\input{gone}: no such file (chapters/gone.tex, chapters/gone, gone.tex, gone)"
    ]


def test_includeonly_skips_the_includes_it_does_not_list_the_last_one_winning_and_never_an_input(tmp_path):
    document = _document(
        tmp_path,
        {
            "main.tex": (
                "\\documentclass{book}\n% \\includeonly{one}\n\\includeonly{one}\n"
                "\\includeonly{ two , chapters/three.tex }\n\\begin{document}\n\\includeonly{one}\n"
                "\\include{one}\n\\include{two}\n\\include{chapters/three}\n\\input{one}\n\\include{gone}\n"
                "\\end{document}\n"
            ),
            "one.tex": "\\cite{one}\n",
            "two.tex": "\\cite{two}\n",
            "chapters/three.tex": "\\cite{three}\n",
        },
    )
    # \include{one} is left out by the second \includeonly (the one after \begin{document} is an error LaTeX
    # ignores), the \input of the same file is read, and the missing chapter is never looked for.
    assert [path for path, _ in document.files] == [
        "main.tex",
        "two.tex",
        os.path.join("chapters", "three.tex"),
        "one.tex",
    ]
    assert document.findings == ()


def test_an_includeonly_in_an_input_preamble_counts_and_an_empty_one_leaves_every_chapter_out(tmp_path):
    files = {
        "main.tex": "\\input{preamble}\n\\begin{document}\n\\include{one}\n\\include{two}\n\\end{document}\n",
        "preamble.tex": "\\includeonly{two}\n",
        "one.tex": "\\cite{one}\n",
        "two.tex": "\\cite{two}\n",
    }
    assert [key for _, key, _ in _cited(_document(tmp_path, files))] == ["two"]
    files["preamble.tex"] = "\\includeonly{}\n"
    assert [key for _, key, _ in _cited(_document(tmp_path, files))] == []


def test_every_file_is_each_chapter_whatever_includeonly_says(tmp_path):
    main = _write(
        tmp_path,
        {"main.tex": "\\includeonly{one}\n\\include{one}\n\\include{two}\n", "one.tex": "", "two.tex": "\\cite{t}\n"},
    )
    document = read_document(main, "main.tex", main.read_text(), _read, every_file=True)
    assert [path for path, _ in document.files] == ["main.tex", "one.tex", "two.tex"]
    assert document.paths == (main.resolve(), (tmp_path / "one.tex").resolve(), (tmp_path / "two.tex").resolve())


def test_includeonly_names_the_import_packages_chapters_with_their_folders(tmp_path):
    document = _document(
        tmp_path,
        {
            "main.tex": (
                "\\includeonly{parts/a,parts/deeper/c}\n\\includefrom{parts}{a}\n\\includefrom{parts/}{b}\n"
                "\\import{parts/}{index}\n"
            ),
            "parts/a.tex": "\\cite{a}\n",
            "parts/b.tex": "\\cite{b}\n",
            "parts/index.tex": "\\subincludefrom{deeper/}{c}\n\\subincludefrom{deeper/}{d}\n",
            "parts/deeper/c.tex": "\\cite{c}\n",
            "parts/deeper/d.tex": "\\cite{d}\n",
        },
    )
    assert [key for _, key, _ in _cited(document)] == ["a", "c"]


def test_a_left_out_chapter_speaks_only_through_its_aux_from_an_earlier_run(tmp_path):
    files = {
        "main.tex": "\\includeonly{one}\n\\begin{document}\n\\include{one}\n\\include{two}\n\\end{document}\n",
        "one.tex": "\\cite{a}\n",
        "two.tex": "\\cite{edited-since}\n",
        "main.aux": "\\relax\n\\@input{one.aux}\n\\@input{two.aux}\n",
        "one.aux": "\\relax\n\\citation{a}\n",
        "two.aux": "\\relax\n\\citation{b}\n",
    }
    document = _document(tmp_path, files)
    assert [key for _, key, _ in _cited(document)] == ["a"]
    assert [(a.path, a.citation.key) for a in document.aux] == [("one.aux", "a"), ("two.aux", "b")]
    (tmp_path / "two.aux").unlink()
    assert [a.citation.key for a in _document(tmp_path, {}).aux] == ["a"]


def test_includeonly_compares_names_as_latex_does_spaces_quotes_and_tex_ending_aside_but_not_a_leading_dot(tmp_path):
    assert include_only_names(' one , "two.tex",, chapters/three ') == {"one", "two", "chapters/three"}
    document = _document(
        tmp_path,
        {
            "main.tex": '\\includeonly{chapters/three, one}\n\\include{./chapters/three}\n\\include{"one"}\n',
            "one.tex": "\\cite{one}\n",
            "chapters/three.tex": "\\cite{three}\n",
        },
    )
    assert [key for _, key, _ in _cited(document)] == ["one"]


def test_an_escaped_underscore_in_a_file_name_is_an_underscore(tmp_path):
    # build's own main.tex inputs related\_work: the chapter and its citations were not read.
    document = _document(
        tmp_path,
        {"main.tex": "\\input{related\\_work}\n\\import{my\\_dir/}{part}\n", "related_work.tex": "\\cite{a}\n"}
        | {"my_dir/part.tex": "\\cite{b}\n"},
    )
    assert [key for _, key, _ in _cited(document)] == ["a", "b"] and not _warnings(document)


def test_nothing_after_end_document_is_cited_or_input_as_latex_stops_there(tmp_path):
    document = _document(
        tmp_path,
        {
            "main.tex": "\\begin{document}\n\\cite{a}\\input{body}\n\\end {document} \\cite{same line}\n"
            "Notes: \\cite{later}\n\\input{gone}\n",
            "body.tex": "\\cite{b}\n",
        },
    )
    assert [key for _, key, _ in _cited(document)] == ["a", "b"] and document.findings == ()
    assert [c.key for c in citations("\\begin{verbatim}\\end{document}\\end{verbatim}\\cite{d}")[0]] == ["d"]
    defined = (
        "\\newcommand{\\finish}{\\printbibliography\\end{document}}\n\\begin{document}\\cite{e}\n\\cite{f}\\finish\n"
    )
    assert [c.key for c in citations(defined)[0]] == ["e", "f"]
    defined = (
        "\\newcommand{\\finish}{%\n  \\printbibliography\n  \\end{document}\n}\n\\begin{document}\\cite{g}\\finish"
    )
    assert [c.key for c in citations(defined)[0]] == ["g"]


def test_an_input_guarded_by_iffileexists_may_be_missing(tmp_path):
    main = "\\IfFileExists{local.tex}{\\input{local}}{}\n\\IfFileExists{there}{\\input{there}}{}\\input{gone}\n"
    # LaTeX's own form: the file, then what to do when it exists and when it does not.
    main += "\\InputIfFileExists{extra}{}{}\n\\InputIfFileExists{also.tex}{\\typeout{read}}{\\relax}\n"
    # A file named by a macro, which may be missing too; what to do when it exists is read as well.
    main += "\\InputIfFileExists{\\jobname.cfg}{}{}\\InputIfFileExists{local}{\\input defaults}{}\n"
    files = {"main.tex": main, "there.tex": "\\cite{a}\n", "also.tex": "\\cite{b}\n", "defaults.tex": "\\cite{c}\n"}
    document = _document(tmp_path, files)
    assert _warnings(document) == ["main.tex:2: \\input{gone}: no such file (gone.tex, gone)"]
    assert [key for _, key, _ in _cited(document)] == ["a", "b", "c"]
