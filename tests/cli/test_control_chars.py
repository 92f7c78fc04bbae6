"""Control characters (ESC, BEL, C1) and bidi controls (U+202E) in a .bib: shown escaped on the terminal, never
written raw where a terminal or an editor shows them."""

import json
import os
import subprocess
import sys

from helpers import run_cli

ESC, BEL = "\x1b", "\x07"
TITLE_KEY = f"k{ESC}]0;TITLE{BEL}x"  # sets the terminal's window title when printed raw


def _raw_controls(text: str) -> list[str]:
    return sorted({c for c in text if (ord(c) < 32 and c not in "\t\n") or 0x7F <= ord(c) <= 0x9F})


def test_findings_show_a_key_s_and_a_value_s_escape_sequences_escaped(tmp_path):
    (tmp_path / "refs.bib").write_text(
        f"@article{{{TITLE_KEY},\n  title = {{A Title}},\n  author = {{Smith, John}},\n"
        f"  journal = {{J}},\n  year = {{20{ESC}[1m20}},\n}}\n",
        encoding="utf-8",
    )
    result = run_cli("check", "refs.bib", cwd=tmp_path)
    assert _raw_controls(result.stderr) == []
    assert "'k\\x1b]0;TITLE\\x07x'" in result.stderr  # the key as it is, shown
    assert "'20\\x1b[1m20'" in result.stderr  # year-malformed quotes the value


ENTRY = "@article{{{key},\n  title = {{A Title}},\n  author = {{Smith, John}},\n  journal = {{J}},\n  year = {{2020}},\n}}\n"


def _unusable(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "[unusable-key]" in line]


def test_a_key_holding_an_escape_sequence_or_a_bidi_override_is_written_under_a_new_key(tmp_path):
    rtl = "abc\u202etxt.exe"  # shown as abcexe.txt
    bib = ENTRY.format(key=TITLE_KEY) + ENTRY.format(key=rtl).replace("Smith", "Jones")
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    result = run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert _raw_controls(written) == [] and "\u202e" not in written
    assert written.count("@article{") == 2
    first, second = _unusable(result.stderr)
    assert "entry key 'k\\x1b]0;TITLE\\x07x' has the control character \\x1b" in first
    assert "entry key 'abc\\u202etxt.exe' has the control character \\u202e" in second
    build = run_cli("build", "refs.bib", "--out", "out", "--no-reuse", cwd=tmp_path)
    assert len(_unusable(build.stderr)) == 2
    for path in (tmp_path / "out").iterdir():
        text = path.read_text(encoding="utf-8")
        assert _raw_controls(text) == [] and "\u202e" not in text, path.name


def test_a_string_name_holding_an_escape_sequence_is_written_as_the_fields_using_it_are(tmp_path):
    bib = f'@string{{j{ESC}[31m = "Journal of X"}}\n' + ENTRY.format(key="smith2020").replace("{J}", f"j{ESC}[31m")
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    result = run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert _raw_controls(written) == []
    assert '@string{j[31m = "Journal of X"}' in written and "journal = j[31m," in written
    assert "refs.bib:1: error [unusable-key] @string name 'j\\x1b[31m' has the control character \\x1b" in result.stderr


def test_the_chapter_s_comment_lines_show_control_and_bidi_characters_escaped(tmp_path):
    entry = ENTRY.format(key="smith2020").replace(
        "{J},", f"{{J}},\n  abstract = {{Fast {ESC}[5mtraining\u202e txt.exe}},"
    )
    (tmp_path / "refs.bib").write_text(entry, encoding="utf-8")
    run_cli("build", "refs.bib", "--out", "out", "--no-reuse", cwd=tmp_path)
    chapter = (tmp_path / "out" / "related_work.tex").read_text(encoding="utf-8")
    [snippet] = [line for line in chapter.splitlines() if line.startswith("% Snippet")]
    assert snippet.endswith(": Fast \\x1b[5mtraining\\u202e txt.exe")
    assert _raw_controls(chapter) == [] and "\u202e" not in chapter


def test_a_bidi_override_in_a_value_is_a_warning_on_its_line_and_the_value_is_kept(tmp_path):
    entry = ENTRY.format(key="smith2020").replace("{A Title}", "{Report abc\u202efdp.exe}")
    rtl_mark = ENTRY.format(key="cohen2021").replace("{J}", "{\u05d4\u05d3\u05d5\u05d7 \u200f(2)}")
    (tmp_path / "refs.bib").write_text(entry + rtl_mark, encoding="utf-8")
    result = run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path)
    [warning] = [line for line in result.stderr.splitlines() if "[bidi-control]" in line]
    assert warning.startswith("refs.bib:2: warning [bidi-control] field 'title' of 'smith2020' holds U+202E")
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert "abc\u202efdp.exe" in written and "\u200f" in written  # kept: the user decides


def test_the_markdown_reading_list_shows_a_value_s_escape_sequences_escaped(tmp_path):
    entry = ENTRY.format(key="smith2020").replace("{A Title}", f"{{Fast {ESC}]52;c;cHdu{BEL} Training}}")
    (tmp_path / "refs.bib").write_text(entry.replace("Smith", f"Sm{ESC}[31mith"), encoding="utf-8")
    run_cli("export", "refs.bib", "-o", "list.md", cwd=tmp_path)
    listed = (tmp_path / "list.md").read_text(encoding="utf-8")
    assert _raw_controls(listed) == []
    assert "Fast \\\\x1b\\]52;c;cHdu\\\\x07 Training" in listed  # \x1b as Markdown writes a backslash


CSI = "\x9b"  # C1: ESC [ in one character to terminals that read 8-bit controls


def test_a_c1_control_is_dropped_from_a_value_as_an_escape_is_and_printed_literally_in_rewritten_latex(tmp_path):
    entry = ENTRY.format(key="smith2020").replace("{A Title}", f"{{Fast {CSI}2JTraining}}")
    dangerous = ENTRY.format(key="jones2021").replace("{A Title}", f"{{Slow {CSI}2J\\input{{x}}}}")
    (tmp_path / "refs.bib").write_text(entry + dangerous.replace("Smith", "Jones"), encoding="utf-8")
    run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert _raw_controls(written) == []
    assert "title = {Fast 2JTraining}," in written
    # Printed as TeX's ^^ notation spells it, as ESC prints ^^[.
    assert "Slow \\textasciicircum{}\\textasciicircum{}9b2J\\textbackslash{}input" in written


def test_a_string_s_and_a_preamble_s_control_characters_are_dropped_as_a_field_s_are(tmp_path):
    bib = (
        f"@string{{j = {{Journal {ESC}[2J{CSI}2Jof X}}}}\n"
        f'@preamble{{"\\providecommand{{\\noopsort}}[1]{{{CSI}0m}}"}}\n' + ENTRY.format(key="smith2020")
    )
    (tmp_path / "refs.bib").write_text(bib.replace("{J}", "j"), encoding="utf-8")
    run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert _raw_controls(written) == []
    assert "@string{j = {Journal [2J2Jof X}}" in written
    assert '@preamble{"\\providecommand{\\noopsort}[1]{0m}"}' in written


def test_json_on_standard_output_escapes_the_controls_and_bidi_controls_json_leaves_raw(tmp_path):
    year, title = f"20{CSI}2J\x7f20", "Report abc\u202efdp.exe"
    entry = ENTRY.format(key="smith2020").replace("{2020}", "{" + year + "}").replace("{A Title}", "{" + title + "}")
    (tmp_path / "refs.bib").write_text(entry, encoding="utf-8")
    for command, quoted in (("check", [year]), ("parse", [year, title])):  # year-malformed quotes the year
        result = run_cli(command, "refs.bib", "--json", cwd=tmp_path)
        assert _raw_controls(result.stdout) == [] and "\u202e" not in result.stdout, command
        assert "\\u009b2J\\u007f" in result.stdout, command
        parsed = json.dumps(json.loads(result.stdout), ensure_ascii=False)  # the same values, escaped or not
        assert all(value in parsed for value in quoted), command
    assert "abc\\u202efdp" in result.stdout


def test_a_file_name_or_an_argument_holding_escape_sequences_is_printed_escaped_wherever_it_is_quoted(tmp_path):
    (tmp_path / "refs.bib").write_text(ENTRY.format(key="smith2020"), encoding="utf-8")
    title = f"{ESC}]0;TITLE{BEL}{CSI}2J"
    missing = run_cli("check", f"no{title}.bib", cwd=tmp_path)  # a top-level error naming the path
    built = run_cli("build", "refs.bib", "--out", f"out{title}", "--no-reuse", cwd=tmp_path)  # wrote out.../
    usage = run_cli("bib", "refs.bib", f"--out{title}", cwd=tmp_path)  # click's own error
    for result in (missing, built, usage):
        assert _raw_controls(result.stdout + result.stderr) == [], result.args
    assert missing.returncode == 2 and "no\\x1b]0;TITLE\\x07\\x9b2J.bib: error: no such file" in missing.stderr
    assert "wrote out\\x1b]0;TITLE\\x07\\x9b2J/" in built.stdout
    assert usage.returncode == 2 and "--out\\x1b]0;TITLE\\x07\\x9b2J" in usage.stderr


def test_a_bib_on_standard_output_keeps_its_bidi_controls_as_the_written_file_does(tmp_path):
    entry = ENTRY.format(key="smith2020").replace("{A Title}", "{Report abc\u202efdp.exe}")
    (tmp_path / "refs.bib").write_text(entry, encoding="utf-8")
    printed = run_cli("bib", "refs.bib", "-o", "-", cwd=tmp_path).stdout
    run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path)
    assert printed == (tmp_path / "out.bib").read_text(encoding="utf-8") and "abc\u202efdp.exe" in printed


def test_a_bib_on_standard_output_is_the_written_file_s_utf_8_whatever_the_console_s_encoding(tmp_path):
    # A console's code page (cp1252 on Windows, or PYTHONIOENCODING=ascii) lacks most characters of a .bib.
    entry = ENTRY.format(key="smith2020").replace("{A Title}", "{\u00dcber \u4e2d\u6587 Training}")
    (tmp_path / "refs.bib").write_text(entry, encoding="utf-8")
    run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path, check=True)
    for encoding in ("ascii", "cp1252"):
        env = {**os.environ, "PYTHONIOENCODING": encoding}
        command = [sys.executable, "-m", "surveytool", "bib", "refs.bib", "-o", "-"]
        printed = subprocess.run(command, cwd=tmp_path, capture_output=True, env=env)
        assert printed.returncode == 0 and b"Traceback" not in printed.stderr, printed.stderr
        assert printed.stdout == (tmp_path / "out.bib").read_bytes(), encoding


def test_a_bib_on_standard_output_keeps_a_comment_s_form_feed_as_the_written_file_does(tmp_path):
    # Emacs's page break (^L) in a comment: `bib -o - > a.bib` wrote the four characters \x0c.
    (tmp_path / "refs.bib").write_text("@comment{Part one\f}\n" + ENTRY.format(key="smith2020"), encoding="utf-8")
    printed = subprocess.run(
        [sys.executable, "-m", "surveytool", "bib", "refs.bib", "-o", "-"], cwd=tmp_path, capture_output=True
    )
    run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path, check=True)
    written = (tmp_path / "out.bib").read_bytes()
    assert printed.stdout == written and b"\f" in written


def test_messages_are_escaped_on_a_console_python_deems_ascii_which_click_writes_around(tmp_path):
    name = f"x{ESC}]0;PWNED{BEL}.bib"
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    result = subprocess.run(
        [sys.executable, "-m", "surveytool", "check", name], cwd=tmp_path, capture_output=True, env=env
    )
    assert result.returncode == 2 and b"PWNED" in result.stderr
    assert b"\x1b" not in result.stderr and b"\x07" not in result.stderr


def test_a_bidi_control_in_a_string_s_name_or_value_or_a_preamble_is_warned_at_its_line_and_kept(tmp_path):
    name = "j\u202egro"  # the fields that use it keep the character: renamed, the @string was undefined there
    bib = (
        f"@string{{{name} = {{Journal}}}}\n@string{{t = {{abc\u202efdp.exe}}}}\n"
        '@preamble{"\\providecommand{\\x}{\u2066x}"}\n' + ENTRY.format(key="smith2020").replace("{J}", name)
    )
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    result = run_cli("bib", "refs.bib", "-o", "out.bib", cwd=tmp_path)
    warned = [line.split(" holds ")[0] for line in result.stderr.splitlines() if "[bidi-control]" in line]
    assert warned == [
        "refs.bib:1: warning [bidi-control] the name of @string 'j\\u202egro'",
        "refs.bib:2: warning [bidi-control] the value of @string 't'",
        "refs.bib:3: warning [bidi-control] @preamble",
        "refs.bib:7: warning [bidi-control] field 'journal' of 'smith2020'",
    ]
    assert "[unusable-key]" not in result.stderr and "[undefined-string]" not in result.stderr
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert f"@string{{{name} = {{Journal}}}}" in written and f"journal = {name}," in written


def test_the_csl_json_export_escapes_the_bidi_controls_json_leaves_raw(tmp_path):
    title = "Report abc\u202efdp.exe"
    (tmp_path / "refs.bib").write_text(ENTRY.format(key="smith2020").replace("{A Title}", "{" + title + "}"), "utf-8")
    run_cli("export", "refs.bib", "-f", "csl-json", "-o", "refs.json", "-q", cwd=tmp_path)
    written = (tmp_path / "refs.json").read_text(encoding="utf-8")
    assert "\u202e" not in written and "abc\\u202efdp" in written
    assert json.loads(written)[0]["title"] == title


BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


def test_messages_show_a_file_name_s_bidi_controls_and_marks_escaped_on_both_streams(tmp_path):
    # "Trojan Source" in a message: r<U+202E>fdp.bib shows as rbib.pdf, turning the finding after it around.
    (tmp_path / "r\u202efdp.bib").write_text(ENTRY.format(key="smith2020"), encoding="utf-8")
    written = run_cli("bib", "r\u202efdp.bib", "-o", "o\u2067ut.bib", cwd=tmp_path)
    assert written.stdout == "1 entry written to o\\u2067ut.bib\n"
    assert "r\\u202efdp.bib:1: warning [no-section]" in written.stderr
    missing = run_cli("check", "missing\u200f.bib", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.startswith("missing\\u200f.bib: error: no such file")
    usage = run_cli("check", "--x\u061c\u202d", cwd=tmp_path)
    assert usage.returncode == 2 and "No such option: --x\\u061c\\u202d" in usage.stderr
    for result in (written, missing, usage):
        assert not set(BIDI) & set(result.stdout + result.stderr)


def _stdout_on_a_terminal(*args: str, cwd) -> bytes:
    """What a terminal showed of a run whose standard output is that terminal."""
    import pty

    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "surveytool", *args], stdout=follower, cwd=cwd)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the run closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    process.wait(timeout=60)
    os.close(leader)
    return shown


def test_complete_o_dash_pipes_the_file_s_bytes_and_shows_its_escape_sequences_on_a_terminal(tmp_path):
    (tmp_path / "known.bib").write_text(
        "@article{k, title = {Deep Learning}, author = {LeCun, Yann}, journal = {Nature}, year = {2015}}\n"
    )
    # A Latin-1 file, as JabRef wrote them, whose @comment holds a clear-screen sequence.
    mine = f"@comment{{{ESC}[2J{ESC}]0;pwned{BEL}}}\n@article{{lecun, author = {{Y. Le Cün}}, title = {{Deep learning}}, year = 2015}}\n"
    (tmp_path / "my.bib").write_bytes(mine.encode("latin-1"))
    piped = subprocess.run(
        [sys.executable, "-m", "surveytool", "complete", "my.bib", "--catalog", "known.bib", "-o", "-"],
        cwd=tmp_path,
        capture_output=True,
    )
    completed = mine.replace("year = 2015}", "year = 2015, journal = {Nature}}").encode("latin-1")
    assert piped.stdout == completed  # the bytes -o FILE writes
    shown = _stdout_on_a_terminal("complete", "my.bib", "--catalog", "known.bib", "-o", "-", cwd=tmp_path)
    assert ESC.encode() not in shown and BEL.encode() not in shown
    assert b"@comment{\\x1b[2J\\x1b]0;pwned\\x07}" in shown and "Le Cün".encode() in shown
