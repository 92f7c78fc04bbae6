"""Lines that moved: what a patched build rewrites in the findings and entries.json it keeps.

An edit that adds or removes lines moves every entry below it; a finding whose message names
another entry's place (``path:line``) is renumbered too, and refused when its text does not
line up with the places it stored (a key that reads like a place).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from surveytool.rebuild.changes import Move, moved_line, moved_source
from surveytool.text.control_chars import json_shown

_NAMING_OTHER_LINES = frozenset({"duplicate-entry", "duplicate-key", "suspicious-duplicate-id"})


def moved_finding(record: tuple, moves: Sequence[Move]) -> tuple | None:
    """A ``finding_record`` with its location and the places its message names moved; None if it names places unsaid."""
    check, severity, message, where, hint, key, places = record
    if not moves:
        return record
    if places is None and check in _NAMING_OTHER_LINES:
        return None
    if where is not None:
        where = (where[0], moved_line(where[0], where[1], moves))
    if places:
        moved = tuple((path, moved_line(path, line, moves)) for path, line in places)
        if moved != places:
            message = _renumbered(message, places, moved)
            if message is None:
                return None
            places = moved
    return check, severity, message, where, hint, key, places


def _renumbered(message: str, places: Sequence[tuple[str, int]], moved: Sequence[tuple[str, int]]) -> str | None:
    """``message`` with each of ``places`` ("path:line", in order) printed at its ``moved`` line.

    None when the message holds "path:line" text of those paths other than the places (a key or DOI may):
    which one to renumber is then not known.
    """
    paths = sorted({path for path, _ in places}, key=len, reverse=True)
    found = list(re.finditer("(?:" + "|".join(map(re.escape, paths)) + ")(?::[0-9]+)", message))
    if [m.group() for m in found] != [f"{path}:{line}" for path, line in places]:
        return None
    pieces, at = [], 0
    for match, (path, line) in zip(found, moved, strict=True):
        pieces += [message[at : match.start()], f"{path}:{line}"]
        at = match.end()
    return "".join([*pieces, message[at:]])


_JSON_SOURCES = '"sources": '  # a key: inside a JSON string its quotes would be escaped


def moved_json(line: bytes, moves: Sequence[Move]) -> bytes:
    """An entries.json object with the lines of its sources moved."""
    text = line.decode("utf-8")
    start = text.index(_JSON_SOURCES) + len(_JSON_SOURCES)
    sources, end = _JSON_DECODER.raw_decode(text, start)
    moved = json_shown(json.dumps([moved_source(s, moves) for s in sources], ensure_ascii=False))
    return (text[:start] + moved + text[end:]).encode("utf-8")


_JSON_DECODER = json.JSONDecoder()
