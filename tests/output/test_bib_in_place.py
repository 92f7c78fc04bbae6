"""In place means in place: `bib --in-place` and `check --fix` keep every byte they were not asked to change."""

import json
import os
import re
import shutil
import stat
from pathlib import Path

import pytest
from helpers import DATA, IN_CI, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from surveytool.cli.app import app

CORPUS = DATA / "corpus" / "biber"
ENTRY = (
    "@article{{{key},{nl}  title = {{{title}}},{nl}  author = {{{author}}},{nl}  journal = {{J}},{nl}  year = 2020,{nl}"
    "  sections = {{{tags}}}{nl}}}{nl}"
)


def entry(
    key: str, title: str = "Sparse experts", author: str = "Müller, Hans", tags: str = "MoE", nl: str = "\n"
) -> str:
    return ENTRY.format(key=key, title=title, author=author, tags=tags, nl=nl)


def in_process(*args: str) -> tuple[int, str]:
    """Run the command in this process (the property tests run it hundreds of times)."""
    result = CliRunner().invoke(app, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def reported_lines(output: str, path: Path) -> list[int]:
    """The lines of the entries a run says it changed: "path:line: key: what"."""
    return [
        int(m.group(1))
        for m in re.finditer(rf"^(?:fixed )?{re.escape(str(path))}:(\d+): [^ ]+: (?!added$)", output, re.M)
    ]


def _entry_chunks(data: bytes) -> list[bytes]:
    """``data`` cut before every line that starts an entry (the first chunk is what comes before them)."""
    lines = data.splitlines(keepends=True)
    starts = [0] + [i for i, line in enumerate(lines) if line.lstrip().startswith(b"@")] + [len(lines)]
    return [b"".join(lines[a:b]) for a, b in zip(starts, starts[1:], strict=False)]


def assert_only_reported_entries_changed(before: bytes, after: bytes, lines: list[int]) -> None:
    """Every entry not starting on a reported line keeps its bytes; new entries come only after the last one,
    which may gain the line ending it lacked. Compared entry by entry: a line diff of two near-identical
    entries can pair lines of one with the other."""
    old, new = _entry_chunks(before), _entry_chunks(after)
    assert len(new) >= len(old), (old, new)
    old_lines = before.splitlines(keepends=True)
    starts = [i + 1 for i, line in enumerate(old_lines) if line.lstrip().startswith(b"@")]
    reported = {starts.index(line) + 1 for line in lines if line in starts}
    for index, (was, now) in enumerate(zip(old, new, strict=False)):
        if index in reported:
            continue
        last = index == len(old) - 1
        assert was == now or (last and now.startswith(was) and not now[len(was) :].strip()), (index, was, now, lines)


def test_a_latin1_file_stays_latin1_and_only_the_tag_changes(tmp_path):
    bib = tmp_path / "latin1.bib"
    before = (entry("a", title="Größe", nl="\r\n") + "\r\n" + entry("b", tags="moe", nl="\r\n")).encode("latin-1")
    bib.write_bytes(before)
    code, output = in_process("bib", "--in-place", str(bib))
    assert "read as Latin-1" in output
    assert bib.read_bytes() == before.replace(b"{MoE}", b"{moe}")


def test_a_windows_1252_file_is_read_with_its_quotes_and_dashes_and_stays_windows_1252(tmp_path):
    # Read as Latin-1, Windows' curly quotes were control characters, written into every output.
    bib = tmp_path / "ansi.bib"
    before = (entry("a", title="“Giant” models – a naïve view", nl="\r\n") + "\r\n" + entry("b", tags="moe")).encode(
        "cp1252"
    )
    bib.write_bytes(before)
    code, output = in_process("bib", "--in-place", str(bib))
    assert "read as Windows-1252" in output
    assert bib.read_bytes() == before.replace(b"{MoE}", b"{moe}")
    run_cli("bib", str(bib), "-o", str(tmp_path / "out.bib"), check=True)
    assert "title = {“Giant” models – a naïve view}" in (tmp_path / "out.bib").read_text(encoding="utf-8")


def test_a_windows_1252_file_with_an_undefined_byte_keeps_its_curly_quotes(tmp_path):
    # One byte Windows-1252 leaves undefined (0x81) made the whole file Latin-1: its quotes were C1 controls.
    bib = tmp_path / "ansi.bib"
    before = entry("a", title="“Giant” models").encode("cp1252") + b"% notes \x81\n\n" + entry("b").encode("cp1252")
    bib.write_bytes(before)
    code, output = in_process("bib", "--in-place", str(bib))
    assert "read as Windows-1252" in output
    assert bib.read_bytes() == before.replace(b"{MoE}", b"{moe}")
    run_cli("bib", str(bib), "-o", str(tmp_path / "out.bib"), check=True)
    assert "title = {“Giant” models}" in (tmp_path / "out.bib").read_text(encoding="utf-8")


def test_stray_windows_1252_quotes_in_a_utf8_file_are_read_as_quotes(tmp_path):
    # A quote pasted from a Windows editor into a UTF-8 file: read as a C1 control, it was written raw.
    bib = tmp_path / "mixed.bib"
    quoted = entry("a", title="Über <Giant> models").encode().replace(b"<", b"\x93").replace(b">", b"\x94")
    bib.write_bytes(entry("b").encode() + b"\n" + quoted)
    run_cli("bib", str(bib), "-o", str(tmp_path / "out.bib"), check=True)
    assert "title = {Über “Giant” models}" in (tmp_path / "out.bib").read_text(encoding="utf-8")


def test_one_stray_byte_keeps_every_byte_and_is_named_with_its_line(tmp_path):
    bib = tmp_path / "mixed.bib"
    before = entry("a").encode() + b"% caf\xe9 notes\n\n" + entry("b", title="Über alles").encode()
    bib.write_bytes(before)
    code, output = in_process("bib", "--in-place", str(bib))
    assert f"{bib}:8: warning [mixed-encoding] UTF-8 file with a byte that is not UTF-8" in output
    after = bib.read_bytes()
    assert after == before.replace(b"{MoE}", b"{moe}")
    assert "Müller".encode() in after and b"caf\xe9" in after


def test_a_gbk_key_is_written_as_its_characters_by_bib_output(tmp_path):
    bib = tmp_path / "gbk.bib"
    bib.write_bytes(entry("张三2020", title="GPU 集群").encode("gbk"))
    run_cli("bib", "gbk.bib", "-o", "out.bib", cwd=tmp_path)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert "@article{张三2020," in written and "集群" in written


def test_a_utf16_file_with_a_bom_is_read_and_stays_utf16(tmp_path):
    bib = tmp_path / "utf16.bib"
    before = b"\xff\xfe" + entry("a").encode("utf-16-le")
    bib.write_bytes(before)
    assert run_cli("parse", "--json", "utf16.bib", cwd=tmp_path).returncode == 0
    in_process("bib", "--in-place", str(bib))
    assert bib.read_bytes() == b"\xff\xfe" + entry("a", tags="moe").encode("utf-16-le")


def test_a_utf16_file_without_a_bom_is_read_and_stays_as_it_was_saved(tmp_path):
    # Some Windows tools save UTF-16 with no byte-order mark; it was refused as "not a text file".
    for codec in ("utf-16-le", "utf-16-be"):
        bib = tmp_path / f"{codec}.bib"
        bib.write_bytes(entry("mueller2020", title="Über Pipelines").encode(codec))
        parsed = run_cli("parse", "--json", bib.name, cwd=tmp_path)
        assert parsed.returncode == 0, parsed.stderr
        assert [e["key"] for e in json.loads(parsed.stdout)] == ["mueller2020"]
        in_process("bib", "--in-place", str(bib))
        assert bib.read_bytes() == entry("mueller2020", title="Über Pipelines", tags="moe").encode(codec)
    # Zero bytes in no such pattern are still no text.
    (tmp_path / "binary.bib").write_bytes(b"\x00\x01\x02\x00" * 64)
    refused = run_cli("parse", "binary.bib", cwd=tmp_path)
    assert refused.returncode == 2 and "is not a text file" in refused.stderr


def test_a_stray_nul_in_a_text_file_is_named_by_its_line_and_the_file_is_left_alone(tmp_path):
    bib = tmp_path / "refs.bib"
    data = b"@article{n1, title={Pipeline parallel training}, year=2020}\n@article{n2, title={Data \x00 parallel}, year=2021}\n"
    bib.write_bytes(data)
    for command in (("check", "refs.bib"), ("bib", "--in-place", "refs.bib")):
        refused = run_cli(*command, cwd=tmp_path)
        assert refused.returncode == 2 and "Traceback" not in refused.stderr
        assert refused.stderr.startswith("refs.bib:2: error: holds a NUL byte on this line"), refused.stderr
    assert bib.read_bytes() == data


def test_a_utf8_bom_and_crlf_endings_survive_an_inserted_tag_line(tmp_path):
    bib = tmp_path / "bom.bib"
    untagged = "@article{plain,\r\n  title = {Mixture of experts layers},\r\n  year = 2020\r\n}\r\n"
    bib.write_bytes(b"\xef\xbb\xbf" + untagged.encode())
    code, output = in_process("bib", "--in-place", str(bib))
    after = bib.read_bytes()
    assert after.startswith(b"\xef\xbb\xbf@article{plain,\r\n")
    assert re.search(rb"(?<!\r)\n", after) is None, after  # no bare LF anywhere
    assert b"sections = {" in after


def test_a_symlinked_bib_updates_its_target_and_stays_a_link(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    target = shared / "library.bib"
    target.write_text(entry("a"), encoding="utf-8")
    link = tmp_path / "refs.bib"
    link.symlink_to(target)
    in_process("bib", "--in-place", str(link))
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "{moe}" in target.read_text(encoding="utf-8")
    assert not [p for p in shared.iterdir() if p.name.endswith(".tmp")]


def test_a_hard_linked_bib_is_updated_under_every_name(tmp_path):
    # A rename replaced the name given with a new file: its other name kept the old text, one library forked in two.
    real = tmp_path / "real.bib"
    real.write_text(entry("a"), encoding="utf-8")
    other = tmp_path / "hard.bib"
    os.link(real, other)
    in_process("bib", "--in-place", str(other))
    assert os.path.samefile(real, other) and "{moe}" in real.read_text(encoding="utf-8")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_the_file_mode_is_kept_by_bib_in_place_and_check_fix(tmp_path):
    bib = tmp_path / "private.bib"
    bib.write_text(entry("a"), encoding="utf-8")
    bib.chmod(0o640)
    in_process("bib", "--in-place", str(bib))
    assert stat.S_IMODE(bib.stat().st_mode) == 0o640
    bib.write_text(entry("a"), encoding="utf-8")
    in_process("check", "--fix", str(bib))
    assert "{moe}" in bib.read_text(encoding="utf-8")
    assert stat.S_IMODE(bib.stat().st_mode) == 0o640


def test_a_read_only_bib_or_chapter_is_not_replaced_and_the_message_says_how_to_allow_it(tmp_path):
    # A rename goes through a file's mode: bib --in-place and build replaced files their owner had protected.
    bib = tmp_path / "protected.bib"
    bib.write_text(entry("a"), encoding="utf-8")
    bib.chmod(0o444)
    result = run_cli("bib", "--in-place", "protected.bib", cwd=tmp_path)
    assert result.returncode == 2 and "protected.bib: error: is read-only" in result.stderr, result.stderr
    assert "chmod u+w" in result.stderr and bib.read_text(encoding="utf-8") == entry("a")
    assert stat.S_IMODE(bib.stat().st_mode) == 0o444
    bib.chmod(0o644)
    run_cli("build", "protected.bib", "--out", "out", cwd=tmp_path, check=True)
    chapter = tmp_path / "out" / "related_work.tex"
    protected = chapter.read_text(encoding="utf-8")
    chapter.chmod(0o444)
    references = (tmp_path / "out" / "references.bib").read_bytes()
    bib.write_text(entry("a") + "\n" + entry("b"), encoding="utf-8")
    result = run_cli("build", "protected.bib", "--out", "out", cwd=tmp_path)
    assert result.returncode == 2 and "related_work.tex: error: is read-only" in result.stderr, result.stderr
    assert chapter.read_text(encoding="utf-8") == protected
    assert (tmp_path / "out" / "references.bib").read_bytes() == references  # the outputs move together or not at all


def test_new_files_get_the_umask_mode_not_mkstemp_s(tmp_path):
    (tmp_path / "my.bib").write_text(entry("a"), encoding="utf-8")
    old = os.umask(0o022)
    try:
        run_cli("bib", "my.bib", "-o", "out.bib", cwd=tmp_path, check=True)
        run_cli("build", "--out", "built", cwd=tmp_path)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "out.bib").stat().st_mode) == 0o644
    assert stat.S_IMODE((tmp_path / "built" / "references.bib").stat().st_mode) == 0o644


def test_a_bare_macro_tags_field_is_replaced_not_doubled(tmp_path):
    bib = tmp_path / "macro.bib"
    bib.write_text("@article{a,\n  title = {Sparse experts},\n  year = 2020,\n  sections = MoE\n}\n", encoding="utf-8")
    in_process("bib", "--in-place", str(bib))
    text = bib.read_text(encoding="utf-8")
    assert text.count("sections") == 1 and "sections = {moe}" in text


def test_check_fix_never_braces_a_title_macro(tmp_path):
    bib = tmp_path / "macro.bib"
    before = '@string{IWMM = "IWMM"}\n\n@inproceedings{a,\n  title = IWMM,\n  booktitle = {Proc},\n  year = 2001,\n}\n'
    bib.write_text(before, encoding="utf-8")
    for _ in range(2):
        in_process("check", "--fix", str(bib))
        assert bib.read_text(encoding="utf-8") == before


def test_the_sort_key_of_noopsort_is_not_part_of_the_year(tmp_path):
    (tmp_path / "sort.bib").write_text(
        "@book{k,\n  title = {Book},\n  author = {A. B.},\n  publisher = {P},\n  year = {{\\noopsort{1973c}}1981},\n}\n",
        encoding="utf-8",
    )
    records = json.loads(run_cli("parse", "--json", "sort.bib", cwd=tmp_path, check=True).stdout)
    assert records[0]["year"] == "1981"


@pytest.mark.parametrize("content", [b"", b"% a new project's bibliography\n\n"])
def test_an_empty_bib_is_valid(tmp_path, content):
    (tmp_path / "empty.bib").write_bytes(content)
    result = run_cli("check", "--json", "--disable", "empty-section,thin-section", "empty.bib", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


# --- the property: nothing outside the reported entries changes -------------------------------

ENCODINGS = st.sampled_from(["utf-8", "utf-8-sig", "latin-1", "mixed", "utf-16"])
TAGS = st.sampled_from(["MoE", "moe", "Mixture of Experts", "memory", ""])
TITLES = st.sampled_from(["Sparse experts", "Größe und Übermut", "GPU memory for BERT", "a {GPU} study", "Ünïcödé"])
COMMENTS = st.sampled_from(
    [
        "",
        "% notes\n",
        "% café\n",
        "\n\n",
        "free text between entries\n",
        "@Comment{jabref-meta: databaseType:bibtex;\n}\n",
        "@comment{\n@misc{off, title = {Switched off}, sections = {MoE}}\n}\n",
        '@String{icml = "International Conference on Machine Learning"}\n',
    ]
)


@st.composite
def bib_files(draw) -> bytes:
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    count = draw(st.integers(1, 5))
    parts = []
    for index in range(count):
        parts.append(draw(COMMENTS).replace("\n", nl))
        text = entry(f"k{index}", title=draw(TITLES), tags=draw(TAGS), nl=nl)
        if draw(st.booleans()):  # a bare macro, as some users write one tag
            text = text.replace("sections = {MoE}", "sections = MoE")
        parts.append(text.replace(f"  sections = {{}}{nl}", ""))
    text = nl.join(parts) + draw(st.sampled_from(["", nl, nl * 3]))
    encoding = draw(ENCODINGS)
    if encoding == "mixed":
        return text.encode("utf-8") + "% Bücher\n".encode("latin-1")
    if encoding == "utf-16":
        return b"\xff\xfe" + text.encode("utf-16-le")
    return text.encode(encoding)


def _decoded_lines(data: bytes) -> bytes:
    """UTF-16 compared as UTF-8 lines: a line of UTF-16 is not a line of bytes."""
    return data[2:].decode("utf-16-le").encode("utf-8", "surrogatepass") if data.startswith(b"\xff\xfe") else data


@pytest.mark.parametrize("command", [("bib", "--in-place"), ("check", "--fix")])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=bib_files())
def test_in_place_edits_change_no_byte_outside_the_reported_entries(tmp_path, command, data):
    bib = tmp_path / "prop.bib"
    bib.write_bytes(data)
    code, output = in_process(*command, str(bib))
    after = bib.read_bytes()
    assert after[:3] == data[:3] or not data.startswith((b"\xef\xbb\xbf", b"\xff\xfe"))
    assert_only_reported_entries_changed(_decoded_lines(data), _decoded_lines(after), reported_lines(output, bib))


def _corpus_changes(tmp_path: Path, command: tuple[str, ...]) -> list[str]:
    broken = []
    for original in sorted(CORPUS.glob("*.bib")):
        copy = tmp_path / original.name
        shutil.copyfile(original, copy)
        before = copy.read_bytes()
        code, output = in_process(*command, str(copy))
        try:
            assert_only_reported_entries_changed(before, copy.read_bytes(), reported_lines(output, copy))
        except AssertionError:
            broken.append(original.name)
        copy.unlink()
    return broken


@pytest.mark.parametrize("command", [("bib", "--in-place"), ("check", "--fix")])
def test_in_place_edits_of_biber_s_test_files_change_only_reported_entries(tmp_path, command):
    assert _corpus_changes(tmp_path, command) == []


JABREF = "@Comment{jabref-meta: databaseType:bibtex;\n}\n"
SWITCHED_OFF = "@Comment{\n@article{old,\n  title = {An entry switched off},\n  year = 1990\n}\n}\n"


def test_entries_inside_a_comment_stay_commented_and_comments_keep_their_text(tmp_path):
    (tmp_path / "jabref.bib").write_text(JABREF + "\n" + SWITCHED_OFF + "\n" + entry("live"), encoding="utf-8")
    run_cli("bib", "jabref.bib", "-o", "out.bib", cwd=tmp_path, check=True)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    # BibTeX reads an entry inside a comment (commented-entry): its @ is written (at), the comment's own kept.
    assert JABREF in written and SWITCHED_OFF.replace("@article", "(at)article") in written
    assert "@article{old," not in written
    records = json.loads(run_cli("parse", "--json", "jabref.bib", cwd=tmp_path, check=True).stdout)
    assert [r["key"] for r in records] == ["live"]


def test_a_stray_byte_inside_an_edited_entry_stays_that_byte(tmp_path):
    bib = tmp_path / "mixed.bib"
    before = entry("a", title="Caf\udce9 and Müller").encode("utf-8", "surrogateescape")
    bib.write_bytes(before)
    in_process("bib", "--in-place", str(bib))
    assert bib.read_bytes() == before.replace(b"{MoE}", b"{moe}")


@pytest.mark.skipif(os.geteuid() != 0 and not IN_CI, reason="only root can give a file to another user")
def test_the_owner_of_a_file_is_kept(tmp_path):
    bib = tmp_path / "theirs.bib"
    bib.write_text(entry("a"), encoding="utf-8")
    os.chown(bib, 1, 1)
    in_process("check", "--fix", str(bib))
    assert "{moe}" in bib.read_text(encoding="utf-8")
    assert (bib.stat().st_uid, bib.stat().st_gid) == (1, 1)


def test_a_latin1_key_is_named_as_a_utf8_tool_sees_it_and_as_the_outputs_spell_it(tmp_path: Path):
    source = tmp_path / "legacy.bib"
    source.write_bytes("@book{test\u00e9,\n  title = {A Book},\n  year = {2001},\n}\n".encode("latin-1"))
    result = run_cli("bib", str(source), "-o", str(tmp_path / "out.bib"))
    assert result.returncode == 1, result.stderr
    assert "@book{test\u00e9," in (tmp_path / "out.bib").read_text(encoding="utf-8")
    [message] = [line for line in result.stderr.splitlines() if "entry key" in line]
    assert message.startswith(f"{source}:1: error [key-encoding] entry key 'test\u00e9'")
    assert "a UTF-8 tool sees 'test\ufffd'" in message


def test_in_a_utf8_file_with_a_stray_byte_only_a_key_holding_one_is_named_and_as_a_utf8_tool_sees_it(tmp_path):
    source = tmp_path / "mixed.bib"
    good = "@book{m\u00fcller2020,\n  title = {A Book \u2013 One},\n  year = {2020},\n}\n".encode()
    stray = b"@book{x\x96y,\n  title = {Caf\xe9},\n  year = {2001},\n}\n"  # Windows-1252's en dash, a Latin-1 e
    source.write_bytes(good + b"\n" + stray)
    result = run_cli("check", str(source))
    keys = [line for line in result.stderr.splitlines() if "[key-encoding]" in line]
    assert len(keys) == 1 and f"{source}:6: error [key-encoding] entry key 'x\u2013y'" in keys[0]
    assert "a UTF-8 tool sees 'x\ufffdy'" in keys[0]


def test_a_new_child_of_a_proceedings_in_the_file_goes_before_it_and_every_old_byte_stays(tmp_path):
    # BibTeX inherits from a crossref parent only when it comes after the child.
    volume = "@proceedings{osdi2020,\r\n  title = {OSDI 2020},\r\n  editor = {Ed Itor},\r\n  year = {2020}\r\n}\r\n"
    mine = tmp_path / "mine.bib"
    old = entry("aaa2020", tags="moe", nl="\r\n") + "\r\n" + volume
    mine.write_bytes(old.encode("utf-8"))
    other = tmp_path / "other.bib"
    other.write_text(
        "@inproceedings{zheng2020ansor,\n  author = {Zheng, Lianmin},\n  title = {Ansor: Generating"
        " High-Performance Tensor Programs},\n  crossref = {OSDI2020},\n  sections = {hardware-systems}\n}\n",
        encoding="utf-8",
    )
    run_cli("bib", str(other), "--in-place", str(mine), check=True)
    text = mine.read_bytes().decode("utf-8")
    assert text.index("{zheng2020ansor,") < text.index("@proceedings{osdi2020,")
    assert text.replace(text[text.index("@inproceedings{zheng2020ansor,") : text.index("@proceedings")], "") == old
    assert "\n" not in text.replace("\r\n", "")  # the new entry takes the file's line endings


OTHER_STRINGS = """@string{icmlx = {International Conference on Machine Learning}}
@string{conf = "NeurIPS"}
@string{jmlr = "JMLR"}
@inproceedings{other2021, author = {Doe, J}, title = {Pipeline training}, booktitle = icmlx # " 2021", year = 2021}
@inproceedings{b1, author = {Roe, J}, title = {Data parallel training}, booktitle = conf, year = 2021}
@article{c1, author = {Coe, J}, title = {Sparse experts}, journal = jmlr, year = 2022}
"""
MINE_STRINGS = (
    '@string{conf = "ICML"}\n@string{jmlr = "JMLR"}\n@misc{a1, title = {Gradient compression}, booktitle = conf}\n'
)


def test_an_entry_added_from_another_file_spells_out_the_macros_this_file_defines_otherwise_or_not_at_all(tmp_path):
    mine, other = tmp_path / "mine.bib", tmp_path / "other.bib"
    mine.write_text(MINE_STRINGS, encoding="utf-8")
    other.write_text(OTHER_STRINGS, encoding="utf-8")
    run_cli("bib", "--in-place", str(mine), str(other), check=True)
    written = mine.read_text(encoding="utf-8")
    assert written.startswith(MINE_STRINGS.replace("{a1,", "{a1, sections = {communication},"))
    assert "booktitle = {International Conference on Machine Learning 2021}," in written  # icmlx: not in this file
    assert "booktitle = {{NeurIPS}}," in written  # conf: this file's says ICML
    assert "journal = jmlr," in written  # defined here as there: the macro stays
    checked = run_cli("check", str(mine), "--checks", "undefined-string")
    assert checked.returncode == 0, checked.stderr


def test_a_macro_two_sources_define_differently_is_spelled_out_in_each_entry_that_uses_it(tmp_path):
    mine, other, out = tmp_path / "mine.bib", tmp_path / "other.bib", tmp_path / "out.bib"
    mine.write_text(MINE_STRINGS, encoding="utf-8")
    other.write_text(OTHER_STRINGS, encoding="utf-8")
    run_cli("bib", str(mine), str(other), "-o", str(out), check=True)
    written = out.read_text(encoding="utf-8")
    # BibTeX reads every entry with the last @string{conf}: each entry gets its own file's text instead.
    assert "booktitle = {{ICML}}," in written and "booktitle = {{NeurIPS}}," in written
    assert 'booktitle = icmlx # " 2021",' in written and "journal = jmlr," in written


def test_a_month_one_file_redefines_is_spelled_out_so_other_files_keep_their_own_month(tmp_path):
    (tmp_path / "fr.bib").write_text('@string{jan = "Janvier"}\n@misc{fr1, title = {Fr}, month = jan}\n', "utf-8")
    (tmp_path / "en.bib").write_text("@misc{en1, title = {En}, month = jan}\n", encoding="utf-8")
    run_cli("bib", "fr.bib", "en.bib", "-o", "out.bib", cwd=tmp_path, check=True)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    # BibTeX would read every "month = jan" as the @string written above them.
    assert "month = {January}," in written and "month = {Janvier}," in written and "month = jan" not in written


def test_a_key_used_twice_is_named_in_the_run_s_messages_as_the_file_writes_it(tmp_path):
    bib = tmp_path / "mine.bib"
    bib.write_text(
        entry("dup", title="Pipeline parallelism for giant models", tags="")
        + "\n"
        + entry(" dup ", title="Gradient compression at scale", author="Roe, Rick", tags=""),
        encoding="utf-8",
    )
    code, output = in_process("bib", "--in-place", str(bib))
    assert code == 0, output
    # bib -o and build write the second under the key 'dupb'; the user's file still says 'dup' on both.
    assert re.findall(r"^\S+:(\d+): (\S+): tags", output, re.M) == [("1", "dup"), ("9", "dup")]
    assert "dupb" not in bib.read_text(encoding="utf-8")
