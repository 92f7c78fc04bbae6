"""Operations on the user's files built on one analysis: write or update a .bib, run the checks."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from surveytool.analysis.checks import CheckContext, run_checks
from surveytool.analysis.key_lock import dump_pins
from surveytool.bibtex.fields import bibliography_pieces, macros_added_to
from surveytool.bibtex.format_options import STANDARD, BibFormat
from surveytool.bibtex.order import sort_papers
from surveytool.errors import InputError, TaxonomyError
from surveytool.model import Finding, RawBlock, Severity, SourceLocation
from surveytool.options import LOCK_FILE
from surveytool.output.added_entries import without_superseded
from surveytool.output.bib_in_place import Edit, fix_entries, update_bib_in_place
from surveytool.output.files import (
    StagedFiles,
    refuse_writing_over,
    write_atomically,
    write_in_place,
    write_output,
    writes_into_device,
)
from surveytool.output.standard_output import print_data
from surveytool.output.tags_field import macro_tag_hints
from surveytool.parallel import map_each
from surveytool.pipeline import (
    ANALYSIS_STAGES,
    Options,
    Stage,
    Survey,
    collector_paused,
    silent_stage,
    source_paths,
)
from surveytool.rebuild.reuse import analyse_reusing
from surveytool.sources.read import option_hints, read_text, read_text_file
from surveytool.text.tex_inputs import AuxCitation, Unreadable, read_document


def lock_beside(path: Path) -> Path:
    """Keys are pinned in a lock file next to the file they are for."""
    return path.parent / LOCK_FILE


#: The stages write_bib() runs, in order.
BIB_STAGES = (*ANALYSIS_STAGES, "writing .bib")
#: What a message about a file given to --tex or --in-place tells to do (not a source's hints).
TEX_HINTS = option_hints("--tex", "a LaTeX file")
IN_PLACE_HINTS = option_hints("--in-place", "your .bib file")


def write_bib(
    options: Options,
    output: Path,
    *,
    dialect: str = "bibtex",
    order: str = "key",
    stage: Stage = silent_stage,
    fmt: BibFormat = STANDARD,
) -> Survey:
    """Analyse the sources and write one .bib file (keys pinned beside it); ``-`` writes it to standard output."""
    to_stdout = str(output) == "-"
    if not to_stdout:
        refuse_writing_over(
            [output], options.read_files(), "to update your own .bib, run bib --in-place; else name another -o"
        )
    # Printed, the .bib has no folder to pin keys in: a lock named by the options is still read and kept.
    beside_nothing = to_stdout or writes_into_device(output)  # no folder of the user's to pin keys in
    lock = options.lock_file or (None if beside_nothing else lock_beside(output))
    with collector_paused():
        survey = analyse_reusing(replace(options, lock_file=lock), stage)
        with stage("writing .bib"):
            papers = sort_papers(survey.papers, order, survey.taxonomy.section_ids)
            pieces = bibliography_pieces(
                papers,
                survey.blocks,
                tags_field=survey.tags_field,
                dialect=dialect,
                presorted=True,
                map_each=map_each,
                fmt=fmt,
            )
    # The lock file is moved into place first: a run stopped between the two leaves pins the next run gives the
    # .bib's new keys by, never a .bib whose new keys are pinned nowhere (the next run might give others).
    with StagedFiles() as staged:
        if lock is not None:
            staged.write(lock, dump_pins(survey.pins))
        if not beside_nothing:
            staged.write(output, pieces)
        staged.commit()
    if to_stdout:
        print_data(pieces)
    elif beside_nothing:
        write_output(output, pieces)
    return survey


def update_bib(
    options: Options, target: Path, *, dialect: str = "bibtex", stage: Stage = silent_stage, fmt: BibFormat = STANDARD
) -> tuple[Survey, list[Edit]]:
    """Rewrite the user's ``target`` .bib in place, changing only tags that must change and adding new entries
    (laid out as ``fmt`` asks: the user's own entries keep theirs)."""
    # The target first: its entries keep their keys, and an added entry never takes one of them.
    sources = (target, *(s for s in options.sources if s != target))
    lock = options.lock_file or lock_beside(target)
    # Read before the sources are: a problem with the target is then told as --in-place's, not a source's.
    original, _ = read_text_file(target, str(target), allow_empty=True, hints=IN_PLACE_HINTS)
    survey = analyse_reusing(replace(options, sources=sources, lock_file=lock), stage)
    # The tags of an added entry are kept whatever is omitted: without them the next run would add them back.
    keep_tags = replace(fmt, omit=tuple(n for n in fmt.omit if n != survey.tags_field)) if fmt.omit else fmt
    left: list[Finding] = []
    text, edits = update_bib_in_place(
        original.text,
        str(target),
        survey.papers,
        survey.taxonomy,
        survey.tags_field,
        dialect,
        original.exact_text,
        keep_tags,
        string_names(survey.blocks),
        left,
        macros_added_to(*_strings_of(survey.blocks, str(target))),
        original.encoding,
        [str(source) for source in sources],
    )
    write_atomically(lock, dump_pins(survey.pins))  # first, as write_bib does: the added entries' keys pinned
    if text != original.exact_text:
        write_in_place(target, original.encode(text))
    found = macro_tag_hints(survey.findings, survey.papers, survey.tags_field, survey.taxonomy, survey.blocks)
    return replace(survey, findings=(*without_superseded(found, left), *left)), edits


def _strings_of(blocks: Sequence[RawBlock], path: str) -> tuple[list[RawBlock], list[RawBlock]]:
    """The @string blocks of the file ``path``, and those of the other sources."""
    strings = [block for block in blocks if block.kind == "string"]
    return [b for b in strings if b.location.path == path], [b for b in strings if b.location.path != path]


def string_names(blocks: Sequence[RawBlock]) -> frozenset[str]:
    """The @string macros the sources define, lower case."""
    return frozenset(block.key.lower() for block in blocks if block.kind == "string" and block.key)


@dataclass(frozen=True)
class CheckResult:
    findings: tuple[Finding, ...]
    fixes: tuple[str, ...]  # "path:line: key: what changed"


def check_sources(
    options: Options,
    tex_files: Sequence[Path],
    selected: Sequence[str],
    *,
    fix: bool = False,
    dialect: str = "bibtex",
    thin: int = 2,
    stage: Stage = silent_stage,
) -> CheckResult:
    """Run the selected checks; with ``fix``, first rewrite what is unambiguous in the .bib sources.

    ``stage`` sees the stages of the first analysis (ANALYSIS_STAGES); the one after fixes runs unseen.
    """
    # Read first: a --tex file that is missing or not text stops the run before a long analysis, not after it.
    tex, aux, problems = read_tex_documents(tex_files)
    try:
        survey = analyse_reusing(options, stage)
    except TaxonomyError as error:
        return CheckResult(
            tuple(
                Finding(
                    "taxonomy-invalid",
                    Severity.ERROR,
                    problem.message,
                    SourceLocation(problem.path or "taxonomy", problem.line or 1),
                    problem.hint,
                )
                for problem in error.problems
            ),
            (),
        )
    fixes: list[str] = []
    left: list[Finding] = []  # fixes that could not be made safely
    if fix:
        for path, display in source_paths(options):
            if path.suffix.lower() not in (".bib", ".bibtex"):
                continue
            original, _ = read_text_file(path, display, allow_empty=True)
            fixed, edits = fix_entries(
                original.text,
                display,
                survey.papers,
                survey.taxonomy,
                survey.tags_field,
                original.exact_text,
                frozenset(selected),
                string_names(survey.blocks),
                left,
            )
            if fixed != original.exact_text:
                write_in_place(path, original.encode(fixed))
                fixes.extend(f"{display}:{e.line}: {e.key}: {e.what}" for e in edits)
        if fixes:
            survey = analyse_reusing(options)  # report what is left after the fixes
    context = CheckContext(
        survey.papers, survey.taxonomy, tex, dialect, thin, aux, blocks=survey.blocks, tags_field=survey.tags_field
    )
    found = macro_tag_hints(survey.findings, survey.papers, survey.tags_field, survey.taxonomy, survey.blocks)
    return CheckResult(tuple(run_checks(context, [*found, *problems, *left], selected)), tuple(fixes))


def _read_input(path: Path, shown: str) -> str:
    """A file a document inputs: a problem with it is the document's, reported on the line that names it."""
    try:
        return read_text(path, shown, allow_empty=True)[0]
    except InputError as problem:
        raise Unreadable(problem.message) from None


def read_tex_documents(
    mains: Sequence[Path],
) -> tuple[list[tuple[str, str]], list[AuxCitation], list[Finding]]:
    """The files of each --tex document (each read once, however many documents input it), their .aux
    citations and what could not be followed. A main file that cannot be read stops the run (InputError)."""
    files: dict[str, str] = {}
    aux: dict[AuxCitation, None] = {}  # in order, each once: two documents can share an .aux
    problems: dict[Finding, None] = {}
    for main in mains:
        main_text = read_text(main, str(main), hints=TEX_HINTS)[0]
        document = read_document(main, str(main), main_text, _read_input)
        for shown, text in document.files:
            files.setdefault(os.path.normpath(shown), text)
        aux.update(dict.fromkeys(document.aux))
        problems.update(dict.fromkeys(document.findings))
    return list(files.items()), list(aux), list(problems)
