"""`surveytool check`: runs the named checks, fixes what is safe, prints findings and a summary."""

from __future__ import annotations

import difflib
import json
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from surveytool.cli.options import (
    CatalogOpt,
    ConfigOpt,
    OverridesOpt,
    QuietOpt,
    SourcesArg,
    StrictOpt,
    TagsFieldOpt,
    TaxonomyOpt,
    exit_code,
    make_options,
    nonempty_path,
    progress,
    report,
    require_choice,
)
from surveytool.model import Finding
from surveytool.text.control_chars import json_shown


def check(
    sources: SourcesArg = None,
    tex: Annotated[
        list[Path] | None,
        typer.Option(
            "--tex",
            parser=nonempty_path("a .tex file given with --tex", "name a .tex file, e.g. the main file of the thesis"),
            help="A .tex file whose \\cite keys must exist, with the files it inputs and its .aux (repeatable).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings as a JSON array.")] = False,
    strict: StrictOpt = False,
    fix: Annotated[
        bool,
        typer.Option(
            "--fix",
            help="Rewrite what is unambiguous in the .bib sources (tag variants, title braces, a link before a DOI, "
            "&amp;, a raw & % # _ ^ $, escapes in a url, empty fields, 'and and'), only the bytes at fault.",
        ),
    ] = False,
    explain: Annotated[str | None, typer.Option("--explain", help="Explain one check and exit.")] = None,
    checks: Annotated[
        str | None, typer.Option("--checks", help="Comma-separated checks to run (default: all).")
    ] = None,
    disable: Annotated[str | None, typer.Option("--disable", help="Comma-separated checks to skip.")] = None,
    thin: Annotated[
        int | None, typer.Option("--thin", min=0, help="thin-section: fewer entries than this (default 2).")
    ] = None,
    dialect: Annotated[str, typer.Option("--dialect", help="missing-field rules: bibtex or biblatex.")] = "bibtex",
    coverage: Annotated[
        bool,
        typer.Option(
            "--coverage",
            help="Also check the taxonomy's coverage (empty-section, thin-section); --checks names them too.",
        ),
    ] = False,
    taxonomy: TaxonomyOpt = None,
    catalog: CatalogOpt = None,
    overrides: OverridesOpt = None,
    tags_field: TagsFieldOpt = "sections",
    config: ConfigOpt = None,
    quiet: QuietOpt = False,
) -> None:
    """Check tags, entries and citations for consistency; --fix repairs what is safe to repair."""
    from surveytool.analysis.checks import COVERAGE_CHECKS, REGISTRY
    from surveytool.bibtex.fields import DIALECTS
    from surveytool.config import load_check_settings
    from surveytool.maintain import check_sources
    from surveytool.pipeline import ANALYSIS_STAGES

    require_choice(dialect, DIALECTS, "--dialect")
    if explain is not None:
        typer.echo(_explanation(explain))
        raise typer.Exit(0)
    options = make_options(
        sources, taxonomy=taxonomy, catalog=catalog, tags_field=tags_field, overrides=overrides, config=config
    )
    settings = load_check_settings(options.config)
    if checks:
        names = [c.strip() for c in checks.split(",") if c.strip()]
    else:  # the taxonomy's coverage only when asked: on a plain .bib every section it leaves empty is noise
        names = [c for c in REGISTRY if coverage or c not in COVERAGE_CHECKS]
    skipped = {c.strip() for c in (disable.split(",") if disable else settings.disable) if c.strip()}
    for name in [*names, *skipped]:
        if name not in REGISTRY:
            raise typer.BadParameter(_not_a_check(name), param_hint="--checks/--disable")
    if checks and not disable:  # the command line wins: [check] disable does not skip what --checks names
        skipped = set()
    result = check_sources(
        options,
        tex or [],
        [n for n in names if n not in skipped],
        fix=fix,
        dialect=dialect,
        thin=thin if thin is not None else settings.thin,
        stage=progress(quiet or as_json, ANALYSIS_STAGES),
    )
    if as_json:
        typer.echo(json_shown(json.dumps([_finding_record(f) for f in result.findings], indent=2, ensure_ascii=False)))
    else:
        for line in result.fixes:
            typer.echo(f"fixed {line}")
        report(result.findings, quiet)
        if not quiet:
            typer.echo(_summary(result.findings))
    raise typer.Exit(exit_code(result.findings, strict))


def _finding_record(finding: Finding) -> dict:
    where = finding.location
    return {
        "check": finding.check,
        "severity": finding.severity.value,
        "message": finding.message,
        "path": where.path if where else None,
        "line": where.line if where else None,
        "hint": finding.hint or None,
        "key": finding.key or None,
    }


def _summary(findings) -> str:
    if not findings:
        return "no problems found"
    by_severity = Counter(f.severity.value for f in findings)
    by_check = Counter(f.check for f in findings)
    counts = ", ".join(
        f"{by_severity[s]} {s}{'s' if by_severity[s] != 1 else ''}"
        for s in ("error", "warning", "info")
        if by_severity[s]
    )
    return f"{counts}: " + ", ".join(f"{name} {count}" for name, count in sorted(by_check.items()))


def _explanation(name: str) -> str:
    """What ``check --explain`` prints: a check, or a finding made while reading (always reported)."""
    from surveytool.analysis.checks import REGISTRY
    from surveytool.analysis.stage_findings import STAGE_FINDINGS

    if name in REGISTRY:
        item = REGISTRY[name]
        fixable = ", fixable with --fix" if item.fixable else ""
        return f"{item.name} ({item.severity.value}{fixable}): {item.summary}\n\n{item.explanation}"
    if name in STAGE_FINDINGS:
        found = STAGE_FINDINGS[name]
        always = "found while reading, resolving, completing or drafting; always reported, not chosen with --checks"
        return f"{found.name} ({found.severity}, {always}): {found.summary}\n\n{found.explanation}"
    raise typer.BadParameter(_not_a_check(name, explaining=True), param_hint="--explain")


def _not_a_check(name: str, explaining: bool = False) -> str:
    """Why ``name`` cannot be chosen (or, ``explaining``, explained), and the names that can."""
    from surveytool.analysis.checks import REGISTRY
    from surveytool.analysis.stage_findings import STAGE_FINDINGS

    if name in STAGE_FINDINGS:
        return f"{name!r} is found while the sources are read, resolved or drafted, and always reported: it cannot be chosen or left out"
    close = difflib.get_close_matches(name, [*REGISTRY, *STAGE_FINDINGS], n=1, cutoff=0.6)
    guess = f" (did you mean {close[0]!r}?)" if close else ""
    checks = ", ".join(sorted(REGISTRY))
    if explaining:  # it explains the findings made while reading too: listing the checks alone hid them
        found = ", ".join(sorted(STAGE_FINDINGS))
        return f"unknown check or finding {name!r}{guess}; checks: {checks}; other findings (always reported): {found}"
    return f"unknown check {name!r}{guess}; known: {checks}"
