"""`bib`'s formatting flags (bibtex-tidy's names where they overlap), over the [bib] table of surveytool.toml."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from surveytool.bibtex.format_options import BibFormat

_PANEL = "Formatting (also [bib] in surveytool.toml)"
OmitOpt = Annotated[
    str | None,
    typer.Option("--omit", help="Fields to leave out, comma-separated: abstract,file.", rich_help_panel=_PANEL),
]
SortFieldsOpt = Annotated[
    str | None,
    typer.Option(
        "--sort-fields",
        help="Fields to write first, in this order (title,author,year); bibtex-tidy: its own order.",
        rich_help_panel=_PANEL,
    ),
]
SpaceOpt = Annotated[
    int | None, typer.Option("--space", "--indent", help="Spaces before each field (2).", rich_help_panel=_PANEL)
]
TabOpt = Annotated[bool | None, typer.Option("--tab/--no-tab", help="A tab before each field.", rich_help_panel=_PANEL)]
AlignOpt = Annotated[
    int | None,
    typer.Option(
        "--align", help="Put each = in this column after the indent (bibtex-tidy: 14).", rich_help_panel=_PANEL
    ),
]
CurlyOpt = Annotated[
    bool | None,
    typer.Option(
        "--curly/--no-curly",
        help="Every value in braces, or in double quotes where it can be. Default: as written.",
        rich_help_panel=_PANEL,
    ),
]
NumericOpt = Annotated[
    bool | None,
    typer.Option("--numeric/--no-numeric", help="Numbers without braces: year = 2019.", rich_help_panel=_PANEL),
]
MonthsOpt = Annotated[
    bool | None,
    typer.Option("--months/--no-months", help="Every month as its macro: month = mar.", rich_help_panel=_PANEL),
]
RemoveEmptyOpt = Annotated[
    bool | None,
    typer.Option(
        "--remove-empty-fields/--no-remove-empty-fields", help="Leave out fields with no value.", rich_help_panel=_PANEL
    ),
]
MaxAuthorsOpt = Annotated[
    int | None,
    typer.Option("--max-authors", help='Past this many authors: the first ones "and others".', rich_help_panel=_PANEL),
]
WrapOpt = Annotated[
    int | None,
    typer.Option(
        "--wrap", help="Break lines longer than this at spaces, e.g. 80. Default: no wrapping.", rich_help_panel=_PANEL
    ),
]
DropAllCapsOpt = Annotated[
    bool | None,
    typer.Option(
        "--drop-all-caps/--no-drop-all-caps", help="ALL-CAPITAL titles and names in title case.", rich_help_panel=_PANEL
    ),
]

_OPTION_NAMES = {"space": "--space", "sort_fields": "--sort-fields", "max_authors": "--max-authors"}


def chosen_format(config: Path | None, given: Mapping[str, object]) -> BibFormat:
    """The [bib] settings of ``config`` with the flags ``given`` (a command's parameters) over them."""
    from surveytool.bibtex.format_options import SETTING_RULES, bib_format
    from surveytool.config import load_bib_format

    settings: dict[str, object] = {}
    for setting in SETTING_RULES:  # each flag's parameter is named as its setting
        value = given.get(setting)
        if value is None:
            continue
        if setting in ("omit", "sort_fields") and isinstance(value, str):
            names = [n.strip() for n in value.split(",") if n.strip()]
            value = True if setting == "sort_fields" and names == ["bibtex-tidy"] else names
        accepts, expected, _ = SETTING_RULES[setting]
        if not accepts(value):
            option = _OPTION_NAMES.get(setting, "--" + setting.replace("_", "-"))
            raise typer.BadParameter(f"must be {expected}", param_hint=option)
        settings[setting] = value
    if "space" in settings and "tab" not in settings:  # --space wins over the table's tab = true, as flags do
        settings["tab"] = False
    return bib_format(settings, load_bib_format(config))
