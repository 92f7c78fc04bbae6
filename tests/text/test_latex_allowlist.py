"""A hostile .bib can neither run, read nor leak anything; LaTeX on the allowlist is written as the user wrote it."""

import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from helpers import DATA, compile_latex, requires_latex, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from surveytool.bibtex.fields import encode_field
from surveytool.bibtex.reader import read_bibtex
from surveytool.bibtex.values import safe_bibtex_value
from surveytool.output.latexmk import paranoid_environment
from surveytool.text.latex import UNKNOWN_CHAR_MACRO, encode_bibtex_value, escape_text
from surveytool.text.latex_allowlist import LatexPolicy, decode_carets, find_offences
from surveytool.text.latex_commands import MATH_COMMANDS, NEVER_ALLOWED, TEXT_COMMANDS
from surveytool.text.latex_inert import render_inert

HOSTILE = DATA / "hostile"
SECRET = "TOPSECRET-8d1f"
FIELD_TRICKS = (
    "caret5c",
    "inputiffileexists",
    "verbatiminput",
    "links",
    "writespace",
    "caretinname",
    "concatenated",
    "caretinput",
    "csname",
    "activechar",
    "packagereaders",
    "mathmode",
    "nested",
    "accentcaret",
    "plusminus",
    "filecontents",
    "everyfield",
    "combined",
    "controlchar",
    "charcode",
)
STRING_TRICKS = ("splitacrossstrings", "dotlessi", "caretpieces", "usesleak")


def _findings(*names: str) -> list[str]:
    result = run_cli("check", *(str(HOSTILE / name) for name in names), "--checks", "dangerous-macro")
    return [line for line in result.stderr.splitlines() if "[dangerous-macro]" in line]


def test_every_trick_in_a_field_is_reported_with_its_file_and_line():
    found = _findings("fields.bib")
    for key in FIELD_TRICKS:
        assert any(f"of '{key}'" in line for line in found), key
    assert all(re.match(r"^\S*fields\.bib:\d+: error \[dangerous-macro\] ", line) for line in found)
    everyfield = {
        re.search(r"field '(\w+)' of 'everyfield'", line).group(1) for line in found if "'everyfield'" in line
    }
    assert everyfield >= {
        "author",
        "editor",
        "title",
        "journal",
        "year",
        "month",
        "pages",
        "url",
        "doi",
        "note",
        "abstract",
    }


def test_a_message_names_the_exact_text_and_what_tex_reads_it_as():
    line = next(line for line in _findings("fields.bib") if "'caretinname'" in line)
    assert (
        "^^72 (TeX reads it as r)" in line
        and "TeX reads the value as \\immediate\\write18{touch pwned-caretinname}" in line
    )


def test_tricks_in_macros_preambles_comments_and_broken_blocks_are_reported():
    found = _findings("strings.bib")
    for key in STRING_TRICKS:
        assert any(f"of '{key}'" in line for line in found), key
    preambles = [line for line in found if "@preamble has" in line]
    assert len(preambles) == 6  # all but the \noopsort definition (one sits in a % comment, which BibTeX reads)
    assert any("defines \\leak, which is not allowed" in line for line in preambles)
    assert any("comment (BibTeX reads the commands after an @ in it)" in line for line in found)
    # An entry with a repeated field is read as BibTeX reads it (its first value): its field is checked as any field.
    assert any("field 'note' of 'duplicatefield' has" in line and "\\write" in line for line in found)


def test_latex_on_the_allowlist_is_neither_reported_nor_changed_by_bib(tmp_path):
    assert _findings("allowed.bib") == []
    out = tmp_path / "out.bib"
    run_cli("bib", str(HOSTILE / "allowed.bib"), "-o", str(out), check=True)
    written = out.read_text(encoding="utf-8")
    for line in (HOSTILE / "allowed.bib").read_text(encoding="utf-8").splitlines():
        if re.match(r"\s+\w+ = ", line):
            assert line.strip() in written, line


def test_a_comment_without_an_at_sign_is_left_alone(tmp_path):
    bib = tmp_path / "jabref.bib"
    bib.write_text(
        "@misc{k,\n  title = {T},\n  year = {2020},\n}\n\n@Comment{jabref-meta: fileDirectory:C:\\Users\\me\\input;}\n",
        encoding="utf-8",
    )
    assert run_cli("check", str(bib), "--checks", "dangerous-macro").returncode == 0
    run_cli("bib", str(bib), "-o", str(tmp_path / "out.bib"), check=True)
    assert "C:\\Users\\me\\input;}" in (tmp_path / "out.bib").read_text(encoding="utf-8")


def test_a_backslash_symbol_before_letters_is_not_a_command():
    # TUGboat prints "\let" as {\tt\char`\\let}: a control symbol \\ followed by letters.
    for value in ("{\\tt\\char`\\\\let}", "\\texttt{\\\\input}", "a\\\\input b"):
        assert find_offences(value) == []
        assert safe_bibtex_value("{" + value + "}") == "{" + value + "}"


def test_a_value_is_checked_as_bibtex_joins_it():
    strings = {"dotless": '"\\i"', "rest": "{nput{x}}"}
    assert safe_bibtex_value("dotless # rest", strings) == "{\\textbackslash{}input{x}}"
    assert safe_bibtex_value('"\\i" # "nput{x}"') == "{\\textbackslash{}input{x}}"
    assert safe_bibtex_value('"^" # "^5cinput{x}"') == "{\\textasciicircum{}\\textasciicircum{}5cinput{x}}"
    assert safe_bibtex_value("dotless", strings) == "dotless"  # \i alone is allowed: written as it was
    chain = {"m0": '"\\input{x}"', **{f"m{i}": f"m{i - 1}" for i in range(1, 60)}}
    assert safe_bibtex_value("m59", chain) == "{\\textbackslash{}input{x}}"  # however many macros deep


def test_identifiers_from_services_and_csl_json_are_kept_but_cannot_carry_a_command():
    assert encode_field("doi", "10.1000/a_b%20<c>#d") == "{10.1000/a_b%20<c>#d}"
    assert encode_field("eprint", "2101.00001\\input/etc/passwd") == "{2101.00001\\textbackslash{}input/etc/passwd}"
    assert (
        encode_field("url", "https://x.org/^^5cinput")
        == "{https://x.org/\\textasciicircum{}\\textasciicircum{}5cinput}"
    )


def test_caret_notation_is_decoded_as_tex_decodes_it():
    assert decode_carets("^^5cinput") == "\\input"
    assert decode_carets("\\w^^72ite") == "\\write"
    assert decode_carets("^^\x1cinput") == "\\input"  # a character below 64 gains 64
    assert decode_carets("^^5e^5cinput") == "\\input"  # a decoded caret starts another sequence
    assert decode_carets("^^5g") == "ug"  # not two lowercase hex digits: "5" alone, plus 64
    assert decode_carets("^^i") == ")"  # a character from 64 on loses 64


def test_no_lowercased_or_uppercased_allowed_name_is_a_command_that_reads_or_runs():
    # Styles change the case of titles (BibTeX's change.case$ does not spare command names outside braces).
    for name in TEXT_COMMANDS | MATH_COMMANDS:
        assert name.lower() not in NEVER_ALLOWED and name.upper() not in NEVER_ALLOWED, name


def test_a_user_can_allow_a_command_and_its_preamble_definition_but_not_one_that_reads_files(tmp_path):
    bib = tmp_path / "mine.bib"
    bib.write_text(
        '@preamble{"\\newcommand{\\mycmd}{My Command}"}\n'
        "@misc{k,\n  author = {A, B},\n  title = {Using \\mycmd{} here},\n  year = {2020},\n}\n",
        encoding="utf-8",
    )
    assert run_cli("check", str(bib), "--checks", "dangerous-macro").returncode == 1
    (tmp_path / "surveytool.toml").write_text('[latex]\nallow = ["\\\\mycmd"]\n', encoding="utf-8")
    assert run_cli("check", str(bib), "--checks", "dangerous-macro", cwd=tmp_path).returncode == 0
    run_cli("bib", str(bib), "-o", str(tmp_path / "out.bib"), cwd=tmp_path, check=True)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    # As \providecommand: a \newcommand of a name defined before stops pdfLaTeX.
    assert (
        '@preamble{"\\providecommand{\\mycmd}{My Command}"}' in written and "title = {Using \\mycmd{} here}" in written
    )
    (tmp_path / "surveytool.toml").write_text('[latex]\nallow = ["\\\\input"]\n', encoding="utf-8")
    refused = run_cli("check", str(bib), cwd=tmp_path)
    assert refused.returncode == 2 and "\\input" in refused.stderr and "Traceback" not in refused.stderr


def test_a_preamble_definition_that_calls_a_name_a_preamble_defines_is_inert_and_the_document_compiles(tmp_path):
    # \\noopsort calling itself kept pdflatex busy for ever, with BibTeX and with biber.
    assert find_offences("\\newcommand{\\noopsort}[1]{} \\def\\printfirst#1#2{#1}", preamble=True) == []
    looping = "\\def\\noopsort{\\noopsort} \\newcommand{\\printfirst}[2]{\\switchargs{#1}{#2}}"
    assert [o.text for o in find_offences(looping, preamble=True)] == ["\\noopsort", "\\switchargs"]
    bib = tmp_path / "loop.bib"
    bib.write_text(
        f'@preamble{{ "{looping}" }}\n'
        "@article{smith2020, author = {Smith, John}, title = {{\\noopsort{a}}T}, journal = {J}, year = {2020}}\n",
        encoding="utf-8",
    )
    found = run_cli("check", str(bib), "--checks", "dangerous-macro").stderr
    assert "a @preamble may define it but not use it" in found, found
    out = tmp_path / "out"
    assert run_cli("build", str(bib), "--out", str(out), "--no-figure", "--no-plot").returncode == 1  # the error
    started = time.monotonic()
    compiled = compile_latex(out)
    assert compiled.returncode == 0, compiled.stdout[-2000:]
    assert time.monotonic() - started < 120


_WORDS = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 .,;:!?()[]-'`/=+*<>@|\"éüøß東", min_size=1, max_size=12
)
_ACCENT = st.builds(
    lambda accent, letter: f"{{\\{accent}{letter}}}",
    st.sampled_from(list("'\"^`~=.") + ["c ", "v ", "u "]),
    st.sampled_from(list("aeiouAEIOUcsz")),
)
_SYMBOL = st.sampled_from(
    [
        "\\&",
        "\\%",
        "\\$",
        "\\#",
        "\\_",
        "\\{x\\}",  # BibTeX counts escaped braces too: a lone one is an unbalanced value, not allowed LaTeX
        "\\,",
        "~",
        "--",
        "---",
        "``",
        "''",
        "\\ss{}",
        "{\\o}",
        "{\\i}",
        "\\textbackslash{}",
        "\\TeX{}",
        "\\\\",
        "{\\tt\\char`\\\\let}",
    ]
)
_MATH = st.builds(
    lambda body: "$" + body + "$",
    st.lists(
        st.sampled_from(
            ["x", "^2", "_i", "\\alpha", "\\mathbf{X}", "+", "\\log n", "\\frac{1}{2}", "\\leq", "{\\rm ok}", "\\infty"]
        ),
        min_size=1,
        max_size=5,
    ).map(" ".join),
)
_PIECE = st.one_of(_WORDS, _ACCENT, _SYMBOL, _MATH)


def _with_commands(pieces):
    return st.builds(
        lambda command, inner: f"\\{command}{{{inner}}}",
        st.sampled_from(["emph", "textbf", "textit", "textsc", "texttt", "mbox", "textsuperscript", "noopsort"]),
        pieces.map("".join),
    )


_ALLOWED_VALUE = st.lists(
    st.one_of(_PIECE, _with_commands(st.lists(_PIECE, max_size=4)), st.just("\\url{https://example.org/a_b%20c}")),
    min_size=1,
    max_size=8,
).map(" ".join)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ALLOWED_VALUE)
def test_any_value_made_of_allowed_latex_round_trips_byte_for_byte(value):
    assert find_offences(value) == []
    assert safe_bibtex_value("{" + value + "}") == "{" + value + "}"


_FORBIDDEN = st.one_of(
    st.sampled_from(sorted(NEVER_ALLOWED)).map(lambda name: "\\" + name),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=10)
    .filter(lambda name: not LatexPolicy().allows(name))  # the encoder's symbols (\\top) are allowed too
    .map(lambda name: "\\" + name),
    st.sampled_from(
        ["^^5c", "^^5cinput", "^^M", "^^7f", "\\(", "\\[", "\\url{file:///etc/passwd}", "\\href{run:x}{y}"]
    ),
)


def _brace_depths(text: str) -> list[int]:
    """The depth after each brace that is not an escaped one, less the empty groups ``{}`` that end a command."""
    depths, depth = [], 0
    for match in re.finditer(r"\\[{}\\]|\{\}|[{}]", text):
        if match.group() in ("{", "}"):
            depth += 1 if match.group() == "{" else -1
            depths.append(depth)
    return depths


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECE, max_size=5), _FORBIDDEN, st.lists(_PIECE, max_size=5))
def test_any_value_with_a_disallowed_control_sequence_is_reported_and_written_inert(before, forbidden, after):
    value = " ".join([*before, forbidden, *after])
    offences = find_offences(value)
    assert offences
    inert = render_inert(value, offences)
    assert find_offences(inert) == []  # nothing left for TeX to run
    assert _brace_depths(inert) == _brace_depths(value)  # BibTeX counts braces: the same groups, at the same depths


def test_escaping_a_long_non_ascii_snippet_takes_linear_time():
    snippet = ("Müller’s naïve café — “東京” résumé Ørsted Łukasz " * 220_000)[:10_000_000]
    started = time.perf_counter()
    escaped = escape_text(snippet)
    assert time.perf_counter() - started < 30  # pylatexenc alone takes quadratic time: over 300 s
    assert escaped.startswith('M{\\"u}ller{\\textquoteright}s na{\\"\\i}ve caf{\\\'e} {\\textemdash}')
    assert escaped.count("\\stchar{6771}") == snippet.count("東")


def _pdf_text(folder: Path) -> str:
    return subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "main.pdf", "-"], cwd=folder, capture_output=True, text=True, check=True
    ).stdout


@requires_latex
@pytest.mark.latex
@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])  # biber decodes LaTeX (\\char92) that BibTeX copies
def test_the_hostile_corpus_compiles_under_shell_escape_and_runs_reads_and_leaks_nothing(tmp_path, dialect):
    for name in ("fields.bib", "strings.bib", "allowed.bib"):
        shutil.copy(HOSTILE / name, tmp_path / name)
    out = tmp_path / "out"
    sources = ("fields.bib", "strings.bib", "allowed.bib")
    built = run_cli("build", *sources, "--out", str(out), "--dialect", dialect, cwd=tmp_path)
    assert built.returncode == 1 and built.stderr.count("[dangerous-macro]") >= 40, built.stderr[-2000:]
    (out / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")  # where openin_any=p still lets TeX read
    compiled = compile_latex(out, "-shell-escape")
    assert compiled.returncode == 0, compiled.stdout[-3000:]
    assert not re.search(r"^! ", (out / "main.log").read_text(encoding="latin-1"), re.M)
    assert "error message" not in (out / "main.blg").read_text(encoding="latin-1")
    assert sorted(p.name for p in tmp_path.rglob("pwned*")) == []  # no payload ran
    text = _pdf_text(out)
    assert SECRET not in text
    assert "pwned-nested" in text and "\\input" in text  # printed literally instead
    assert "How to print \\let and TEX in a LATEX TUGboat title" in " ".join(text.split())  # allowed LaTeX typesets
    names = text if dialect == "bibtex" else (out / "main.bbl").read_text(encoding="utf-8")  # biblatex: "et al."
    assert "Müller" in names


@requires_latex
@pytest.mark.latex
def test_latexmk_runs_with_file_access_kept_to_the_build_folder(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text(SECRET, encoding="utf-8")
    folder = tmp_path / "doc"
    folder.mkdir()
    (folder / "main.tex").write_text(
        "\\documentclass{article}\\begin{document}\\input{" + str(outside) + "}\\end{document}\n", encoding="utf-8"
    )
    subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "main.tex"],
        cwd=folder,
        env=paranoid_environment(),
        capture_output=True,
        timeout=120,
    )
    log = (folder / "main.log").read_text(encoding="latin-1")
    assert "not found" in log and SECRET not in log


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60))
def test_what_surveytool_escapes_itself_reads_back_as_allowed_latex(text):
    # Snippets and online metadata are escaped, never checked: the same allowlist must pass them.
    assert find_offences(encode_bibtex_value(text)) == []
    assert find_offences(escape_text(text), LatexPolicy(frozenset({UNKNOWN_CHAR_MACRO}))) == []


def test_macros_that_double_at_every_level_are_reported_without_expanding_them_all(tmp_path):
    # With a command in it (one without can hold nothing for TeX to run, and is not expanded at all).
    definitions = ['@string{a0 = "\\relax ' + "x" * 1000 + '"}'] + [
        f"@string{{a{i} = a{i - 1} # a{i - 1}}}" for i in range(1, 40)
    ]
    bomb = tmp_path / "bomb.bib"
    bomb.write_text("\n".join(definitions) + "\n@misc{k,\n  title = a39,\n  year = {2020},\n}\n", encoding="utf-8")
    started = time.perf_counter()
    found = run_cli("check", str(bomb), "--checks", "dangerous-macro")
    assert time.perf_counter() - started < 30
    assert found.returncode == 1 and "field 'title' of 'k'" in found.stderr and "expand too far" in found.stderr


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet="\\^{}$#%~ \"'`iInpuwrte5c69x\x1c\n", max_size=40))
def test_whatever_a_value_holds_its_written_form_leaves_nothing_for_tex_to_decode_or_run(value):
    written = render_inert(value)
    assert "^^" not in written  # so TeX reads it exactly as the tokenizer did
    assert find_offences(written) == []


def test_a_rebuild_after_an_edit_writes_a_macro_from_another_file_inert_as_a_fresh_build_does(tmp_path):
    (tmp_path / "strings.bib").write_text(
        '@string{evil = "\\immediate\\write18{touch pwned}"}\n\n'
        "@misc{first,\n  author = {One, A},\n  title = {First},\n  year = {2020},\n}\n",
        encoding="utf-8",
    )
    mine = tmp_path / "mine.bib"
    mine.write_text(
        "@misc{second,\n  author = {Two, B},\n  title = {Second},\n  note = {harmless},\n  year = {2021},\n}\n",
        encoding="utf-8",
    )
    assert run_cli("build", "strings.bib", "mine.bib", "--out", "out", cwd=tmp_path).returncode == 1  # the @string
    mine.write_text(mine.read_text(encoding="utf-8").replace("{harmless}", "evil"), encoding="utf-8")
    rebuilt = run_cli("build", "strings.bib", "mine.bib", "--out", "out", cwd=tmp_path)
    assert rebuilt.returncode == 1 and "@string 'evil'" in rebuilt.stderr  # reported where it is defined
    assert "entries kept as they were" in rebuilt.stdout  # the edited entry alone was read again
    fresh = run_cli("build", "strings.bib", "mine.bib", "--out", "fresh", "--no-reuse", cwd=tmp_path)
    assert fresh.returncode == 1
    written = (tmp_path / "out" / "references.bib").read_text(encoding="utf-8")
    assert "note = {\\textbackslash{}immediate\\textbackslash{}write18{touch pwned}}" in written
    assert written == (tmp_path / "fresh" / "references.bib").read_text(encoding="utf-8")


def test_a_key_that_holds_a_command_is_written_under_a_new_key_and_the_message_names_both(tmp_path: Path):
    # BibTeX copies keys into the .bbl verbatim, so \nocite{*} would run a command hidden in one.
    (tmp_path / "shared.bib").write_text(
        "@article{ok^^5cinput,\n  title = {Another One},\n  author = {Smith, John},\n  year = {2021},\n}\n"
        "@article{a\\relax,\n  title = {Second Paper Here},\n  author = {Doe, Jane},\n  year = {2020},\n}\n",
        encoding="utf-8",
    )
    result = run_cli("bib", "shared.bib", "-o", "out.bib", cwd=tmp_path)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    keys = re.findall(r"^@\w+\{([^,]*),", written, re.M)
    assert len(keys) == 2 and not any("\\" in key or "^^" in key for key in keys)
    for old in ("ok^^5cinput", "a\\relax"):
        [message] = [line for line in result.stderr.splitlines() if f"entry key '{old}' holds a TeX command" in line]
        assert any(f"new key '{new}'" in message for new in keys)
    # The new keys are pinned: a second run writes the same ones.
    again = run_cli("bib", "shared.bib", "-o", "out.bib", cwd=tmp_path)
    assert re.findall(r"^@\w+\{([^,]*),", (tmp_path / "out.bib").read_text(encoding="utf-8"), re.M) == keys
    assert again.returncode == result.returncode


# Values, and whether TeX would read a command outside the allowlist in them (macros below).
_FIELD_VALUES = [
    ("{plain}", False),
    ('"quoted"', False),
    ("clean", False),
    ("jan", False),
    ("2020", False),
    ("{x} # clean", False),
    ("{\\relax}", False),
    ("evil", True),
    (" evil", True),
    ("clean # evil", True),
    ("{a} # deep", True),
    ("{a^} # {^5cinput}", True),
    ("{\\input{x}}", True),
    ("{^^5cinput}", True),
]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(_FIELD_VALUES), min_size=1, max_size=5))
def test_a_field_is_reported_exactly_when_tex_would_read_a_command_outside_the_allowlist_in_it(fields):
    strings = '@string{clean = "Plain"}\n@string{evil = "\\input{x}"}\n@string{deep = clean # evil}\n'
    entry = "@misc{k,\n" + "".join(f"  f{i} = {value},\n" for i, (value, _) in enumerate(fields)) + "}\n"
    findings = read_bibtex(strings + entry, "x.bib").findings
    reported = {m.group(1) for f in findings if (m := re.match(r"field '(\w+)' of 'k'", f.message))}
    assert reported == {f"f{i}" for i, (_, dangerous) in enumerate(fields) if dangerous}
