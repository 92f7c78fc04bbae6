"""The command line: options -> one library call -> output and an exit code.

Exit codes: 0 clean (or warnings only), 1 findings at error level (or any
finding with --strict) or an internal error (a bug: traceback and a request to
report it), 2 bad usage or unreadable input.
"""

from __future__ import annotations

import os
import sys
from contextlib import suppress
from typing import Annotated

import typer

from surveytool.cli.bib_commands import bib, rekey, resolve
from surveytool.cli.build_commands import build, draft
from surveytool.cli.check import check
from surveytool.cli.complete_commands import complete
from surveytool.cli.options import (
    stop_progress,
)
from surveytool.cli.printed import escape_printed
from surveytool.cli.read_commands import export, parse, tag
from surveytool.cli.taxonomy_commands import taxonomy_app
from surveytool.errors import SurveyToolError

app = typer.Typer(
    name="surveytool",
    help="Turn related-paper lists and .bib files into a tagged references.bib and a related-work chapter.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Help text is plain: with rich markup, "[online]" and "[tags]" would vanish as style tags.
    rich_markup_mode=None,
)


def _print_version(asked: bool) -> None:
    if asked:
        from surveytool import __version__

        typer.echo(f"surveytool {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """surveytool: related-paper lists and .bib files in, a tagged bibliography and a chapter out."""


for command in (build, draft, export, parse, tag, bib, resolve, rekey, check):
    app.command()(command)
app.command()(complete)
app.add_typer(taxonomy_app, name="taxonomy")


BUG_REPORT = (
    "surveytool: internal error (a bug in surveytool, not in your files): please report this "
    "with the command and the traceback above on the project's issue tracker"
)


def main() -> None:
    """Console entry point: user errors become one line and exit code 2, never a traceback;
    anything else is a bug, so it keeps its traceback and asks for a report (exit 1)."""
    escape_printed()
    try:
        app(standalone_mode=True)
        code = 0
    except SurveyToolError as error:
        typer.echo(str(error), err=True)
        code = error.exit_code
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else 0 if done.code is None else 1
        if not isinstance(done.code, int | None):
            typer.echo(str(done.code), err=True)
    except Exception:
        import traceback

        stop_progress()
        traceback.print_exc()
        typer.echo(BUG_REPORT, err=True)
        code = 1
    # Everything is written and flushed: skip the interpreter's teardown, which frees the
    # caches of a large run one object at a time.
    stop_progress()
    for stream in (sys.stdout, sys.stderr):
        with suppress(OSError, ValueError):  # a closed pipe (`| head`) or stream: nothing more to say
            stream.flush()
    os._exit(code)
