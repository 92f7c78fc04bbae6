"""Optional settings file (surveytool.toml): reading it, and its tables ([online] is in online_settings.py).

[llm]                                 # draft --llm: an OpenAI-compatible chat endpoint (llama.cpp, vLLM, Ollama...)
base_url = "http://127.0.0.1:8080/v1"
model = "llama-3.1-8b-instruct"
api_key_env = "OPENAI_API_KEY"        # the variable holding the key; the key itself is never written here

[latex]
allow = ["\\\\mycmd"]                   # commands your .bib values may use besides the built-in allowlist

[bib]
omit = ["abstract", "file"]           # the layout of a written .bib (format_options.py has them all)

[keys]
formula = "auth.lower + year + shorttitle(1).lower"   # keys of new entries (analysis/key_formula.py)
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from surveytool.errors import InputError, SurveyToolError, toml_problem
from surveytool.sources.bounded import SETTINGS_LIMIT, read_user_file
from surveytool.text.latex_commands import NEVER_ALLOWED

if TYPE_CHECKING:
    from surveytool.bibtex.format_options import BibFormat
    from surveytool.drafting.llm_settings import LlmSettings


@dataclass(frozen=True)
class CheckSettings:
    disable: tuple[str, ...] = ()
    thin: int = 2


#: The tables a settings file may have ([online]: online_settings.py; [llm]: drafting/llm_settings.py), each
#: checked by every command that reads the file (settings_check.py).
TABLES = ("bib", "check", "duplicates", "keys", "latex", "llm", "online", "tag")


def _load(path: Path) -> dict:
    settings = _parse(path)
    if shape := [name for name in ("groups", "sections") if isinstance(settings.get(name), list)]:
        raise InputError(  # was "setting 'title' is outside any table" or "unknown table(s): [sections]"
            f"this is a taxonomy (it has [[{shape[0]}]] tables), not a settings file",
            path=str(path),
            line=_table_line(path, shape[0]),
            hint=f"give it with --taxonomy {path}; settings have the tables " + ", ".join(f"[{t}]" for t in TABLES),
        )
    outside = sorted(name for name, value in settings.items() if name not in TABLES and not _a_table(value))
    if outside:  # "threshold = 0.5" above every header: TOML reads it as no table's
        raise InputError(
            f"setting '{outside[0]}' is outside any table",
            path=str(path),
            line=_table_line(path, outside[0]),
            hint="write it below the header of its table: " + ", ".join(f"[{t}]" for t in TABLES),
        )
    _refuse_unknown(path, settings, TABLES, "table(s)", lambda name: _table_line(path, name), "[{}]".format)
    return settings


def _a_table(value: object) -> bool:
    """A [table], or an array of [[tables]]: a misspelt table's name either way, not a setting outside them."""
    return (
        isinstance(value, dict) or isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)
    )


#: Other names of a setting, as the services' own documentation spells them: OpenAlex and Crossref ask for "mailto".
_SAME_AS = {"mailto": "contact", "email": "contact", "e-mail": "contact"}


def _refuse_unknown(
    path: Path,
    found: Iterable[str],
    known: Sequence[str],
    what: str,
    line_of: Callable[[str], int | None],
    show: Callable[[str], str] = str,
) -> None:
    """Stop at the first name of ``found`` that is not ``known``, naming its line."""
    unknown = sorted(set(found) - set(known))
    if unknown:
        close = difflib.get_close_matches(unknown[0], known, n=1, cutoff=0.6)  # a typo: "threshhold", [Tag]
        close = close or [name for name in known if name == _SAME_AS.get(unknown[0].lower())]
        raise InputError(
            f"unknown {what}: {', '.join(map(show, unknown))}",
            path=str(path),
            line=line_of(unknown[0]),
            hint="".join(f"did you mean {show(c)}? " for c in close) + "known: " + ", ".join(map(show, known)),
        )


def _parse(path: Path) -> dict:
    text = ""
    try:
        text = read_user_file(path, str(path), SETTINGS_LIMIT, what="config file").decode("utf-8-sig")
        return tomllib.loads(text)
    except FileNotFoundError:
        raise InputError("no such config file", path=str(path), hint="check the path given with --config") from None
    except tomllib.TOMLDecodeError as error:
        message, line = toml_problem(error, text)
        raise InputError(
            f"not valid TOML: {message}", path=str(path), line=line, hint="see the examples in the README"
        ) from None
    except UnicodeDecodeError as error:  # the line of the first byte that is no UTF-8 (a Latin-1 "é", say)
        line = bytes(error.object[: error.start]).count(b"\n") + 1
        raise InputError("not UTF-8 text", path=str(path), line=line, hint="save the settings file as UTF-8") from None
    except OSError as error:
        raise InputError(
            f"cannot read the config file ({error.strerror or error})",
            path=str(path),
            hint="check the path given with --config",
        ) from None


def settings_table(path: Path, name: str, known: Iterable[str] | None = None) -> dict:
    """The ``[name]`` table of the settings file (empty if absent); with ``known``, refusing other settings."""
    table = _load(path).get(name, {})
    if not isinstance(table, dict):
        raise InputError(
            f"{name} must be a table",
            path=str(path),
            line=setting_line(path, "", name),
            hint=f"write [{name}] on a line of its own, the settings below it",
        )
    if known is not None:
        _refuse_unknown(path, table, tuple(known), f"setting(s) in [{name}]", lambda n: setting_line(path, name, n))
    return table


def _table_line(path: Path, name: str) -> int | None:
    """The line of the ``[name]`` header (or of a top-level ``name = ...``); None if it cannot be told."""
    for number, line in enumerate(_lines(path), start=1):
        stripped = line.strip()
        header = stripped.startswith("[") and stripped.strip("[] \t").split("]")[0].strip().strip('"') == name
        if header or stripped.split("=")[0].strip().strip('"') == name:
            return number
    return None


def _lines(path: Path) -> list[str]:
    try:
        return read_user_file(path, str(path), SETTINGS_LIMIT).decode("utf-8-sig").splitlines()
    except (OSError, UnicodeError, SurveyToolError):
        return []


def load_check_settings(path: Path | None) -> CheckSettings:
    """The [check] table: checks to disable and the thin-section threshold."""
    table = settings_table(path, "check", ("disable", "thin")) if path else {}
    disable = table.get("disable", [])
    if not isinstance(disable, list) or not all(isinstance(d, str) for d in disable):
        raise wrong_setting(path, "check", "disable", disable, "a list of check names", 'disable = ["thin-section"]')
    if disable:  # a misspelt check was skipped by no command, and told only by `check`, as if --disable named it
        _refuse_unknown_checks(path, [name.strip() for name in disable])
    thin = table.get("thin", 2)
    if not is_whole_number(thin) or thin < 0:
        raise wrong_setting(path, "check", "thin", thin, "a whole number of papers, 0 or more", "thin = 2")
    return CheckSettings(tuple(disable), thin)


def _refuse_unknown_checks(path: Path | None, names: list[str]) -> None:
    from surveytool.analysis.checks import REGISTRY
    from surveytool.analysis.stage_findings import STAGE_FINDINGS

    for name in (name for name in names if name not in REGISTRY):
        close = difflib.get_close_matches(name, list(REGISTRY), n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}?" if close else "known: " + ", ".join(sorted(REGISTRY))
        if name in STAGE_FINDINGS:  # made while reading: always reported
            hint = "leave it out: it is found while the sources are read, and always reported"
        raise InputError(
            f"[check] disable names {name!r}, which is no check",
            path=str(path),
            line=setting_line(path, "check", "disable"),
            hint=hint,
        )


@dataclass(frozen=True)
class TagSettings:
    threshold: float = 0.5  # below this confidence a computed tag is not given (tagging.DEFAULT_THRESHOLD)


def load_tag_settings(path: Path | None) -> TagSettings:
    """The [tag] table: the confidence below which an entry is left for the user to place."""
    table = settings_table(path, "tag", ("threshold",)) if path else {}
    threshold = table.get("threshold", TagSettings.threshold)
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 <= threshold <= 1:
        raise wrong_setting(path, "tag", "threshold", threshold, "a number from 0 to 1", "threshold = 0.5")
    return TagSettings(float(threshold))


def is_whole_number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def wrong_setting(path: Path | None, table: str, name: str, value: object, expected: str, example: str) -> InputError:
    """A one-line error naming the setting, its line, what it must be and an example."""
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    return InputError(
        f"[{table}] {name} must be {expected}, not {shown}",
        path=str(path) if path else None,
        line=setting_line(path, table, name),
        hint=example,
    )


def setting_line(path: Path | None, table: str, name: str) -> int | None:
    """The line where ``name`` is set in ``[table]``, for the message; None if it cannot be told. TOML's other
    spellings count too: ``table.name = ...`` above every header, ``table = { name = ... }``, ``["table"]``."""
    if path is None:
        return None
    current = ""
    wanted = f"{table}.{name}" if table else name
    for number, line in enumerate(_lines(path), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            current = _bare(stripped.strip("[] \t").split("]")[0])
            if current == wanted:  # [tag.extra], or [[tag]] for a table
                return number
            continue
        key = ".".join(filter(None, (current, _bare(stripped.split("=")[0]))))
        if key == wanted or key.startswith(wanted + "."):  # threshold.x = 0.3 sets threshold to a table
            return number
        if not current and table and key == table and "{" in stripped and name in stripped:  # an inline table
            return number
    return None


def _bare(key: str) -> str:
    """A TOML key as its parts joined by dots: ``"tag" . threshold`` -> ``tag.threshold``."""
    return ".".join(part.strip().strip("\"'") for part in key.split("."))


_ALLOWABLE_NAME = re.compile(r"\\?(?:[A-Za-z@]+|[^A-Za-z@\s])")


def load_llm_settings(path: Path | None) -> LlmSettings:
    """The [llm] table of ``path`` (defaults without one): where draft --llm asks, and how."""
    from surveytool.drafting.llm_settings import LlmSettings, llm_settings_from_table

    if path is None:
        return LlmSettings()
    return llm_settings_from_table(_load(path).get("llm", {}), path, lambda name: setting_line(path, "llm", name))


def load_latex_allow(path: Path | None) -> tuple[str, ...]:
    """The [latex] table's ``allow``: command names (``\\mycmd``) .bib values may use besides the built-in allowlist."""
    table = settings_table(path, "latex", ("allow",)) if path else {}
    names = table.get("allow", [])
    if not isinstance(names, list) or not all(isinstance(n, str) and _ALLOWABLE_NAME.fullmatch(n) for n in names):
        raise wrong_setting(path, "latex", "allow", names, "a list of command names", 'allow = ["\\\\mycmd"]')
    refused = sorted(n for n in names if n.removeprefix("\\") in NEVER_ALLOWED)
    if refused:
        raise InputError(
            f"[latex] allow names commands that read or write files, run programs or build other commands: "
            f"{', '.join(refused)}",
            path=str(path),
            line=setting_line(path, "latex", "allow"),
            hint="remove them; no setting can allow them",
        )
    return tuple(names)


def load_merge_duplicates(path: Path | None) -> bool:
    """The [duplicates] table's ``merge``: whether bib, build and parse merge your own duplicate entries."""
    table = settings_table(path, "duplicates", ("merge",)) if path else {}
    merge = table.get("merge", False)
    if not isinstance(merge, bool):
        raise wrong_setting(path, "duplicates", "merge", merge, "true or false", "merge = true")
    return merge


def load_bib_format(path: Path | None) -> BibFormat:
    """The [bib] table: how `bib` (and `build`'s .bib) lays out the entries; the standard layout without one."""
    from surveytool.bibtex.format_options import SETTING_RULES, STANDARD, bib_format

    table = settings_table(path, "bib", SETTING_RULES) if path else {}
    for name, value in table.items():
        accepts, expected, example = SETTING_RULES[name]
        if not accepts(value):
            raise wrong_setting(path, "bib", name, value, expected, example)
    return bib_format(table) if table else STANDARD


def load_key_formula(path: Path | None) -> str | None:
    """The [keys] table's ``formula``, checked: the key formula new entries get their keys by (None: the default)."""
    from surveytool.analysis.key_formula import KeyFormulaError, compile_formula

    table = settings_table(path, "keys", ("formula",)) if path else {}
    if "formula" not in table:
        return None
    formula = table["formula"]
    if not isinstance(formula, str):
        raise wrong_setting(path, "keys", "formula", formula, "a quoted formula", _FORMULA_EXAMPLE)
    try:
        compile_formula(formula)
    except KeyFormulaError as error:
        raise InputError(
            f"[keys] formula: {error}",
            path=str(path),
            line=setting_line(path, "keys", "formula"),
            hint=_FORMULA_EXAMPLE,
        ) from None
    return formula


_FORMULA_EXAMPLE = "formula = 'auth.lower + year + shorttitle(1).lower'; see Keys in the README"
