"""Commands that read sources and print what surveytool makes of them: `export`, `parse`, `tag`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from surveytool.cli.options import (
    CacheOpt,
    CatalogOpt,
    ConfigOpt,
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
    exit_code,
    make_options,
    output_option,
    progress,
    report,
    require_choice,
    require_kind,
)


def export(
    sources: SourcesArg = None,
    format: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="markdown (an awesome-list README), csl-json, or the facts of the comparison tables: "
            "facts-csv or facts-json.",
        ),
    ] = "markdown",
    output: Annotated[Path | None, output_option("the file", "File to write (omitted or -: print it).")] = None,
    taxonomy: TaxonomyOpt = None,
    catalog: CatalogOpt = None,
    overrides: OverridesOpt = None,
    tags_field: TagsFieldOpt = "sections",
    kind: KindOpt = None,
    key_formula: KeyFormulaOpt = None,
    config: ConfigOpt = None,
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Export the entries as a Markdown reading list or as CSL-JSON, or the facts their abstracts state."""
    from dataclasses import replace

    from surveytool.maintain import lock_beside
    from surveytool.output.comparison import to_facts_csv, to_facts_json
    from surveytool.output.export import FORMATS, to_csl_json, to_markdown
    from surveytool.output.files import refuse_writing_over, write_output
    from surveytool.output.standard_output import print_data
    from surveytool.pipeline import ANALYSIS_STAGES
    from surveytool.rebuild.reuse import analyse_reusing

    require_choice(format, FORMATS, "--format")
    output = None if str(output) == "-" else output
    options = replace(
        make_options(
            sources,
            taxonomy=taxonomy,
            catalog=catalog,
            tags_field=tags_field,
            overrides=overrides,
            config=config,
            key_formula=key_formula,  # new entries keyed as bib keys them, so ids match the .bib beside the export
        ),
        source_kind=require_kind(kind),
        # The keys pinned beside the file, as bib -o and build gave them (CSL-JSON ids, [tags] overrides); none written.
        lock_file=None if output is None else lock_beside(output),
    )
    if output is not None:
        refuse_writing_over([output], options.read_files(), "name another file with -o")
    survey = analyse_reusing(options, progress(quiet, ANALYSIS_STAGES))
    report(survey.findings, quiet=True if output is None else quiet)
    writers = {
        "markdown": lambda papers, taxonomy: to_markdown(papers, taxonomy, survey.blocks),
        "csl-json": lambda papers, _: to_csl_json(papers, survey.blocks),
        "facts-csv": to_facts_csv,
        "facts-json": to_facts_json,
    }
    text = writers[format](survey.papers, survey.taxonomy)
    if output is None:
        print_data([text])
    else:
        write_output(output, text)
        if not quiet:
            typer.echo(f"wrote {output}")
    # The findings' exit code, as every other command that reads sources: a script sees the unknown tag.
    raise typer.Exit(exit_code(survey.findings, strict))


def parse(
    sources: SourcesArg = None,
    as_json: JsonOpt = False,
    catalog: CatalogOpt = None,
    kind: KindOpt = None,
    tags_field: TagsFieldOpt = "sections",
    online: OnlineOpt = False,
    config: ConfigOpt = None,
    cache: CacheOpt = None,
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
    merge_duplicates: MergeDuplicatesOpt = None,
) -> None:
    """Read, de-duplicate and resolve the sources; print the merged entries."""
    from dataclasses import replace

    from surveytool.cli.present import entries_table, key_map
    from surveytool.output.entries_json import entries_json
    from surveytool.pipeline import ANALYSIS_STAGES
    from surveytool.rebuild.reuse import analyse_reusing

    options = make_options(
        sources,
        catalog=catalog,
        tags_field=tags_field,
        online=online,
        config=config,
        cache=cache,
        merge_duplicates=merge_duplicates,
    )
    survey = analyse_reusing(
        replace(options, source_kind=require_kind(kind)),
        progress(quiet, ANALYSIS_STAGES),
    )
    report(survey.findings, quiet)
    if as_json:
        typer.echo(entries_json(survey.papers), nl=False)
    else:
        typer.echo(entries_table(survey.papers) + key_map(survey.papers), nl=False)
    raise typer.Exit(exit_code(survey.findings, strict))


def tag(
    sources: SourcesArg = None,
    explain: Annotated[
        bool, typer.Option("--explain", help="Show the evidence for every tag and the nearest tagged papers.")
    ] = False,
    evaluate: Annotated[
        bool,
        typer.Option(
            "--evaluate",
            help="Cross-validate the tagger on the entries you tagged: "
            "accuracy, per-section precision/recall, confusions.",
        ),
    ] = False,
    as_json: JsonOpt = False,
    taxonomy: TaxonomyOpt = None,
    catalog: CatalogOpt = None,
    overrides: OverridesOpt = None,
    tags_field: TagsFieldOpt = "sections",
    config: ConfigOpt = None,
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Tag entries with taxonomy sections (primary first); --explain shows why, --evaluate how far to trust it."""
    from surveytool.cli.present import entries_table, explain_tags, explain_tags_json
    from surveytool.output.entries_json import entries_json
    from surveytool.pipeline import ANALYSIS_STAGES, tag_threshold
    from surveytool.rebuild.reuse import analyse_reusing

    if evaluate and explain:  # one would be left out unsaid
        from surveytool.errors import InputError

        raise InputError(
            "--explain and --evaluate cannot be given together: --explain shows why each entry got its tags, "
            "--evaluate how often the tagger agrees with yours",
            hint="run `surveytool tag --explain` and `surveytool tag --evaluate` one after the other",
        )
    options = make_options(
        sources, taxonomy=taxonomy, catalog=catalog, tags_field=tags_field, overrides=overrides, config=config
    )
    survey = analyse_reusing(options, progress(quiet, ANALYSIS_STAGES))
    report(survey.findings, quiet)
    if evaluate:
        import json

        from surveytool.analysis.tagging.evaluation import evaluate as cross_validate
        from surveytool.analysis.tagging.evaluation import evaluation_report, nothing_to_evaluate

        evaluation = cross_validate(survey.papers, survey.taxonomy, threshold=tag_threshold(options.config))
        if not evaluation.predictions:
            raise nothing_to_evaluate(survey.papers, tags_field, [str(source) for source in sources or ()])
        typer.echo(json.dumps(evaluation.as_json(), indent=1) if as_json else evaluation_report(evaluation), nl=False)
        raise typer.Exit(exit_code(survey.findings, strict))
    if explain:
        from surveytool.analysis.tagging.review import with_exemplars

        assert survey.tagging is not None  # analyse tags every survey
        explained = with_exemplars(survey.papers, survey.tagging)
        # --json took the plain entries, the nearest tagged papers --explain promises left out unsaid.
        shown = explain_tags_json(explained) if as_json else explain_tags(explained)
        typer.echo(shown, nl=False)
    elif as_json:
        typer.echo(entries_json(survey.papers), nl=False)
    else:
        typer.echo(entries_table(survey.papers), nl=False)
    raise typer.Exit(exit_code(survey.findings, strict))
