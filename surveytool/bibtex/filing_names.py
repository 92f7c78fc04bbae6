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
    kept = inner.rstrip(",; \t")
    between = separator_of(inner) if re.search("[,;]", inner) else ", "  # one name: joined as JabRef joins them
    return between.join([kept, *added]) if kept else between.join(added)
