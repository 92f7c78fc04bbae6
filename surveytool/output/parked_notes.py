"""Notes whose region is gone wait in the ``orphaned`` region at the end of the chapter, each under a
``% (from notes <id>)`` line, and go back to their region when a rebuild generates it again (the section
was put back in the taxonomy, a build with the wrong --taxonomy was followed by one with the right one)."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import NamedTuple

ORPHANED = "orphaned"
PARKED_HEADER = "% (from notes {})\n"

# The line a parked block starts with; spaces and tabs around it, as around a marker line, change nothing.
_HEADER = re.compile(r"^[ \t]*% \(from notes (?P<id>\S+)\)[ \t]*\n", re.M)
# Lines of the author's prose that would be read as the tool's own once parked: a header line (one the
# author moved into other notes with parked text, as the README tells, would split the notes there and be
# lost) or the end line of the parking region (the rest would fall outside it and be lost). Each is parked
# commented out once more, "% " put before it, and given back without it. A line that is such a line with
# "% " before it already gets one more too, so that the mapping can be undone: every line comes back byte
# for byte. Headers stay as earlier versions wrote them, so chapters they parked notes in are read back
# (where an author's own line of those was read as a header then, it still is: which one the tool wrote
# cannot be told).
_TOOL_LINE = rf"[ \t]*(?:% \(from notes \S+\)|% surveytool: end notes {ORPHANED})[ \t]*"
_LOOKS_LIKE_TOOLS = re.compile(rf"^(?:% )*{_TOOL_LINE}$", re.M)
_ESCAPED = re.compile(rf"^% ((?:% )*{_TOOL_LINE})$", re.M)


def parked(region_id: str, prose: str) -> str:
    """``prose`` of ``region_id`` as it waits in the ``orphaned`` region: under its header line, with each line
    that would be read as a header or as the end of that region commented out once more (see above)."""
    return PARKED_HEADER.format(region_id) + _LOOKS_LIKE_TOOLS.sub(lambda m: "% " + m[0], prose)


class Unparked(NamedTuple):
    still_parked: str  # what stays in the ``orphaned`` region
    home: dict[str, str]  # region id -> its parked prose, as it was before it was parked


def unpark(prose: str, generated: Collection[str]) -> Unparked:
    """The content of an ``orphaned`` region with the prose of every ``generated`` region taken out: the text
    under its header, up to the next header. What the author wrote above the first header stays parked."""
    headers = list(_HEADER.finditer(prose))
    kept, home = [prose[: headers[0].start()] if headers else prose], dict[str, str]()
    for number, header in enumerate(headers):
        stop = headers[number + 1].start() if number + 1 < len(headers) else len(prose)
        region_id, body = header["id"], prose[header.end() : stop]
        if region_id in generated and region_id != ORPHANED:
            home[region_id] = home.get(region_id, "") + _ESCAPED.sub(r"\1", body)
        else:
            kept.append(prose[header.start() : stop])
    return Unparked("".join(kept), home)


def parked_ids(prose: str) -> list[str]:
    """The region ids whose notes wait in ``prose`` (the content of an ``orphaned`` region), in order."""
    return [header["id"] for header in _HEADER.finditer(prose)]


def with_renamed_headers(prose: str, renames: Mapping[str, str]) -> str:
    """``prose`` (the content of an ``orphaned`` region) with the notes parked for each renamed id parked for its
    new id: they go back to the region under its new name."""

    def renamed(header: re.Match[str]) -> str:
        now = renames.get(header["id"])
        return header[0] if now is None else header[0].replace(f"(from notes {header['id']})", f"(from notes {now})")

    return _HEADER.sub(renamed, prose)
