"""`complete`: fill the missing fields of your own .bib entries and upgrade preprints."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from surveytool.cli.options import (
    CacheOpt,
    CatalogOpt,
    ConfigOpt,
    QuietOpt,
    StrictOpt,
    exit_code,
    make_options,
    nonempty_path,
    output_option,
    report,
)


def complete(
    bib: Annotated[
        Path,
        typer.Argument(
            parser=nonempty_path("the .bib file given to complete", "name your .bib file"),
            help="Your .bib file.",
            show_default=False,
            metavar="FILE.bib",
        ),
    ],
    online: Annotated[
        bool,
        typer.Option("--online", help="Also ask Semantic Scholar, DBLP, Crossref and OpenAlex (answers are cached)."),
    ] = False,
    in_place: Annotated[bool, typer.Option("--in-place", help="Write the added fields into the file itself.")] = False,
    output: Annotated[
        Path | None, output_option("the .bib file", "Write the completed .bib here (-: print it).")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print a unified diff and change nothing (also without -o/--in-place).")
    ] = False,
    overwrite: Annotated[
        list[str] | None,
        typer.Option("--overwrite", help="Fields you wrote that a found record may replace: FIELD,... (repeatable)."),
    ] = None,
    catalog: CatalogOpt = None,
    config: ConfigOpt = None,
    cache: CacheOpt = None,
    strict: StrictOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Fill missing fields (doi, venue, year, volume, number, pages, publisher, url) of your entries and upgrade
    arXiv preprints to their published version; each change is printed with its source."""
    from surveytool.analysis.complete import COMPLETED_FIELDS
    from surveytool.completion import complete_bib
    from surveytool.output.files import refuse_writing_over, write_in_place, write_output
    from surveytool.output.standard_output import print_file

    if in_place and output is not None:
        raise typer.BadParameter("give one of --in-place or -o FILE", param_hint="--in-place/-o")
    if str(bib) == "-":
        raise typer.BadParameter("complete reads and edits a file; name it", param_hint="BIB")
    names = [n.strip().lower() for given in overwrite or () for n in given.split(",") if n.strip()]
    unknown = [n for n in names if n not in COMPLETED_FIELDS]
    if unknown:
        raise typer.BadParameter(
            f"{', '.join(unknown)} is not a field complete fills (those are {', '.join(COMPLETED_FIELDS)})",
            param_hint="--overwrite",
        )
    writes = (in_place or output is not None) and not dry_run
    options = make_options(None, catalog=catalog, online=online, config=config, cache=cache)
    if writes and output is not None and str(output) != "-":  # before the lookups, which may take minutes online
        refuse_writing_over([output], [bib, *options.read_files()], "name another file with -o, or use --in-place")
    if online:  # a file SQLite cannot read is set aside as a damaged cache would be: never the user's .bib
        from surveytool.pipeline import DEFAULT_CACHE

        refuse_writing_over([options.cache or DEFAULT_CACHE], [bib, *options.read_files()], "name another --cache")
    done = complete_bib(options, bib, frozenset(names))
    report(done.findings, quiet)
    to_stdout = not writes or str(output) == "-"
    if not quiet:
        for entry in done.changes:
            typer.echo(f"{bib}:{entry.line}: {entry.key}: {entry.change}", err=to_stdout)
        for line, key, note in done.notes:
            typer.echo(f"{bib}:{line}: {key}: note: {note}", err=to_stdout)
    changed = done.text != done.original.exact_text
    if not writes:
        typer.echo(done.diff(str(bib)), nl=False)
    elif str(output) == "-":
        print_file(done.original.encode(done.text), done.text)
    elif output is not None:
        write_output(output, done.original.encode(done.text))
    elif changed:
        write_in_place(bib, done.original.encode(done.text))
    if not quiet:
        verb = "made" if writes else "to make (nothing written)"
        typer.echo(f"{len(done.changes)} change(s) {verb} in {done.entries} entr(ies) of {bib}", err=to_stdout)
    raise typer.Exit(exit_code(done.findings, strict))
