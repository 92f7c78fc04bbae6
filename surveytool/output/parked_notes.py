"""Notes whose region is gone wait in the ``orphaned`` region at the end of the chapter, each under a
``% (from notes <id>)`` line, and go back to their region when a rebuild generates it again (the section
was put back in the taxonomy, a build with the wrong --taxonomy was followed by one with the right one)."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import NamedTuple

ORPHANED = "orphaned"
PARKED_HEADER = "% (from notes {})\n"

_HEADER = re.compile(r"^% \(from notes (?P<id>\S+)\)[ \t]*\n", re.M)
# A parked line that would end the parking region, commented out once more.
_ENDS_PARKING = re.compile(rf"^(% )*% surveytool: end notes {ORPHANED}[ \t]*$", re.M)
_ESCAPED_END = re.compile(rf"^% ((% )*% surveytool: end notes {ORPHANED}[ \t]*)$", re.M)


def parked(region_id: str, prose: str) -> str:
    """``prose`` of ``region_id`` as it waits in the ``orphaned`` region: under its header line, with a line
    that would end that region commented out once more, or the rest would fall outside and be lost."""
    return PARKED_HEADER.format(region_id) + _ENDS_PARKING.sub(lambda m: "% " + m[0], prose)


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
            home[region_id] = home.get(region_id, "") + _ESCAPED_END.sub(r"\1", body)
        else:
            kept.append(prose[header.start() : stop])
    return Unparked("".join(kept), home)
