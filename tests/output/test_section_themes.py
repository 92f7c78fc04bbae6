"""Themes in the chapter: a large section's papers under \\paragraph headings, each with a notes region
that keeps the author's prose across rebuilds, the same whether the rebuild is patched or fresh."""

import re
import shutil
from pathlib import Path

from helpers import compile_latex, run_cli

SCHEDULES = [
    ("Interleaved pipeline schedules with fewer bubbles", "micro-batch schedule bubble interleaved stages"),
    ("Asynchronous pipeline schedules with weight stashing", "asynchronous schedule weight stashing bubble"),
    ("Zero-bubble pipeline schedules for micro-batches", "bubble schedule micro-batch backward split"),
    ("Bidirectional pipeline schedules", "bidirectional schedule bubble micro-batch stages"),
    ("Wave-like pipeline schedules for long sequences", "schedule bubble micro-batch sequence waves"),
]
PARTITIONING = [
    ("Memory-balanced partitioning of layers into pipeline stages", "partitioning layers memory balance planner"),
    ("Automatic stage partitioning with a cost model", "partitioning cost model planner layers search"),
    ("Dynamic programming for layer partitioning", "partitioning dynamic programming layers planner cost"),
    ("Partitioning heterogeneous layers across GPUs", "partitioning heterogeneous layers planner memory"),
    ("Graph-based partitioning planner for pipelines", "partitioning graph planner layers cost memory"),
]


def entry(key: str, title: str, words: str, year: int) -> str:
    abstract = f"We study pipeline parallelism: {words}. Our {words.split()[0]} method improves {words}."
    return (
        f"@inproceedings{{{key},\n  title = {{{title}}},\n  author = {{Author, An and Other, Some}},\n"
        f"  booktitle = {{Proc. of a Systems Conference}},\n  year = {{{year}}},\n"
        f"  abstract = {{{abstract}}},\n  sections = {{pipeline-parallel}}\n}}\n\n"
    )


def library(extra: int = 0) -> str:
    text = ""
    for i, (title, words) in enumerate(SCHEDULES + PARTITIONING):
        text += entry(f"paper{i:02d}", title, words, 2015 + i)
    for j in range(extra):
        text += entry(f"late{j}", f"Another look at stage partitioning {j}", "partitioning planner layers cost", 2024)
    return text


def section_text(chapter: str) -> str:
    start = chapter.index(r"\label{sec:rw:pipeline-parallel}")
    return chapter[start : chapter.index(r"\subsubsection", start)]


def build(tmp_path: Path, bib: Path, out: str, *extra: str) -> str:
    run_cli("build", "--out", str(tmp_path / out), str(bib), *extra, check=True)
    return (tmp_path / out / "related_work.tex").read_text(encoding="utf-8")


def test_a_large_section_is_split_into_named_themes_with_a_notes_region_each(tmp_path):
    bib = tmp_path / "mine.bib"
    bib.write_text(library(), encoding="utf-8")
    section = section_text(build(tmp_path, bib, "out"))
    headings = re.findall(r"^\\paragraph\{(.+)\}$", section, re.M)
    regions = re.findall(r"^% surveytool: begin notes (pipeline-parallel/theme-\S+)$", section, re.M)
    assert 2 <= len(headings) == len(regions)
    assert any("schedul" in h.lower() for h in headings) and any("partition" in h.lower() for h in headings)
    for theme in section.split(r"\paragraph")[1:]:
        theme = theme.split(r"\begin{longtable}")[0]  # the section's comparison table comes last
        cited = re.findall(r"\\citet\{(paper\d\d)\}", theme)
        # Each theme holds papers of one kind, in chronological order.
        assert len({int(k[5:]) < len(SCHEDULES) for k in cited}) == 1, theme
        assert cited == sorted(cited)


def test_no_themes_lists_the_section_flat(tmp_path):
    bib = tmp_path / "mine.bib"
    bib.write_text(library(), encoding="utf-8")
    section = section_text(build(tmp_path, bib, "out", "--no-themes"))
    assert r"\paragraph" not in section and "/theme-" not in section
    stubs = section.split(r"\begin{longtable}")[0]
    assert len(re.findall(r"\\citet\{paper\d\d\}", stubs)) == 10


def test_prose_in_a_theme_survives_a_rebuild_and_a_patched_rebuild_equals_a_fresh_one(tmp_path):
    bib = tmp_path / "mine.bib"
    bib.write_text(library(), encoding="utf-8")
    chapter = build(tmp_path, bib, "out")
    before = chapter[: chapter.index(r"\citet{paper07}")]  # the partitioning theme's region
    region = re.findall(r"^% surveytool: begin notes (pipeline-parallel/theme-\S+)$", before, re.M)[-1]
    marker = f"% surveytool: begin notes {region}\n"
    prose = "Planners differ in what their cost model counts~\\citep{paper07}.\n"
    (tmp_path / "out" / "related_work.tex").write_text(chapter.replace(marker, marker + prose), encoding="utf-8")

    bib.write_text(library(extra=2), encoding="utf-8")  # two more partitioning papers
    patched = build(tmp_path, bib, "out")
    # The prose is in the region of the theme that now holds its papers, whatever that theme is named.
    before = patched[: patched.index(r"\citet{paper07}")]
    region = re.findall(r"^% surveytool: begin notes (pipeline-parallel/theme-\S+)$", before, re.M)[-1]
    assert f"% surveytool: begin notes {region}\n{prose}% surveytool: end notes {region}\n" in patched
    assert patched.count(prose) == 1
    assert re.search(r"\\citet\{late0\}", section_text(patched))

    shutil.copy(tmp_path / "out" / "related_work.tex", tmp_path / "fresh-chapter.tex")
    (tmp_path / "fresh").mkdir()
    shutil.copy(tmp_path / "out" / "related_work.tex", tmp_path / "fresh" / "related_work.tex")
    fresh = build(tmp_path, bib, "fresh", "--no-reuse")
    assert fresh == patched
    compiled = compile_latex(tmp_path / "out")
    assert compiled.returncode == 0, compiled.stdout[-3000:]


def test_a_section_too_large_for_readable_themes_is_listed_flat():
    from surveytool.output.chapter_view import PaperView, SectionView
    from surveytool.output.section_themes import MAX_THEMED, section_themes

    def views(count: int) -> tuple[PaperView, ...]:
        topics = [t for t, _ in SCHEDULES + PARTITIONING]
        return tuple(
            PaperView(f"p{i:04d}", f"{topics[i % 10]} {i}", "2020", "", True, "", "pipeline-parallel", (), ())
            for i in range(count)
        )

    assert section_themes(SectionView("pipeline-parallel", "Pipelines", "", views(MAX_THEMED), ()))
    assert section_themes(SectionView("pipeline-parallel", "Pipelines", "", views(MAX_THEMED + 1), ())) == ()


def test_a_rebuild_that_names_a_theme_anew_says_on_which_line_its_notes_are_now(tmp_path):
    bib = tmp_path / "mine.bib"
    bib.write_text(library(), encoding="utf-8")
    chapter = tmp_path / "out" / "related_work.tex"
    text = build(tmp_path, bib, "out")
    for region in re.findall(r"^% surveytool: begin notes (pipeline-parallel/theme-\S+)$", text, re.M):
        marker = f"% surveytool: begin notes {region}\n"
        text = text.replace(marker, f"{marker}Notes on {region}.\n")
    chapter.write_text(text, encoding="utf-8")
    bib.write_text(library(extra=2), encoding="utf-8")
    moved = run_cli("build", "--out", str(tmp_path / "out"), str(bib), check=True)
    said = re.findall(r"^(.*):(\d+): the theme of your notes in (\S+) is now (\S+);", moved.stderr, re.M)
    assert said, moved.stderr
    lines = chapter.read_text(encoding="utf-8").splitlines()
    for path, line, was, now in said:
        assert path == str(chapter)
        assert lines[int(line) - 1 : int(line) + 1] == [f"% surveytool: begin notes {now}", f"Notes on {was}."]
