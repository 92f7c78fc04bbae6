"""Writing a run's results: entries.json, the .bib, the chapter and main.tex, with the author's prose kept."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from surveytool.analysis.coverage import chapter_coverage
from surveytool.analysis.key_lock import dump_pins
from surveytool.analysis.keys import citable_keys, merged_into
from surveytool.bibtex.fields import bibliography_pieces, render_bibliography
from surveytool.build_result import BuildResult, BuildSummary
from surveytool.errors import OutputError
from surveytool.model import Finding, Taxonomy
from surveytool.options import BuildLayout, DraftOptions
from surveytool.output.chapter_view import PaperView, chapter_views, paper_views, uncited_keys
from surveytool.output.entries_json import entries_json, entries_json_pieces, merged_keys
from surveytool.output.files import (
    StagedFiles,
    backed_up,
    fill_reserved,
    refuse_links_out_of,
    refuse_writing_over,
    written_at,
)
from surveytool.output.fragments import templates_digest
from surveytool.output.latex_files import chapter_context, render_main
from surveytool.output.out_lock import building_into
from surveytool.output.prose import ProseDrafts, ProseNote, keep_prose
from surveytool.output.render import make_environment, render_template
from surveytool.output.staletemp import remove_stale_temporaries
from surveytool.parallel import map_each, run_beside, worth_sharing
from surveytool.pipeline import (
    ANALYSIS_STAGES,
    DEFAULT_CACHE,
    Options,
    Stage,
    Survey,
    analyse,
    collector_paused,
    finding_order,
    silent_stage,
    source_paths,
)
from surveytool.rebuild.memo import BuildCache, forget_compiled_templates
from surveytool.rebuild.patch import environment_digest, patch_last_build
from surveytool.rebuild.reuse import BuildReuse
from surveytool.rebuild.snapshot import (
    DataFilesLayout,
    bibliography_layout,
    content_digest,
    data_files_layout,
    file_digests,
    forget_snapshot,
    save_snapshot,
    take_snapshot,
)
from surveytool.rebuild.written_bib import changed_since_built
from surveytool.text.latex import declared_chars

if TYPE_CHECKING:
    import jinja2


#: The stages build() runs, in order.
BUILD_STAGES = (*ANALYSIS_STAGES, "rendering")


def render_outputs(survey: Survey, draft: DraftOptions = DraftOptions(), stage: Stage = silent_stage) -> dict[str, str]:
    """File name -> text of every output of a build (``build`` writes them without holding them all at once)."""
    with stage("rendering"):
        bibliography = render_bibliography(
            survey.papers, survey.blocks, tags_field=survey.tags_field, dialect=draft.dialect, fmt=draft.bib_format
        )
        env, context = latex_context(chapter_views(survey.papers), survey.taxonomy, draft)
        chapter = render_template(env, "related_work.tex.j2", context)
        return {
            f"{draft.bibliography}.bib": bibliography,
            f"{draft.chapter_file}.tex": chapter,
            "main.tex": render_main(env, context, declared_chars(bibliography)),
            "entries.json": entries_json(survey.papers),
        }


def latex_context(
    views: Sequence[PaperView], taxonomy: Taxonomy, draft: DraftOptions, memos: BuildCache | None = None
) -> tuple[jinja2.Environment, dict[str, Any]]:
    env = make_environment(draft.templates)
    if memos is not None and memos.folder is not None:
        # Paragraphs and table rows of the last build (fragments.py).
        cast(Any, env).fragment_memo = memos.memo("fragments", depends_on=templates_digest(env))
    return env, chapter_context(views, taxonomy, draft)


def build(
    options: Options, out_dir: Path, draft: DraftOptions = DraftOptions(), stage: Stage = silent_stage
) -> BuildResult:
    """The whole flow: analyse the sources and write every output into ``out_dir``, one build there at a time."""
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputError("is a file, not a folder", path=str(out_dir), hint="choose another folder with --out")
    layout = BuildLayout.of(out_dir, draft, options.lock_file)
    refuse_links_out_of(layout.out, (*layout.written(), layout.lock))
    refuse_writing_over(
        (layout.bibliography, layout.entries, *layout.generated_tex),
        options.read_files(),
        "choose another --out folder",
    )
    if options.online:  # a file SQLite cannot read is set aside as a damaged cache: never the author's chapter
        refuse_writing_over([options.cache or DEFAULT_CACHE], (*layout.written(), layout.lock), "name another --cache")
    with building_into(layout.out):  # a second build into the folder would read the chapter as this one writes it
        return _build_locked(replace(options, lock_file=layout.lock), layout, draft, stage)


def _build_locked(options: Options, layout: BuildLayout, draft: DraftOptions, stage: Stage) -> BuildResult:
    """With a build cache, a rebuild after a few entries changed patches the last build (patch.py)."""
    memos = BuildCache(options.build_cache)
    _remove_leftovers(options, layout)
    notes: list[ProseNote] = []
    with collector_paused():
        patched = _build_patched(options, layout, draft, stage, memos, notes)
        if patched is not None:
            return patched  # it patches only a .bib the last build wrote as it is
        # Each build writes the .bib anew: an edit of it would be lost without a word.
        if (changed := changed_since_built(memos, layout.bibliography)) is not None:
            kept = backed_up(layout.bibliography, changed)
            notes.append(ProseNote(f"{layout.bibliography}: changed since the last build wrote it; kept as {kept}"))
        reuse = BuildReuse(options.build_cache)
        survey = analyse(options, stage, reuse)
        trace = reuse.trace
        lock_text = dump_pins(survey.pins)
        with stage("rendering"), StagedFiles() as staged:
            # Staged first, so moved into place first: a build stopped in between never leaves keys pinned nowhere.
            staged.write(layout.lock, lock_text)
            drafts = ProseDrafts()
            uncited = uncited_keys(survey.papers)
            views, written = _write_outputs(survey, uncited, draft, layout, staged, notes, memos, drafts)
            drafts.refuse_if_saved_meanwhile()
            staged.commit()
    memos.save()
    if trace is not None and options.build_cache is not None:
        stamps = file_digests(layout.bibliography, layout.entries)
        snapshot = (
            None
            if written is None
            else take_snapshot(
                survey,
                trace,
                [display for _, display in source_paths(options)],
                views,
                uncited,
                written,
                stamps,
                environment_digest(options, draft.dialect, lock_text, draft.bib_format),
            )
        )
        if snapshot is None:
            forget_snapshot(options.build_cache)
        else:
            save_snapshot(options.build_cache, snapshot)
    reused = {**survey.reused, **memos.stats()}
    findings = _with_cache_findings(survey.findings, memos)
    return BuildResult(
        BuildSummary(
            len(survey.papers),
            sum(p.resolved for p in survey.papers),
            survey.section_counts(),
            findings,
            reused,
            survey.taxonomy,
            chapter_coverage(layout.chapter, survey.taxonomy.section_ids, [p.key for p in survey.papers]),
        ),
        tuple(notes),
        replace(survey, reused=reused, findings=findings),
    )


def _remove_leftovers(options: Options, layout: BuildLayout) -> None:
    """Temporary files of this build's outputs that killed builds left, and compiled templates earlier versions kept."""
    names = [path.name for path in layout.written()]
    remove_stale_temporaries(layout.out, names)
    for path in layout.written():  # an output linked to a file elsewhere is written (and may be killed) beside it
        target = written_at(path)
        if target != path:
            remove_stale_temporaries(target.parent, [target.name])
    if options.lock_file is not None:
        remove_stale_temporaries(options.lock_file.parent, [options.lock_file.name])
    folder = options.build_cache
    if folder is not None and folder.is_dir() and not folder.is_symlink():  # a link could lead out of the out folder
        remove_stale_temporaries(folder)
        forget_compiled_templates(folder)


def _with_cache_findings(findings: Sequence[Finding], memos: BuildCache) -> tuple[Finding, ...]:
    """The findings with those saying which cache files were not used, each once."""
    return tuple(sorted(dict.fromkeys([*findings, *memos.discarded]), key=finding_order))


def _build_patched(
    options: Options,
    layout: BuildLayout,
    draft: DraftOptions,
    stage: Stage,
    memos: BuildCache,
    notes: list[ProseNote],
) -> BuildResult | None:
    """The build done by patching the last one, or None (nothing written) when that cannot give the right result."""
    cache = options.build_cache
    if cache is None:
        return None
    bib_path, records_path = layout.bibliography, layout.entries
    with stage("reading"):
        patched = patch_last_build(options, bib_path, records_path, draft.dialect, memos, draft.bib_format)
    if patched is None:
        return None
    lock_text = dump_pins(patched.pins)
    drafts = ProseDrafts()
    with stage("rendering"), StagedFiles() as staged:
        staged.write(layout.lock, lock_text)  # first, as in a full build
        bib_file, records_file = staged.reserve(bib_path), staged.reserve(records_path)

        def data_files() -> bool:
            fill_reserved(bib_file, patched.bibliography, bib_path)
            fill_reserved(records_file, patched.entries_json, records_path)
            # The snapshot describes the files by their content, before they are moved into place. Should
            # the build stop before that, the files it describes are not there and the next build runs in full.
            save_snapshot(
                cache,
                replace(
                    patched.snapshot,
                    environment=environment_digest(options, draft.dialect, lock_text, draft.bib_format),
                    written=(content_digest(patched.bibliography), content_digest(patched.entries_json)),
                ),
            )
            return True

        def chapter() -> None:
            env, context = latex_context(patched.chapter_views, patched.taxonomy, draft, memos)
            path = layout.chapter
            rendered = render_template(env, "related_work.tex.j2", context)
            # Its views do not carry biblatex's ids aliases, which a biblatex document may cite: entries.json does.
            known = {v.key for v in patched.views}
            if draft.dialect == "biblatex":
                known |= set(merged_keys(patched.entries_json))
            text = keep_prose(
                path,
                rendered,
                draft.force,
                notes,
                drafts,
                patched.taxonomy,
                known,
                lambda: merged_keys(patched.entries_json),
            )
            staged.write(path, text)
            main = render_main(env, context, patched.declared, text)
            staged.write(layout.main, keep_prose(layout.main, main, draft.force, notes, drafts))

        if not worth_sharing(len(patched.views)):
            chapter()
            data_files()
        else:  # the data files and the snapshot in a forked child meanwhile, as in a full build
            run_beside(data_files, chapter)
        drafts.refuse_if_saved_meanwhile()
        staged.commit()
    memos.save()
    views = patched.views
    reused = {"entries": (len(views) - patched.changed, patched.changed), **memos.stats()}
    summary = BuildSummary(
        len(views),
        sum(v.resolved for v in views),
        Counter(v.primary for v in views),
        _with_cache_findings(patched.findings, memos),
        reused,
        patched.taxonomy,
        chapter_coverage(layout.chapter, patched.taxonomy.section_ids, [v.key for v in views]),
    )
    return BuildResult(summary, tuple(notes), options=options)


def _write_outputs(
    survey: Survey,
    uncited: set[str],
    draft: DraftOptions,
    layout: BuildLayout,
    staged: StagedFiles,
    notes: list[ProseNote],
    memos: BuildCache,
    drafts: ProseDrafts,
) -> tuple[list[PaperView], DataFilesLayout | None]:
    """Every output into ``staged``; the chapter's views and where each entry's text sits in the data files.

    The .bib and entries.json are written here, after the LaTeX, not by a forked child meanwhile:
    writing them touches every field of every entry, and each page either process writes after a
    fork is held twice (BENCHMARKS.md has the figures).
    """
    # Every entry's view, for the snapshot; the chapter's leave out those it does not cite.
    views = paper_views(survey.papers)
    env, context = latex_context([v for v in views if v.key not in uncited], survey.taxonomy, draft, memos)
    path = layout.chapter
    # The author's notes are carried over before anything is moved into place: a refusal leaves every file as it was.
    rendered = render_template(env, "related_work.tex.j2", context)
    known = citable_keys(survey.papers, draft.dialect)
    chapter = keep_prose(
        path, rendered, draft.force, notes, drafts, survey.taxonomy, known, lambda: merged_into(survey.papers)
    )
    staged.write(path, chapter)
    # Written in pieces, one after the other: these are the largest texts of a build.
    pieces = bibliography_pieces(
        survey.papers,
        survey.blocks,
        tags_field=survey.tags_field,
        dialect=draft.dialect,
        map_each=map_each,
        fmt=draft.bib_format,
    )
    staged.write(layout.bibliography, pieces)
    fallbacks = declared_chars(*pieces)
    # Where each entry's text went, for the next build to patch (only kept with a build cache).
    bibliography = bibliography_layout(pieces, len(survey.papers), fallbacks) if memos.folder is not None else None
    del pieces
    records = entries_json_pieces(survey.papers, map_each)
    staged.write(layout.entries, records)
    written = data_files_layout(bibliography, records)
    del records
    main = render_main(env, context, fallbacks, chapter)
    staged.write(layout.main, keep_prose(layout.main, main, draft.force, notes, drafts))
    return views, written
