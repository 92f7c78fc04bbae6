"""The generated LaTeX compiles with real latexmk, and untrusted text stays inert."""

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from helpers import ROOT, compile_latex, requires_latex, run_cli

from surveytool.text.latex_commands import BIBLATEX_COMMANDS, MATH_COMMANDS


def assert_clean_log(folder):
    log = (folder / "main.log").read_text(encoding="latin-1")
    assert "undefined" not in log.lower().replace("undefined references", ""), re.findall(r".*undefined.*", log)
    assert not re.search(r"^! ", log, re.M)
    blg = (folder / "main.blg").read_text(encoding="latin-1")
    assert "error message" not in blg


@requires_latex
def test_seeds_chapter_compiles_without_errors_or_undefined_citations(seeds_build, tmp_path):
    folder = tmp_path / "doc"
    shutil.copytree(seeds_build, folder)
    result = compile_latex(folder)
    assert result.returncode == 0, result.stdout[-3000:]
    assert_clean_log(folder)
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "main.pdf", "-"], cwd=folder, capture_output=True, text=True, check=True
    ).stdout
    for title in ("Data Parallelism and State Sharding", "Large-Scale Graph Neural Network Training", "References"):
        assert title in text
    assert "Lepikhin et al." in text and "Unresolved entry" in text
    assert "Figure 1: Taxonomy of the related work" in text  # the forest tree
    # The comparison tables of the sections whose papers state facts come first, then the summary longtable.
    assert "Table 1: Facts stated in the titles and abstracts of the papers of Section" in " ".join(text.split())
    assert re.search(r"Table \d+: Summary of the surveyed papers", text)
    assert "ZeRO/sharded" in text  # a cell of the data-parallel section's table
    assert "Figure 2: Surveyed papers per year" in text  # the pgfplots trend


@requires_latex
def test_hostile_snippets_print_literally_and_execute_nothing(tmp_path):
    marker = tmp_path / "pwned"
    hostile = tmp_path / "hostile.txt"
    hostile.write_text(
        "Related papers: \\input{/etc/passwd} & 100% of $x_i$ #1 ~ ^\n\n"
        f"We \\immediate\\write18{{touch {marker}}} train models with pipeline parallelism and micro-batches \\input{{/etc/hostname}} "
        "using 50% less memory & more {braces} }} unbalanced…\n\n"
        "A snippet with ^^5c and \\catcode`\\@=11 \\def\\x{y} \\openout3=pwned.tex on gradient compression…\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    run_cli("build", str(hostile), "--out", str(out), check=True)
    result = compile_latex(out, "-shell-escape")
    assert result.returncode == 0, result.stdout[-3000:]
    assert not marker.exists()
    assert_clean_log(out)
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "main.pdf", "-"], cwd=out, capture_output=True, text=True, check=True
    ).stdout
    assert "root:" not in text  # /etc/passwd was not read
    assert "\\immediate\\write18" in text.replace("\n", "")  # printed literally
    assert not (out / "pwned.tex").exists()
    entries = json.loads((out / "entries.json").read_text(encoding="utf-8"))
    assert len(entries) == 3


@requires_latex
def test_non_ascii_text_compiles_with_the_default_engine(tmp_path):
    names = tmp_path / "names.bib"
    names.write_text(
        "@article{muller2020,\n  author = {Jürgen Müller and Søren Ørsted and 王小明 and Zoë Ça},\n"
        "  title = {Naïve “quoted” résumé — ½ of GPUs: 中文 and emoji 🚀},\n  journal = {Ångström Letters},\n"
        "  year = {2020},\n  sections = {hardware-systems},\n}\n",
        encoding="utf-8",
    )
    snippets = tmp_path / "list.txt"
    snippets.write_text(
        "相关论文：分布式训练\n\nŁukasz’s “mixture-of-experts” routing — naïve but fast, 中文 too…\n", encoding="utf-8"
    )
    out = tmp_path / "out"
    run_cli("build", str(names), str(snippets), "--out", str(out), check=True)
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    assert_clean_log(out)
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "main.pdf", "-"], cwd=out, capture_output=True, text=True, check=True
    ).stdout
    for expected in ("Müller", "Ørsted", "Naïve", "résumé", "Ångström", "Łukasz", "[U+4E2D]"):
        assert expected in text, expected


@requires_latex
def test_every_character_pylatexenc_can_spell_compiles_in_titles_and_snippets(tmp_path):
    # Its table spells Cyrillic, math alphabets and amssymb relations with commands main.tex lacks
    # (a Russian author's title stopped the build); those are written as characters without a spelling.
    from pylatexenc.latexencode import get_builtin_conversion_rules

    table = sorted(
        {chr(code) for rule in get_builtin_conversion_rules("defaults") for code in rule.rule if code > 0x7F}
    )
    chunks = ["".join(table[n : n + 60]) for n in range(0, len(table), 60)]
    entries = "".join(
        f"@article{{c{n},\n  author = {{Ann Author}},\n  title = {{Chunk {chunk}}},\n  journal = {{J}},\n"
        f"  year = {{2020}},\n  sections = {{surveys}},\n}}\n"
        for n, chunk in enumerate(chunks)
    )
    (tmp_path / "every.bib").write_text(entries, encoding="utf-8")
    (tmp_path / "list.txt").write_text("Related papers: Scaling\n\nWe study Ворошилов ≦ bounds.\n", encoding="utf-8")
    out = tmp_path / "out"
    run_cli("build", str(tmp_path / "every.bib"), str(tmp_path / "list.txt"), "--out", str(out), check=True)
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    log = (out / "main.log").read_text(encoding="latin-1")  # font substitutions (small-caps italic) are warnings
    assert not re.search(r"^! ", log, re.M) and "error message" not in (out / "main.blg").read_text(encoding="latin-1")
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "main.pdf", "-"], cwd=out, capture_output=True, text=True, check=True
    ).stdout
    assert "[U+0412]" in text and "[U+2266]" in text and "Ångström" not in text  # not in a title here
    assert "é" in text and "ß" in text


@requires_latex
def test_a_hostile_bib_is_defused_in_the_generated_bibliography(tmp_path):
    # A path without "_": the field text must be valid LaTeX once the command is printed literally.
    marker = Path(tempfile.gettempdir()) / f"surveytool-pwned-{os.getpid()}"
    hostile = tmp_path / "shared.bib"
    hostile.write_text(
        '@preamble{"\\newcommand{\\noopsort}[1]{} \\immediate\\write18{touch ' + str(marker) + '}"}\n'
        "@article{evil2020,\n  author = {Eve Mallory},\n  title = {{\\noopsort{a}}Pipeline parallelism \\input{/etc/passwd}},\n"
        "  journal = {J. \\immediate\\write18{touch "
        + str(marker)
        + "}},\n  year = {2020},\n  sections = {pipeline-parallel},\n}\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = run_cli("build", str(hostile), "--out", str(out))
    assert result.returncode == 1 and "[dangerous-macro]" in result.stderr  # reported...
    compiled = compile_latex(out, "-shell-escape")
    assert compiled.returncode == 0, compiled.stdout[-3000:]
    assert not marker.exists()  # ...and inert in what surveytool wrote
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "main.pdf", "-"], cwd=out, capture_output=True, text=True, check=True
    ).stdout
    assert "root:" not in text and "\\input" in text
    assert "\\providecommand{\\noopsort}" in (out / "references.bib").read_text(
        encoding="utf-8"
    )  # the preamble still works


@requires_latex
def test_a_flat_taxonomy_without_groups_compiles_with_sections_at_the_top_level(tmp_path):
    flat = tmp_path / "flat.toml"
    flat.write_text(
        'title = "Flat"\n[[sections]]\nid = "pipes"\ntitle = "Pipelines"\n[sections.keywords]\n"pipeline*" = 3\n'
        '[[sections]]\nid = "rest"\ntitle = "Everything Else"\n[sections.keywords]\n"training" = 1\n'
    )
    out = tmp_path / "out"
    run_cli("build", "--taxonomy", str(flat), "--out", str(out))
    chapter = (out / "related_work.tex").read_text(encoding="utf-8")
    assert "\\subsection{Pipelines}" in chapter and "\\subsubsection{Pipelines}" not in chapter
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    assert_clean_log(out)
    tree = run_cli("taxonomy", "--taxonomy", str(flat), check=True).stdout
    assert tree.splitlines()[1].startswith("├── pipes: Pipelines")


@requires_latex
def test_the_biblatex_dialect_compiles_with_biber_and_every_citation_has_its_year(tmp_path):
    names = tmp_path / "names.bib"
    names.write_text(
        "@article{muller2020,\n  author = {Jürgen Müller and Søren Ørsted and {Microsoft Research}},\n"
        "  title = {Naïve résumé of $\\alpha$-balanced GPUs},\n  journal = {Ångström Letters},\n"
        "  year = {2020},\n  month = mar,\n  sections = {hardware-systems},\n}\n",
        encoding="utf-8",
    )
    seeds = sorted(str(p) for p in (ROOT / "seeds").glob("*.txt"))
    out = tmp_path / "out"
    run_cli(
        "build",
        "--dialect",
        "biblatex",
        "--out",
        str(out),
        "--catalog",
        str(ROOT / "seeds" / "catalog.bib"),
        str(names),
        *seeds,
        check=True,
    )
    main = (out / "main.tex").read_text(encoding="utf-8")
    assert "{biblatex}" in main and "natbib}" not in main and "\\printbibliography" in main
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "biber" in result.stdout.lower() and (out / "main.bbl").is_file()
    blg = (out / "main.blg").read_text(encoding="utf-8", errors="replace")
    assert not re.search(r"\b(WARN|ERROR)\b", blg), re.findall(r".*(?:WARN|ERROR).*", blg)
    log = (out / "main.log").read_text(encoding="latin-1")
    assert not re.search(r"^! ", log, re.M)
    assert "undefined" not in log.lower().replace("undefined references", ""), re.findall(r".*undefined.*", log)
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "main.pdf", "-"], cwd=out, capture_output=True, text=True, check=True
    ).stdout
    assert re.search(r"Lepikhin et al\.\s+\(2021\)", text)
    assert "Müller" in text and "Ångström" in text and "Microsoft Research" in text
    assert "n.d." not in text  # no citation lost its year


@requires_latex
def test_thirty_unresolved_snippets_compile_each_with_a_label_of_its_own(tmp_path):
    # natbib letters the labels of entries sharing author and year a..z, then {, |, }: the 27th ended the .bbl.
    topics = [f"topic{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(30)]
    snippets = "".join(
        f"We study {t} scheduling of pipeline stages with {t} micro-batches and stashing …\n\n" for t in topics
    )
    paper_list = tmp_path / "list.txt"
    paper_list.write_text("Related papers for An Unknown Anchor Paper\n\n" + snippets, encoding="utf-8")
    out = tmp_path / "out"
    run_cli("build", str(paper_list), "--out", str(out), check=True)
    labels = re.findall(r"^  key = \{(.*)\},$", (out / "references.bib").read_text(encoding="utf-8"), re.M)
    assert len(labels) == len(set(labels)) >= 30
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    assert_clean_log(out)


@requires_latex
def test_a_dblp_export_keeps_what_its_papers_inherit_from_their_proceedings(tmp_path):
    # DBLP's keys sort a proceedings volume before its papers; BibTeX inherits only from a parent written later.
    library = tmp_path / "dblp.bib"
    library.write_text(
        "@proceedings{DBLP:conf/osdi/2020,\n  editor = {Jon Howell and Shan Lu},\n"
        "  title = {14th USENIX Symposium on Operating Systems Design and Implementation},\n"
        "  booktitle = {14th USENIX Symposium on Operating Systems Design and Implementation},\n"
        "  publisher = {USENIX Association},\n  year = {2020}\n}\n\n"
        "@inproceedings{DBLP:conf/osdi/NarayananSKPAZ20,\n  author = {Deepak Narayanan and Keshav Santhanam},\n"
        "  title = {Heterogeneity-Aware Cluster Scheduling Policies for Deep Learning Workloads},\n"
        "  pages = {481--498},\n  crossref = {DBLP:conf/osdi/2020},\n  sections = {hardware-systems}\n}\n",
        encoding="utf-8",
    )
    out = compiled_build(library)
    bbl = (out / "main.bbl").read_text(encoding="utf-8")
    assert "\\bibitem[Narayanan and Santhanam(2020)]{DBLP:conf/osdi/NarayananSKPAZ20}" in bbl  # the year inherited
    blg = (out / "main.blg").read_text(encoding="latin-1")
    assert "Warning" not in blg, blg  # before: "I didn't find a database entry", "empty year", "empty booktitle"


def compiled_build(library: Path) -> Path:
    """The folder ``build`` writes from ``library`` (beside it), compiled by latexmk without an error."""
    out = library.parent / "out"
    run_cli("build", str(library), "--out", str(out), check=True)
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    return out


def pdf_text(folder: Path) -> str:
    return subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "main.pdf", "-"], cwd=folder, capture_output=True, text=True, check=True
    ).stdout


@requires_latex
def test_a_title_with_latex_and_tex_unbraced_compiles_and_keeps_the_users_file(tmp_path):
    # plainnat lowers a title outside braces: \LaTeX became \latex, which no package defines.
    library = tmp_path / "refs.bib"
    text = (
        "@article{t3,\n  author = {Doe, Jane},\n"
        "  title = {Typesetting pipeline parallel papers with \\LaTeX\\ and \\TeX},\n"
        "  journal = {J},\n  year = 2020,\n  sections = {pipeline-parallel},\n}\n"
    )
    library.write_text(text, encoding="utf-8")
    checked = run_cli("check", str(library), "--checks", "title-case-unprotected", "--json")
    [finding] = json.loads(checked.stdout)
    assert finding["line"] == 3 and "\\LaTeX, \\TeX" in finding["message"] and finding["hint"]  # the title's line
    out = tmp_path / "out"
    run_cli("build", str(library), "--out", str(out), check=True)
    assert library.read_text(encoding="utf-8") == text
    assert "title = {Typesetting pipeline parallel papers with {\\LaTeX}\\ and {\\TeX}}," in (
        out / "references.bib"
    ).read_text(encoding="utf-8")
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    assert_clean_log(out)
    assert "Typesetting pipeline parallel papers with LATEX and TEX" in " ".join(pdf_text(out).split())


@requires_latex
def test_raw_ampersands_and_percents_compile_and_print_in_full(tmp_path):
    # references.bib kept them raw: main.tex stopped at the '&', and '%' hid the rest of a title ("Jane Doe. 50 J").
    library = tmp_path / "refs.bib"
    text = (
        '@string{se = "Science & Engineering"}\n'
        "@article{g03, author={Doe, Jane}, title={50% faster pipeline parallel training of deep networks}, "
        "journal={J}, year=2001, url={https://example.org/?a=1&b=50%25}, sections={pipeline-parallel}}\n"
        "@article{g04, author={Roe, Rich}, title={Pipeline parallelism: Tom & Jerry in R\\&D}, journal=se, "
        "year=2002, sections={pipeline-parallel}}\n"
        "@article{g05, author={Poe, Ada}, title={Pipelines within $\\text{peak_mem}$ at $x_i$}, journal={J}, "
        "year=2003, sections={pipeline-parallel}}\n"  # \text's argument is text, in math too
    )
    library.write_text(text, encoding="utf-8")
    in_place = run_cli("bib", "--in-place", str(library))
    assert in_place.returncode == 0 and library.read_text(encoding="utf-8") == text
    checked = run_cli("check", str(library), "--checks", "unescaped-special")
    assert checked.returncode == 1 and checked.stdout.endswith("4 errors: unescaped-special 4\n")
    out = tmp_path / "out"
    run_cli("build", str(library), "--out", str(out), check=True)
    written = (out / "references.bib").read_text(encoding="utf-8")
    assert '@string{se = "Science \\& Engineering"}' in written
    assert "title = {50\\% faster pipeline parallel training of deep networks}," in written
    assert "title = {Pipeline parallelism: Tom \\& Jerry in R\\&D}," in written  # the escaped one not again
    assert "url = {https://example.org/?a=1&b=50%25}," in written
    assert "title = {Pipelines within $\\text{peak\\_mem}$ at $x_i$}," in written
    assert library.read_text(encoding="utf-8") == text
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    assert_clean_log(out)
    printed = " ".join(pdf_text(out).split())
    assert "Jane Doe. 50% faster pipeline parallel training of deep networks. J, 2001." in printed
    assert "Pipeline parallelism: Tom & jerry in r&d. Science & Engineering, 2002." in printed
    assert "peak_mem" in printed


@requires_latex
def test_biblatex_text_commands_in_a_bib_compile_with_the_bibtex_main_file(tmp_path):
    # biblatex's own example files use them in fields; natbib and plainnat define none of them.
    library = tmp_path / "refs.bib"
    library.write_text(
        "@article{kant1787,\n  author = {Kant, Immanuel},\n  title = {Kritik: \\mkbibquote{Die transzendentale}"
        " Logik},\n  journal = {Journal of Method\\hyphen independent Studies},\n  year = {1787},\n"
        "  sections = {surveys},\n}\n"
        "@article{doe2020,\n  author = {Doe, Jane},\n  title = {On \\enquote{quoted} words\\addcomma\\ again},\n"
        "  journal = {J},\n  year = {2020},\n  sections = {surveys},\n}\n",
        encoding="utf-8",
    )
    out = compiled_build(library)
    assert_clean_log(out)
    text = " ".join(pdf_text(out).split())
    # pdftotext joins a word broken at a hyphen at the end of a line: the hyphen may or may not show.
    assert re.search(r"Journal of Method-?independent Studies", text) and "On “quoted” words, again" in text


@requires_latex
@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
def test_sorting_tricks_no_preamble_defines_compile_and_a_preambles_own_definition_is_the_one_used(tmp_path, dialect):
    # The allowlist keeps \noopsort and its kin in fields; with no @preamble defining them the document stopped.
    library = tmp_path / "refs.bib"
    library.write_text(
        "@article{q1, author={Smith, J}, journal={J}, year=2020, title={Mixture of experts \\noopsort{a}at scale},"
        " sections={moe}}\n"
        "@article{q2, author={Roe, R}, journal={J}, year=2021, sections={pipeline-parallel},"
        " title={Pipelines \\switchargs{one}{two} and \\printfirst{first}{second} \\singleletter{x}}}\n",
        encoding="utf-8",
    )
    own = tmp_path / "own" / "refs.bib"
    own.parent.mkdir()
    own.write_text(
        '@preamble{"\\newcommand{\\switchargs}[2]{[#1|#2]}"}\n'
        "@article{q3, author={Doe, J}, journal={J}, year=2022, sections={pipeline-parallel},"
        " title={Stages \\switchargs{one}{two} and \\noopsort{z}done}}\n",
        encoding="utf-8",
    )
    printed = []
    for bib in (library, own):
        out = bib.parent / "out"
        run_cli("build", str(bib), "--out", str(out), "--dialect", dialect, check=True)
        result = compile_latex(out)
        assert result.returncode == 0, result.stdout[-3000:]
        printed.append(" ".join(pdf_text(out).split()))
    assert "Mixture of experts at scale" in printed[0] and "Pipelines twoone and first x" in printed[0]
    assert "Stages [one|two] and done" in printed[1]


def test_the_bibtex_main_file_provides_every_biblatex_text_command_the_allowlist_keeps():
    template = (ROOT / "templates" / "main.tex.j2").read_text(encoding="utf-8")
    provided = set(re.findall(r"\\providecommand\{\\(\w+)\}", template))
    assert BIBLATEX_COMMANDS - {"arabic"} <= provided  # \arabic is LaTeX's own


@requires_latex
def test_raw_hashes_and_underscores_compile_and_print_in_full(tmp_path):
    # "C#" stopped the document (a macro's parameter) and "snake_case" too ("Missing $ inserted").
    library = tmp_path / "refs.bib"
    text = (
        "@string{ml_conf = {Systems_ML}}\n"
        "@article{c1, author = {Doe, Jane}, title = {Training in C# with snake_case names and $x_i$ steps},\n"
        "  journal = ml_conf, year = 2021, url = {https://x.org/a_b#c}, sections = {pipeline-parallel}}\n"
    )
    library.write_text(text, encoding="utf-8")
    checked = run_cli("check", str(library), "--checks", "unescaped-special")
    assert checked.returncode == 1 and checked.stdout.endswith("2 errors: unescaped-special 2\n"), checked.stdout
    out = compiled_build(library)
    assert library.read_text(encoding="utf-8") == text
    assert "title = {Training in C\\# with snake\\_case names and $x_i$ steps}," in (out / "references.bib").read_text(
        encoding="utf-8"
    )
    assert_clean_log(out)
    assert "Jane Doe. Training in c# with snake_case names and xi steps. Systems_ML, 2021." in " ".join(
        pdf_text(out).split()
    )


@requires_latex
def test_a_bracket_in_an_author_name_neither_ends_natbibs_label_nor_takes_over_another_citation(tmp_path):
    (tmp_path / "names.bib").write_text(
        "@article{smith2020, author = {Sm]{jones2019}ith, Jo}, title = {First}, journal = {J}, year = 2020,"
        " sections = {surveys}}\n"
        "@article{jones2019, author = {Jones, Al}, title = {Second}, journal = {J}, year = 2019,"
        " sections = {surveys}}\n"
        '@article{q2018, author = "Q]x, Ann", title = {Third}, journal = {J}, year = 2018, sections = {surveys}}\n',
        encoding="utf-8",
    )
    out = tmp_path / "out"
    run_cli("build", str(tmp_path / "names.bib"), "--out", str(out), "--no-figure", "--no-plot", check=True)
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    bbl = (out / "main.bbl").read_text(encoding="utf-8")
    assert bbl.count("\\bibitem[") == 3 and "]{smith2020}" in bbl and "]{jones2019}" in bbl and "]{q2018}" in bbl
    log = (out / "main.log").read_text(encoding="latin-1")
    assert "undefined" not in log.lower().replace("undefined references", ""), re.findall(r".*undefined.*", log)


@requires_latex
def test_control_characters_pasted_into_a_title_are_dropped_and_the_document_compiles(tmp_path):
    (tmp_path / "pasted.bib").write_bytes(
        b"@article{cc, author = {Ann Author}, title = {Pasted\x7f from a\x01 PDF}, journal = {J}, year = 2020,"
        b" sections = {surveys}}\n"
    )
    out = tmp_path / "out"
    run_cli("build", str(tmp_path / "pasted.bib"), "--out", str(out), "--no-figure", "--no-plot", check=True)
    assert "title = {Pasted from a PDF}" in (out / "references.bib").read_text(encoding="utf-8")
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    assert_clean_log(out)


@requires_latex
def test_allowed_latex_that_would_stop_the_document_where_it_stands_is_reported_and_compiles(tmp_path):
    # Each passed the allowlist (or was kept raw) and then stopped pdflatex.
    cases = [
        r"title = {Use \verb|x| here}",
        r"title = {A \ifmmode x b}",
        r"title = {A \char b}",
        r"title = {An \arabic{x} b}",
        r"title = {A \ensuremath{a%} b}",
        r"title = {A \textbf{a#b} c}",
        r"title = {A ^ b}",
        r"title = {A $ b}",
        r"title = {A \| b}",
        r"title = {A \hspace{\textbackslash{}fill} b}",
        r"title = {T}, url = {\url{https://x.org}}",
        r"title = {An \emph{\url{https://x.org/a%20b}}}",
        r"title = {The $x\limits$ parameter}",
    ]
    library = tmp_path / "refs.bib"
    text = "".join(
        f"@article{{c{i},\n  author = {{Doe, Jane}},\n  {case},\n  journal = {{J}},\n  year = 2020,\n"
        "  sections = {surveys},\n}\n"
        for i, case in enumerate(cases)
    )
    library.write_text(text, encoding="utf-8")
    checked = json.loads(run_cli("check", str(library), "--json").stdout)
    reported = {(f["line"], f["check"]) for f in checked if f["check"] in ("dangerous-macro", "unescaped-special")}
    lines = {line for line, _ in reported}
    assert lines == {3 + 7 * i for i in range(len(cases))}, sorted(reported)  # each entry's field line
    assert all(f["hint"] for f in checked)
    out = tmp_path / "out"
    built = run_cli("build", str(library), "--out", str(out), "--pdf", "--no-figure", "--no-plot")
    assert built.returncode == 1 and "main.bbl:" not in built.stderr, built.stderr[
        -3000:
    ]  # errors reported, no TeX one
    assert_clean_log(out)
    assert library.read_text(encoding="utf-8") == text
    written = (out / "references.bib").read_text(encoding="utf-8")
    assert "url = {https://x.org}," in written and r"title = {A \^{} b}," in written
    printed = " ".join(pdf_text(out).split())
    assert "Use \\verb|x| here" in printed and "A \\| b" in printed and "A $ b" in printed


@requires_latex
def test_every_math_command_the_allowlist_keeps_compiles_in_math(tmp_path):
    # \mathbb, \binom, \text, \operatorname and the like need amsmath and amssymb, which main.tex loads.
    two = {"frac", "dfrac", "tfrac", "binom"}
    one = set(
        "sqrt mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak boldsymbol operatorname text hat bar "
        "tilde vec dot ddot widehat widetilde overline underbrace overbrace".split()
    )
    paired = {"left", "right", "limits", "nolimits", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr"}
    formulas = [
        f"\\{name}" + "{X}" * (2 if name in two else 1 if name in one else 0) + " x"
        for name in sorted(MATH_COMMANDS - paired)
    ]
    formulas += [r"\left( x \right)", r"\sum\limits_{i} x", r"\int\nolimits_0 x", r"\bigl( x \bigr)", r"\Big| x"]
    formulas += [r"\sum_{i=1}^n\limits x", r"\operatorname*{arg\,max}\limits_x f", r"\max \nolimits_x f"]
    formulas += [r"\big( x", r"\Bigl( x \Bigr)", r"\bigg[ x", r"\Bigg[ x \Bigg]"]
    library = tmp_path / "math.bib"
    library.write_text(
        "".join(
            f"@article{{m{i}, author = {{Doe, Jane}}, title = {{Title {i} on ${formula}$}}, journal = {{J}},"
            f" year = {1800 + i}, sections = {{surveys}}}}\n"
            for i, formula in enumerate(formulas)
        ),
        encoding="utf-8",
    )
    checked = json.loads(run_cli("check", str(library), "--json").stdout)
    assert not [f for f in checked if f["check"] in ("dangerous-macro", "unescaped-special")], checked
    out = compiled_build(library)
    assert_clean_log(out)


@requires_latex
def test_a_co_authors_preambles_keys_and_comments_neither_stop_nor_take_over_the_document(tmp_path):
    # Each passed check or was written as it was, and then stopped pdflatex or had BibTeX cite another entry.
    theirs = (
        '@preamble{"\\newcommand{\\noopsort}[1]{}"}\n'
        '@preamble{"\\ifmmode"}\n'
        '@preamble{"\\providecommand{\\printfirst}[2]{\\in}"}\n'
        '@preamble{"$x^2 & 50% a_b"}\n'
        '@preamble{"\\providecommand{\\switchargs}[1]{#2} \\def\\singleletter#1{\\ensuremath{#1^2}}'
        ' \\providecommand{\\singleletter}{\\def\\printfirst#1{#1}} \\providecommand{\\switchargs}[10]{}"}\n'
        "@comment{ set aside: @-{ours, title={Smuggled}, author={Mallory}} }\n"
        "@article{a\x7fb, author = {Roe, Jane}, title = {Keyed}, journal = {J}, year = 2020, sections = {moe}}\n"
    )
    ours = (
        '@preamble{"\\newcommand{\\noopsort}[1]{}"}\n'
        "@article{ours, author = {Doe, John}, title = {{\\noopsort{a}}Ours}, journal = {J}, year = 2021,"
        " sections = {moe}}\n"
    )
    (tmp_path / "theirs.bib").write_text(theirs, encoding="utf-8")
    (tmp_path / "ours.bib").write_text(ours, encoding="utf-8")
    checked = json.loads(run_cli("check", "theirs.bib", "--json", cwd=tmp_path).stdout)
    found = {(f["line"], f["check"]) for f in checked if f["severity"] != "info"}
    assert {
        (2, "dangerous-macro"),
        (3, "dangerous-macro"),
        (4, "dangerous-macro"),
        (5, "dangerous-macro"),
        (6, "commented-entry"),
        (7, "unusable-key"),
    } <= found
    out = tmp_path / "out"
    built = run_cli(
        "build", "ours.bib", "theirs.bib", "--out", str(out), "--pdf", "--no-figure", "--no-plot", cwd=tmp_path
    )
    assert "main.bbl:" not in built.stderr and "related_work.tex:" not in built.stderr, built.stderr[-3000:]
    assert_clean_log(out)
    bbl = (out / "main.bbl").read_text(encoding="utf-8")
    assert "Doe" in bbl and "Mallory" not in bbl


@requires_latex
def test_braces_nested_deeper_than_tex_allows_are_reported_and_the_document_compiles(tmp_path):
    # TeX stops at 255 grouping levels ("TeX capacity exceeded"): in text and in math.
    nested = "{" * 300 + "x" + "}" * 300
    library = tmp_path / "deep.bib"
    text = (
        f"@article{{deep, author = {{Doe, Jane}}, title = {{Deep {nested} title}}, journal = {{J}}, year = 2020,"
        " sections = {surveys}}\n"
        f"@article{{math, author = {{Roe, Ann}}, title = {{Deep ${nested}$ title}}, journal = {{J}}, year = 2021,"
        " sections = {surveys}}\n"
    )
    library.write_text(text, encoding="utf-8")
    checked = json.loads(run_cli("check", str(library), "--json").stdout)
    assert {(f["key"], f["check"]) for f in checked if f["check"] == "dangerous-macro"} == {
        ("deep", "dangerous-macro"),
        ("math", "dangerous-macro"),
    }
    out = tmp_path / "out"
    built = run_cli("build", str(library), "--out", str(out), "--pdf", "--no-figure", "--no-plot")
    assert built.returncode == 1 and (out / "main.pdf").exists(), built.stderr[-2000:]
    assert library.read_text(encoding="utf-8") == text
    assert_clean_log(out)


@requires_latex
def test_a_title_longer_than_a_tex_line_is_shown_cut_in_the_chapter_and_the_document_compiles(tmp_path):
    # A page pasted into a title: the chapter's sentence was one line of 240,000 characters, and TeX reads 200,000.
    title = "Pipeline " + "stage " * 40_000 + "end"
    library = tmp_path / "long.bib"
    library.write_text(
        f"@article{{long, author = {{Doe, Jane}}, title = {{{title}}}, journal = {{J}}, year = 2020,"
        " sections = {pipeline-parallel}}\n",
        encoding="utf-8",
    )
    out = compiled_build(library)
    assert_clean_log(out)
    chapter = (out / "related_work.tex").read_text(encoding="utf-8")
    assert max(len(line) for line in chapter.splitlines()) < 5_000
    assert "stage stage {\\textellipsis}}" in chapter and title in (out / "references.bib").read_text(encoding="utf-8")


@requires_latex
def test_allowed_commands_whose_keys_codes_delimiters_or_arguments_tex_cannot_read_are_reported_and_compile(tmp_path):
    # Each passed `check` and then stopped pdflatex in main.bbl, or was written only in part literally.
    titles = [
        r"\cite{\relax}",  # Missing \endcsname inserted
        r"\cite{~}",
        r"\cite{\emph{x}}",  # Argument of \@citex has an extra }
        r"\cite{\\}",
        r"\cite{\input}",  # was written \cite{\textbackslash{}input}
        r"\char`\a",  # was written \char`\textbackslash{}a: Improper alphabetic constant
        '\\char"FF',  # BibTeX lowercased it: Missing number
        r"$\left(\right\relax$",  # Missing delimiter (. inserted)
        r"$\left\relax x\right)$",
        r"$\sqrt[3]$",  # Missing } inserted
        r"$\frac\input x$",
        r"A\\ [Review] b",
    ]
    library = tmp_path / "q.bib"
    text = "".join(
        f"@article{{q{i}, author={{Smith, J}}, journal={{J}}, year=2020, sections={{surveys}},\n"
        f"  title={{Mixture of experts {title}}}}}\n"
        for i, title in enumerate(titles)
    )
    library.write_text(text, encoding="utf-8")
    checked = json.loads(run_cli("check", str(library), "--json").stdout)
    lines = {f["line"] for f in checked if f["check"] == "dangerous-macro"}
    assert lines == {2 + 2 * i for i in range(len(titles))}, checked
    out = tmp_path / "out"
    built = run_cli("build", str(library), "--out", str(out), "--pdf", "--no-figure", "--no-plot")
    assert built.returncode == 1 and "main.bbl:" not in built.stderr, built.stderr[-3000:]  # reported, no TeX error
    assert (out / "main.pdf").exists()
    assert_clean_log(out)
    written = (out / "references.bib").read_text(encoding="utf-8")
    assert r"title={Mixture of experts \textbackslash{}char`\textbackslash{}a}" in written.replace(" = ", "=")
    printed = " ".join(pdf_text(out).split())
    assert "\\cite{\\relax}" in printed and "\\sqrt[3]" in printed


@requires_latex
def test_a_year_with_latex_in_it_compiles_with_its_text_alone_and_a_sorting_trick_kept(tmp_path):
    # natbib puts the year in its labels; \emph{2021} there stopped the taxonomy figure's citations ("Improper
    # alphabetic constant"), and so did what a dangerous year printed literally became (20\textbackslash{}input).
    library = tmp_path / "refs.bib"
    years = ("\\emph{2021}", "20\\input{/etc/passwd}", "\\noopsort{a}2019", "2019\\textendash 2020")
    library.write_text(
        "".join(
            f"@article{{y{i},\n  author = {{Ian Jones}},\n  title = {{Pipeline schedules {i}}},\n  journal = {{X}},\n"
            f"  year = {{{year}}},\n  sections = {{pipeline-parallel}},\n}}\n"
            for i, year in enumerate(years)
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert run_cli("build", str(library), "--out", str(out)).returncode == 1  # the \\input: dangerous-macro
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    written = (out / "references.bib").read_text(encoding="utf-8")
    assert re.findall(r"year = (.*),", written) == ["{2021}", "{20/etc/passwd}", "{\\noopsort{a}2019}", "{2019--2020}"]
    checked = run_cli("check", str(library), "--checks", "year-malformed")
    assert (
        "year of 'y0' holds LaTeX: {\\emph{2021}}; the .bib bib -o and build write has its text alone" in checked.stderr
    )
    assert "'y2'" not in checked.stderr


@requires_latex
def test_a_key_starting_with_a_non_ascii_character_is_reported_and_bibtex_cannot_match_it(tmp_path):
    # What key-not-ascii claims, with real pdfLaTeX and BibTeX: the first character is the one that breaks.
    library = tmp_path / "refs.bib"
    entry = "@article{{{key},\n  title = {{{title}}},\n  author = {{Émile Zola}},\n  journal = {{J}},\n  year = {{{year}}}\n}}\n"
    library.write_text(
        entry.format(key="é2020", title="Pipeline parallelism", year=2020)
        + entry.format(key="zé2021", title="Data parallelism", year=2021),
        encoding="utf-8",
    )
    checked = run_cli("check", str(library), "--json", "--checks", "key-not-ascii")
    assert [(f["key"], f["line"]) for f in json.loads(checked.stdout)] == [("é2020", 1)]
    assert checked.returncode == 1
    biblatex = run_cli("check", str(library), "--json", "--checks", "key-not-ascii", "--dialect", "biblatex")
    assert json.loads(biblatex.stdout) == [] and biblatex.returncode == 0
    out = tmp_path / "out"
    # XeLaTeX and LuaLaTeX read such a key: build leaves it to check, and --pdf names it when BibTeX stops there.
    built = run_cli("build", str(library), "--out", str(out), "--pdf")
    assert built.returncode == 1 and "key-not-ascii" in built.stderr
    assert re.search(r'main\.aux:\d+: BibTeX: Stuff after "}" .*: a cited key starts with a character', built.stderr)
    blg = (out / "main.blg").read_text(encoding="latin-1")
    assert 'Stuff after "}"' in blg
    bbl = (out / "main.bbl").read_text(encoding="utf-8")
    assert "(2021)]{zé2021}" in bbl and "2020" not in bbl
