"""`surveytool build` and `surveytool draft`: a whole build into a folder, or only the chapter."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from surveytool.cli.options import (
    CacheOpt,
    CatalogOpt,
    ComparisonsOpt,
    ConfigOpt,
    DialectOpt,
    FigureOpt,
    ForceOpt,
    KeyFormulaOpt,
    LevelOpt,
    MergeDuplicatesOpt,
    OnlineOpt,
    OverridesOpt,
    PlotOpt,
    QuietOpt,
    SourcesArg,
    StrictOpt,
    TableOpt,
    TagsFieldOpt,
    TaxonomyOpt,
    TemplatesOpt,
    ThemesOpt,
    exit_code,
    make_options,
    output_option,
    progress,
    report,
    require_choice,
)

if TYPE_CHECKING:
    from surveytool.drafting.suggestions import Suggester
    from surveytool.options import DraftOptions

REUSED_WHAT = {
    "bibtex": ".bib blocks read",
    "tags": "entries tagged",
    "fragments": "chapter paragraphs and table rows",
    "entries": "entries kept as they were (the others read and tagged again)",
}


def build(
    sources: SourcesArg = None,
    out: Annotated[
        Path, output_option("the output folder", "Output folder.", "name a folder, e.g. -o build", name="--out")
    ] = Path("build"),
    taxonomy: TaxonomyOpt = None,
    catalog: CatalogOpt = None,
    level: LevelOpt = "section",
    dialect: DialectOpt = "bibtex",
    templates: TemplatesOpt = None,
    tags_field: TagsFieldOpt = "sections",
    overrides: OverridesOpt = None,
    online: OnlineOpt = False,
    config: ConfigOpt = None,
    cache: CacheOpt = None,
    force: ForceOpt = False,
    figure: FigureOpt = True,
    table: TableOpt = True,
    plot: PlotOpt = True,
    themes: ThemesOpt = True,
    comparisons: ComparisonsOpt = True,
    pdf: Annotated[
        bool,
        typer.Option("--pdf", help="Then run latexmk in the output folder and report LaTeX errors in plain words."),
    ] = False,
    reuse: Annotated[
        bool,
        typer.Option(
            "--reuse/--no-reuse",
            help="Reuse what the last build in --out read and tagged (kept in OUT/.surveytool-cache, by content).",
        ),
    ] = True,
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
    merge_duplicates: MergeDuplicatesOpt = None,
    key_formula: KeyFormulaOpt = None,
) -> None:
    """Run the whole flow and write references.bib, related_work.tex, main.tex and entries.json."""
    from dataclasses import replace

    from surveytool.bibtex.fields import DIALECTS
    from surveytool.build import BUILD_STAGES
    from surveytool.build import build as run_build
    from surveytool.config import load_bib_format
    from surveytool.options import BuildLayout
    from surveytool.output.render import LEVELS

    require_choice(level, LEVELS, "--level")
    require_choice(dialect, DIALECTS, "--dialect")
    options = make_options(
        sources,
        taxonomy=taxonomy,
        catalog=catalog,
        tags_field=tags_field,
        overrides=overrides,
        online=online,
        config=config,
        cache=cache,
        key_formula=key_formula,
        merge_duplicates=merge_duplicates,
    )
    result = run_build(
        replace(options, build_cache=BuildLayout.of(out).cache if reuse else None),
        out,
        replace(
            chapter_options(level, templates, force, figure, table, plot, themes, comparisons),
            dialect=dialect,
            bib_format=load_bib_format(options.config),  # [bib] only: the flags are bib's
        ),
        progress(quiet, BUILD_STAGES),
    )
    summary = result.summary
    report(summary.findings, quiet)
    for note in result.notes:
        if not (quiet and note.routine):
            typer.echo(note.text, err=True)
    pdf_failed = False
    if pdf:
        from surveytool.output.latexmk import compile_pdf

        pdf_report = compile_pdf(out)
        for problem in pdf_report.problems:
            typer.echo(problem if pdf_report.ran else f"warning: {problem}", err=True)
        pdf_failed = pdf_report.ran and not pdf_report.ok
        if pdf_report.ok and not quiet:
            typer.echo(f"wrote {pdf_report.pdf}")
    if not quiet:
        from surveytool.cli.present import counted

        resolved, entries = summary.resolved, counted(summary.entries, "entry", "entries")
        typer.echo(f"{entries}, {resolved} resolved, {summary.entries - resolved} unresolved; wrote {out}/")
        if any(hits for hits, _ in summary.reused.values()):
            typer.echo(
                "reused from the last build: "
                + ", ".join(
                    f"{hits} of {hits + misses} {REUSED_WHAT.get(name, name)}"
                    for name, (hits, misses) in summary.reused.items()
                    if hits + misses
                )
            )
        if summary.discussed is not None:
            cited, total = summary.discussed
            typer.echo(
                f"{cited} of {counted(total, 'paper', 'papers')} discussed in your notes (check --tex {out}/related_work.tex: which)"
            )
        counts = summary.sections
        for section in summary.taxonomy.sections:
            typer.echo(f"  {section.id:<20} {counts.get(section.id, 0):>4}")
        if counts.get("unclassified"):
            typer.echo(f"  {'unclassified':<20} {counts['unclassified']:>4}")
    raise typer.Exit(1 if pdf_failed else exit_code(summary.findings, strict))


def draft(
    sources: SourcesArg = None,
    output: Annotated[
        Path,
        output_option(
            "the chapter file",
            "The chapter file to write ('-': print it).",
            "name a file, e.g. -o related_work.tex, or - to print it",
        ),
    ] = Path("related_work.tex"),
    taxonomy: TaxonomyOpt = None,
    catalog: CatalogOpt = None,
    level: LevelOpt = "section",
    templates: TemplatesOpt = None,
    overrides: OverridesOpt = None,
    force: ForceOpt = False,
    figure: FigureOpt = True,
    table: TableOpt = True,
    plot: PlotOpt = True,
    themes: ThemesOpt = True,
    comparisons: ComparisonsOpt = True,
    llm: Annotated[
        bool,
        typer.Option(
            "--llm",
            help="Ask the chat model of surveytool.toml [llm] for a suggested paragraph per theme, citing only "
            "that theme's papers; nothing is sent anywhere without it.",
        ),
    ] = False,
    config: ConfigOpt = None,
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
    # build's options that change what the chapter holds: with them draft writes the chapter build writes.
    dialect: DialectOpt = "bibtex",
    tags_field: TagsFieldOpt = "sections",
    merge_duplicates: MergeDuplicatesOpt = None,
    key_formula: KeyFormulaOpt = None,
) -> None:
    """Write only the related-work chapter; your notes in it survive."""
    from dataclasses import replace

    from surveytool.bibtex.fields import DIALECTS
    from surveytool.build import BUILD_STAGES
    from surveytool.draft import STDOUT, draft_chapter
    from surveytool.output.render import LEVELS

    require_choice(level, LEVELS, "--level")
    require_choice(dialect, DIALECTS, "--dialect")
    options = make_options(
        sources,
        taxonomy=taxonomy,
        catalog=catalog,
        tags_field=tags_field,
        overrides=overrides,
        config=config,
        key_formula=key_formula,
        merge_duplicates=merge_duplicates,
    )
    suggester = chapter_suggester(options.config, output, llm)
    result = draft_chapter(
        options,
        output,
        replace(chapter_options(level, templates, force, figure, table, plot, themes, comparisons), dialect=dialect),
        progress(quiet, BUILD_STAGES),
        suggester,
    )
    findings = [*result.summary.findings, *suggester.findings()]
    report(findings, quiet)
    for note in [*(n.text for n in result.notes if not (quiet and n.routine)), suggester.save()]:
        if note:
            typer.echo(note, err=True)
    if not quiet:  # beside the chapter on stdout, the summary goes to stderr
        from surveytool.cli.present import counted

        where = "the chapter" if output == STDOUT else output
        cited = counted(result.summary.entries, "entry", "entries")
        typer.echo(f"wrote {where} ({cited} cited)", err=output == STDOUT)
        if suggester.summary():
            typer.echo(suggester.summary(), err=output == STDOUT)
    raise typer.Exit(exit_code(findings, strict))


def chapter_options(
    level: str,
    templates: Path | None,
    force: bool,
    figure: bool,
    table: bool,
    plot: bool,
    themes: bool,
    comparisons: bool,
) -> DraftOptions:
    """The chapter's flags, the same in build and draft (in their order); build adds the .bib's dialect and format."""
    from surveytool.options import DraftOptions

    return DraftOptions(
        level=level,
        templates=templates,
        force=force,
        figure=figure,
        table=table,
        plot=plot,
        themes=themes,
        comparisons=comparisons,
    )


def chapter_suggester(config: Path | None, output: Path, ask: bool) -> Suggester:
    """Suggestions from the answers cached beside ``output``; from the model too when ``ask`` (draft --llm)."""
    import os

    from surveytool.config import load_llm_settings
    from surveytool.drafting.answer_cache import answers_folder
    from surveytool.drafting.llm_client import LlmClient
    from surveytool.drafting.suggestions import Suggester

    settings = load_llm_settings(config)
    if ask and config is None:
        raise typer.BadParameter("needs an [llm] table in surveytool.toml, or --config FILE", param_hint="--llm")
    client = LlmClient(settings, os.environ, path=config) if ask else None
    return Suggester.for_chapter(settings, answers_folder(output), client)
