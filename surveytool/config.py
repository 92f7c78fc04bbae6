"""Optional settings file (surveytool.toml): contact address, online services and their URLs.

[online]
contact = "you@example.org"          # sent in the User-Agent, as the services ask
services = ["openalex", "crossref", "arxiv"]  # also "dblp", "semantic_scholar"
complete_services = ["semantic_scholar", "dblp", "crossref", "openalex"]  # asked by `complete`
openalex_url = "https://api.openalex.org"
crossref_url = "https://api.crossref.org"
arxiv_url = "https://export.arxiv.org"
dblp_url = "https://dblp.org"
semantic_scholar_url = "https://api.semanticscholar.org"
timeout = 10                          # seconds per request, the whole answer included
retries = 3
min_interval = 0.2                    # seconds between two requests to one service
budget = 600                          # seconds of network time for the whole run
give_up_after = 3                     # failures in a row before a service is skipped
max_wait = 30                         # a longer Retry-After skips the service
max_bytes = 4000000                   # a larger answer is refused

[llm]                                 # draft --llm: an OpenAI-compatible chat endpoint (llama.cpp, vLLM, Ollama...)
base_url = "http://127.0.0.1:8080/v1"
model = "llama-3.1-8b-instruct"
api_key_env = "OPENAI_API_KEY"        # the variable holding the key; the key itself is never written here

[latex]
allow = ["\\\\mycmd"]                   # commands your .bib values may use besides the built-in allowlist

[bib]
omit = ["abstract", "file"]           # the layout of a written .bib (format_options.py has them all)
"""

from __future__ import annotations

import math
import re
import tomllib
import urllib.parse
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

from surveytool.errors import InputError, SurveyToolError
from surveytool.sources.bounded import SETTINGS_LIMIT, read_user_file
from surveytool.text.latex_commands import NEVER_ALLOWED

if TYPE_CHECKING:
    from surveytool.bibtex.format_options import BibFormat
    from surveytool.drafting.llm_client import LlmSettings

SERVICES = ("openalex", "crossref", "arxiv", "dblp", "semantic_scholar")
#: The services `complete` asks, in order: those that know venues and pages first.
COMPLETE_SERVICES = ("semantic_scholar", "dblp", "crossref", "openalex")


@dataclass(frozen=True)
class OnlineSettings:
    contact: str = ""
    services: tuple[str, ...] = SERVICES[:3]
    complete_services: tuple[str, ...] = COMPLETE_SERVICES
    openalex_url: str = "https://api.openalex.org"
    crossref_url: str = "https://api.crossref.org"
    arxiv_url: str = "https://export.arxiv.org"
    dblp_url: str = "https://dblp.org"
    semantic_scholar_url: str = "https://api.semanticscholar.org"
    timeout: float = 10.0
    retries: int = 3
    min_interval: float = 0.2
    backoff: float = 1.0
    budget: float = 600.0
    give_up_after: int = 3
    max_wait: float = 30.0
    max_bytes: int = 4_000_000


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


def _table(path: Path, name: str) -> dict:
    """The ``[name]`` table of the settings file (empty if absent)."""
    table = _load(path).get(name, {})
    if not isinstance(table, dict):
        raise InputError(
            f"{name} must be a table",
            path=str(path),
            line=_line_of(path, "", name),
            hint=f"write [{name}] on a line of its own, the settings below it",
        )
    return table


def load_check_settings(path: Path | None) -> CheckSettings:
    """The [check] table: checks to disable and the thin-section threshold."""
    table = _table(path, "check") if path else {}
    unknown = sorted(set(table) - {"disable", "thin"})
    if unknown:
        raise InputError(
            f"unknown setting(s) in [check]: {', '.join(unknown)}", path=str(path), hint="known: disable, thin"
        )
    disable = table.get("disable", [])
    if not isinstance(disable, list) or not all(isinstance(d, str) for d in disable):
        raise _wrong(path, "check", "disable", disable, "a list of check names", 'disable = ["thin-section"]')
    thin = table.get("thin", 2)
    if not _is_int(thin) or thin < 0:
        raise _wrong(path, "check", "thin", thin, "a whole number of papers, 0 or more", "thin = 2")
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


def load_online_settings(path: Path | None) -> OnlineSettings:
    if path is None:
        return OnlineSettings()
    table = _table(path, "online")
    known = {f.name: f.type for f in fields(OnlineSettings)}
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise InputError(
            f"unknown setting(s) in [online]: {', '.join(unknown)}", path=str(path), hint="known: " + ", ".join(known)
        )
    values = dict(table)
    for setting in ("services", "complete_services"):
        if setting not in values:
            continue
        if not isinstance(values[setting], list):
            raise _wrong(
                path, "online", setting, values[setting], "a list of service names", f'{setting} = ["openalex", "dblp"]'
            )
        services = tuple(values[setting])
        bad = [s for s in services if s not in SERVICES]
        if bad:
            raise InputError(
                f"unknown service(s): {', '.join(map(str, bad))}", path=str(path), hint="use " + ", ".join(SERVICES)
            )
        values[setting] = services
    _check_online_types(path, values)
    return OnlineSettings(**values)


# Setting -> (is the value acceptable, what it must be, an example).
_ONLINE_RULES = {
    "timeout": (lambda v: _is_number(v) and v > 0, "a number of seconds above 0", "timeout = 10"),
    "retries": (lambda v: _is_int(v) and 0 <= v <= 20, "a whole number from 0 to 20", "retries = 3"),
    "min_interval": (lambda v: _is_number(v) and v >= 0, "a number of seconds, 0 or more", "min_interval = 0.2"),
    "backoff": (lambda v: _is_number(v) and v >= 0, "a number of seconds, 0 or more", "backoff = 1"),
    "budget": (lambda v: _is_number(v) and v > 0, "a number of seconds above 0", "budget = 600"),
    "give_up_after": (lambda v: _is_int(v) and v >= 1, "a whole number, 1 or more", "give_up_after = 3"),
    "max_wait": (lambda v: _is_number(v) and v >= 0, "a number of seconds, 0 or more", "max_wait = 30"),
    "max_bytes": (lambda v: _is_int(v) and v >= 1024, "a whole number of bytes, 1024 or more", "max_bytes = 4000000"),
    # Sent in a header: HTTP headers are ASCII, and a line break would start a header of its own.
    "contact": (
        lambda v: isinstance(v, str) and v.isascii() and v.isprintable(),
        "one line of printable ASCII text",
        'contact = "you@example.org"',
    ),
    **{
        name: (lambda v: all(isinstance(s, str) for s in v), "a list of service names", f'{name} = ["openalex"]')
        for name in ("services", "complete_services")
    },
    **{
        name: (lambda v: _is_web_address(v), "an http:// or https:// address", f'{name} = "https://..."')
        for name in ("openalex_url", "crossref_url", "arxiv_url", "dblp_url", "semantic_scholar_url")
    },
}


def _check_online_types(path: Path, values: dict) -> None:
    for name, value in values.items():
        accepts, expected, example = _ONLINE_RULES[name]
        if not accepts(value):
            raise _wrong(path, "online", name, value, expected, example)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)  # type: ignore[arg-type]


def _is_web_address(value: object) -> bool:
    if not isinstance(value, str) or not value.isprintable():
        return False
    parts = urllib.parse.urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _wrong(path: Path | None, table: str, name: str, value: object, expected: str, example: str) -> InputError:
    """A one-line error naming the setting, its line, what it must be and an example."""
    shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
    return InputError(
        f"[{table}] {name} must be {expected}, not {shown}",
        path=str(path) if path else None,
        line=_line_of(path, table, name),
        hint=example,
    )


def _line_of(path: Path | None, table: str, name: str) -> int | None:
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
    return llm_settings_from_table(_load(path).get("llm", {}), path, lambda name: _line_of(path, "llm", name))


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

    table = _table(path, "bib") if path else {}
    unknown = sorted(set(table) - set(SETTING_RULES))
    if unknown:
        raise InputError(
            f"unknown setting(s) in [bib]: {', '.join(unknown)}",
            path=str(path),
            line=_line_of(path, "bib", unknown[0]),
            hint="known: " + ", ".join(SETTING_RULES),
        )
    for name, value in table.items():
        accepts, expected, example = SETTING_RULES[name]
        if not accepts(value):
            raise _wrong(path, "bib", name, value, expected, example)
    return bib_format(table) if table else STANDARD
