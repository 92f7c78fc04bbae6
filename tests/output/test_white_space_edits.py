"""White space an editor changes on generated lines is no edit of the author's: it neither blocks a rebuild nor
is kept as prose. A real edit, with white space changes around it or inside a line, is never lost."""

from helpers import LOREM, UNPLACED_NOTES, built_with_notes, run_cli

IPSUM = "@misc{ipsum2021, title = {Consectetur Adipiscing Elit}, author = {Bo Chen}, year = 2021}\n"
NOTES = "  My notes, indented as I like them.  \n"


def generated_line(lines):
    return next(n for n, line in enumerate(lines) if line.startswith("\\section") or line.startswith("\\subsection"))


def test_re_indented_and_trailing_blanks_on_generated_lines_do_not_block_and_are_regenerated(tmp_path):
    source, out, chapter = built_with_notes(tmp_path, NOTES)
    lines = chapter.read_text(encoding="utf-8").split("\n")
    heading = generated_line(lines)
    lines[heading] = "\t" + lines[heading] + "   "
    lines = [line + " " if line.startswith("\\cite") or line.startswith("%") else line for line in lines]
    chapter.write_text("\n".join(lines), encoding="utf-8")
    source.write_text(LOREM + IPSUM, encoding="utf-8")
    rebuilt = run_cli("build", str(source), "--out", str(out))
    assert rebuilt.returncode == 0, rebuilt.stderr
    text = chapter.read_text(encoding="utf-8")
    assert "ipsum2021" in text and UNPLACED_NOTES + NOTES in text  # the notes keep their own white space
    assert not (out / "related_work.tex.bak").exists()
    assert not any(line != line.rstrip() for line in text.split("\n") if line != NOTES.rstrip("\n"))
    assert "\t\\" not in text


def test_a_real_edit_with_white_space_changes_around_it_is_refused_and_kept(tmp_path):
    source, out, chapter = built_with_notes(tmp_path, NOTES)
    lines = chapter.read_text(encoding="utf-8").split("\n")
    heading = generated_line(lines)
    lines[heading] = "  " + lines[heading].replace("}", " (my title)}", 1) + "  "
    saved = "\n".join(lines)
    chapter.write_text(saved, encoding="utf-8")
    refused = run_cli("build", str(source), "--out", str(out))
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"{chapter}:{heading + 1}: error: was edited outside its notes regions")
    assert chapter.read_text(encoding="utf-8") == saved


def test_white_space_changed_inside_a_generated_line_counts_as_an_edit(tmp_path):
    # Inside a line, white space can carry meaning (\verb, an alignment an author made): not the tool's to drop.
    source, out, chapter = built_with_notes(tmp_path, NOTES)
    lines = chapter.read_text(encoding="utf-8").split("\n")
    heading = generated_line(lines)
    lines[heading] = lines[heading].replace("{", "{ ", 1)
    saved = "\n".join(lines)
    chapter.write_text(saved, encoding="utf-8")
    refused = run_cli("build", str(source), "--out", str(out))
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"{chapter}:{heading + 1}: error: was edited outside its notes regions")
    assert chapter.read_text(encoding="utf-8") == saved
