"""Writing a run's results: entries.json, the .bib, the chapter and main.tex, with the author's prose kept."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from .bibliography import render_bibliography
from .chapter import chapter_groups, publication_trend, summary_rows
from .entries import entries_json
from .errors import OutputError
from .files import write_atomically
from .forked import run_beside
from .keys import dump_pins
from .latex import unencodable_chars
from .pipeline import ANALYSIS_STAGES, LOCK_FILE, Options, Stage, Survey, analyse, collector_paused, silent_stage
from .regions import carry_over, edited_outside_regions, stamp
from .render import LEVELS, make_environment, render_template


@dataclass(frozen=True)
class DraftOptions:
    level: str = "section"
    templates: Path | None = None
    dialect: str = "bibtex"
    bibliography: str = "references"
    chapter_file: str = "related_work"
    figure: bool = True  # the taxonomy tree (forest)
    table: bool = True  # the summary table (longtable)
    plot: bool = True  # papers per year (pgfplots)
    force: bool = False  # overwrite generated .tex files even if edited outside the notes regions


#: From this many papers, entries.json is written by a forked child while the LaTeX is rendered.
PARALLEL_FROM_PAPERS = 4000

#: The stages build() runs, in order.
BUILD_STAGES = (*ANALYSIS_STAGES, "writing .bib", "rendering")


def render_outputs(survey: Survey, draft: DraftOptions = DraftOptions(), stage: Stage = silent_stage) -> dict[str, str]:
    """File name -> text of every output of a build."""
    with stage("writing .bib"):
        bibliography = render_bibliography(survey.papers, survey.blocks, tags_field=survey.tags_field, dialect=draft.dialect)
    with stage("rendering"):
        return _render_documents(survey, draft, bibliography)


def _render_documents(survey: Survey, draft: DraftOptions, bibliography: str) -> dict[str, str]:
    env = make_environment(draft.templates)
    levels = LEVELS[draft.level]
    groups = chapter_groups(survey.papers, survey.taxonomy)
    context = {
        "title": survey.taxonomy.title,
        "levels": levels,
        "groups": groups,
        "rows": summary_rows(groups, survey.taxonomy),
        "trend": publication_trend(groups),
        "figure": draft.figure,
        "table": draft.table,
        "plot": draft.plot,
        "document_class": "report" if draft.level == "chapter" else "article",
        "chapter_file": draft.chapter_file,
        "bibliography": draft.bibliography,
    }

    def latex() -> tuple[str, str]:
        chapter = render_template(env, "related_work.tex.j2", context)
        # Characters with no LaTeX spelling (CJK, emoji) stay UTF-8 in the .bib; pdfLaTeX
        # prints each as a visible [U+XXXX] marker instead of stopping with an error.
        context["unicode_fallbacks"] = unencodable_chars(bibliography)
        return chapter, render_template(env, "main.tex.j2", context)

    if len(survey.papers) < PARALLEL_FROM_PAPERS:
        (chapter, main), records = latex(), entries_json(survey.papers)
    else:  # entries.json in a forked child meanwhile (forked.py)
        (chapter, main), records = run_beside(lambda: entries_json(survey.papers), latex)
    return {
        f"{draft.bibliography}.bib": bibliography,
        f"{draft.chapter_file}.tex": chapter,
        "main.tex": main,
        "entries.json": records,
    }


@dataclass(frozen=True)
class BuildResult:
    survey: Survey
    notes: tuple[str, ...]  # what happened to the author's prose and files, for the user


def build(options: Options, out_dir: Path, draft: DraftOptions = DraftOptions(), stage: Stage = silent_stage) -> BuildResult:
    """The whole flow: analyse the sources and write every output into ``out_dir``."""
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputError("is a file, not a folder", path=str(out_dir), hint="choose another folder with --out")
    lock = options.lock_file or out_dir / LOCK_FILE
    with collector_paused():
        survey = analyse(replace(options, lock_file=lock), stage)
        outputs = render_outputs(survey, draft, stage)
    notes: list[str] = []
    prepared = {name: _keep_prose(out_dir / name, text, draft.force, notes) if name.endswith(".tex") else text
                for name, text in outputs.items()}
    for name, text in prepared.items():
        write_atomically(out_dir / name, text)
    write_atomically(lock, dump_pins(survey.pins))
    return BuildResult(survey, tuple(notes))


def _keep_prose(path: Path, text: str, force: bool, notes: list[str]) -> str:
    """The new text of a generated .tex file with the author's notes carried over.

    Refuses (unless ``force``) when generated text was edited by hand; with
    ``force`` the old file is kept as ``<name>.bak``.
    """
    if not path.exists():
        return stamp(text)
    old = path.read_text(encoding="utf-8", errors="replace")
    if edited_outside_regions(old):
        if not force:
            raise OutputError("was edited outside its notes regions; rebuilding would overwrite those edits",
                              path=str(path), hint="move your text between the '% surveytool: begin/end notes' lines, "
                                                   "or rerun with --force (the old file is kept as .bak)")
        backup = path.with_name(path.name + ".bak")
        write_atomically(backup, old)
        notes.append(f"{path}: edited outside its notes regions; old version kept as {backup}")
    merged = carry_over(text, old)
    if merged.kept:
        notes.append(f"{path}: kept your notes in {', '.join(merged.kept)}")
    if merged.orphaned:
        notes.append(f"{path}: notes of sections no longer generated ({', '.join(merged.orphaned)}) moved to the end")
    return stamp(merged.text)


def draft_chapter(options: Options, output: Path, draft: DraftOptions = DraftOptions(),
                  stage: Stage = silent_stage) -> BuildResult:
    """Only the chapter, written to ``output`` with the author's notes carried over (keys pinned beside it)."""
    lock = options.lock_file or output.parent / LOCK_FILE
    with collector_paused():
        survey = analyse(replace(options, lock_file=lock), stage)
        draft = replace(draft, chapter_file=output.stem)
        chapter = render_outputs(survey, draft, stage)[f"{output.stem}.tex"]
    notes: list[str] = []
    text = _keep_prose(output, chapter, draft.force, notes)
    write_atomically(output, text)
    write_atomically(lock, dump_pins(survey.pins))
    return BuildResult(survey, tuple(notes))
