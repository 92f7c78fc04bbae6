"""Options and helpers shared by the commands: one definition of each option, one way to report."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from surveytool.options import Options
    from surveytool.sources.read import FileHints

from surveytool.cli.printed import raw_stderr
from surveytool.errors import SurveyToolError
from surveytool.model import Finding, Severity
from surveytool.text.control_chars import shown


def nonempty_path(subject: str, hint: str) -> Callable[[str], Path]:
    """The parser of a path option or argument: the path as typed, an empty one refused. "$OUT" with the variable
    unset is "": made a Path it was ".", the current folder, refused as a directory or written into. Nothing else
    is checked here: a file that is missing or unreadable is told by its reader in one line, not a usage box."""

    def path(value: str) -> Path:  # named as the type it stands for in --help
        if not value:
            raise SurveyToolError(
                f"{subject} is an empty path", hint=f"{hint}; a shell variable that is not set gives an empty path"
            )
        return Path(value)

    return path


def output_option(subject: str, help: str, hint: str = "name a file, or - to print it", name: str = "--output") -> Any:
    """The ``-o`` option of a command that writes ``subject`` ("the .bib file"): one spelling of its name, and of
    the message that refuses an empty path (``nonempty_path``)."""
    return typer.Option(name, "-o", parser=nonempty_path(f"{subject} given with -o/{name}", hint), help=help)


SOURCE_HINT = "name a related-paper list, .bib, id list or CSL-JSON file, or - for standard input"
SourcesArg = Annotated[
    list[Path] | None,
    typer.Argument(
        parser=nonempty_path("a source given on the command line", SOURCE_HINT),
        help="Related-paper lists (.txt), .bib, id lists or CSL-JSON; - reads standard input. Default: the bundled seeds.",
        show_default=False,
    ),
]
KindOpt = Annotated[
    str | None,
    typer.Option(
        "--kind",
        help="Read every source (standard input too) as: list, bib, ids or csl (CSL-JSON). Default: by name and content.",
    ),
]
TaxonomyOpt = Annotated[
    Path | None,
    typer.Option(
        "--taxonomy",
        parser=nonempty_path("the taxonomy file given with --taxonomy", "name a taxonomy TOML file"),
        help="Taxonomy TOML file. Default: the bundled one.",
    ),
]
CatalogOpt = Annotated[
    list[Path] | None,
    typer.Option(
        "--catalog",
        parser=nonempty_path("a catalog given with --catalog", "name a .bib file of known papers"),
        help="A .bib of known papers to resolve against (repeatable).",
    ),
]
StrictOpt = Annotated[bool, typer.Option("--strict", help="Exit 1 on any finding, warnings included.")]
QuietOpt = Annotated[
    bool, typer.Option("--quiet", "-q", help="Print only errors and what became of duplicate keys and chapter notes.")
]
OverridesOpt = Annotated[
    Path | None,
    typer.Option(
        "--overrides",
        parser=nonempty_path("the overrides file given with --overrides", "name a TOML file of your own tags"),
        help="TOML file of your own tags by key ([tags] key = [ids]).",
    ),
]
OnlineOpt = Annotated[
    bool, typer.Option("--online", help="Also ask OpenAlex, Crossref and arXiv (answers are cached).")
]
ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        parser=nonempty_path("the settings file given with --config", "name a settings file, e.g. surveytool.toml"),
        help="Settings file: [tag], [bib], [keys], [latex], [online], ... (default: ./surveytool.toml if present).",
    ),
]
CacheOpt = Annotated[
    Path | None,
    typer.Option(
        "--cache",
        parser=nonempty_path("the cache file given with --cache", "name a file for the online answers"),
        help="SQLite file for online answers (default: ./.surveytool-cache.sqlite).",
    ),
]
ForceOpt = Annotated[
    bool, typer.Option("--force", help="Overwrite generated .tex edited outside the notes regions (kept as .bak).")
]
FigureOpt = Annotated[bool, typer.Option("--figure/--no-figure", help="Include the taxonomy tree figure (forest).")]
TableOpt = Annotated[bool, typer.Option("--table/--no-table", help="Include the summary table (longtable).")]
PlotOpt = Annotated[bool, typer.Option("--plot/--no-plot", help="Include the papers-per-year plot (pgfplots).")]
ComparisonsOpt = Annotated[
    bool,
    typer.Option(
        "--comparisons/--no-comparisons",
        help="A table per section of the facts (model size, hardware, gains...) its papers' abstracts state.",
    ),
]
ThemesOpt = Annotated[
    bool,
    typer.Option(
        "--themes/--no-themes",
        help="Split a section of 6 to 300 papers into themes, each a \\paragraph with its own notes region.",
    ),
]
LevelOpt = Annotated[str, typer.Option("--level", help="Top heading of the chapter: section or chapter.")]
TemplatesOpt = Annotated[
    Path | None,
    typer.Option(
        "--templates",
        parser=nonempty_path("the templates folder given with --templates", "name a folder of templates"),
        help="Folder of templates overriding the bundled ones.",
    ),
]
DialectOpt = Annotated[str, typer.Option("--dialect", help="bibtex or biblatex.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the entries as a JSON array (the entries.json schema).")]
MergeDuplicatesOpt = Annotated[
    bool | None,
    typer.Option(
        "--merge-duplicates/--no-merge-duplicates",
        help="Also merge your own .bib entries that are one work; the first keeps its key, the others are named and stay citable as biblatex ids (default: [duplicates] merge of the settings file, else no).",
        show_default=False,
    ),
]
KeyFormulaOpt = Annotated[
    str | None,
    typer.Option(
        "--key-formula",
        help="Keys of new entries, e.g. 'auth.lower + year + shorttitle(1).lower' (default: [keys] formula of the settings file). Keys given before stay.",
        show_default=False,
    ),
]
TagsFieldOpt = Annotated[
    str, typer.Option("--tags-field", help="BibTeX field that holds section tags (e.g. groups, keywords).")
]


#: Bars shown by progress(): main() stops any still on screen before the process leaves, since it
#: skips the interpreter's exit handlers (a bar left running would leave the cursor hidden).
_shown: list = []


def stop_progress() -> None:
    while _shown:
        _shown.pop().stop()


def progress(quiet: bool, stages: Sequence[str] = ()):
    """A progress bar over the run's ``stages`` on a terminal (rich); nothing when piped or --quiet."""
    from contextlib import contextmanager

    if quiet or not sys.stderr.isatty():
        from surveytool.pipeline import silent_stage

        return silent_stage
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bar = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(file=raw_stderr()),  # its own escape sequences draw the bar
        redirect_stdout=False,  # what a stage prints goes through the escaping streams, not rich's raw console
        redirect_stderr=False,
        transient=True,
    )
    task = bar.add_task(stages[0] if stages else "", total=len(stages) or None)
    _shown.append(bar)  # should a command stop before its last stage, stop_progress() still removes the bar

    @contextmanager
    def stage(name: str):
        bar.start()
        bar.update(task, description=f"{name}…", refresh=True)  # shown even when the stage is quick
        try:
            yield
        except BaseException:
            bar.stop()
            raise
        bar.advance(task)
        if bar.finished:
            bar.stop()

    return stage


def use_latex_settings(config: Path | None) -> None:
    """The [latex] allow list of ``config`` in force for this run (the built-in allowlist alone without one)."""
    from surveytool.config import load_latex_allow
    from surveytool.text.latex_allowlist import use_policy

    use_policy(load_latex_allow(config))


def make_options(
    sources: Sequence[Path] | None,
    *,
    taxonomy: Path | None = None,
    catalog: Sequence[Path] | None = None,
    tags_field: str = "sections",
    overrides: Path | None = None,
    online: bool = False,
    config: Path | None = None,
    cache: Path | None = None,
    key_formula: str | None = None,
    merge_duplicates: bool | None = False,
) -> Options:
    """The run's options from the command's, with ``surveytool.toml`` in the current folder as the default settings.

    ``merge_duplicates``: --merge-duplicates or --no-merge-duplicates when given (the command line wins), None for
    ``merge`` in the settings' [duplicates] table; False for a command that never merges the user's entries."""
    from surveytool.options import Options
    from surveytool.settings_check import check_settings

    if config is None and os.path.lexists("surveytool.toml"):  # a link to a moved file is said, not passed over
        config = Path("surveytool.toml")
    check_settings(config)  # every table, those this command does not use too: a typo stops any command
    from surveytool.output.tags_field import require_field_name

    require_field_name(tags_field)  # else the user's tags are read from nowhere (check, build), unsaid
    use_latex_settings(config)
    if key_formula is not None:
        from surveytool.analysis.key_formula import formula_option

        formula_option(key_formula)  # a formula that cannot be read stops the command before it writes
    check_catalogs(catalog or ())
    if overrides is not None:  # read again after the sources are resolved (online: minutes), so read first here
        from surveytool.sources.overrides import load_overrides

        load_overrides(overrides)
    return Options(
        sources=tuple(sources or ()),
        taxonomy=taxonomy,
        catalogs=tuple(catalog or ()),
        tags_field=tags_field,
        overrides=overrides,
        online=online,
        config=config,
        cache=cache,
        key_formula=key_formula,
        merge_duplicates=_merging(merge_duplicates, config),
    )


def check_catalogs(catalogs: Sequence[Path]) -> None:
    """Stop with a message naming --catalog when a catalog is missing or not text. Read here, before any
    source: the reader that resolves against catalogs (pipeline.load_resolvers) tells problems as a source's."""
    from surveytool.sources.read import option_hints

    check_option_files(catalogs, option_hints("--catalog", "a .bib file of known papers"))


def check_option_files(paths: Sequence[Path], hints: FileHints) -> None:
    """Stop (exit 2) when a file given to an option is missing or not text, with that option's ``hints``:
    before the analysis, so that a typo costs no wait."""
    from surveytool.sources.read import read_text_file

    for path in paths:
        read_text_file(path, str(path), allow_empty=True, hints=hints)


#: Warnings shown even with --quiet: the entry is written under another key, so \cite{key} no longer means it.
_KEY_FATES = frozenset({"duplicate-key"})


def _key_fate(finding: Finding) -> bool:
    return finding.check in _KEY_FATES and finding.severity is Severity.WARNING


def report(findings: list[Finding] | tuple[Finding, ...], quiet: bool) -> None:
    for finding in findings:
        if quiet and finding.severity is not Severity.ERROR and not _key_fate(finding):
            continue
        # A key or value read from a file may hold an escape sequence: shown, never run by the terminal.
        typer.echo(shown(str(finding)), err=True)


def exit_code(findings, strict: bool) -> int:
    if any(f.severity is Severity.ERROR for f in findings):
        return 1
    if strict and any(f.severity is not Severity.INFO for f in findings):
        return 1
    return 0


def require_kind(kind: str | None) -> str | None:
    """A --kind value as the readers name it (csl is csl-json); bad usage unless it is one."""
    from surveytool.sources.read import KIND_ALIASES, SOURCE_KINDS

    if kind is None:
        return None
    require_choice(kind, (*SOURCE_KINDS, *KIND_ALIASES), "--kind")
    return KIND_ALIASES.get(kind, kind)


def require_choice(value: str, choices, option: str) -> None:
    """Bad usage (exit 2) unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise typer.BadParameter(f"must be one of {', '.join(choices)}", param_hint=option)


def _merging(flag: bool | None, config: Path | None) -> bool:
    from surveytool.config import load_merge_duplicates

    return flag if flag is not None else load_merge_duplicates(config)
