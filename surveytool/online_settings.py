"""The [online] table of surveytool.toml: contact address, online services, their URLs and limits.

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
"""

from __future__ import annotations

import difflib
import math
import urllib.parse
from dataclasses import dataclass, fields
from pathlib import Path

from surveytool.config import is_whole_number, setting_line, settings_table, wrong_setting
from surveytool.errors import InputError

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


def load_online_settings(path: Path | None) -> OnlineSettings:
    if path is None:
        return OnlineSettings()
    known = {f.name: f.type for f in fields(OnlineSettings)}
    table = settings_table(path, "online", known)
    values = dict(table)
    for setting in ("services", "complete_services"):
        if setting not in values:
            continue
        if not isinstance(values[setting], list):
            raise wrong_setting(
                path, "online", setting, values[setting], "a list of service names", f'{setting} = ["openalex", "dblp"]'
            )
        services = tuple(values[setting])
        if not services:  # --online then asked no service and said nothing: every snippet stayed unresolved
            raise wrong_setting(path, "online", setting, [], "a list of one service or more", f'{setting} = ["dblp"]')
        bad = [s for s in services if s not in SERVICES]
        twice = sorted({s for s in services if services.count(s) > 1})  # each would be asked twice for every entry
        if twice and not bad:
            raise InputError(
                f"[online] {setting} names {', '.join(map(str, twice))} twice",
                path=str(path),
                line=setting_line(path, "online", setting),
                hint="name each service once, in the order they are to be asked",
            )
        if bad:
            raise InputError(
                f"unknown service(s): {', '.join(map(str, bad))}",
                path=str(path),
                line=setting_line(path, "online", setting),
                hint=_service_hint(bad[0]) + "use " + ", ".join(SERVICES),
            )
        values[setting] = services
    _check_online_types(path, values)
    return OnlineSettings(**values)


def _service_hint(name: object) -> str:
    """'did you mean ...? ' for a service written in capitals or with a hyphen ("OpenAlex", "semantic-scholar")."""
    spelt = str(name).strip().lower().replace("-", "_").replace(" ", "_")
    close = difflib.get_close_matches(spelt, SERVICES, n=1, cutoff=0.8)
    return f"did you mean {close[0]!r}? " if close else ""


# Setting -> (is the value acceptable, what it must be, an example).
# Seconds up to a day: a longer wait is a mistake, and 1e300 of them overflowed time.sleep (an internal error).
_DAY = 86_400
#: The largest answer a user may allow; the services' answers are kilobytes, a model's at most a few megabytes.
MAX_ANSWER_BYTES = 100_000_000
_ONLINE_RULES = {
    "timeout": (lambda v: _seconds(v) and v > 0, "a number of seconds above 0, a day at most", "timeout = 10"),
    "retries": (lambda v: is_whole_number(v) and 0 <= v <= 20, "a whole number from 0 to 20", "retries = 3"),
    "min_interval": (lambda v: _seconds(v), f"a number of seconds from 0 to {_DAY:,}", "min_interval = 0.2"),
    "backoff": (lambda v: _seconds(v), f"a number of seconds from 0 to {_DAY:,}", "backoff = 1"),
    "budget": (lambda v: _seconds(v) and v > 0, "a number of seconds above 0, a day at most", "budget = 600"),
    "give_up_after": (lambda v: is_whole_number(v) and v >= 1, "a whole number, 1 or more", "give_up_after = 3"),
    "max_wait": (lambda v: _seconds(v), f"a number of seconds from 0 to {_DAY:,}", "max_wait = 30"),
    # An answer is held whole (and again as text): the bound keeps a typo's extra zeros from meaning any memory.
    "max_bytes": (
        lambda v: is_whole_number(v) and 1024 <= v <= MAX_ANSWER_BYTES,
        f"a whole number of bytes from 1,024 to {MAX_ANSWER_BYTES:,}",
        "max_bytes = 4000000",
    ),
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
            raise wrong_setting(path, "online", name, value, expected, example)


def _is_number(value: object) -> bool:
    return (is_whole_number(value) or isinstance(value, float)) and math.isfinite(value)  # type: ignore[arg-type]


def _seconds(value: object) -> bool:
    return _is_number(value) and 0 <= value <= _DAY  # type: ignore[operator]


def _is_web_address(value: object) -> bool:
    if not isinstance(value, str) or not value.isascii() or not value.isprintable() or " " in value:
        return False
    try:  # "http://[::1" is no address, nor is a port above 65535: urllib raises on them, here or on first use
        parts = urllib.parse.urlsplit(value)
        return parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:
        return False
