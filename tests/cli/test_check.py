"""`surveytool check`: every check with a failing and a passing case, --fix, --json, --explain."""

import json
import re

import pytest
from helpers import ROOT, compile_latex, requires_latex, run_cli

from surveytool.analysis.checks import REGISTRY
from surveytool.text.citations import citations

CLEAN = """@inproceedings{shazeer2017,
  title = {Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer},
  author = {Noam Shazeer},
  booktitle = {ICLR},
  year = 2017,
  sections = {moe},
}
"""

# check name -> (a .bib that triggers it, extra args)
FAILING = {
    "unknown-tag": (CLEAN.replace("{moe}", "{mixture-of-expert}"), []),
    "tag-variant": (CLEAN.replace("{moe}", "{MoE}"), []),
    "untagged-entry": (CLEAN.replace("  sections = {moe},\n", ""), []),
    "no-section": ("@misc{x, title = {Lorem ipsum dolor}}\n", []),
    "empty-section": (CLEAN, []),
    "thin-section": (CLEAN, []),
    "unresolved-entry": (
        "@misc{anon-x, title = {Unresolved snippet: We study…}, key = {Unresolved}, sections = {moe}}\n",
        [],
    ),
    "duplicate-entry": (CLEAN + CLEAN.replace("shazeer2017", "shazeer17"), []),
    "duplicate-key": (CLEAN + CLEAN.replace("Outrageously", "Another"), []),
    "suspicious-duplicate-id": (
        CLEAN.replace("  year", "  doi = {10.1/x},\n  year")
        + CLEAN.replace("shazeer2017", "other")
        .replace("Outrageously", "Another")
        .replace("  year", "  doi = {10.1/x},\n  year"),
        [],
    ),
    "duplicate-field": (CLEAN.replace("  year = 2017,", "  year = 2017,\n  year = 2018,"), []),
    "unusable-key": (CLEAN.replace("shazeer2017", "shazeer&2017"), []),
    "bibtex-syntax": (CLEAN + "@article{broken, title = {unbalanced\n" + CLEAN.replace("shazeer2017", "other"), []),
    "bidi-control": (CLEAN.replace("{ICLR}", "{ICLR \u202eFDP.EXE}"), []),
    "commented-entry": ("@comment{switched off:\n" + CLEAN.replace("shazeer2017", "old") + "}\n" + CLEAN, []),
    "missing-field": (CLEAN.replace("  booktitle = {ICLR},\n", ""), []),
    "title-case-unprotected": (CLEAN.replace("Layer", "Layer on GPUs"), []),
    "doi-malformed": (CLEAN.replace("  year", "  doi = {https://doi.org/10.1145/3458817},\n  year"), []),
    "year-malformed": (CLEAN.replace("year = 2017", "year = {20x7}"), []),
    "month-malformed": (CLEAN.replace("  year", "  month = {Juny},\n  year"), []),
    "undefined-string": (CLEAN.replace("{ICLR}", "iclr"), []),
    "html-in-field": (CLEAN.replace("Networks:", "Networks &amp;"), []),
    "empty-field": (CLEAN.replace("  year", "  note = {},\n  year"), []),
    "crossref-undefined": (CLEAN.replace("  year", "  crossref = {iclr2017},\n  year"), []),
    "crossref-loop": (CLEAN.replace("  year", "  crossref = {Shazeer2017},\n  year"), []),
    "date-conflict": (CLEAN.replace("  year", "  date = {2016-05},\n  year"), []),
    "stray-and": (CLEAN.replace("{Noam Shazeer}", "{Noam Shazeer and and Quoc Le}"), []),
    "unescaped-special": (CLEAN.replace("{ICLR}", "{Science & Engineering}"), []),
    "url-malformed": (CLEAN.replace("  year", "  url = {https://example.org/moe{\\_}layer},\n  year"), []),
    "url-scheme": (CLEAN.replace("  year", "  url = {file://attacker/share/paper.pdf},\n  year"), []),
    "dangerous-macro": (CLEAN.replace("{ICLR}", "{ICLR\\immediate\\write18{rm -rf ~}}"), []),
    "lone-escaped-brace": (CLEAN.replace("{ICLR}", "{ICLR \\} 2017}"), []),
    "unbalanced-brace": (CLEAN.replace("{ICLR}", '"Proc. {ICLR 2017"'), []),
    "inner-quote": (CLEAN.replace("{ICLR}", '"Proc. ICLR, K\\"oln"'), []),
    "cite-undefined": (CLEAN, ["--tex", "paper.tex"]),
    "cite-unused": (CLEAN, ["--tex", "other.tex"]),
    "tex-input": (CLEAN, ["--tex", "inputs.tex"]),
    "taxonomy-invalid": (CLEAN, ["--taxonomy", "bad.toml"]),
    "key-not-ascii": (CLEAN.replace("shazeer2017", "\u00e9shazeer2017"), []),
    "needs-review": ("@misc{x, title = {Densely Connected Convolutional Networks}}\n", []),
    "tag-outlier": (
        CLEAN
        + CLEAN.replace("shazeer2017", "fedus2022").replace(
            "Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer",
            "Switch Transformers: Scaling to Trillion Parameter Models with Simple and Efficient Sparsity",
        )
        + CLEAN.replace("shazeer2017", "lewis2021")
        .replace(
            "Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer",
            "BASE Layers: Simplifying Training of Large, Sparse Mixture-of-Experts Models",
        )
        .replace("{moe}", "{gnn-training}"),
        [],
    ),
    "ambiguous-match": (None, []),  # exercised in test_resolve (two catalog papers with one title)
    "encoding": (None, []),  # exercised in test_in_place (a Latin-1 file)
    "mixed-encoding": (None, []),  # exercised in test_in_place (one stray byte in UTF-8)
    "key-encoding": (None, []),  # exercised in test_in_place (a Latin-1 key written as UTF-8)
    "not-discussed": (None, []),  # exercised in analysis/test_coverage (notes written into a built chapter)
    "cited-in-other-section": (None, []),  # exercised in analysis/test_coverage
    "not-in-file-encoding": (None, []),  # bib --in-place only: output/test_in_place_added_entries
    "already-in-file": (None, []),  # bib --in-place only: output/test_in_place_added_entries
}


@pytest.fixture
def project(tmp_path):
    (tmp_path / "paper.tex").write_text("\\citep[see][p.~2]{shazeer2017, missing2020}\n% \\cite{commented}\n")
    (tmp_path / "other.tex").write_text("\\textcite{somebody}\n")
    (tmp_path / "inputs.tex").write_text("\\input{nowhere}\n")
    (tmp_path / "bad.toml").write_text('[[sections]]\nid = "a"\ntitle = "A"\ntitel = "typo"\n')
    return tmp_path


def check(folder, bib_text, *args):
    (folder / "refs.bib").write_text(bib_text, encoding="utf-8")
    result = run_cli("check", "refs.bib", "--json", *args, cwd=folder)
    assert result.returncode in (0, 1), result.stderr
    return result, json.loads(result.stdout)


def test_every_registered_check_is_covered_here():
    assert set(FAILING) == set(REGISTRY)


@pytest.mark.parametrize("name", sorted(n for n, (bib, _) in FAILING.items() if bib is not None))
def test_each_check_fails_on_its_case_and_passes_on_a_clean_one(project, name):
    bib, args = FAILING[name]
    _, found = check(project, bib, *args, "--checks", name)
    assert [f["check"] for f in found if f["check"] == name], f"{name} did not fire"
    clean_args = ["--tex", "clean.tex"] if name.startswith("cite-") or name == "tex-input" else []
    (project / "clean.tex").write_text("\\citet{shazeer2017}\n")
    taxonomy = ["--taxonomy", str(project / "one.toml")] if name in ("empty-section", "thin-section") else []
    (project / "one.toml").write_text('[[sections]]\nid = "moe"\ntitle = "MoE"\n')
    _, found = check(project, CLEAN, *clean_args, *taxonomy, "--checks", name, "--thin", "1")
    assert not [f for f in found if f["check"] == name], f"{name} fired on a clean case: {found}"


def test_json_findings_have_the_documented_fields(project):
    _, found = check(project, FAILING["unknown-tag"][0])
    finding = next(f for f in found if f["check"] == "unknown-tag")
    assert finding == {
        "check": "unknown-tag",
        "severity": "error",
        "path": "refs.bib",
        "line": 6,  # the tags field's line
        "key": "shazeer2017",
        "message": "tag 'mixture-of-expert' is not a section of the taxonomy",
        "hint": "did you mean 'moe'?",
    }


def test_text_output_exit_codes_and_strict(project):
    (project / "refs.bib").write_text(FAILING["unknown-tag"][0])
    failed = run_cli("check", "refs.bib", cwd=project)
    assert failed.returncode == 1
    assert (
        "refs.bib:6: error [unknown-tag] tag 'mixture-of-expert' is not a section of the taxonomy (did you mean 'moe'?)"
        in failed.stderr
    )
    assert failed.stdout == "1 error: unknown-tag 1\n"  # nothing else: the taxonomy's coverage is not asked
    (project / "refs.bib").write_text(FAILING["tag-variant"][0])
    assert run_cli("check", "refs.bib", "--checks", "tag-variant", cwd=project).returncode == 0
    assert run_cli("check", "refs.bib", "--checks", "tag-variant", "--strict", cwd=project).returncode == 1
    assert run_cli("check", "refs.bib", "--checks", "no-such-check", cwd=project).returncode == 2
    assert run_cli("check", "refs.bib", "--dialect", "apa", cwd=project).returncode == 2
    assert run_cli("check", "missing.bib", cwd=project).returncode == 2


def test_fix_is_minimal_idempotent_and_leaves_nothing_it_fixed(project):
    bib = (
        CLEAN.replace("{moe}", "{MoE, Pipeline Parallelism}").replace("Layer", "Layer on GPUs")
        + "\n@misc{other,   title = {Keep   me  exactly}, sections = {comunication}}\n"
    )
    (project / "refs.bib").write_text(bib)
    fixed = run_cli("check", "refs.bib", "--fix", cwd=project)
    assert (
        "fixed refs.bib:1: shazeer2017: tags MoE,Pipeline Parallelism -> moe,pipeline-parallel; braces around GPUs"
        in fixed.stdout
    )
    after = (project / "refs.bib").read_text()
    # The tags stay joined as the user joined them, with ", ".
    assert after == bib.replace("{MoE, Pipeline Parallelism}", "{moe, pipeline-parallel}").replace(
        "on GPUs", "on {GPUs}"
    )
    again = run_cli("check", "refs.bib", "--fix", "--json", cwd=project)
    assert (project / "refs.bib").read_text() == after
    left = {f["check"] for f in json.loads(again.stdout)}
    assert not left & {"tag-variant", "title-case-unprotected"} and "unknown-tag" in left


def test_a_section_named_twice_is_reported_before_fix_keeps_one(project):
    """check said nothing of {moe; moe}, yet check --fix --checks tag-variant and bib --in-place rewrote it."""
    bib = project / "refs.bib"
    twice = CLEAN.replace("{moe}", "{moe; moe}").replace("\n", "\r\n")  # a Zotero export: CRLF, "; "
    bib.write_bytes(twice.encode())
    result = run_cli("check", "refs.bib", "--checks", "tag-variant", cwd=project)
    assert result.stderr == (
        "refs.bib:6: warning [tag-variant] tag 'moe' names section 'moe' a second time "
        "(keep one; surveytool check --fix does this)\n"
    )
    run_cli("check", "refs.bib", "--checks", "tag-variant", "--fix", cwd=project, check=True)
    assert bib.read_bytes() == twice.replace("{moe; moe}", "{moe}").encode()
    assert run_cli("check", "refs.bib", "--checks", "tag-variant", cwd=project).stderr == ""
    # A reference manager's names are the user's, twice or not: JabRef's groups are never respelled.
    bib.write_bytes(twice.replace("sections", "groups").encode())
    shared = run_cli("check", "refs.bib", "--checks", "tag-variant", "--tags-field", "groups", cwd=project)
    assert shared.stderr == ""
    # Through an @string, which --fix leaves as it is, the hint says so instead of promising the fix.
    bib.write_text('@string{mine = "moe"}\n' + CLEAN.replace("{moe}", 'mine # ", moe"'), encoding="utf-8")
    macro = run_cli("check", "refs.bib", "--checks", "tag-variant", cwd=project)
    assert "a second time (keep one in the sections field yourself: check --fix leaves a field" in macro.stderr


def test_fix_braces_math_and_commands_whole_and_a_recheck_agrees(project):
    # Before: "O(N" was braced inside the formula, ${O(N} \\log N)$, the second N still lowered, and no finding.
    title = r"An $O(N \log N)$ Method with \LaTeX{} on GPUs via \emph{DeepSpeed} and \url{https://Example.ORG/X}"
    bib = CLEAN.replace("Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer", title)
    (project / "refs.bib").write_text(bib)
    _, found = check(project, bib, "--checks", "title-case-unprotected")
    assert [f["message"] for f in found] == [
        "title of 'shazeer2017' has unprotected capitals: $O(N \\log N)$, \\LaTeX, GPUs; lowered, \\LaTeX reads as \\latex"
    ]
    fixed = run_cli("check", "refs.bib", "--fix", "--checks", "title-case-unprotected", cwd=project)
    assert "braces around $O(N \\log N)$, \\LaTeX, GPUs" in fixed.stdout and fixed.returncode == 0
    after = (project / "refs.bib").read_text()
    protected = (
        r"An {$O(N \log N)$} Method with {\LaTeX{}} on {GPUs} via \emph{DeepSpeed} and \url{https://Example.ORG/X}"
    )
    assert after == bib.replace(title, protected)
    again = run_cli("check", "refs.bib", "--checks", "title-case-unprotected", "--json", cwd=project)
    assert json.loads(again.stdout) == []


@pytest.mark.parametrize("entry_type", ["book", "Proceedings", "inbook", "manual", "phdthesis"])
def test_a_title_the_standard_styles_print_as_written_is_neither_reported_nor_braced(project, entry_type):
    # plain, plainnat, abbrv, alpha and unsrt lowercase an article's title but print a book's, proceedings' (DBLP's
    # crossref parents), manual's or PhD thesis's as written: a Springer @book 'Deep Learning with PyTorch' was a
    # warning, and --fix braced it, for nothing any of them prints.
    book = f"@{entry_type}{{b,\n  title = {{Deep Learning with PyTorch, SC 2020, USA}},\n  year = 2020,\n}}\n"
    chapter = book.replace(f"@{entry_type}{{b", "@incollection{c")
    _, found = check(project, book + chapter, "--checks", "title-case-unprotected")
    assert [(f["key"], f["line"]) for f in found] == [("c", 6)]
    fixed = run_cli("check", "refs.bib", "--fix", "--checks", "title-case-unprotected", cwd=project)
    assert fixed.returncode == 0 and "braces around PyTorch, SC, USA" in fixed.stdout
    braced = "Deep Learning with {PyTorch}, {SC} 2020, {USA}"
    assert (project / "refs.bib").read_text() == book + chapter.replace(
        "Deep Learning with PyTorch, SC 2020, USA", braced
    )


def test_a_missing_venue_s_hint_names_the_type_the_entry_s_other_fields_say(project):
    # Google Scholar writes @article with a booktitle for a conference paper, Zotero @article for an arXiv
    # preprint: "complete the entry, or change its type" left the user to guess which type.
    bib = (
        "@article{scholar, title = {T}, author = {A}, year = 2020, booktitle = {Proc. KDD}}\n"
        "@inproceedings{swapped, title = {T}, author = {A}, year = 2020, journal = {JMLR}}\n"
        "@article{zotero, title = {T}, author = {A}, year = 2020, url = {http://arxiv.org/abs/2006.16668}}\n"
        "@article{bare, title = {T}, author = {A}, year = 2020}\n"
    )
    _, found = check(project, bib, "--checks", "missing-field")
    assert [(f["key"], f["hint"]) for f in found] == [
        ("scholar", "it has a booktitle: make it @inproceedings, or @incollection for a chapter of a book"),
        ("swapped", "it has a journal: make it @article"),
        ("zotero", "an arXiv preprint: make it @misc, or let surveytool complete find its published version"),
        ("bare", "complete the entry, or change its type"),
    ]


def test_explain_and_disable_from_config(project):
    explained = run_cli("check", "--explain", "tag-variant", cwd=project, check=True)
    assert explained.stdout.startswith("tag-variant (warning, fixable with --fix):")
    (project / "surveytool.toml").write_text('[check]\ndisable = ["empty-section", "thin-section"]\n')
    _, found = check(project, CLEAN)
    assert not {f["check"] for f in found} & {"empty-section", "thin-section"}


def test_explain_of_an_unknown_name_lists_every_name_it_explains(project):
    from surveytool.analysis.stage_findings import STAGE_FINDINGS

    result = run_cli("check", "--explain", "nonsense", cwd=project)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    listed = " ".join(result.stderr.replace("│", " ").split())  # as one line, whatever the box's width
    assert "unknown check or finding 'nonsense'; checks: already-in-file, ambiguous-match, " in listed
    names = set(re.findall(r"[a-z]+(?:-[a-z]+)*", listed.split("'nonsense'", 1)[1]))
    assert names >= {*REGISTRY, *STAGE_FINDINGS}  # page-furniture, llm-failed, build-cache... as --explain takes
    chosen = run_cli("check", "--checks", "nonsense", cwd=project)  # --checks takes only the checks
    assert chosen.returncode == 2 and "page-furniture" not in chosen.stderr


def test_checks_on_the_command_line_win_over_disable_in_the_settings_file(project):
    # As a [bib] flag wins over the [bib] table: what the command line names is what the user asks for now.
    (project / "surveytool.toml").write_text('[check]\ndisable = ["thin-section"]\n')
    _, found = check(project, CLEAN, "--checks", "thin-section")
    assert "section 'moe' has 1 entry" in {f["message"] for f in found if f["check"] == "thin-section"}
    _, skipped = check(project, CLEAN, "--checks", "thin-section", "--disable", "thin-section")
    assert skipped == []
    _, coverage = check(project, CLEAN, "--coverage")  # without --checks, the settings file's disable applies
    assert not [f for f in coverage if f["check"] == "thin-section"]


def test_citation_parser_knows_natbib_and_biblatex_variants():
    text = (
        "\\citet{a} \\citep*[e.g.][]{b, c} \\Citeauthor{d} \\parencite[12]{e} \\textcite{f}\n"
        "\\cites[see][]{g}[p. 2]{h} \\autocite{i} \\nocite{j} % \\cite{commented}\n\\footcite{k}"
    )
    found, cites_all = citations(text)
    assert [c.key for c in found] == list("abcdefghijk") and not cites_all
    assert [c.line for c in found][-1] == 3
    assert citations("\\nocite{*}")[1]


def test_citations_shown_verbatim_are_not_citations_and_a_percent_in_them_starts_no_comment():
    text = (
        "Write \\verb|\\cite{inverb}| or \\verb*!50%! to cite \\cite{a}.\n"
        "\\begin{verbatim}\n\\cite{inblock} 100%\n\\end{verbatim} \\cite{b}\n"
        "\\begin{lstlisting}\\nocite{*}\\end{lstlisting}\\verbatim text \\cite{c} % \\cite{commented}\n"
        "\\begin{comment}\n\\cite{never}"
    )
    found, cites_all = citations(text)
    assert [(c.key, c.line) for c in found] == [("a", 1), ("b", 4), ("c", 5)] and not cites_all


def test_commands_named_like_citations_that_take_no_keys_and_macro_parameters_cite_nothing():
    text = (
        "\\setcitestyle{authoryear,round}\\newcommand{\\mycite}[1]{\\citep{#1}}\n"
        "\\DeclareCiteCommand{\\citejournal}{x}\\citetext{priv.\\ comm.} \\citestyle{numeric}\n"
        "\\mycite{a} \\citejournal{b} \\Citet{c}\\defcitealias{alias}{Paper~I} \\citetalias{d}"
    )
    assert [c.key for c in citations(text)[0]] == ["a", "b", "c", "d"]


def test_a_volume_citation_cites_the_key_after_its_volume_not_the_volume():
    # biblatex's \\volcite[prenote]{volume}[pages]{key}: the first group is a volume, as biber reads it.
    text = "\\volcite{3}[45]{a} \\pvolcite[see]{2}{b} \\ftvolcite{1}{c}\n\\volcites(all)[see]{1}[2]{d}[x]{4}{e}"
    assert [(c.key, c.line) for c in citations(text)[0]] == [("a", 1), ("b", 1), ("c", 1), ("d", 2), ("e", 2)]


def test_text_an_iffalse_skips_is_not_cited_up_to_its_own_fi_or_else():
    text = (
        "\\let\\ifdraft\\iffalse\n\\cite{a}\n\\iffalse\n"
        "\\cite{gone} \\ifnum1=1 \\cite{gone2} \\fi \\ifthenelse{x}{\\cite{gone3}}{} % \\fi\n"
        "\\fi \\cite{b}\n\\iffalse \\nocite{*} \\else \\cite{c} \\fi \\ifdraft \\cite{d} \\fi\n"
    )
    found, cites_all = citations(text)
    assert [(c.key, c.line) for c in found] == [("a", 2), ("b", 5), ("c", 6), ("d", 6)] and not cites_all


def test_code_shown_inline_by_listings_and_minted_is_not_cited():
    text = "\\lstinline|\\cite{a}| \\lstinline[language=TeX]!\\cite{b}! \\lstinline{100%} \\cite{kept}\n"
    text += "\\mintinline{latex}|\\cite{c}| \\mintinline{latex}{\\cite{d}} \\cite{also}"
    found, cites_all = citations(text)
    assert [(c.key, c.line) for c in found] == [("kept", 1), ("also", 2)] and not cites_all


def test_apacites_prefix_in_angle_brackets_is_read_past():
    text = "\\cite<e.g.,>[p.~11]{a} \\citeA<{<}see>{b, c} \\citeNP<cf.>{d}"
    assert [c.key for c in citations(text)[0]] == ["a", "b", "c", "d"]


def test_a_percent_in_a_web_address_starts_no_comment():
    text = "\\url{http://x.org/a%20b} \\cite{b}\n\\href{http://x/%7E}{x} \\cite{c} % \\cite{gone}\n\\url{x%"
    assert [c.key for c in citations(text)[0]] == ["b", "c"]


def test_a_percent_after_an_even_number_of_backslashes_starts_a_comment():
    text = "a & b \\\\% old row: \\cite{gone}\n50\\% \\cite{kept} \\\\\\% \\cite{also}\n"
    assert [c.key for c in citations(text)[0]] == ["kept", "also"]


def test_a_bracket_in_braces_does_not_end_an_optional_argument():
    text = "\\citep[{[}online{]}]{a} \\citep[eq.~{[}3{]}][p.~2]{b} \\cite[see]{c} \\citep[{x}]{d}"
    assert [c.key for c in citations(text)[0]] == ["a", "b", "c", "d"]


def test_the_pre_commit_hook_as_the_readme_sets_it_up_checks_a_bibliography_split_in_two(tmp_path):
    # The hook passed only the changed .bib: a \cite of an entry in the other one was reported undefined.
    hook = dict(
        line.strip().split(": ", 1)
        for line in (ROOT / ".pre-commit-hooks.yaml").read_text().splitlines()
        if line.startswith(("  ", "- ")) and ": " in line
    )
    assert hook["- id"] == "surveytool-check" and hook["pass_filenames"] == "false"
    assert re.search(hook["files"], "more.bib") and re.search(hook["files"], "paper.tex")  # as pre-commit matches
    args = ["refs.bib", "more.bib", "--tex", "paper.tex"]
    assert f"args: [{', '.join(args)}]" in (ROOT / "README.md").read_text(encoding="utf-8")
    (tmp_path / "refs.bib").write_text(CLEAN, encoding="utf-8")
    (tmp_path / "more.bib").write_text(CLEAN.replace("shazeer2017", "shazeer2018"), encoding="utf-8")
    (tmp_path / "paper.tex").write_text("\\cite{shazeer2017} and \\cite{shazeer2018}\n", encoding="utf-8")
    entry = hook["entry"].split()
    assert entry[0] == "surveytool"
    result = run_cli(*entry[1:], *args, cwd=tmp_path)  # pass_filenames: false, so the command is entry + args
    assert "cite-undefined" not in result.stderr + result.stdout, result.stderr
    (tmp_path / "paper.tex").write_text("\\cite{shazeer2019}\n", encoding="utf-8")
    result = run_cli(*entry[1:], *args, cwd=tmp_path)
    assert result.returncode == 1 and "cite-undefined" in result.stderr + result.stdout


UNPLACEABLE = CLEAN.replace("  sections = {moe},\n", "") + (
    "@misc{lorem, title = {Lorem ipsum dolor}, author = {Ann Bee}, year = 2020}\n"
    "@misc{resnet, title = {Deep Residual Learning for Image Recognition}, author = {Ann Bee}, year = 2016}\n"
)


def test_an_entry_the_tagger_cannot_place_is_reported_once(project):
    _, found = check(project, UNPLACEABLE)
    tagging = [(f["key"], f["check"]) for f in found if f["check"] in ("untagged-entry", "no-section", "needs-review")]
    assert sorted(tagging) == [
        ("lorem", "no-section"),
        ("resnet", "needs-review"),
        ("shazeer2017", "untagged-entry"),
    ]
    # The message names the entry, as needs-review's does: the text form shows no key field.
    assert next(f["message"] for f in found if f["check"] == "no-section") == "no section could be chosen for 'lorem'"
    # Asked alone, untagged-entry still names every entry without tags.
    _, alone = check(project, UNPLACEABLE, "--checks", "untagged-entry")
    assert sorted(f["key"] for f in alone) == ["lorem", "resnet", "shazeer2017"]


def test_section_coverage_is_checked_only_when_asked(project):
    _, plain = check(project, CLEAN)
    assert not {f["check"] for f in plain} & {"empty-section", "thin-section"}
    _, covered = check(project, CLEAN, "--coverage")
    empty = {f["message"] for f in covered if f["check"] == "empty-section"}
    assert "section 'memory' has no entries" in empty
    assert "section 'moe' has 1 entry" in {f["message"] for f in covered if f["check"] == "thin-section"}


@pytest.mark.parametrize(
    "name, words",
    [
        ("gone.tex", "no such file (check the path given with --tex)"),
        ("blob.tex", "is not a text file (--tex takes a LaTeX file)"),
        ("empty.tex", "is empty (is this the right file? --tex takes a LaTeX file)"),
    ],
)
def test_a_bad_tex_file_is_told_as_the_option_s_not_a_source_s(project, name, words):
    (project / "blob.tex").write_bytes(b"\x7fELF\x02\x01\x00\x00")
    (project / "empty.tex").write_text("")
    (project / "refs.bib").write_text(CLEAN)
    result = run_cli("check", "refs.bib", "--tex", name, cwd=project)
    assert result.returncode == 2 and result.stderr == f"{name}: error: {words}\n"


def test_a_missing_tex_file_stops_the_run_before_the_analysis_reads_a_source(project):
    # The source is missing too: were --tex read after the analysis, the source would be the one told.
    result = run_cli("check", "gone.bib", "--tex", "gone.tex", cwd=project)
    assert result.returncode == 2
    assert result.stderr == "gone.tex: error: no such file (check the path given with --tex)\n"


def test_check_tex_follows_the_documents_inputs_and_reads_its_aux(project):
    (project / "paper" / "sections").mkdir(parents=True)
    (project / "paper" / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\input{sections/intro}\n\\include{sections/gone}\n"
        "\\end{document}\n"
    )
    (project / "paper" / "sections" / "intro.tex").write_text("Text.\n\\citet{shazeer2017} and \\cite{ghost}.\n")
    (project / "paper" / "main.aux").write_text("\\relax\n\\citation{shazeer2017}\n\\citation{viamacro}\n")
    (project / "refs.bib").write_text(CLEAN + CLEAN.replace("shazeer2017", "unused").replace("Outrageously", "Else"))
    result = run_cli(
        "check", "refs.bib", "--tex", "paper/main.tex", "--checks", "cite-undefined,cite-unused,tex-input", cwd=project
    )
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "paper/main.aux:3: error [cite-undefined] 'viamacro' is cited (the last LaTeX run recorded it) but is not in "
        "the bibliography (check the key, or add the entry; compile again if the .aux is older than the document)",
        "paper/main.tex:4: warning [tex-input] \\include{sections/gone}: no such file (paper/sections/gone.tex) "
        "(check the name; the path is relative to the folder of the main file)",
        "paper/sections/intro.tex:2: error [cite-undefined] \\cite of 'ghost', which is not in the bibliography "
        "(check the key, or add the entry)",
        "refs.bib:8: info [cite-unused] 'unused' is never cited (cite it or remove it)",
    ]


def _entry(key: str) -> str:
    return CLEAN.replace("shazeer2017", key).replace("Outrageously", key.capitalize())


# (preamble, end of the body, how the .bbl names an entry, what a left-out chapter still cites).
# BibTeX reads a chapter's \citation from its own .aux, which a run that leaves the chapter out keeps;
# biblatex writes every \abx@aux@cite to the main .aux, which that run rewrites without them.
BIBLIOGRAPHIES = {
    "bibtex": ("", "\\bibliographystyle{plain}\n\\bibliography{../refs}\n", r"\\bibitem\{([^}]*)\}", {"b"}),
    "biblatex": (
        "\\usepackage[backend=biber]{biblatex}\n\\addbibresource{../refs.bib}\n",
        "\\printbibliography\n",
        r"\\entry\{([^}]*)\}",
        set(),
    ),
}


@requires_latex
@pytest.mark.parametrize("bibliography", sorted(BIBLIOGRAPHIES))
def test_with_includeonly_check_tex_counts_the_citations_latex_itself_sees(project, bibliography):
    preamble, end, entry, still_cited = BIBLIOGRAPHIES[bibliography]
    paper = project / "paper"
    paper.mkdir()
    main = "\\documentclass{article}\n" + preamble + "%s\n\\begin{document}\n\\include{one}\n\\include{two}\n"
    main += end + "\\end{document}\n"
    (paper / "main.tex").write_text(main % "% \\includeonly{one}")
    (paper / "one.tex").write_text("\\cite{a}\n")
    (paper / "two.tex").write_text("\\cite{b}\n")
    (project / "refs.bib").write_text("".join(_entry(key) for key in ("a", "b", "c")))

    def latex_saw() -> set[str]:
        compiled = compile_latex(paper, "-g")
        assert compiled.returncode == 0, compiled.stdout[-2000:]
        return set(re.findall(entry, (paper / "main.bbl").read_text()))

    def check_saw() -> tuple[set[str], list[str]]:
        result = run_cli("check", "refs.bib", "--json", "--tex", "paper/main.tex", cwd=project)
        found = json.loads(result.stdout)
        unused = {f["key"] for f in found if f["check"] == "cite-unused"}
        return {"a", "b", "c"} - unused, [f["message"] for f in found if f["check"] in ("cite-undefined", "tex-input")]

    assert latex_saw() == {"a", "b"} == check_saw()[0]
    # Chapter two is left out and edited since: only what an earlier run recorded for it can count.
    (paper / "main.tex").write_text(main % "\\includeonly{one}")
    (paper / "two.tex").write_text("\\cite{c} \\cite{ghost}\n")
    assert latex_saw() == {"a"} | still_cited == check_saw()[0]
    assert check_saw()[1] == []  # ghost is in no file LaTeX reads
    # Without that chapter's .aux nothing speaks for it.
    (paper / "two.aux").unlink()
    assert latex_saw() == {"a"} == check_saw()[0]


def test_check_tex_under_includeonly_with_crlf_a_symlinked_chapter_and_one_outside_the_folder(project):
    paper = project / "paper"
    (paper / "real").mkdir(parents=True)
    (paper / "main.tex").write_bytes(
        b"\\includeonly{linked,../outside}\r\n\\begin{document}\r\n\\include{linked}\r\n\\include{skipped}\r\n"
        b"\\include{../outside}\r\n\\include{../elsewhere}\r\n\\end{document}\r\n"
    )
    (paper / "real" / "target.tex").write_bytes(b"\r\n\\cite{ghost}\r\n")
    (paper / "linked.tex").symlink_to("real/target.tex")
    (paper / "skipped.tex").write_bytes(b"\\cite{skipped}\r\n")
    (project / "outside.tex").write_bytes(b"\\cite{secret}\r\n")
    (project / "refs.bib").write_text(CLEAN)
    result = run_cli(
        "check", "refs.bib", "--tex", "paper/main.tex", "--checks", "cite-undefined,tex-input", cwd=project
    )
    # The listed chapters are read (the link's target, inside the folder) or reported (outside it); the
    # others are not opened at all, as LaTeX does not open them.
    assert result.stderr.splitlines() == [
        "paper/main.tex:5: warning [tex-input] \\include{../outside} names a file outside the folder of "
        "paper/main.tex; it was not followed (give the file with its own --tex to check its citations)",
        "paper/real/target.tex:2: error [cite-undefined] \\cite of 'ghost', which is not in the bibliography "
        "(check the key, or add the entry)",
    ]


def test_an_untagged_entry_whose_tags_sit_in_another_field_is_told_which_option_reads_them(project):
    # JabRef keeps groups, other tools "tags": the sections are there, but not in the field surveytool reads.
    bib = CLEAN.replace("sections = {moe}", "tags = {data_parallel, MoE}")
    _, found = check(project, bib)
    [untagged] = [f for f in found if f["check"] == "untagged-entry"]
    assert untagged["hint"] == (
        "its tags field names the section 'data_parallel': to read tags there, use --tags-field tags; "
        "else the tagger suggests 'moe'"
    )
    # Subject keywords (Zotero) that happen to include a section's title are no tags field.
    subjects = CLEAN.replace("sections = {moe}", "keywords = {Computer Science - Machine Learning, Mixture of Experts}")
    _, found = check(project, subjects)
    [untagged] = [f for f in found if f["check"] == "untagged-entry"]
    assert untagged["hint"] == "the tagger suggests 'moe'"
    _, read_there = check(project, bib, "--tags-field", "tags")
    assert sorted(f["check"] for f in read_there if f["check"] in ("untagged-entry", "tag-variant")) == [
        "tag-variant",
        "tag-variant",
    ]


def test_an_entry_left_to_place_whose_sections_sit_in_another_field_is_told_which_option_reads_them(project):
    # "add a tags field" would have a JabRef user write the groups a second time, in a field of their own.
    bib = UNPLACEABLE.replace("year = 2020}", "year = 2020, groups = {moe}}").replace(
        "year = 2016}", "year = 2016, groups = {memory,model-parallel}}"
    )
    _, found = check(project, bib)
    hints = {f["key"]: (f["check"], f["hint"]) for f in found if f["key"] in ("lorem", "resnet")}
    read_there = "field names the section '{}': to read tags there, use --tags-field groups; else "
    assert hints["lorem"][0] == "no-section"
    assert hints["lorem"][1].startswith("its groups " + read_there.format("moe") + "add a tags field")
    assert hints["resnet"][0] == "needs-review"
    assert hints["resnet"][1].startswith("its groups " + read_there.format("memory") + "add a tags field")
    _, plain = check(project, UNPLACEABLE)  # without such a field, the hint is as before
    assert all("--tags-field" not in (f["hint"] or "") for f in plain)


def test_fix_escapes_a_raw_underscore_or_hash_alone_and_leaves_a_reference_managers_groups(project):
    # The entry's only specials are '_' and '#': the quick test that picks entries to fix let it through.
    bib = CLEAN.replace("Outrageously", "Snake_case Outrageously C#").replace(
        "  sections = {moe},\n", "  sections = {moe},\n  groups = {deep_learning},\n  mendeley-groups = {to_read},\n"
    )
    (project / "refs.bib").write_text(bib, encoding="utf-8")
    fixed = run_cli("check", "refs.bib", "--fix", cwd=project)
    assert fixed.returncode == 0, fixed.stderr
    written = (project / "refs.bib").read_text(encoding="utf-8")
    assert "title = {Snake\\_case Outrageously C\\# Large" in written
    assert "groups = {deep_learning}" in written and "mendeley-groups = {to_read}" in written


def test_a_key_that_cannot_be_cited_is_one_finding_naming_the_key_it_is_written_under(tmp_path):
    bib = tmp_path / "k.bib"
    bib.write_text(
        "@article{macro extra,\n  title = {Tiny},\n  author = {Doe, John},\n  journal = {J},\n  year = 2021,\n}\n",
        encoding="utf-8",
    )
    result = run_cli("check", str(bib))
    [line] = [line for line in result.stderr.splitlines() if "[unusable-key]" in line]
    assert (
        "'macro extra' has a space, which BibTeX or biber does not read in a key" in line
        and "(cite this entry as 'doe2021tiny')" in line
    )


def test_a_joiner_a_persian_or_indic_word_is_spelled_with_is_part_of_the_key_and_an_unseen_first_character_one_finding(
    tmp_path,
):
    # A Persian key typed with its ZWNJ (Shift+Space on a Persian keyboard) and a Hindi one with a ZWJ after the
    # virama are typed so in \cite too: biber, and BibTeX under XeLaTeX or LuaLaTeX, find them. A ZWJ between Latin
    # letters, and a zero-width space, are a paste's leftover no one types.
    entries = {
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645\u06f2\u06f0\u06f2\u06f0": "Persian",
        "\u0915\u094d\u200d\u0937\u0947\u0924\u094d\u0930\u0968\u0966\u0968\u0967": "Hindi",
        "shar\u200dma2020": "Pasted",
        "\u200bzhang2021": "Leading",
        "\u0645\u06cc\u200c": "Trailing",
    }
    bib = "".join(
        f"@article{{{key},\n  author = {{Doe, Jane}},\n  title = {{{title}}},\n  journal = {{J}},\n  year = {{2020}},\n}}\n\n"
        for key, title in entries.items()
    )
    unseen = [("unusable-key", 15), ("unusable-key", 22), ("unusable-key", 29)]
    # With pdfLaTeX a key starting with a Persian letter stays undefined (key-not-ascii); one starting with a
    # zero-width space is told once, as the character to delete.
    not_ascii = [("key-not-ascii", 1), ("key-not-ascii", 8), ("key-not-ascii", 29)]
    for dialect, expected in (("biblatex", unseen), ("bibtex", unseen + not_ascii)):
        _, found = check(tmp_path, bib, "--checks", "unusable-key,key-not-ascii", "--dialect", dialect)
        assert sorted((f["check"], f["line"]) for f in found) == sorted(expected)
    [leading] = [f for f in found if f["line"] == 22]
    assert "U+200B (zero width space)" in leading["message"] and "\\cite{zhang2021}" in leading["message"]


def test_a_negative_thin_is_bad_usage_on_the_command_line_as_in_the_settings(project):
    # [check] thin = -1 was refused, --thin -1 taken (and every section then "thick enough").
    result = run_cli("check", "--thin", "-1", "--coverage", cwd=project)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "--thin" in result.stderr and "-1 is not in the range x>=0" in result.stderr


def test_a_key_with_a_non_ascii_letter_after_the_first_is_kept_and_not_key_not_ascii(tmp_path):
    # Reported as a missing key-not-ascii error; pdfLaTeX writes 'müller2020deep' to the .aux as it is and BibTeX
    # matches it (tests/test_compile.py), so check, build and bib -o keep it without an error.
    zotero = tmp_path / "zotero.bib"
    zotero.write_text(
        "\n@article{müller2020deep,\n\ttitle = {Deep learning for {MoE} routing},\n\tauthor = {Müller, Hans},\n"
        "\tjournal = {J},\n\tyear = {2020},\n}\n",
        encoding="utf-8",
    )
    checked = run_cli("check", str(zotero), "--json", "--checks", "key-not-ascii,unusable-key,key-encoding")
    assert (checked.returncode, json.loads(checked.stdout)) == (0, [])
    built = run_cli("build", str(zotero), "--out", str(tmp_path / "out"))
    assert built.returncode == 0 and "key-not-ascii" not in built.stderr
    assert "\\citet{müller2020deep}" in (tmp_path / "out" / "related_work.tex").read_text(encoding="utf-8")
    written = run_cli("bib", str(zotero), "-o", str(tmp_path / "out.bib"))
    assert written.returncode == 0 and "key-not-ascii" not in written.stderr
    assert "@article{müller2020deep," in (tmp_path / "out.bib").read_text(encoding="utf-8")
    # JabRef saving as ISO8859_1: the key is kept; what is wrong is the encoding, and key-encoding says so.
    jabref = tmp_path / "jabref.bib"
    jabref.write_bytes(zotero.read_text(encoding="utf-8").replace("\n", "\r\n").encode("latin-1"))
    checked = run_cli("check", str(jabref), "--json", "--checks", "key-not-ascii,key-encoding")
    [found] = json.loads(checked.stdout)
    assert (found["check"], found["line"]) == ("key-encoding", 2) and "'müller2020deep'" in found["message"]


def test_two_keys_that_differ_only_in_how_a_letter_is_composed_are_both_kept_with_a_warning(tmp_path):
    # Zotero writes 'müller2020deep' with ü as one character; the same key pasted from a macOS file name or a PDF
    # has u and a combining diaeresis. BibTeX reads two keys, biber one: it skipped the second entry unwarned.
    bib = tmp_path / "refs.bib"
    entry = "@article{{{key},\n\ttitle = {{{title}}},\n\tauthor = {{Müller, Hans}},\n\tjournal = {{J}},\n\tyear = {{2020}},\n}}\n"
    bib.write_text(
        entry.format(key="m\u00fcller2020deep", title="Deep learning")
        + "\n"
        + entry.format(key="mu\u0308ller2020deep", title="Deep networks"),
        encoding="utf-8",
    )
    for dialect in ("bibtex", "biblatex"):
        checked = run_cli("check", str(bib), "--json", "--checks", "duplicate-key", "--dialect", dialect)
        [found] = json.loads(checked.stdout)
        assert (found["line"], found["key"], found["severity"]) == (8, "mu\u0308ller2020deep", "warning")
        assert "a letter in parts here: U+0308" in found["message"] and f"{bib}:1" in found["message"]
    # Both entries keep their keys, byte for byte: retyping one is the user's choice.
    written = run_cli("bib", str(bib), "-o", str(tmp_path / "out.bib"))
    assert written.returncode == 0 and "duplicate-key" in written.stderr
    out = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert "@article{m\u00fcller2020deep," in out and "@article{mu\u0308ller2020deep," in out


def test_a_korean_key_written_as_jamo_beside_the_same_key_in_syllables_names_the_jamo(tmp_path):
    # No combining mark here: NFC joins the conjoining jamo U+1100 U+1175 U+11B7 into the syllable 김.
    entry = "@article{{{key},\n  title = {{{title}}},\n  author = {{Kim, Minsu}},\n  journal = {{J}},\n  year = {{2020}}\n}}\n\n"
    bib = entry.format(key="\u1100\u1175\u11b72020", title="A") + entry.format(key="\uae402020", title="B")
    _, found = check(tmp_path, bib, "--checks", "duplicate-key")
    assert [(f["line"], f["key"]) for f in found] == [(8, "\uae402020")]
    assert "a letter in parts there: U+1100, U+1175, U+11B7" in found[0]["message"]
