"""`surveytool rekey --tex main.tex`: the main file and the files it inputs, never one outside its folder."""

from __future__ import annotations

import os
import shutil
import stat

import pytest
from helpers import DATA, run_cli

from surveytool.output.rekey import rekey_text

OLD, NEW = "lepikhin2021gshard", "lepikhin2020gshard"


def _paper(tmp_path):
    """A document with CRLF lines, a symlinked chapter, an \\include left out by \\includeonly, a chapter
    outside its folder and a chapter with nothing to rewrite."""
    shutil.copy(DATA / "duplicates" / "preprint-published.bib", tmp_path / "refs.bib")
    paper = tmp_path / "paper"
    (paper / "chapters").mkdir(parents=True)
    files = {
        "main.tex": (
            f"\\includeonly{{chapters/one}}\r\n\\begin{{document}}\r\n\\cite{{{OLD}}}\r\n\\include{{chapters/one}}\r\n"
            "\\include{chapters/two}\r\n\\input{linked}\r\n\\input{../outside}\r\n\\input{plain}\r\n\\end{document}\r\n"
        ).encode(),
        "chapters/one.tex": f"Caf\xe9 \\citep[p.~2]{{ {OLD} , other}}\r\n% \\cite{{{OLD}}}\r\n".encode("latin-1"),
        "chapters/two.tex": f"\\cite{{{OLD}}}\n".encode(),
        "real/target.tex": f"\\citet{{{OLD}}}\n".encode(),
        "plain.tex": f"\\cite{{{NEW}}} and {OLD} outside a citation\r\n".encode(),
    }
    for name, data in files.items():
        (paper / name).parent.mkdir(parents=True, exist_ok=True)
        (paper / name).write_bytes(data)
    (paper / "linked.tex").symlink_to("real/target.tex")
    (tmp_path / "outside.tex").write_bytes(f"\\cite{{{OLD}}}\n".encode())
    (paper / "chapters" / "two.tex").chmod(0o640)
    return paper, files


def _snapshot(folder):
    return {
        str(path.relative_to(folder)): (path.is_symlink(), path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def test_rekey_rewrites_the_main_file_and_every_file_it_inputs_and_names_each_one(tmp_path):
    paper, files = _paper(tmp_path)
    before = _snapshot(tmp_path)

    dry = run_cli("rekey", "refs.bib", "--tex", "paper/main.tex", "--dry-run", cwd=tmp_path, check=True)
    assert _snapshot(tmp_path) == before
    assert "would rewrite paper/chapters/one.tex" in dry.stdout.splitlines()

    done = run_cli("rekey", "refs.bib", "--tex", "paper/main.tex", cwd=tmp_path, check=True)
    assert done.stdout.splitlines() == [
        f"paper/main.tex:3: {OLD} -> {NEW}",
        f"paper/chapters/one.tex:1: {OLD} -> {NEW}",
        f"paper/chapters/two.tex:1: {OLD} -> {NEW}",
        f"paper/real/target.tex:1: {OLD} -> {NEW}",
        "rewrote paper/main.tex",
        "rewrote paper/chapters/one.tex",
        "rewrote paper/chapters/two.tex",
        "rewrote paper/real/target.tex",
        "4 citation key(s) rewritten in 4 file(s); 5 file(s) read, citing 3 distinct key(s)",
    ]
    assert done.stderr.splitlines() == [
        "paper/main.tex:7: warning [tex-input] \\input{../outside} names a file outside the folder of "
        "paper/main.tex; it was not followed (give the file with its own --tex to check its citations)"
    ]
    after = _snapshot(tmp_path)
    rewritten = {"main.tex", "chapters/one.tex", "chapters/two.tex", "real/target.tex"}
    for name, data in files.items():
        # Only the cited keys change: CRLF, Latin-1 bytes, comments and a key outside a \cite stay.
        expected = data.replace(OLD.encode(), NEW.encode()) if name in rewritten else data
        if name == "chapters/one.tex":
            expected = data.replace(f"{{ {OLD} ,".encode(), f"{{ {NEW} ,".encode())
        assert after[f"paper/{name}"][1] == expected, name
    # A file with nothing to rewrite, and the one outside the folder, are not touched at all.
    assert after["paper/plain.tex"] == before["paper/plain.tex"]
    assert after["outside.tex"] == before["outside.tex"]
    assert (paper / "linked.tex").is_symlink() and os.readlink(paper / "linked.tex") == "real/target.tex"
    assert stat.S_IMODE((paper / "chapters" / "two.tex").stat().st_mode) == 0o640
    assert sorted(os.listdir(paper)) == ["chapters", "linked.tex", "main.tex", "plain.tex", "real"]


def test_rekey_reads_a_file_two_documents_share_once_and_a_missing_main_file_is_bad_input(tmp_path):
    paper, _ = _paper(tmp_path)
    done = run_cli(
        "rekey", "refs.bib", "--tex", "paper/main.tex", "--tex", "paper/chapters/two.tex", cwd=tmp_path, check=True
    )
    assert (
        done.stdout.splitlines()[-1]
        == "4 citation key(s) rewritten in 4 file(s); 5 file(s) read, citing 3 distinct key(s)"
    )
    missing = run_cli("rekey", "refs.bib", "--tex", "paper/gone.tex", cwd=tmp_path)
    assert missing.returncode == 2 and "paper/gone.tex" in missing.stderr and "Traceback" not in missing.stderr


@pytest.mark.parametrize(
    "name, words",
    [
        ("gone.tex", "no such file (check the path given with --tex)"),
        ("blob.tex", "is not a text file (--tex takes a LaTeX file)"),
    ],
)
def test_a_tex_file_that_is_missing_or_not_text_is_refused_as_check_refuses_it(tmp_path, name, words):
    shutil.copy(DATA / "duplicates" / "preprint-published.bib", tmp_path / "refs.bib")
    blob = b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256))  # an executable's head
    (tmp_path / "blob.tex").write_bytes(blob)
    for command in ("rekey", "check"):
        result = run_cli(command, "refs.bib", "--tex", name, cwd=tmp_path)
        assert (command, result.returncode, result.stderr) == (command, 2, f"{name}: error: {words}\n")
    assert (tmp_path / "blob.tex").read_bytes() == blob


@pytest.mark.parametrize(
    "data",
    [
        b"",
        "\\chapter{Einf\xfchrung}\r\n% \\cite{lepikhin2021gshard}\r\nSiehe Abschnitt~\\ref{sec:a}.\r\n".encode(
            "latin-1"
        ),
    ],
    ids=["empty", "no-cite"],
)
def test_rekey_says_when_the_document_cites_nothing(tmp_path, data):
    # "0 citation key(s) rewritten" alone reads as "nothing needed rewriting" when the wrong file was named.
    shutil.copy(DATA / "duplicates" / "preprint-published.bib", tmp_path / "refs.bib")
    (tmp_path / "kapitel.tex").write_bytes(data)
    done = run_cli("rekey", "refs.bib", "--tex", "kapitel.tex", cwd=tmp_path, check=True)
    assert (
        done.stdout.splitlines()[-1]
        == "0 citation key(s) rewritten in 0 file(s); 1 file(s) read, citing 0 distinct key(s)"
    )
    assert done.stderr.splitlines() == [
        "kapitel.tex:1: warning [tex-input] no \\cite command in this file or in the files it inputs "
        "(name the .tex file that cites these sources, e.g. the main file of the thesis)"
    ]
    assert (tmp_path / "kapitel.tex").read_bytes() == data


@pytest.mark.parametrize(
    ("before", "after", "removed"),
    [
        (f"\\cite{{{OLD},{NEW}}}", f"\\cite{{{NEW}}}", 1),
        (f"\\cite{{{NEW}, {OLD}}}", f"\\cite{{{NEW}}}", 1),
        (f"\\citep[p.~2]{{other,\r\n  {OLD} ,{NEW}}}", f"\\citep[p.~2]{{other ,{NEW}}}", 1),
        (f"\\cite{{{NEW},%\n      {OLD}}}", f"\\cite{{{NEW}}}", 1),  # a line ended with % in the key list
        (f"\\cite{{{NEW}, % see, e.g.,\n {OLD}}}", f"\\cite{{{NEW}}}", 1),  # commas inside the comment
        (f"\\cite{{{OLD}, % preprint\n  {NEW}}}", f"\\cite{{{NEW}}}", 1),
        (f"\\cite{{{OLD}}} and \\cite{{{NEW}}}", f"\\cite{{{NEW}}} and \\cite{{{NEW}}}", 0),  # two citations
        (f"\\cites{{{OLD}}}{{{NEW}}}", f"\\cites{{{NEW}}}{{{NEW}}}", 0),  # one key group each
    ],
)
def test_a_key_whose_new_key_the_citation_cites_already_is_removed_with_its_comma(before, after, removed):
    # \cite{old,new} rewritten to \cite{new,new} would print the paper twice.
    text, changes = rekey_text(before, {OLD: NEW}, "main.tex")
    assert text == after
    assert len(changes) == 1 and changes[0].removed == bool(removed)
    assert str(changes[0]).endswith("(cited beside it already: removed)") == bool(removed)


def test_a_volume_citation_has_its_key_rewritten_and_its_volume_kept():
    text = "\\volcite{old}[4]{old} \\Volcites{2}{old}{3}{new}"
    assert rekey_text(text, {"old": "new"})[0] == "\\volcite{old}[4]{new} \\Volcites{2}{new}{3}{new}"


def test_a_file_with_old_mac_line_ends_has_its_keys_after_a_comment_rewritten(tmp_path):
    # TeX ends a line at a lone CR: a comment ends there too, and the citations and inputs after it count.
    shutil.copy(DATA / "duplicates" / "preprint-published.bib", tmp_path / "refs.bib")
    main = f"% a comment\r\\cite{{{OLD},\r {NEW}}} \\cite{{{OLD}}}\r\\input{{chapter}}\r".encode()
    chapter = f"% notes\r\\citet{{{OLD}}}\r".encode()
    (tmp_path / "main.tex").write_bytes(main)
    (tmp_path / "chapter.tex").write_bytes(chapter)
    done = run_cli("rekey", "refs.bib", "--tex", "main.tex", cwd=tmp_path, check=True)
    assert "main.tex:3: " + f"{OLD} -> {NEW}" in done.stdout and "chapter.tex:2: " in done.stdout
    assert (
        tmp_path / "main.tex"
    ).read_bytes() == f"% a comment\r\\cite{{{NEW}}} \\cite{{{NEW}}}\r\\input{{chapter}}\r".encode()
    assert (tmp_path / "chapter.tex").read_bytes() == chapter.replace(OLD.encode(), NEW.encode())
    assert "tex-input" not in done.stderr


def test_a_read_only_input_stops_rekey_before_any_file_is_rewritten(tmp_path):
    shutil.copy(DATA / "duplicates" / "preprint-published.bib", tmp_path / "refs.bib")
    (tmp_path / "main.tex").write_text(f"\\cite{{{OLD}}}\n\\input{{chapter}}\n")
    (tmp_path / "chapter.tex").write_text(f"\\cite{{{OLD}}}\n")
    (tmp_path / "chapter.tex").chmod(0o444)
    before = _snapshot(tmp_path)
    done = run_cli("rekey", "refs.bib", "--tex", "main.tex", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("chapter.tex: error: is read-only") and "no file was rewritten" in done.stderr
    assert _snapshot(tmp_path) == before  # main.tex used to be rewritten, unreported, before the refusal


@pytest.mark.parametrize(("newline", "edited"), [("\n", False), ("\r\n", False), ("\n", True)])
def test_a_built_chapter_rekeyed_is_rebuilt_with_its_notes_not_refused_as_edited(tmp_path, newline, edited):
    # The README's order after merging duplicates: rekey --tex out/main.tex rewrote the generated part's \cite
    # keys too, and the next build stopped with 'edited outside its notes regions'.
    shutil.copy(DATA / "duplicates" / "preprint-published.bib", tmp_path / "refs.bib")
    out = tmp_path / "out"
    run_cli("build", "refs.bib", "--out", "out", cwd=tmp_path, check=True)
    chapter = out / "related_work.tex"
    marker = "% surveytool: begin notes introduction\n"
    notes = f"As \\citet{{{OLD}}} show.\n"
    text = chapter.read_text(encoding="utf-8")
    assert f"{{{OLD}}}" in text.replace(marker, "")  # the generated part cites the key rekey rewrites
    text = text.replace(marker, marker + notes).replace("\\section", "\\section*", edited)
    chapter.write_bytes("\ufeff".encode() + text.replace("\n", newline).encode())
    run_cli("rekey", "refs.bib", "--tex", str(out / "main.tex"), cwd=tmp_path, check=True)
    assert OLD not in chapter.read_text(encoding="utf-8")
    built = run_cli("build", "refs.bib", "--out", "out", "--merge-duplicates", cwd=tmp_path)
    if edited:  # an edit of the author's outside the notes is still refused after a rekey
        assert built.returncode == 2 and "edited outside its notes regions" in built.stderr
        return
    assert built.returncode == 0, built.stderr
    rebuilt = chapter.read_bytes().decode("utf-8")
    assert f"As \\citet{{{NEW}}} show.{newline}" in rebuilt and rebuilt.startswith("\ufeff")


def test_a_citation_of_a_merged_key_in_another_case_is_rewritten_as_bibtex_matched_it(tmp_path):
    # A JabRef key, cited by hand in lower case: BibTeX matches keys in any case, so this cited the proceedings
    # version; once merged into the preprint's entry, its key is gone and the citation is rewritten too.
    bib = (DATA / "duplicates" / "preprint-published.bib").read_text(encoding="utf-8")
    (tmp_path / "refs.bib").write_text(bib.replace("{lepikhin2021gshard,", "{Lepikhin2021GShard,"), encoding="utf-8")
    main = tmp_path / "main.tex"
    main.write_bytes(
        b"\\begin{document}\n\\cite{lepikhin2021gshard} and \\citep[p.~3]{LEPIKHIN2021GSHARD}\n"
        b"\\cite{Lepikhin2020GShard, lepikhin2021GShard}\n\\end{document}\n"
    )
    done = run_cli("rekey", "refs.bib", "--tex", "main.tex", cwd=tmp_path, check=True)
    # Spelled as the document cites the key that stays (Lepikhin2020GShard): two spellings stop BibTeX.
    assert main.read_bytes() == (
        b"\\begin{document}\n\\cite{Lepikhin2020GShard} and \\citep[p.~3]{Lepikhin2020GShard}\n"
        b"\\cite{Lepikhin2020GShard}\n\\end{document}\n"
    )
    assert done.stdout.splitlines()[:3] == [
        "main.tex:2: lepikhin2021gshard -> Lepikhin2020GShard",
        "main.tex:2: LEPIKHIN2021GSHARD -> Lepikhin2020GShard",
        "main.tex:3: lepikhin2021GShard -> Lepikhin2020GShard (cited beside it already: removed)",
    ]


def test_a_key_two_renamed_keys_match_in_case_only_is_left_as_it_is_and_an_exact_match_wins():
    renamed = {"Smith20": "smith2020a", "SMITH20": "smith2020b"}
    assert rekey_text("\\cite{smith20}", renamed)[0] == "\\cite{smith20}"
    assert rekey_text("\\cite{SMITH20}", renamed)[0] == "\\cite{smith2020b}"
    assert rekey_text("\\cite{Smith2020}", {"smith2020": "Smith2020"}) == ("\\cite{Smith2020}", [])


def test_a_citation_of_an_entry_that_stays_is_not_taken_in_another_case_for_a_merged_key(tmp_path):
    # Vaswani17 is merged into vaswani2017; vaswani17 is a book that stays. Folding case, rekey rewrote
    # \cite{vaswani17} to the merged paper: biber tells the two keys apart, and the book was cited no more.
    (tmp_path / "a.bib").write_text(
        "@article{vaswani2017,\n  title = {Attention Is All You Need},\n  author = {Vaswani, Ashish},\n"
        "  journal = {NeurIPS},\n  year = {2017},\n}\n"
        "@article{Vaswani17,\n  title = {Attention Is All You Need},\n  author = {Vaswani, Ashish},\n"
        "  journal = {NeurIPS},\n  year = {2017},\n  doi = {10.5555/3295222.3295349},\n}\n"
        "@book{vaswani17,\n  title = {A Book of Tensors},\n  author = {Vaswani, Ashish},\n  publisher = {P},\n"
        "  year = {2017},\n}\n",
        encoding="utf-8",
    )
    main = tmp_path / "p.tex"
    main.write_text("\\cite{Vaswani17} and \\cite{vaswani17} and \\cite{VASWANI17}\n", encoding="utf-8")
    done = run_cli("rekey", "a.bib", "--tex", "p.tex", cwd=tmp_path, check=True)
    assert main.read_text(encoding="utf-8") == "\\cite{vaswani2017} and \\cite{vaswani17} and \\cite{VASWANI17}\n"
    assert "p.tex:1: Vaswani17 -> vaswani2017" in done.stdout and "1 citation key(s) rewritten" in done.stdout


SMITH = (
    "@article{{{key}, title = {{Scaling pipelines for giant models}}, author = {{Smith, Jane}}, journal = {{J}},"
    " year = 2020, doi = {{10.1000/abc}}}}\n"
)


def test_a_merged_key_is_rewritten_as_the_document_already_cites_the_key_that_stays(tmp_path):
    # smith2020x merged into Smith20, which the document cites as smith20 (BibTeX matches keys in any case): rekey
    # wrote \cite{Smith20}, and BibTeX stopped at "Case mismatch error between cite keys", leaving it undefined.
    (tmp_path / "refs.bib").write_text(SMITH.format(key="Smith20") + SMITH.format(key="smith2020x"), encoding="utf-8")
    main, chapter, other = tmp_path / "main.tex", tmp_path / "chapter.tex", tmp_path / "other.tex"
    main.write_bytes(b"B \\cite{smith2020x}. C \\cite{SMITH20, smith2020x}.\r\n\\input{chapter}\r\n")
    chapter.write_bytes(b"% \\cite{sMITH20}\nA \\citep[p.~2]{ smith20 }. D \\cite{Smith2020X}.\n")
    done = run_cli("rekey", "refs.bib", "--tex", "main.tex", cwd=tmp_path, check=True)
    # The citations of the entry that stays are as they were, byte for byte; the others spell it as the first does.
    assert main.read_bytes() == b"B \\cite{SMITH20}. C \\cite{SMITH20}.\r\n\\input{chapter}\r\n"
    assert chapter.read_bytes() == b"% \\cite{sMITH20}\nA \\citep[p.~2]{ smith20 }. D \\cite{SMITH20}.\n"
    assert "main.tex:1: smith2020x -> SMITH20" in done.stdout.splitlines()
    # Where the document cites it as the .bib writes it too, that spelling is the one written.
    other.write_bytes(b"\\cite{smith20} \\cite{smith2020x} \\cite{Smith20}\n")
    run_cli("rekey", "refs.bib", "--tex", "other.tex", cwd=tmp_path, check=True)
    assert other.read_bytes() == b"\\cite{smith20} \\cite{Smith20} \\cite{Smith20}\n"
