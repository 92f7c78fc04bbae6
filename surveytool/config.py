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

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from surveytool.errors import InputError, SurveyToolError
from surveytool.sources.bounded import SETTINGS_LIMIT, read_user_file
from surveytool.text.latex_commands import NEVER_ALLOWED

if TYPE_CHECKING:
    from surveytool.bibtex.format_options import BibFormat
    from surveytool.drafting.llm_client import LlmSettings


@dataclass(frozen=True)
class CheckSettings:
    disable: tuple[str, ...] = ()
    thin: int = 2


def _load(path: Path) -> dict:
    try:
        return tomllib.loads(read_user_file(path, str(path), SETTINGS_LIMIT, what="config file").decode("utf-8-sig"))
    except FileNotFoundError:
        raise InputError("no such config file", path=str(path), hint="check the path given with --config") from None
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"not valid TOML: {error}", path=str(path), hint="see the examples in the README") from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", path=str(path), hint="save the settings file as UTF-8") from None
    except OSError as error:
        raise InputError(
            f"cannot read the config file ({error.strerror or error})",
            path=str(path),
            hint="check the path given with --config",
        ) from None


def settings_table(path: Path, name: str) -> dict:
    """The ``[name]`` table of the settings file (empty if absent)."""
    table = _load(path).get(name, {})
    if not isinstance(table, dict):
        raise InputError(
            f"{name} must be a table",
            path=str(path),
            line=setting_line(path, "", name),
            hint=f"write [{name}] on a line of its own, the settings below it",
        )
    return table


def load_check_settings(path: Path | None) -> CheckSettings:
    """The [check] table: checks to disable and the thin-section threshold."""
    table = settings_table(path, "check") if path else {}
    unknown = sorted(set(table) - {"disable", "thin"})
    if unknown:
        raise InputError(
            f"unknown setting(s) in [check]: {', '.join(unknown)}", path=str(path), hint="known: disable, thin"
        )
    disable = table.get("disable", [])
    if not isinstance(disable, list) or not all(isinstance(d, str) for d in disable):
        raise wrong_setting(path, "check", "disable", disable, "a list of check names", 'disable = ["thin-section"]')
    thin = table.get("thin", 2)
    if not is_whole_number(thin) or thin < 0:
        raise wrong_setting(path, "check", "thin", thin, "a whole number of papers, 0 or more", "thin = 2")
    return CheckSettings(tuple(disable), thin)


@dataclass(frozen=True)
class TagSettings:
    threshold: float = 0.5  # below this confidence a computed tag is not given (tagging.DEFAULT_THRESHOLD)


def load_tag_settings(path: Path | None) -> TagSettings:
    """The [tag] table: the confidence below which an entry is left for the user to place."""
    table = _load(path).get("tag", {}) if path else {}
    unknown = sorted(set(table) - {"threshold"})
    if unknown:
        raise InputError(f"unknown setting(s) in [tag]: {', '.join(unknown)}", path=str(path), hint="known: threshold")
    threshold = table.get("threshold", TagSettings.threshold)
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0 <= threshold <= 1:
        raise InputError("[tag] threshold must be a number from 0 to 1", path=str(path), hint="threshold = 0.5")
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
    """The line where ``name`` is set in ``[table]``, for the message; None if it cannot be told."""
    if path is None:
        return None
    try:
        lines = read_user_file(path, str(path), SETTINGS_LIMIT).decode("utf-8-sig").splitlines()
    except (OSError, UnicodeError, SurveyToolError):
        return None
    current = ""
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith("[") and not stripped.startswith("[["):
            current = stripped.strip("[] \t").split("]")[0].strip()
        elif current == table and stripped.split("=")[0].strip().strip('"') == name:
            return number
    return None


_ALLOWABLE_NAME = re.compile(r"\\?(?:[A-Za-z@]+|[^A-Za-z@\s])")


def load_llm_settings(path: Path | None) -> LlmSettings:
    """The [llm] table of ``path`` (defaults without one): where draft --llm asks, and how."""
    from surveytool.drafting.llm_client import LlmSettings, llm_settings_from_table

    if path is None:
        return LlmSettings()
    return llm_settings_from_table(_load(path).get("llm", {}), path, lambda name: setting_line(path, "llm", name))


def load_latex_allow(path: Path | None) -> tuple[str, ...]:
    """The [latex] table's ``allow``: command names (``\\mycmd``) .bib values may use besides the built-in allowlist."""
    table = _load(path).get("latex", {}) if path else {}
    unknown = sorted(set(table) - {"allow"})
    if unknown:
        raise InputError(f"unknown setting(s) in [latex]: {', '.join(unknown)}", path=str(path), hint="known: allow")
    names = table.get("allow", [])
    if not isinstance(names, list) or not all(isinstance(n, str) and _ALLOWABLE_NAME.fullmatch(n) for n in names):
        raise InputError("[latex] allow must be a list of command names", path=str(path), hint='allow = ["\\\\mycmd"]')
    refused = sorted(n for n in names if n.removeprefix("\\") in NEVER_ALLOWED)
    if refused:
        raise InputError(
            f"[latex] allow names commands that read or write files, run programs or build other commands: "
            f"{', '.join(refused)}",
            path=str(path),
            hint="remove them; no setting can allow them",
        )
    return tuple(names)


def load_merge_duplicates(path: Path | None) -> bool:
    """The [duplicates] table's ``merge``: whether bib, build and parse merge your own duplicate entries."""
    table = _load(path).get("duplicates", {}) if path else {}
    unknown = sorted(set(table) - {"merge"})
    if unknown:
        raise InputError(
            f"unknown setting(s) in [duplicates]: {', '.join(unknown)}", path=str(path), hint="known: merge"
        )
    merge = table.get("merge", False)
    if not isinstance(merge, bool):
        raise InputError("[duplicates] merge must be true or false", path=str(path), hint="merge = true")
    return merge


def load_bib_format(path: Path | None) -> BibFormat:
    """The [bib] table: how `bib` (and `build`'s .bib) lays out the entries; the standard layout without one."""
    from surveytool.bibtex.format_options import SETTING_RULES, STANDARD, bib_format

    table = settings_table(path, "bib") if path else {}
    unknown = sorted(set(table) - set(SETTING_RULES))
    if unknown:
        raise InputError(
            f"unknown setting(s) in [bib]: {', '.join(unknown)}",
            path=str(path),
            line=setting_line(path, "bib", unknown[0]),
            hint="known: " + ", ".join(SETTING_RULES),
        )
    for name, value in table.items():
        accepts, expected, example = SETTING_RULES[name]
        if not accepts(value):
            raise wrong_setting(path, "bib", name, value, expected, example)
    return bib_format(table) if table else STANDARD


def load_key_formula(path: Path | None) -> str | None:
    """The [keys] table's ``formula``, checked: the key formula new entries get their keys by (None: the default)."""
    from surveytool.analysis.key_formula import KeyFormulaError, compile_formula

    table = settings_table(path, "keys") if path else {}
    unknown = sorted(set(table) - {"formula"})
    if unknown:
        raise InputError(
            f"unknown setting(s) in [keys]: {', '.join(unknown)}",
            path=str(path),
            line=setting_line(path, "keys", unknown[0]),
            hint="known: formula",
        )
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
