"""`surveytool taxonomy`: show the tree with counts, or validate a file."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from typer.core import TyperGroup

from surveytool.cli.options import (
    SOURCE_HINT,
    ConfigOpt,
    OverridesOpt,
    TagsFieldOpt,
    TaxonomyOpt,
    make_options,
    nonempty_path,
)

if TYPE_CHECKING:
    from surveytool.model import Taxonomy


class _TaxonomyGroup(TyperGroup):
    """A file named where a subcommand goes (`taxonomy lib.bib`, as every other command takes sources) is told
    the option that takes it: a positional source list would swallow the subcommand's name."""

    def resolve_command(self, ctx, args):
        name = args[0] if args and not ctx.resilient_parsing else ""
        if name and name not in self.commands and (Path(name).suffix or "/" in name or Path(name).exists()):
            command = ctx.command_path
            if Path(name).suffix.lower() == ".toml":
                said = f"To show it: {command} --taxonomy {name}; to check it: {command} validate {name}"
            else:
                files = itertools.takewhile(lambda arg: not arg.startswith("-"), args)
                said = f"Sources are given with --sources: {command} " + " ".join(f"--sources {f}" for f in files)
            ctx.fail(f"No such command {name!r}. {said}")
        return super().resolve_command(ctx, args)


taxonomy_app = typer.Typer(
    cls=_TaxonomyGroup,
    help="Show or validate a taxonomy.",
    invoke_without_command=True,
    no_args_is_help=False,
    rich_markup_mode=None,
)


@taxonomy_app.callback()
def taxonomy_show(
    ctx: typer.Context,
    taxonomy: TaxonomyOpt = None,
    sources: Annotated[
        list[Path] | None,
        typer.Option(
            "--sources",
            parser=nonempty_path("a source given with --sources", SOURCE_HINT),
            help="Count entries of these sources (default: the bundled seeds).",
        ),
    ] = None,
    overrides: OverridesOpt = None,
    tags_field: TagsFieldOpt = "sections",
    config: ConfigOpt = None,
) -> None:
    """Show the taxonomy tree with the number of entries whose primary section each is."""
    if ctx.invoked_subcommand is not None:
        return
    from surveytool.cli.present import taxonomy_tree
    from surveytool.rebuild.reuse import analyse_reusing

    # The user's own tags as build takes them: without them the counts were the tagger's alone.
    options = make_options(sources, taxonomy=taxonomy, overrides=overrides, tags_field=tags_field, config=config)
    survey = analyse_reusing(options)
    typer.echo(taxonomy_tree(survey.taxonomy, survey.section_counts()), nl=False)


@taxonomy_app.command("validate")
def taxonomy_validate(
    path: Annotated[
        Path,
        typer.Argument(
            parser=nonempty_path("the taxonomy file given to taxonomy validate", "name a taxonomy TOML file"),
            help="Taxonomy TOML file.",
        ),
    ],
) -> None:
    """Check a taxonomy file; errors name the line (exit 2)."""
    from surveytool.analysis.taxonomy import load_taxonomy

    taxonomy = load_taxonomy(path, missing_hint="check the path given to taxonomy validate")
    typer.echo(f"{path}: ok, {_size(taxonomy)}")
    if empty := _without_sections(taxonomy):  # no error (a group to fill later), but not passed over in silence
        typer.echo(f"{path}: note: the chapter leaves out groups that hold no section: {', '.join(empty)}", err=True)


def _without_sections(taxonomy: Taxonomy) -> list[str]:
    """The groups with no section in them or in a group nested in them: the chapter gives them no heading."""
    parents = {g.id: g.parent for g in taxonomy.groups}
    held: set[str] = set()
    for group in (g for g in taxonomy.groups if g.sections):
        current = group.id
        while current and current not in held:
            held.add(current)
            current = parents.get(current, "")
    return [g.id for g in taxonomy.groups if g.id and g.id not in held]


def _size(taxonomy: Taxonomy) -> str:
    """'13 sections in 6 groups'; a flat taxonomy's sections sit in an untitled group that is no group of the file's."""
    sections, groups = len(taxonomy.sections), sum(1 for g in taxonomy.groups if g.id)
    loose = sum(len(g.sections) for g in taxonomy.groups if not g.id)
    said = f"{sections} section{'s' * (sections != 1)}"
    if groups:
        said += f" in {groups} group{'s' * (groups != 1)}"
    if loose and groups:
        said += f" ({loose} in none)"
    return said
