"""`draft`: only the related-work chapter, into a file (the author's notes carried over) or onto stdout."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from surveytool.analysis.key_lock import dump_pins
from surveytool.analysis.keys import citable_keys, merged_into
from surveytool.build import latex_context
from surveytool.build_result import BuildResult, BuildSummary
from surveytool.errors import OutputError, SurveyToolError
from surveytool.options import LOCK_FILE, DraftOptions
from surveytool.output.chapter_view import GroupView, chapter_views
from surveytool.output.files import StagedFiles, refuse_writing_over, write_output, writes_into_device
from surveytool.output.notes_regions import read_saved, regions, stamp
from surveytool.output.prose import ProseDrafts, ProseNote, keep_prose, read_generated
from surveytool.output.render import render_template
from surveytool.output.standard_output import print_data
from surveytool.pipeline import Options, Stage, collector_paused, silent_stage
from surveytool.rebuild.reuse import analyse_reusing

#: ``-o -``: the chapter goes to standard output, and no lock file is written.
STDOUT = Path("-")


class Suggest(Protocol):
    """Adds suggested paragraphs to the chapter's groups, given the author's notes by region (drafting/suggestions.py)."""

    def __call__(self, groups: list[GroupView], notes: Mapping[str, str]) -> list[GroupView]: ...


def _notes_in(output: Path) -> dict[str, str]:
    """The notes regions of the chapter at ``output`` as it is; none when there is none (or it cannot be read:
    writing it says why)."""
    try:
        data = read_generated(output)
    except SurveyToolError:
        return {}
    return regions(read_saved(data).text) if data is not None else {}


def draft_chapter(
    options: Options,
    output: Path,
    draft: DraftOptions = DraftOptions(),
    stage: Stage = silent_stage,
    suggest: Suggest | None = None,
) -> BuildResult:
    """Only the chapter, written to ``output`` with the author's notes carried over (keys pinned beside it),
    or printed when ``output`` is ``-``; ``suggest`` adds suggested paragraphs (drafting/suggestions.py)."""
    to_stdout = output == STDOUT
    # A folder not named as a chapter is often the build folder: say what to give, not to move it away.
    if not to_stdout and output.is_dir() and output.suffix.lower() != ".tex":
        raise OutputError(
            "is a directory, not a file", path=str(output), hint=f"give a file, e.g. -o {output / 'related_work.tex'}"
        )
    if not to_stdout:
        refuse_writing_over([output], options.read_files(), "write the chapter to another file with -o")
    # A pipe or device (/dev/stdout) holds no notes to keep, and has no folder of the user's to pin keys in.
    streamed = to_stdout or writes_into_device(output)
    lock = options.lock_file or (None if streamed else output.parent / LOCK_FILE)
    with collector_paused():
        survey = analyse_reusing(replace(options, lock_file=lock), stage)
        with stage("rendering"):
            chapter_file = "related_work" if to_stdout else output.stem
            env, context = latex_context(
                chapter_views(survey.papers), survey.taxonomy, replace(draft, chapter_file=chapter_file)
            )
            if suggest is not None:  # a suggestion the author took into the notes is not written again
                context["groups"] = suggest(context["groups"], {} if streamed else _notes_in(output))
            chapter = render_template(env, "related_work.tex.j2", context)
    notes: list[ProseNote] = []
    # The lock is moved into place first: a run stopped in between never leaves a chapter citing keys pinned nowhere.
    with StagedFiles() as staged:
        if lock is not None:
            staged.write(lock, dump_pins(survey.pins))
        if not streamed:
            drafts = ProseDrafts()
            known = citable_keys(survey.papers, draft.dialect)
            text = keep_prose(
                output, chapter, draft.force, notes, drafts, survey.taxonomy, known, lambda: merged_into(survey.papers)
            )
            drafts.refuse_if_saved_meanwhile()
            staged.write(output, text)
        staged.commit()
    if to_stdout:
        print_data([stamp(chapter)])
    elif streamed:
        write_output(output, stamp(chapter))
    summary = BuildSummary(
        len(survey.papers),
        sum(p.resolved for p in survey.papers),
        survey.section_counts(),
        survey.findings,
        survey.reused,
        survey.taxonomy,
    )
    return BuildResult(summary, tuple(notes), survey)
