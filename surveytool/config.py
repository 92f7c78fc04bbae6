"""Optional settings file (surveytool.toml): contact address, online services and their URLs.

    [online]
    contact = "you@example.org"          # sent in the User-Agent, as the services ask
    services = ["openalex", "crossref", "arxiv"]
    openalex_url = "https://api.openalex.org"
    crossref_url = "https://api.crossref.org"
    arxiv_url = "https://export.arxiv.org"
    timeout = 10                          # seconds per request
    retries = 3
    min_interval = 0.2                    # seconds between two requests to one service
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from .errors import InputError

SERVICES = ("openalex", "crossref", "arxiv")


@dataclass(frozen=True)
class OnlineSettings:
    contact: str = ""
    services: tuple[str, ...] = SERVICES
    openalex_url: str = "https://api.openalex.org"
    crossref_url: str = "https://api.crossref.org"
    arxiv_url: str = "https://export.arxiv.org"
    timeout: float = 10.0
    retries: int = 3
    min_interval: float = 0.2
    backoff: float = 1.0


@dataclass(frozen=True)
class CheckSettings:
    disable: tuple[str, ...] = ()
    thin: int = 2


def _load(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise InputError("no such config file", path=str(path), hint="check the path given with --config") from None
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"not valid TOML: {error}", path=str(path), hint="see the examples in the README") from None


def load_check_settings(path: Path | None) -> CheckSettings:
    """The [check] table: checks to disable and the thin-section threshold."""
    table = _load(path).get("check", {}) if path else {}
    unknown = sorted(set(table) - {"disable", "thin"})
    if unknown:
        raise InputError(f"unknown setting(s) in [check]: {', '.join(unknown)}", path=str(path), hint="known: disable, thin")
    disable = table.get("disable", [])
    if not isinstance(disable, list) or not all(isinstance(d, str) for d in disable):
        raise InputError("[check] disable must be a list of check names", path=str(path), hint='disable = ["thin-section"]')
    return CheckSettings(tuple(disable), int(table.get("thin", 2)))


def load_online_settings(path: Path | None) -> OnlineSettings:
    if path is None:
        return OnlineSettings()
    table = _load(path).get("online", {})
    known = {f.name: f.type for f in fields(OnlineSettings)}
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise InputError(f"unknown setting(s) in [online]: {', '.join(unknown)}", path=str(path),
                         hint="known: " + ", ".join(known))
    values = dict(table)
    if "services" in values:
        services = tuple(values["services"])
        bad = [s for s in services if s not in SERVICES]
        if bad:
            raise InputError(f"unknown service(s): {', '.join(bad)}", path=str(path), hint="use " + ", ".join(SERVICES))
        values["services"] = services
    return OnlineSettings(**values)


def load_merge_duplicates(path: Path | None) -> bool:
    """The [duplicates] table's ``merge``: whether bib, build and parse merge your own duplicate entries."""
    table = _load(path).get("duplicates", {}) if path else {}
    unknown = sorted(set(table) - {"merge"})
    if unknown:
        raise InputError(f"unknown setting(s) in [duplicates]: {', '.join(unknown)}", path=str(path), hint="known: merge")
    merge = table.get("merge", False)
    if not isinstance(merge, bool):
        raise InputError("[duplicates] merge must be true or false", path=str(path), hint="merge = true")
    return merge
