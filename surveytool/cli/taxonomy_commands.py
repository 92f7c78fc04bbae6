"""`surveytool taxonomy`: show the tree with counts, or validate a file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from surveytool.cli.options import (
    ConfigOpt,
    TaxonomyOpt,
    make_options,
)

taxonomy_app = typer.Typer(
    help="Show or validate a taxonomy.", invoke_without_command=True, no_args_is_help=False, rich_markup_mode=None
)


@taxonomy_app.callback()
def taxonomy_show(
    ctx: typer.Context,
    taxonomy: TaxonomyOpt = None,
    sources: Annotated[
        list[Path] | None,
        typer.Option("--sources", help="Count entries of these sources (default: the bundled seeds)."),
    ] = None,
    config: ConfigOpt = None,
) -> None:
    """Show the taxonomy tree with the number of entries whose primary section each is."""
    if ctx.invoked_subcommand is not None:
        return
    from surveytool.cli.present import taxonomy_tree
    from surveytool.rebuild.reuse import analyse_reusing

    survey = analyse_reusing(make_options(sources, taxonomy=taxonomy, config=config))
    typer.echo(taxonomy_tree(survey.taxonomy, survey.section_counts()), nl=False)


@taxonomy_app.command("validate")
def taxonomy_validate(path: Annotated[Path, typer.Argument(help="Taxonomy TOML file.")]) -> None:
    """Check a taxonomy file; errors name the line (exit 2)."""
    from surveytool.analysis.taxonomy import load_taxonomy

    taxonomy = load_taxonomy(path, missing_hint="check the path given to taxonomy validate")
    typer.echo(f"{path}: ok, {len(taxonomy.sections)} sections in {len(taxonomy.groups)} groups")
