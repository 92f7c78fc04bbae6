"""The names in a field a reference manager files entries by (JabRef's ``groups``): the user's, never respelled."""

from __future__ import annotations

import re
from collections.abc import Sequence


def separator_of(value: str) -> str:
    """What a tags field's value joins its tags by: a semicolon where it uses no comma (``{MoE; memory}``), a
    comma otherwise, with a space after it where one follows the value's separators."""
    mark = ";" if ";" in value and "," not in value else ","
    return mark + (" " if re.search(rf"{mark}[ \t]", value) else "")


def names_with(raw: str, names: Sequence[str], added: Sequence[str]) -> str:
    """The value (no outer braces) of a filing field read as ``raw``, with ``added`` after its names, joined as
    they are joined: one braced or quoted literal as written (``model\\_parallel`` is JabRef's own spelling), any
    other value (pieces, a macro) as its ``names``."""
    value = raw.strip()
    one_literal = len(value) > 1 and value[0] + value[-1] in ("{}", '""') and "#" not in value
    inner = value[1:-1].strip() if one_literal else ",".join(names)
    if not added:
        return inner
    end, joined = names_added(inner, added)
    return inner[:end] + joined + inner[end:]


def names_added(written: str, added: Sequence[str]) -> tuple[int, str]:
    """Where the names ``added`` go in ``written`` (a filing field's names as written, in one literal) and the text
    written there: after its last name, or a separator written last, joined as its names are joined (after one
    name by ", ", as JabRef joins them). What stands after them (spaces, a line break) stays after the added ones."""
    between = separator_of(written) if re.search("[,;]", written) else ", "
    end = len(written.rstrip())
    lead = "" if not end else between[1:] if written[end - 1] in ",;" else between
    return end, lead + between.join(added)
