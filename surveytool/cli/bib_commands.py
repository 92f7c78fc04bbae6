"""Commands that write a .bib or rewrite citations: `bib`, `resolve`, `rekey`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from surveytool.cli.format_flags import (
    AlignOpt,
    CurlyOpt,
    DropAllCapsOpt,
    MaxAuthorsOpt,
    MonthsOpt,
    NumericOpt,
    OmitOpt,
    RemoveEmptyOpt,
    SortFieldsOpt,
    SpaceOpt,
    TabOpt,
    WrapOpt,
    chosen_format,
)
from surveytool.cli.options import (
    CacheOpt,
    CatalogOpt,
    ConfigOpt,
    DialectOpt,
    JsonOpt,
    KeyFormulaOpt,
    KindOpt,
    MergeDuplicatesOpt,
    OnlineOpt,
    OverridesOpt,
    QuietOpt,
    SourcesArg,
    StrictOpt,
    TagsFieldOpt,
    TaxonomyOpt,
    check_option_files,
    exit_code,
    make_options,
    nonempty_path,
    output_option,
    progress,
    report,
    require_choice,
    require_kind,
)


def bib(
    sources: SourcesArg = None,
    output: Annotated[Path | None, output_option("the .bib file", "The .bib file to write (-: print it).")] = None,
    in_place: Annotated[
        Path | None,
        typer.Option(
            "--in-place",
            parser=nonempty_path("the .bib file given with --in-place", "name your .bib file"),
            help="Update this .bib of yours: only changed tags and new entries are written.",
        ),
    ] = None,
    dialect: DialectOpt = "bibtex",
    sort: Annotated[str, typer.Option("--sort", help="key, or section (taxonomy order, then year).")] = "key",
    taxonomy: TaxonomyOpt = None,
    catalog: CatalogOpt = None,
    overrides: OverridesOpt = None,
    tags_field: TagsFieldOpt = "sections",
    kind: KindOpt = None,
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
    merge_duplicates: MergeDuplicatesOpt = None,
    omit: OmitOpt = None,
    sort_fields: SortFieldsOpt = None,
    space: SpaceOpt = None,
    tab: TabOpt = None,
    align: AlignOpt = None,
    curly: CurlyOpt = None,
    numeric: NumericOpt = None,
    months: MonthsOpt = None,
    remove_empty_fields: RemoveEmptyOpt = None,
    max_authors: MaxAuthorsOpt = None,
    wrap: WrapOpt = None,
    drop_all_caps: DropAllCapsOpt = None,
    key_formula: KeyFormulaOpt = None,
    config: ConfigOpt = None,
) -> None:
    """Write a clean, stable .bib (-o FILE), or update your own in place (--in-place FILE)."""
    flags = dict(locals())  # the formatting flags are read by name (format_flags.chosen_format)
    from dataclasses import replace

    from surveytool.bibtex.fields import DIALECTS
    from surveytool.bibtex.order import SORT_ORDERS
    from surveytool.maintain import BIB_STAGES, update_bib, write_bib
    from surveytool.pipeline import ANALYSIS_STAGES

    require_choice(dialect, DIALECTS, "--dialect")
    require_choice(sort, SORT_ORDERS, "--sort")
    if (output is None) == (in_place is None):
        raise typer.BadParameter("give exactly one of -o FILE or --in-place FILE", param_hint="-o/--in-place")
    if in_place is not None and str(in_place) == "-":
        raise typer.BadParameter("--in-place edits a file; print a new .bib with -o - instead", param_hint="--in-place")
    if in_place is not None and merge_duplicates:
        raise typer.BadParameter(
            "--in-place never removes your entries; merge into a new file with -o FILE", param_hint="--merge-duplicates"
        )
    options = make_options(
        sources,
        taxonomy=taxonomy,
        catalog=catalog,
        tags_field=tags_field,
        overrides=overrides,
        config=config,
        key_formula=key_formula,
        merge_duplicates=merge_duplicates if in_place is None else False,  # --in-place never merges
    )
    options = replace(
        options,
        source_kind=require_kind(kind),
    )
    fmt = chosen_format(options.config, flags)
    if in_place is not None:
        survey, edits = update_bib(options, in_place, dialect=dialect, stage=progress(quiet, ANALYSIS_STAGES), fmt=fmt)
        report(survey.findings, quiet)
        if not quiet:
            for edit in edits:
                where = f"{in_place}:{edit.line}" if edit.line else str(in_place)
                typer.echo(f"{where}: {edit.key}: {edit.what}")
            typer.echo(f"{len(edits)} change(s) to {in_place}")
    else:
        assert output is not None  # exactly one of the two, checked above
        survey = write_bib(options, output, dialect=dialect, order=sort, stage=progress(quiet, BIB_STAGES), fmt=fmt)
        report(survey.findings, quiet)
        if not quiet:
            from surveytool.cli.present import counted

            printed = str(output) == "-"
            written = counted(len(survey.papers), "entry", "entries")
            typer.echo(f"{written} written to {'standard output' if printed else output}", err=printed)
    raise typer.Exit(exit_code(survey.findings, strict))


def resolve(
    sources: SourcesArg = None,
    online: OnlineOpt = False,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show which source gave which fields, when, and how sure the match was.")
    ] = False,
    as_json: JsonOpt = False,
    catalog: CatalogOpt = None,
    config: ConfigOpt = None,
    cache: CacheOpt = None,
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Resolve entries to real metadata: what was found, from where, and what remains unresolved."""
    from surveytool.cli.present import resolution_report
    from surveytool.output.entries_json import entries_json
    from surveytool.pipeline import ANALYSIS_STAGES
    from surveytool.rebuild.reuse import analyse_reusing

    survey = analyse_reusing(
        make_options(sources, catalog=catalog, online=online, config=config, cache=cache),
        progress(quiet, ANALYSIS_STAGES),
    )
    report(survey.findings, quiet)
    typer.echo(entries_json(survey.papers) if as_json else resolution_report(survey.papers, explain), nl=False)
    raise typer.Exit(exit_code(survey.findings, strict))


def rekey(
    sources: SourcesArg = None,
    tex: Annotated[
        list[Path] | None,
        typer.Option(
            "--tex",
            parser=nonempty_path("a .tex file given with --tex", "name a .tex file, e.g. the main file of the thesis"),
            help="A .tex file whose \\cite keys to rewrite, with the files it inputs (repeatable).",
        ),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only print what would change.")] = False,
    catalog: CatalogOpt = None,
    tags_field: TagsFieldOpt = "sections",
    config: ConfigOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Rewrite \\cite keys in .tex files to the keys that --merge-duplicates keeps (each file atomically)."""

    from surveytool.maintain import TEX_HINTS
    from surveytool.output.rekey import rekey_documents, replacements
    from surveytool.pipeline import ANALYSIS_STAGES
    from surveytool.rebuild.reuse import analyse_reusing

    if not tex:
        raise typer.BadParameter("name the .tex files to rewrite", param_hint="--tex")
    # As check reads them: a binary file, or a typo, is refused before the analysis, not rewritten after it.
    check_option_files(tex, TEX_HINTS)
    survey = analyse_reusing(
        make_options(sources, catalog=catalog, tags_field=tags_field, config=config, merge_duplicates=True),
        progress(quiet, ANALYSIS_STAGES),
    )
    done = rekey_documents(tex, replacements(survey.papers), dry_run=dry_run)
    report(done.findings, quiet)
    if not quiet:
        for change in done.changes:
            typer.echo(str(change))
        for shown in done.rewritten:
            typer.echo(f"{'would rewrite' if dry_run else 'rewrote'} {shown}")
        typer.echo(
            f"{len(done.changes)} citation key(s) {'to rewrite' if dry_run else 'rewritten'} in "
            f"{len(done.rewritten)} file(s); {done.read} file(s) read, citing {done.cited} distinct key(s)"
        )
    if not done.cited:  # an empty or wrong file: "0 keys rewritten" alone reads as "nothing needed rewriting"
        from surveytool.model import Finding, Severity, SourceLocation
        from surveytool.text.tex_inputs import TEX_INPUT_CHECK

        if len(tex) == 1:
            message, location = (
                "no \\cite command in this file or in the files it inputs",
                SourceLocation(str(tex[0]), 1),
            )
        else:
            message, location = f"no \\cite command in {', '.join(map(str, tex))} or in the files they input", None
        hint = "name the .tex file that cites these sources, e.g. the main file of the thesis"
        report([Finding(TEX_INPUT_CHECK, Severity.WARNING, message, location, hint)], quiet)
