"""Writing a run's results: entries.json, the .bib, the chapter and main.tex, with the author's prose kept."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .bibliography import bibliography_pieces, render_bibliography
from .chapter import chapter_groups, publication_trend, summary_rows
from .entries import entries_json, entries_json_pieces
from .errors import OutputError
from .files import StagedFiles, fill_reserved, write_atomically
from .forked import run_beside
from .fragments import templates_digest
from .keys import dump_pins
from .latex import unencodable_chars
from .memo import BuildCache
from .pipeline import ANALYSIS_STAGES, LOCK_FILE, Options, Stage, Survey, analyse, collector_paused, silent_stage
from .regions import carry_over, edited_outside_regions, stamp
from .render import LEVELS, make_environment, render_template

if TYPE_CHECKING:
    import jinja2


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


#: From this many papers, the .bib and entries.json are written by a forked child while the LaTeX is rendered.
PARALLEL_FROM_PAPERS = 4000

#: The stages build() runs, in order.
BUILD_STAGES = (*ANALYSIS_STAGES, "rendering")


def render_outputs(survey: Survey, draft: DraftOptions = DraftOptions(), stage: Stage = silent_stage) -> dict[str, str]:
    """File name -> text of every output of a build (``build`` writes them without holding them all at once)."""
    with stage("rendering"):
        bibliography = render_bibliography(survey.papers, survey.blocks, tags_field=survey.tags_field, dialect=draft.dialect)
        env, context = _latex_context(survey, draft)
        chapter = render_template(env, "related_work.tex.j2", context)
        return {
            f"{draft.bibliography}.bib": bibliography,
            f"{draft.chapter_file}.tex": chapter,
            "main.tex": _render_main(env, context, unencodable_chars(bibliography)),
            "entries.json": entries_json(survey.papers),
        }


def _latex_context(survey: Survey, draft: DraftOptions,
                   memos: BuildCache | None = None) -> tuple[jinja2.Environment, dict[str, Any]]:
    env = make_environment(draft.templates)
    if memos is not None:  # paragraphs and table rows of the last build (fragments.py)
        env.fragment_memo = memos.memo("fragments", depends_on=templates_digest(env))
    groups = chapter_groups(survey.papers, survey.taxonomy)
    return env, {
        "title": survey.taxonomy.title,
        "levels": LEVELS[draft.level],
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


def _render_main(env: jinja2.Environment, context: dict[str, Any], fallbacks: list[str]) -> str:
    # Characters with no LaTeX spelling (CJK, emoji) stay UTF-8 in the .bib; pdfLaTeX
    # prints each as a visible [U+XXXX] marker instead of stopping with an error.
    return render_template(env, "main.tex.j2", {**context, "unicode_fallbacks": fallbacks})


@dataclass(frozen=True)
class BuildResult:
    survey: Survey
    notes: tuple[str, ...]  # what happened to the author's prose and files, for the user


def build(options: Options, out_dir: Path, draft: DraftOptions = DraftOptions(), stage: Stage = silent_stage) -> BuildResult:
    """The whole flow: analyse the sources and write every output into ``out_dir``."""
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputError("is a file, not a folder", path=str(out_dir), hint="choose another folder with --out")
    lock = options.lock_file or out_dir / LOCK_FILE
    notes: list[str] = []
    memos = BuildCache(options.build_cache)
    with collector_paused():
        survey = analyse(replace(options, lock_file=lock), stage)
        with stage("rendering"), StagedFiles() as staged:
            _write_outputs(survey, draft, out_dir, staged, notes, memos)
            staged.commit()
    write_atomically(lock, dump_pins(survey.pins))
    memos.save()
    return BuildResult(replace(survey, reused={**survey.reused, **memos.stats()}), tuple(notes))


def _write_outputs(survey: Survey, draft: DraftOptions, out_dir: Path, staged: StagedFiles, notes: list[str],
                   memos: BuildCache) -> None:
    """Every output into ``staged``: the .bib and entries.json by a forked child (for a large survey), the LaTeX here."""
    bib_path, records_path = out_dir / f"{draft.bibliography}.bib", out_dir / "entries.json"
    bib_file, records_file = staged.reserve(bib_path), staged.reserve(records_path)

    def data_files() -> list[str]:
        # Written in pieces, one after the other: these are the largest texts of a build.
        pieces = bibliography_pieces(survey.papers, survey.blocks, tags_field=survey.tags_field, dialect=draft.dialect)
        fill_reserved(bib_file, pieces, bib_path)
        fallbacks = unencodable_chars(*pieces)
        del pieces
        fill_reserved(records_file, entries_json_pieces(survey.papers), records_path)
        return fallbacks

    def chapter() -> tuple[jinja2.Environment, dict[str, Any]]:
        env, context = _latex_context(survey, draft, memos)
        path = out_dir / f"{draft.chapter_file}.tex"
        staged.write(path, _keep_prose(path, render_template(env, "related_work.tex.j2", context), draft.force, notes))
        return env, context

    # The author's notes are carried over before anything is moved into place: a refusal leaves every file as it was.
    if len(survey.papers) < PARALLEL_FROM_PAPERS:
        (env, context), fallbacks = chapter(), data_files()
    else:  # the data files in a forked child meanwhile (forked.py); it fills the files reserved above
        (env, context), fallbacks = run_beside(data_files, chapter)
    main = _render_main(env, context, fallbacks)
    staged.write(out_dir / "main.tex", _keep_prose(out_dir / "main.tex", main, draft.force, notes))


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
        with stage("rendering"):
            env, context = _latex_context(survey, replace(draft, chapter_file=output.stem))
            chapter = render_template(env, "related_work.tex.j2", context)
    notes: list[str] = []
    text = _keep_prose(output, chapter, draft.force, notes)
    write_atomically(output, text)
    write_atomically(lock, dump_pins(survey.pins))
    return BuildResult(survey, tuple(notes))
