"""How a field added to a user's entry is named: in the entry's own layout, its ``=`` where the entry's are.

Entries line their fields up in one of three ways: not at all (``name = value``, or however the entry
spaces it), with spaces to a column (``title     = ``, as bibtex-tidy's --align writes), or with tabs to a
tab stop (``\\ttitle\\t= ``). Only the fields that start a line, padded before their ``=``, show a column; a
name too long for it is followed by one space or tab, as such names are. Tabs are counted 8 columns wide, as
git, less and terminals show them, or 4 or 2 when only that width lines the fields up.
"""

from __future__ import annotations

from collections.abc import Iterable

from surveytool.text.line_ends import line_start

_TAB_WIDTHS = (8, 4, 2)


def name_and_equals(raw: str, fields: Iterable[tuple[int, int]], name: str, indent: str) -> str:
    """``name`` and what stands between it and its value, on a line starting with ``indent``, as the entry
    ``raw`` writes its ``fields`` ((where a name starts, where its value starts), in order): lined up with
    them when they are lined up, else spaced as the last of them (`` = `` when there is none)."""
    between = " = "
    heads: list[tuple[str, str]] = []  # (a line up to its "=", the space before the "="): fields that start a line
    for start, value_start in fields:
        written = raw[start:value_start]
        head = written.partition("=")[0]
        name_end = len(head.rstrip())
        between = written[name_end:]
        line = line_start(raw, start)
        if not raw[line:start].strip() and "\n" not in head and "\r" not in head:
            heads.append((raw[line:start] + head, head[name_end:]))
    if "\n" in between or "\r" in between:
        between = " = "  # a line break before or after the "=" is not a layout to copy
    padded = [(lead, gap) for lead, gap in heads if len(gap) > 1 or "\t" in gap]
    tabs = any("\t" in gap for _, gap in padded)
    for width in _TAB_WIDTHS if tabs else _TAB_WIDTHS[:1]:
        columns = {_column(lead, width) for lead, _ in padded}
        if len(columns) == 1:
            return name + _padding(indent + name, columns.pop(), width, tabs) + between[between.index("=") :]
    return name + between


def _column(text: str, tab: int) -> int:
    """Where a line that starts with ``text`` goes on, tabs ``tab`` columns wide."""
    column = 0
    for char in text:
        column = (column // tab + 1) * tab if char == "\t" else column + 1
    return column


def _padding(text: str, column: int, tab: int, tabs: bool) -> str:
    """What takes a line starting with ``text`` to ``column``: tabs (when the entry pads with them), then spaces."""
    at = _column(text, tab)
    if at >= column:
        return "\t" if tabs else " "
    padding = ""
    while tabs and (at // tab + 1) * tab <= column:
        padding += "\t"
        at = (at // tab + 1) * tab
    return padding + " " * (column - at)
