"""The author's prose survives rebuilds; hand edits elsewhere are never overwritten silently."""

import hashlib
import re

from helpers import ROOT, run_cli

from surveytool.output.notes_regions import carry_over, edited_outside_regions, regions, stamp
from surveytool.output.prose import ProseDrafts, keep_prose

GENERATED = """\\section{A}
% surveytool: begin notes a
% surveytool: end notes a
text
% surveytool: begin notes b
% surveytool: end notes b
"""


def test_regions_are_found_and_carried_over_even_when_reordered():
    old = GENERATED.replace("notes a\n% surveytool: end", "notes a\nMy prose on A.\n\\cite{x}\n% surveytool: end")
    assert regions(old) == {"a": "My prose on A.\n\\cite{x}\n", "b": ""}
    reordered = "% surveytool: begin notes b\n% surveytool: end notes b\nnew\n% surveytool: begin notes a\n% surveytool: end notes a\n"
    merged = carry_over(reordered, old)
    assert merged.kept == ("a",) and regions(merged.text)["a"] == "My prose on A.\n\\cite{x}\n"


def test_prose_of_a_removed_section_is_parked_not_lost():
    old = GENERATED.replace("notes b\n% surveytool: end", "notes b\nKeep me.\n% surveytool: end")
    merged = carry_over("% surveytool: begin notes a\n% surveytool: end notes a\n", old)
    assert merged.orphaned == ("b",)
    assert "Keep me." in regions(merged.text)["orphaned"]
    again = carry_over("% surveytool: begin notes a\n% surveytool: end notes a\n", merged.text)
    assert "Keep me." in regions(again.text)["orphaned"]  # and stays parked on later rebuilds


def test_checksum_tells_region_edits_from_other_edits():
    stamped = stamp(GENERATED)
    assert not edited_outside_regions(stamped)
    assert not edited_outside_regions(stamped.replace("notes a\n%", "notes a\nprose\n%"))
    assert edited_outside_regions(stamped.replace("text", "txet"))
    assert edited_outside_regions(GENERATED)  # no checksum: not ours


def test_rebuild_keeps_prose_when_papers_are_added(tmp_path):
    out = tmp_path / "out"
    run_cli("build", "--out", str(out), check=True)
    chapter = out / "related_work.tex"
    text = chapter.read_text(encoding="utf-8")
    prose = "Mixture-of-experts models route tokens to experts \\citep{lepikhin2021gshard}.\n"
    text = text.replace("% surveytool: begin notes moe\n", "% surveytool: begin notes moe\n" + prose, 1)
    chapter.write_text(text, encoding="utf-8")
    extra = tmp_path / "extra.txt"
    extra.write_text(
        "Related papers: x\n\nWe route each token to a single expert in a sparsely activated mixture-of-experts "
        "transformer and balance the load of experts with an auxiliary loss during training…\n",
        encoding="utf-8",
    )
    seeds = [str(p) for p in sorted((ROOT / "seeds").glob("*.txt"))]
    result = run_cli("build", *seeds, str(extra), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "kept your notes in moe" in result.stderr
    rebuilt = chapter.read_text(encoding="utf-8")
    assert regions(rebuilt)["moe"] == prose
    assert "anon-route" in rebuilt and not edited_outside_regions(rebuilt)


def test_edits_outside_regions_are_refused_without_force_and_backed_up_with_it(tmp_path):
    out = tmp_path / "out"
    run_cli("build", "--out", str(out), check=True)
    chapter = out / "related_work.tex"
    edited = chapter.read_text(encoding="utf-8").replace("present \\emph", "describe \\emph", 1)
    chapter.write_text(edited, encoding="utf-8")
    before = {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()}
    (tmp_path / "extra.bib").write_text("@misc{extra, title = {A new entry}, year = 2024}\n", encoding="utf-8")
    refused = run_cli("build", "--out", str(out), str(tmp_path / "extra.bib"))
    assert refused.returncode == 2
    assert re.search(r"related_work\.tex:\d+: error: was edited outside its notes regions", refused.stderr)
    # Nothing was written: not the chapter, not the outputs made before the refusal, no temporary file.
    assert {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()} == before
    forced = run_cli("build", "--out", str(out), "--force")
    assert forced.returncode == 0
    assert (out / "related_work.tex.bak").read_text(encoding="utf-8") == edited
    assert "old version kept as" in forced.stderr


def test_quiet_leaves_out_that_notes_were_kept_but_still_says_what_was_set_aside(tmp_path):
    out = tmp_path / "out"
    run_cli("build", "--out", str(out), check=True)
    chapter = out / "related_work.tex"
    text = chapter.read_text(encoding="utf-8")
    chapter.write_text(
        text.replace("% surveytool: begin notes moe\n", "% surveytool: begin notes moe\nMine.\n"), "utf-8"
    )
    for command in (["build", "--out", str(out)], ["draft", "-o", str(chapter)]):
        loud, quiet = run_cli(*command), run_cli(*command, "--quiet")
        assert "kept your notes in moe" in loud.stderr
        assert quiet.returncode == 0 and quiet.stderr == ""
    edited = chapter.read_text(encoding="utf-8").replace("present \\emph", "describe \\emph", 1)
    chapter.write_text(edited, "utf-8")
    line = next(n for n, text in enumerate(edited.splitlines(), start=1) if "describe \\emph" in text)
    forced = run_cli("build", "--out", str(out), "--force", "--quiet")
    assert forced.returncode == 0
    assert forced.stderr.splitlines() == [
        f"{chapter}: edited outside its notes regions; old version kept as {chapter}.bak, "
        f"the first line that differs: {line}"
    ]


def test_the_refusal_names_the_line_edited_by_hand_in_a_file_saved_with_crlf(tmp_path):
    out = tmp_path / "out"
    run_cli("build", "--out", str(out), check=True)
    chapter = out / "related_work.tex"
    lines = chapter.read_text(encoding="utf-8").splitlines()
    edited = next(n for n, line in enumerate(lines) if line.startswith("\\subsection"))
    lines[edited] += " % my remark"
    first_region = lines.index(next(line for line in lines if line.startswith("% surveytool: begin notes")))
    lines.insert(first_region + 1, "My notes, where they belong.")  # above the edit: its line moves down one
    chapter.write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8"))
    refused = run_cli("build", "--out", str(out))
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"{chapter}:{edited + 2}: error: was edited outside its notes regions")


def test_markers_count_only_at_the_start_of_a_line():
    text = (
        "x % surveytool: begin notes a\n% surveytool: end notes a\n"
        "% surveytool: begin notes b\nmine\n% surveytool: end notes b\n"
    )
    assert regions(text) == {"b": "mine\n"}
    stamped = stamp(text)
    assert not edited_outside_regions(stamped)
    assert edited_outside_regions("see " + stamped)  # the checksum line no longer starts a line


def test_what_an_editor_does_to_white_space_outside_the_notes_is_no_edit():
    stamped = stamp(GENERATED.replace("text", "  indented text") + "\\end{x}\n")
    for saved in (
        stamped.rstrip("\n"),  # the last line end removed
        stamped + "\n\n",
        stamped.replace("  indented", "\tindented"),
        stamped.replace("end notes a\n", "end notes a  \n"),
        stamped.replace("text\n", "text \n\n"),
    ):
        assert not edited_outside_regions(saved), saved
    assert edited_outside_regions(stamped.replace("indented text", "indentedtext"))
    # A chapter stamped with the checksum of its generated part as written (earlier versions) is no edit either.
    generated = stamped.split("\n", 1)[1]  # its regions are empty
    exact = hashlib.sha1(generated.encode("utf-8")).hexdigest()
    assert not edited_outside_regions(f"% surveytool: checksum {exact}\n" + generated)


def test_a_rebuild_after_an_editor_reformatted_white_space_keeps_the_notes_and_says_where_a_real_edit_is(tmp_path):
    out = tmp_path / "out"
    run_cli("build", "--out", str(out), check=True)
    chapter = out / "related_work.tex"
    marker = "% surveytool: begin notes moe\n"
    prose = "Experts\twith  two spaces.  \n"
    saved = chapter.read_text(encoding="utf-8").replace(marker, marker + prose)
    saved = re.sub(r"(?m)^  ", "\t", saved).rstrip("\n").replace("end notes moe\n", "end notes moe \n")
    chapter.write_text(saved, encoding="utf-8")
    rebuilt = run_cli("build", "--out", str(out))
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert regions(chapter.read_text(encoding="utf-8"))["moe"] == prose and not (out / "related_work.tex.bak").exists()
    lines = re.sub(r"(?m)^  ", "\t", chapter.read_text(encoding="utf-8")).splitlines()
    edited = next(n for n, line in enumerate(lines) if line.startswith("\\subsection"))
    lines[edited] += " my remark"
    chapter.write_text("\n".join(lines), encoding="utf-8")
    refused = run_cli("build", "--out", str(out))
    assert refused.returncode == 2 and refused.stderr.startswith(f"{chapter}:{edited + 1}: error: was edited")


def test_an_emptied_chapter_is_made_anew_not_refused_as_edited(tmp_path):
    chapter = tmp_path / "related_work.tex"
    new = "\\section{A}\n% surveytool: begin notes a\n% surveytool: end notes a\n"
    for emptied in (b"", b"\r\n\r\n", b"\xef\xbb\xbf \n\t\n"):  # truncated, or blank lines an editor saved
        chapter.write_bytes(emptied)
        notes: list = []
        assert keep_prose(chapter, new, False, notes, ProseDrafts()) == stamp(new)
        assert not notes


def test_a_second_force_keeps_the_backup_the_first_made(tmp_path):
    chapter, backup = tmp_path / "related_work.tex", tmp_path / "related_work.tex.bak"
    for edit in ("My first edit outside.\n", "My second edit outside.\n", "My second edit outside.\n"):
        chapter.write_text(stamp(GENERATED) + edit, encoding="utf-8")
        chapter.write_text(keep_prose(chapter, GENERATED, True, [], ProseDrafts()), encoding="utf-8")
        assert backup.read_text(encoding="utf-8").endswith(edit)
    # The second --force replaced the first's backup, and its edit was gone; the same backup again is kept once.
    assert (tmp_path / "related_work.tex.bak.1").read_text(encoding="utf-8").endswith("My first edit outside.\n")
    assert not (tmp_path / "related_work.tex.bak.2").exists()


def test_the_refusal_names_the_line_edited_by_hand_whatever_the_editor_did_to_blank_lines_and_the_first_line():
    from surveytool.output.prose import first_edited_line

    new = GENERATED.replace("text", "generated  text") + "\\end{x}\n"
    stamped = stamp(new)
    lines = stamped.splitlines(keepends=True)
    edit = lines.index("generated  text\n")
    cases = {
        # a blank line added at the top, which is no edit, and an edit below it
        "blank line above": (lines[:2] + ["\n"] + lines[2:edit] + ["my edit\n"] + lines[edit + 1 :], edit + 2),
        # a line put above the checksum line (a magic comment, "% !TEX root", is none: test_editor_lines.py)
        "above the checksum": (["% TODO cite more\n", *lines], 1),
        # white space changed inside a generated line: the checksum keeps it, so the refusal must name it
        "tab inside a line": (lines[:edit] + ["generated\ttext\n"] + lines[edit + 1 :], edit + 1),
    }
    for name, (saved, line) in cases.items():
        old = "".join(saved)
        assert edited_outside_regions(old), name
        assert first_edited_line(old, new) == line, name
    assert first_edited_line(stamped.replace("\\end{x}\n", ""), new) == len(lines)  # a line deleted at the end


def test_a_file_surveytool_did_not_write_is_refused_as_such_and_kept_as_a_backup_when_forced(tmp_path):
    mine = tmp_path / "related.tex"
    mine.write_text("\\section{Related Work}\nMy own chapter, written by hand.\n", encoding="utf-8")
    refused = run_cli("draft", "-o", str(mine))
    assert refused.returncode == 2
    assert refused.stderr.startswith(
        f"{mine}: error: has no '% surveytool: checksum' line: surveytool did not write it"
    )
    assert "edited outside its notes regions" not in refused.stderr
    assert mine.read_text(encoding="utf-8").startswith("\\section{Related Work}\nMy own chapter")
    assert run_cli("draft", "-o", str(mine), "--force").returncode == 0
    assert (tmp_path / "related.tex.bak").read_text(encoding="utf-8").endswith("My own chapter, written by hand.\n")
