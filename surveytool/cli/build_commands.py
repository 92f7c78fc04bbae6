"""`surveytool build` and `surveytool draft`: a whole build into a folder, or only the chapter."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from surveytool.cli.options import (
    CacheOpt,
    CatalogOpt,
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
    exit_code,
    make_options,
    merge_setting,
    progress,
    report,
    require_choice,
)

REUSED_WHAT = {
    "bibtex": ".bib blocks read",
    "tags": "entries tagged",
    "fragments": "chapter paragraphs and table rows",
    "entries": "entries kept as they were (the others read and tagged again)",
}


def build(
    sources: SourcesArg = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("build"),
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
    merge_duplicates: MergeDuplicatesOpt = False,
    key_formula: KeyFormulaOpt = None,
) -> None:
    """Run the whole flow and write references.bib, related_work.tex, main.tex and entries.json."""
    from dataclasses import replace

    from surveytool.bibtex.fields import DIALECTS
    from surveytool.build import BUILD_STAGES, DraftOptions
    from surveytool.build import build as run_build
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
    )
    merge_duplicates = merge_duplicates or merge_setting(options.config)
    result = run_build(
        replace(options, build_cache=BuildLayout.of(out).cache if reuse else None, merge_duplicates=merge_duplicates),
        out,
        DraftOptions(
            level=level, templates=templates, dialect=dialect, force=force, figure=figure, table=table, plot=plot
        ),
        progress(quiet, BUILD_STAGES),
    )
    summary = result.summary
    report(summary.findings, quiet)
    for note in result.notes:
        typer.echo(note, err=True)
    pdf_failed = False
    if pdf:
        from surveytool.output.latexmk import compile_pdf

        pdf_report = compile_pdf(out)
        for problem in pdf_report.problems:
            typer.echo(f"{out}/{problem}" if pdf_report.ran else f"warning: {problem}", err=True)
        pdf_failed = pdf_report.ran and not pdf_report.ok
        if pdf_report.ok and not quiet:
            typer.echo(f"wrote {pdf_report.pdf}")
    if not quiet:
        resolved = summary.resolved
        typer.echo(
            f"{summary.entries} entries, {resolved} resolved, {summary.entries - resolved} unresolved; wrote {out}/"
        )
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
            typer.echo(f"{cited} of {total} papers discussed in your notes (check --tex {out}/related_work.tex: which)")
        counts = summary.sections
        for section in summary.taxonomy.sections:
            typer.echo(f"  {section.id:<20} {counts.get(section.id, 0):>4}")
        if counts.get("unclassified"):
            typer.echo(f"  {'unclassified':<20} {counts['unclassified']:>4}")
    raise typer.Exit(1 if pdf_failed else exit_code(summary.findings, strict))


def draft(
    sources: SourcesArg = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="The chapter file to write.")] = Path(
        "related_work.tex"
    ),
    taxonomy: TaxonomyOpt = None,
    catalog: CatalogOpt = None,
    level: LevelOpt = "section",
    templates: TemplatesOpt = None,
    overrides: OverridesOpt = None,
    force: ForceOpt = False,
    figure: FigureOpt = True,
    table: TableOpt = True,
    plot: PlotOpt = True,
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Write only the related-work chapter; your notes in it survive."""
    from surveytool.build import BUILD_STAGES, DraftOptions, draft_chapter
    from surveytool.output.render import LEVELS

    require_choice(level, LEVELS, "--level")
    result = draft_chapter(
        make_options(sources, taxonomy=taxonomy, catalog=catalog, overrides=overrides),
        output,
        DraftOptions(level=level, templates=templates, force=force, figure=figure, table=table, plot=plot),
        progress(quiet, BUILD_STAGES),
    )
    report(result.summary.findings, quiet)
    for note in result.notes:
        typer.echo(note, err=True)
    if not quiet:
        typer.echo(f"wrote {output} ({result.summary.entries} entries cited)")
    raise typer.Exit(exit_code(result.summary.findings, strict))
