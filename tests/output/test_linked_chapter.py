"""A chapter (or out folder) the author reaches by a link stays one file: a rebuild updates what the link leads to."""

import os

from helpers import run_cli

LOREM = "@misc{lorem2020, title = {Lorem Ipsum Dolor Sit Amet}, author = {Ann Lee}, year = 2020}\n"
IPSUM = "@misc{ipsum2021, title = {Consectetur Adipiscing Elit}, author = {Bo Chen}, year = 2021}\n"
MARKER = "% surveytool: begin notes unclassified\n"
NOTES = "My own words on these papers.\n"


def built(tmp_path, out):
    source = tmp_path / "refs.bib"
    source.write_text(LOREM, encoding="utf-8")
    run_cli("build", str(source), "--out", str(out), check=True)
    chapter = out / "related_work.tex"
    chapter.write_text(chapter.read_text(encoding="utf-8").replace(MARKER, MARKER + NOTES), encoding="utf-8")
    return source


def rebuilt(source, out):
    source.write_text(LOREM + IPSUM, encoding="utf-8")
    result = run_cli("build", str(source), "--out", str(out))
    assert result.returncode == 0, result.stderr


def test_a_hard_linked_chapter_is_updated_under_every_name(tmp_path):
    out = tmp_path / "out"
    source = built(tmp_path, out)
    thesis = tmp_path / "thesis" / "related.tex"
    thesis.parent.mkdir()
    os.link(out / "related_work.tex", thesis)
    rebuilt(source, out)
    assert os.path.samefile(out / "related_work.tex", thesis)
    assert (out / "related_work.tex").stat().st_nlink == 2
    text = thesis.read_text(encoding="utf-8")
    assert "ipsum2021" in text and NOTES in text


def test_a_symlinked_chapter_stays_a_link_and_its_target_is_updated(tmp_path):
    out = tmp_path / "out"
    source = built(tmp_path, out)
    chapter = out / "related_work.tex"
    os.replace(chapter, out / "mine.tex")
    chapter.symlink_to("mine.tex")
    rebuilt(source, out)
    assert chapter.is_symlink() and os.readlink(chapter) == "mine.tex"
    text = (out / "mine.tex").read_text(encoding="utf-8")
    assert "ipsum2021" in text and NOTES in text


def test_a_symlinked_out_folder_stays_a_link_and_its_files_are_updated(tmp_path):
    real = tmp_path / "real"
    source = built(tmp_path, real)
    out = tmp_path / "out"
    out.symlink_to(real, target_is_directory=True)
    rebuilt(source, out)
    assert out.is_symlink()
    assert not any(p.is_symlink() for p in real.iterdir())
    text = (real / "related_work.tex").read_text(encoding="utf-8")
    assert "ipsum2021" in text and NOTES in text
