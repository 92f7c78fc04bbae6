"""The command line: options -> one library call -> output and an exit code.

Exit codes: 0 clean (or warnings only), 1 findings at error level (or any
finding with --strict), 2 bad usage or unreadable input.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .errors import SurveyToolError
from .models import Finding, Severity

app = typer.Typer(
    name="surveytool",
    help="Turn related-paper lists and .bib files into a tagged references.bib and a related-work chapter.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

SourcesArg = Annotated[Optional[list[Path]], typer.Argument(help="Related-paper lists (.txt), .bib, id lists or CSL-JSON. Default: the bundled seeds.", show_default=False)]
TaxonomyOpt = Annotated[Optional[Path], typer.Option("--taxonomy", help="Taxonomy TOML file. Default: the bundled one.")]
CatalogOpt = Annotated[Optional[list[Path]], typer.Option("--catalog", help="A .bib of known papers to resolve against (repeatable).")]
StrictOpt = Annotated[bool, typer.Option("--strict", help="Exit 1 on any finding, warnings included.")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors.")]
OverridesOpt = Annotated[Optional[Path], typer.Option("--overrides", help="TOML file of your own tags by key ([tags] key = [ids]).")]
OnlineOpt = Annotated[bool, typer.Option("--online", help="Also ask OpenAlex, Crossref and arXiv (answers are cached).")]
ConfigOpt = Annotated[Optional[Path], typer.Option("--config", help="Settings file with an [online] table (default: ./surveytool.toml if present).")]
CacheOpt = Annotated[Optional[Path], typer.Option("--cache", help="SQLite file for online answers (default: ./.surveytool-cache.sqlite).")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite generated .tex edited outside the notes regions (kept as .bak).")]
FigureOpt = Annotated[bool, typer.Option("--figure/--no-figure", help="Include the taxonomy tree figure (forest).")]
TableOpt = Annotated[bool, typer.Option("--table/--no-table", help="Include the summary table (longtable).")]
PlotOpt = Annotated[bool, typer.Option("--plot/--no-plot", help="Include the papers-per-year plot (pgfplots).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the entries as a JSON array (the entries.json schema).")]
TagsFieldOpt = Annotated[str, typer.Option("--tags-field", help="BibTeX field that holds section tags (e.g. groups, keywords).")]


def _progress(quiet: bool):
    """A spinner naming the current stage on a terminal; nothing when piped or --quiet."""
    from contextlib import contextmanager

    if quiet or not sys.stderr.isatty():
        from .pipeline import _silent_stage

        return _silent_stage
    from rich.console import Console

    console = Console(stderr=True)

    @contextmanager
    def stage(name: str):
        with console.status(f"{name}…", spinner="dots"):
            yield

    return stage


@app.callback()
def _root() -> None:
    """surveytool: related-paper lists and .bib files in, a tagged bibliography and a chapter out."""


def _options(sources, taxonomy, catalog, tags_field="sections", overrides=None, online=False, config=None, cache=None):
    from .pipeline import Options

    if config is None and Path("surveytool.toml").is_file():
        config = Path("surveytool.toml")
    return Options(sources=tuple(sources or ()), taxonomy=taxonomy, catalogs=tuple(catalog or ()), tags_field=tags_field,
                   overrides=overrides, online=online, config=config, cache=cache)


def _report(findings: list[Finding] | tuple[Finding, ...], quiet: bool) -> None:
    for finding in findings:
        if quiet and finding.severity is not Severity.ERROR:
            continue
        typer.echo(str(finding), err=True)


def _exit_code(findings, strict: bool) -> int:
    if any(f.severity is Severity.ERROR for f in findings):
        return 1
    if strict and any(f.severity is not Severity.INFO for f in findings):
        return 1
    return 0


@app.command()
def build(
    sources: SourcesArg = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path("build"),
    taxonomy: TaxonomyOpt = None,
    catalog: CatalogOpt = None,
    level: Annotated[str, typer.Option("--level", help="Top heading of the chapter: section or chapter.")] = "section",
    dialect: Annotated[str, typer.Option("--dialect", help="bibtex or biblatex.")] = "bibtex",
    templates: Annotated[Optional[Path], typer.Option("--templates", help="Folder of templates overriding the bundled ones.")] = None,
    tags_field: TagsFieldOpt = "sections",
    overrides: OverridesOpt = None,
    online: OnlineOpt = False,
    config: ConfigOpt = None,
    cache: CacheOpt = None,
    force: ForceOpt = False,
    figure: FigureOpt = True,
    table: TableOpt = True,
    plot: PlotOpt = True,
    pdf: Annotated[bool, typer.Option("--pdf", help="Then run latexmk in the output folder and report LaTeX errors in plain words.")] = False,
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Run the whole flow and write references.bib, related_work.tex, main.tex and entries.json."""
    from .pipeline import DraftOptions, build as run_build
    from .render import LEVELS

    if level not in LEVELS:
        raise typer.BadParameter(f"must be one of {', '.join(LEVELS)}", param_hint="--level")
    if dialect not in ("bibtex", "biblatex"):
        raise typer.BadParameter("must be bibtex or biblatex", param_hint="--dialect")
    result = run_build(_options(sources, taxonomy, catalog, tags_field, overrides, online, config, cache), out,
                       DraftOptions(level=level, templates=templates, dialect=dialect, force=force,
                                    figure=figure, table=table, plot=plot), _progress(quiet))
    survey = result.survey
    _report(survey.findings, quiet)
    for note in result.notes:
        typer.echo(note, err=True)
    pdf_failed = False
    if pdf:
        from .latexmk import compile_pdf

        report = compile_pdf(out)
        for problem in report.problems:
            typer.echo(f"{out}/{problem}" if report.ran else f"warning: {problem}", err=True)
        pdf_failed = report.ran and not report.ok
        if report.ok and not quiet:
            typer.echo(f"wrote {report.pdf}")
    if not quiet:
        resolved = sum(p.resolved for p in survey.papers)
        typer.echo(f"{len(survey.papers)} entries, {resolved} resolved, {len(survey.papers) - resolved} unresolved; wrote {out}/")
        counts = survey.section_counts()
        for section in survey.taxonomy.sections:
            typer.echo(f"  {section.id:<20} {counts.get(section.id, 0):>4}")
        if counts.get("unclassified"):
            typer.echo(f"  {'unclassified':<20} {counts['unclassified']:>4}")
    raise typer.Exit(1 if pdf_failed else _exit_code(survey.findings, strict))


@app.command()
def draft(
    sources: SourcesArg = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="The chapter file to write.")] = Path("related_work.tex"),
    taxonomy: TaxonomyOpt = None,
    catalog: CatalogOpt = None,
    level: Annotated[str, typer.Option("--level", help="Top heading of the chapter: section or chapter.")] = "section",
    templates: Annotated[Optional[Path], typer.Option("--templates", help="Folder of templates overriding the bundled ones.")] = None,
    overrides: OverridesOpt = None,
    force: ForceOpt = False,
    figure: FigureOpt = True,
    table: TableOpt = True,
    plot: PlotOpt = True,
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Write only the related-work chapter; your notes in it survive."""
    from .pipeline import DraftOptions, draft_chapter
    from .render import LEVELS

    if level not in LEVELS:
        raise typer.BadParameter(f"must be one of {', '.join(LEVELS)}", param_hint="--level")
    result = draft_chapter(_options(sources, taxonomy, catalog, overrides=overrides), output,
                           DraftOptions(level=level, templates=templates, force=force, figure=figure, table=table, plot=plot))
    _report(result.survey.findings, quiet)
    for note in result.notes:
        typer.echo(note, err=True)
    if not quiet:
        typer.echo(f"wrote {output} ({len(result.survey.papers)} entries cited)")
    raise typer.Exit(_exit_code(result.survey.findings, strict))


@app.command()
def export(
    sources: SourcesArg = None,
    format: Annotated[str, typer.Option("--format", "-f", help="markdown (an awesome-list README) or csl-json.")] = "markdown",
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="File to write (default: print).")] = None,
    taxonomy: TaxonomyOpt = None,
    catalog: CatalogOpt = None,
    overrides: OverridesOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Export the entries as a Markdown reading list or as CSL-JSON."""
    from .export import FORMATS, to_csl_json, to_markdown
    from .pipeline import analyse, write_atomically

    if format not in FORMATS:
        raise typer.BadParameter(f"must be one of {', '.join(FORMATS)}", param_hint="--format")
    survey = analyse(_options(sources, taxonomy, catalog, overrides=overrides))
    _report(survey.findings, quiet=True if output is None else quiet)
    text = to_markdown(survey.papers, survey.taxonomy) if format == "markdown" else to_csl_json(survey.papers)
    if output is None:
        typer.echo(text, nl=False)
    else:
        write_atomically(output, text)
        if not quiet:
            typer.echo(f"wrote {output}")


@app.command()
def parse(
    sources: SourcesArg = None,
    as_json: JsonOpt = False,
    catalog: CatalogOpt = None,
    kind: Annotated[Optional[str], typer.Option("--kind", help="Read every source as: list, bib, ids or csl-json.")] = None,
    tags_field: TagsFieldOpt = "sections",
    online: OnlineOpt = False,
    config: ConfigOpt = None,
    cache: CacheOpt = None,
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Read, de-duplicate and resolve the sources; print the merged entries."""
    from dataclasses import replace

    from .pipeline import analyse, entries_json
    from .report import entries_table, key_map

    survey = analyse(replace(_options(sources, None, catalog, tags_field, None, online, config, cache), source_kind=kind),
                     _progress(quiet))
    _report(survey.findings, quiet)
    if as_json:
        typer.echo(entries_json(survey.papers), nl=False)
    else:
        typer.echo(entries_table(survey.papers) + key_map(survey.papers), nl=False)
    raise typer.Exit(_exit_code(survey.findings, strict))


@app.command()
def tag(
    sources: SourcesArg = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show the evidence for every tag.")] = False,
    as_json: JsonOpt = False,
    taxonomy: TaxonomyOpt = None,
    catalog: CatalogOpt = None,
    overrides: OverridesOpt = None,
    tags_field: TagsFieldOpt = "sections",
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Tag entries with taxonomy sections (primary first); --explain shows why."""
    from .pipeline import analyse, entries_json
    from .report import entries_table, explain_tags

    survey = analyse(_options(sources, taxonomy, catalog, tags_field, overrides), _progress(quiet))
    _report(survey.findings, quiet)
    if as_json:
        typer.echo(entries_json(survey.papers), nl=False)
    else:
        typer.echo(explain_tags(survey.papers) if explain else entries_table(survey.papers), nl=False)
    raise typer.Exit(_exit_code(survey.findings, strict))


@app.command()
def bib(
    sources: SourcesArg = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="The .bib file to write.")] = None,
    in_place: Annotated[Optional[Path], typer.Option("--in-place", help="Update this .bib of yours: only changed tags and new entries are written.")] = None,
    dialect: Annotated[str, typer.Option("--dialect", help="bibtex or biblatex.")] = "bibtex",
    sort: Annotated[str, typer.Option("--sort", help="key, or section (taxonomy order, then year).")] = "key",
    taxonomy: TaxonomyOpt = None,
    catalog: CatalogOpt = None,
    overrides: OverridesOpt = None,
    tags_field: TagsFieldOpt = "sections",
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Write a clean, stable .bib (-o FILE), or update your own in place (--in-place FILE)."""
    from .bibliography import DIALECTS, SORT_ORDERS
    from .pipeline import update_bib, write_bib

    if dialect not in DIALECTS:
        raise typer.BadParameter(f"must be one of {', '.join(DIALECTS)}", param_hint="--dialect")
    if sort not in SORT_ORDERS:
        raise typer.BadParameter(f"must be one of {', '.join(SORT_ORDERS)}", param_hint="--sort")
    if (output is None) == (in_place is None):
        raise typer.BadParameter("give exactly one of -o FILE or --in-place FILE", param_hint="-o/--in-place")
    options = _options(sources, taxonomy, catalog, tags_field, overrides)
    if in_place is not None:
        survey, edits = update_bib(options, in_place, dialect=dialect)
        _report(survey.findings, quiet)
        if not quiet:
            for edit in edits:
                where = f"{in_place}:{edit.line}" if edit.line else str(in_place)
                typer.echo(f"{where}: {edit.key}: {edit.what}")
            typer.echo(f"{len(edits)} change(s) to {in_place}")
    else:
        survey = write_bib(options, output, dialect=dialect, order=sort, stage=_progress(quiet))
        _report(survey.findings, quiet)
        if not quiet:
            typer.echo(f"{len(survey.papers)} entries written to {output}")
    raise typer.Exit(_exit_code(survey.findings, strict))


@app.command()
def resolve(
    sources: SourcesArg = None,
    online: OnlineOpt = False,
    explain: Annotated[bool, typer.Option("--explain", help="Show which source gave which fields, when, and how sure the match was.")] = False,
    as_json: JsonOpt = False,
    catalog: CatalogOpt = None,
    config: ConfigOpt = None,
    cache: CacheOpt = None,
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Resolve entries to real metadata: what was found, from where, and what remains unresolved."""
    from .pipeline import analyse, entries_json
    from .report import resolution_report

    survey = analyse(_options(sources, None, catalog, online=online, config=config, cache=cache), _progress(quiet))
    _report(survey.findings, quiet)
    typer.echo(entries_json(survey.papers) if as_json else resolution_report(survey.papers, explain), nl=False)
    raise typer.Exit(_exit_code(survey.findings, strict))


@app.command()
def check(
    sources: SourcesArg = None,
    tex: Annotated[Optional[list[Path]], typer.Option("--tex", help="A .tex file whose \\cite keys must exist (repeatable).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings as a JSON array.")] = False,
    strict: StrictOpt = False,
    fix: Annotated[bool, typer.Option("--fix", help="Rewrite what is unambiguous (tag variants, title braces) in the .bib sources.")] = False,
    explain: Annotated[Optional[str], typer.Option("--explain", help="Explain one check and exit.")] = None,
    checks: Annotated[Optional[str], typer.Option("--checks", help="Comma-separated checks to run (default: all).")] = None,
    disable: Annotated[Optional[str], typer.Option("--disable", help="Comma-separated checks to skip.")] = None,
    thin: Annotated[Optional[int], typer.Option("--thin", help="thin-section: fewer entries than this (default 2).")] = None,
    dialect: Annotated[str, typer.Option("--dialect", help="missing-field rules: bibtex or biblatex.")] = "bibtex",
    taxonomy: TaxonomyOpt = None,
    catalog: CatalogOpt = None,
    overrides: OverridesOpt = None,
    tags_field: TagsFieldOpt = "sections",
    config: ConfigOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Check tags, entries and citations for consistency; --fix repairs what is safe to repair."""
    import json

    from .checks import REGISTRY
    from .config import load_check_settings
    from .pipeline import check_sources

    if explain is not None:
        if explain not in REGISTRY:
            raise typer.BadParameter(f"unknown check {explain!r}; known: {', '.join(sorted(REGISTRY))}", param_hint="--explain")
        item = REGISTRY[explain]
        typer.echo(f"{item.name} ({item.severity.value}{', fixable with --fix' if item.fixable else ''}): {item.summary}\n\n{item.explanation}")
        raise typer.Exit(0)
    options = _options(sources, taxonomy, catalog, tags_field, overrides, config=config)
    settings = load_check_settings(options.config)
    names = [c.strip() for c in (checks.split(",") if checks else REGISTRY) if c.strip()]
    skipped = {c.strip() for c in (disable.split(",") if disable else settings.disable) if c.strip()}
    for name in [*names, *skipped]:
        if name not in REGISTRY:
            raise typer.BadParameter(f"unknown check {name!r}; known: {', '.join(sorted(REGISTRY))}", param_hint="--checks/--disable")
    result = check_sources(options, tex or [], [n for n in names if n not in skipped], fix=fix, dialect=dialect,
                           thin=thin if thin is not None else settings.thin)
    if as_json:
        typer.echo(json.dumps([_finding_record(f) for f in result.findings], indent=2, ensure_ascii=False))
    else:
        for line in result.fixes:
            typer.echo(f"fixed {line}")
        _report(result.findings, quiet)
        if not quiet:
            typer.echo(_summary(result.findings))
    raise typer.Exit(_exit_code(result.findings, strict))


def _finding_record(finding: Finding) -> dict:
    where = finding.location
    return {"check": finding.check, "severity": finding.severity.value, "message": finding.message,
            "path": where.path if where else None, "line": where.line if where else None,
            "hint": finding.hint or None, "key": finding.key or None}


def _summary(findings) -> str:
    from collections import Counter

    if not findings:
        return "no problems found"
    by_severity = Counter(f.severity.value for f in findings)
    by_check = Counter(f.check for f in findings)
    counts = ", ".join(f"{by_severity[s]} {s}{'s' if by_severity[s] != 1 else ''}" for s in ("error", "warning", "info") if by_severity[s])
    return f"{counts}: " + ", ".join(f"{name} {count}" for name, count in sorted(by_check.items()))


taxonomy_app = typer.Typer(help="Show or validate a taxonomy.", invoke_without_command=True, no_args_is_help=False)
app.add_typer(taxonomy_app, name="taxonomy")


@taxonomy_app.callback()
def taxonomy_show(
    ctx: typer.Context,
    taxonomy: TaxonomyOpt = None,
    sources: Annotated[Optional[list[Path]], typer.Option("--sources", help="Count entries of these sources (default: the bundled seeds).")] = None,
) -> None:
    """Show the taxonomy tree with the number of entries whose primary section each is."""
    if ctx.invoked_subcommand is not None:
        return
    from .pipeline import analyse
    from .report import taxonomy_tree

    survey = analyse(_options(sources, taxonomy, None))
    typer.echo(taxonomy_tree(survey.taxonomy, survey.section_counts()), nl=False)


@taxonomy_app.command("validate")
def taxonomy_validate(path: Annotated[Path, typer.Argument(help="Taxonomy TOML file.")]) -> None:
    """Check a taxonomy file; errors name the line (exit 2)."""
    from .taxonomy import load_taxonomy

    taxonomy = load_taxonomy(path)
    typer.echo(f"{path}: ok, {len(taxonomy.sections)} sections in {len(taxonomy.groups)} groups")


def main() -> None:
    """Console entry point: user errors become one line and exit code 2, never a traceback."""
    try:
        app(standalone_mode=True)
    except SurveyToolError as error:
        typer.echo(str(error), err=True)
        sys.exit(error.exit_code)
