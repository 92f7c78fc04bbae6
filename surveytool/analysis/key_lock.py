"""The key lock file, ``surveytool.lock.json``: the keys given so far, by identity (``keys.py`` gives them).

Read strictly: a file of another version, a pin that is no key, or an identity named twice (a merge of two
branches) stops the run with its line, rather than keys being given anew without a word.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from surveytool.errors import InputError
from surveytool.regular_files import Unusable, read_regular

LOCK_VERSION = 1
#: Far more than a lock file of a million pins; a link to /dev/zero or a huge file is refused, not read.
MAX_LOCK_FILE = 256 << 20
_LOCK_HINT = "restore it from version control, or delete it to let keys be given anew"


def read_lock_text(path: Path) -> str:
    """The lock file's text; FileNotFoundError if there is none, InputError if it cannot be read."""
    try:
        data = read_regular(path, MAX_LOCK_FILE, follow=True)
    except Unusable as problem:
        raise InputError(f"key lock file {problem}", path=str(path), hint=_LOCK_HINT) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError("key lock file is not UTF-8", path=str(path), line=line, hint=_LOCK_HINT) from None


def load_pins(path: Path) -> dict[str, str]:
    """Identity -> pinned key, from the lock file at ``path`` (none if it does not exist)."""
    try:
        text = read_lock_text(path)
    except FileNotFoundError:
        return {}
    try:
        data = json.loads(text, object_pairs_hook=_pairs)
    except _Repeated as repeated:
        line = _line_of(text, _JSON_STRING(repeated.name), 2)
        raise InputError(
            f"key lock file names {_JSON_STRING(repeated.name)} twice; a key of one of them would be lost",
            path=str(path),
            line=line,
            hint="keep one of the two lines: a merge of two branches may have left both",
        ) from None
    except json.JSONDecodeError as error:
        raise InputError(
            f"key lock file is not valid JSON: {error.msg}", path=str(path), line=error.lineno, hint=_LOCK_HINT
        ) from None
    except (ValueError, RecursionError):  # a number of thousands of digits, arrays nested thousands deep
        raise InputError(
            "key lock file holds a value too large or too deep to read", path=str(path), hint=_LOCK_HINT
        ) from None
    keys = data.get("keys", {}) if isinstance(data, dict) else None
    if not isinstance(keys, dict):
        raise InputError('key lock file has no "keys" object', path=str(path), hint=_LOCK_HINT)
    version = data.get("version", LOCK_VERSION)
    if version != LOCK_VERSION or isinstance(version, bool):
        # Read and written back as this version, a lock file of another would lose what that version keeps.
        raise InputError(
            f"key lock file is version {json.dumps(version)[:40]}; this surveytool reads version {LOCK_VERSION}",
            path=str(path),
            line=_line_of(text, '"version"'),
            hint="use the surveytool that wrote it, or delete the file to let keys be given anew",
        )
    for identity, key in keys.items():
        if not isinstance(key, str):
            line = text.count("\n", 0, max(text.find(_JSON_STRING(identity)), 0)) + 1
            raise InputError(
                f"key lock file pins {_JSON_STRING(identity)} to {json.dumps(key)[:40]}, which is not a citation key",
                path=str(path),
                line=line,
                hint=_LOCK_HINT,
            )
    return keys


class _Repeated(Exception):
    def __init__(self, name: str) -> None:
        self.name = name


def _pairs(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object; a name given twice (json keeps the last silently) raises _Repeated."""
    found = dict(pairs)
    if len(found) < len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise _Repeated(name)
            seen.add(name)
    return found


def _line_of(text: str, needle: str, occurrence: int = 1) -> int | None:
    """The line of the ``occurrence``-th ``needle`` in ``text`` (None when it is not there as written)."""
    found = -1
    for _ in range(occurrence):
        found = text.find(needle, found + 1)
        if found < 0:
            return None
    return text.count("\n", 0, found) + 1


# Encodes one string with json's C encoder; asking json.dumps for indentation switches to its
# pure-Python encoder, much slower on the pins of a large bibliography.
_JSON_STRING = json.JSONEncoder(ensure_ascii=False).encode


def dump_pins(pins: Mapping[str, str]) -> str:
    """The lock file, as ``json.dumps(..., indent=2)`` writes it: one pin per line, sorted, diffable."""
    lines = ",\n".join(f"    {_JSON_STRING(key)}: {_JSON_STRING(pin)}" for key, pin in sorted(pins.items()))
    keys = "{\n" + lines + "\n  }" if pins else "{}"
    return f'{{\n  "version": {LOCK_VERSION},\n  "keys": {keys}\n}}\n'
