"""The [llm] table of surveytool.toml: where draft --llm asks, and how (the client is llm_client.py).

Apart from the client so that every command can check the table without loading the network client.

[llm]
base_url = "http://127.0.0.1:8080/v1"  # the part before /chat/completions
model = "llama-3.1-8b-instruct"
api_key_env = "OPENAI_API_KEY"           # the NAME of the variable holding the key; none for a local server
timeout = 120                            # seconds for one whole answer
"""

from __future__ import annotations

import math
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from surveytool.errors import InputError
from surveytool.online_settings import MAX_ANSWER_BYTES

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class LlmSettings:
    base_url: str = "http://127.0.0.1:8080/v1"
    model: str = ""
    api_key_env: str = ""  # empty: no key is sent (local servers need none)
    timeout: float = 120.0
    retries: int = 1
    max_bytes: int = 1_000_000
    budget: float = 1800.0  # seconds of model time for the whole run


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_web_address(value: object) -> bool:
    if not isinstance(value, str) or not value.isascii() or not value.isprintable() or " " in value:
        return False
    try:  # "http://[::1/v1" and a port of letters or above 65535 are ValueErrors, not addresses
        parts = urllib.parse.urlsplit(value)
        parts.port  # noqa: B018 (read for its check)
    except ValueError:
        return False
    return (
        parts.scheme in ("http", "https")
        and bool(parts.hostname)
        and not parts.query
        and not parts.fragment
        and "@" not in parts.netloc  # a user name or key there is never sent: refused with its own message
    )


def _has_user_info(value: object) -> bool:
    """Whether ``value`` is an address with a user name or password in it (``http://user:key@host/v1``)."""
    try:
        return isinstance(value, str) and "@" in urllib.parse.urlsplit(value).netloc
    except ValueError:
        return False


# Setting -> (is the value acceptable, what it must be, an example).
_RULES: dict[str, tuple[Callable[[Any], bool], str, str]] = {
    "base_url": (_is_web_address, "an http:// or https:// address", 'base_url = "http://127.0.0.1:8080/v1"'),
    "model": (
        lambda v: isinstance(v, str) and v.isprintable() and 0 < len(v) <= 200,
        "the model's name, one line of text",
        'model = "llama-3.1-8b-instruct"',
    ),
    "api_key_env": (
        lambda v: isinstance(v, str) and (v == "" or _ENV_NAME.fullmatch(v) is not None),
        "the name of an environment variable (letters, digits, _), not the key itself",
        'api_key_env = "OPENAI_API_KEY"',
    ),
    "timeout": (lambda v: _is_number(v) and 0 < v <= 3600, "a number of seconds above 0", "timeout = 120"),
    "retries": (
        lambda v: _is_number(v) and float(v).is_integer() and 0 <= v <= 10,
        "a whole number 0-10",
        "retries = 1",
    ),
    "max_bytes": (  # bounded as [online] max_bytes is: the answer is held whole
        lambda v: _is_number(v) and float(v).is_integer() and 1024 <= v <= MAX_ANSWER_BYTES,
        f"a whole number of bytes from 1,024 to {MAX_ANSWER_BYTES:,}",
        "max_bytes = 1000000",
    ),
    "budget": (lambda v: _is_number(v) and v > 0, "a number of seconds above 0", "budget = 1800"),
}


def llm_settings_from_table(
    table: object, path: Path | None, line_of: Callable[[str], int | None] | None = None
) -> LlmSettings:
    """The ``[llm]`` table as settings; InputError naming the file (and line, given ``line_of``) when it is wrong."""
    where = str(path) if path else None
    if not isinstance(table, dict):
        raise InputError("llm must be a table", path=where, hint="write [llm] on a line of its own, the settings below")
    if "api_key" in table:
        raise InputError(
            "[llm] api_key: a key is never written in a settings file",
            path=where,
            line=line_of("api_key") if line_of else None,
            hint='put it in an environment variable and name that: api_key_env = "OPENAI_API_KEY"',
        )
    unknown = sorted(set(table) - set(_RULES))
    if unknown:
        raise InputError(
            f"unknown setting(s) in [llm]: {', '.join(unknown)}",
            path=where,
            line=line_of(unknown[0]) if line_of else None,
            hint="known: " + ", ".join(_RULES),
        )
    for name, value in table.items():
        accepts, expected, example = _RULES[name]
        if name == "base_url" and _has_user_info(value):
            raise InputError(
                "[llm] base_url holds a user name or password, which is never sent (and would be shown in messages)",
                path=where,
                line=line_of(name) if line_of else None,
                hint='put the key in an environment variable and name that: api_key_env = "OPENAI_API_KEY"',
            )
        if not accepts(value):
            # The value is not shown for api_key_env: it may be the key written where its variable's name belongs.
            shown = "" if name == "api_key_env" else f", not {_shown(value)}"
            raise InputError(
                f"[llm] {name} must be {expected}{shown}",
                path=where,
                line=line_of(name) if line_of else None,
                hint=example,
            )
    values = {f.name: table[f.name] for f in fields(LlmSettings) if f.name in table}
    for name in ("retries", "max_bytes"):
        if name in values:
            values[name] = int(values[name])
    for name in ("timeout", "budget"):
        if name in values:
            values[name] = float(values[name])
    return LlmSettings(**values)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
