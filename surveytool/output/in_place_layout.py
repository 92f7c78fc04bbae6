"""Where `bib --in-place` puts the entries it adds in a user's file, and how it lays them out: as the file does."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from surveytool.bibtex.format_options import STANDARD, BibFormat

# At a line's start, after any of the three line endings.
_LINE_START = r"(?:\A|(?<=[\r\n]))"
_JABREF_META = re.compile(_LINE_START + r"[ \t]*@[ \t]*comment[ \t]*\{[ \t]*jabref-meta:", re.IGNORECASE)
_BRACE = re.compile(r"[{}]")
# A block's head line and the line after it, when that line starts a field: the indent before it.
_FIRST_FIELD = re.compile(
    _LINE_START + r"[ \t]*@[ \t]*(\w+)[ \t]*[{(][^,\r\n]*,[ \t]*(?:\r\n|\r|\n)([ \t]*)[A-Za-z][\w:.+-]*[ \t]*="
)
_NOT_ENTRIES = frozenset({"comment", "preamble", "string"})
_MAX_SPACES = 16  # as many as --space takes
_MAX_COLUMN = 40  # as far as --align takes
_BLOCK_HEAD = re.compile(_LINE_START + r"[ \t]*@[ \t]*(\w+)[ \t]*[{(]")
# A line that starts a field: its name, and the white space between the name and the "=".
_FIELD_HEAD = re.compile(_LINE_START + r"[ \t]*([A-Za-z][\w:.+-]*)([ \t]*)=")


def file_indent(text: str, fmt: BibFormat) -> BibFormat:
    """``fmt`` with the indent most entries of ``text`` give their fields (a tab, or N spaces), unless ``fmt``
    asks for an indent (the standard one too); an indent of other white space (a tab and spaces) is not taken."""
    if fmt.indent_given or fmt.indent != STANDARD.indent:
        return fmt
    indents = Counter(
        found.group(2) for found in _FIRST_FIELD.finditer(text) if found.group(1).lower() not in _NOT_ENTRIES
    )
    indent = indents.most_common(1)[0][0] if indents else STANDARD.indent
    if indent == "\t":
        return replace(fmt, tab=True)
    if not indent.strip(" ") and len(indent) <= _MAX_SPACES:
        return replace(fmt, space=len(indent))
    return fmt


def file_align(text: str, fmt: BibFormat) -> BibFormat:
    """``fmt`` with the column most entries of ``text`` put their ``=`` in after the indent, with spaces (DBLP's
    and bibtex-tidy's ``author    = {``), unless ``fmt`` asks for a column. An entry mixing columns is not aligned."""
    if fmt.align:
        return fmt
    blocks = list(_BLOCK_HEAD.finditer(text))
    columns = Counter(
        _column(text[head.end() : after.start() if after else len(text)])
        for head, after in zip(blocks, [*blocks[1:], None], strict=True)
        if head.group(1).lower() not in _NOT_ENTRIES
    )
    columns.pop(0, None)  # no fields
    column, count = max(((c, n) for c, n in columns.items() if c), key=lambda found: found[1], default=(0, 0))
    if count * 2 > columns.total() and column <= _MAX_COLUMN:
        return replace(fmt, align=column)
    return fmt


def _column(entry: str) -> int | None:
    """Where the ``=`` of ``entry``'s fields stand after the names' start when spaces line them up (a name too long
    for the column followed by one space, as aligning writers do); None when they are not lined up, 0: no fields."""
    heads = [(len(name), gap) for name, gap in _FIELD_HEAD.findall(entry)]
    if not heads:
        return 0
    padded = {length + len(gap) for length, gap in heads if len(gap) > 1}
    if len(padded) != 1 or any(gap.strip(" ") or not gap for _, gap in heads):
        return None
    column = padded.pop()
    return column if all(n + len(gap) == column or (gap == " " and n >= column) for n, gap in heads) else None


def trailing_metadata(text: str) -> int | None:
    """Where the ``@Comment{jabref-meta: ...}`` blocks that end ``text`` begin; None when it does not end in them.

    JabRef keeps its metadata (groups, database type) after every entry, and saves it there again: an entry
    added after it would move, and with it the tail of the file, on JabRef's next save.
    """
    first, end = None, len(text)
    for found in reversed(list(_JABREF_META.finditer(text))):
        close = _closing_brace(text, found.end())
        if close is None or text[close:end].strip():
            break  # unclosed, or something other than metadata after it: not the trailing metadata
        first = end = found.start()
    return first


def _closing_brace(text: str, position: int) -> int | None:
    """Where the group open at ``position`` ends (after its closing brace), braces counted as BibTeX counts them."""
    depth = 1
    for brace in _BRACE.finditer(text, position):
        depth += 1 if brace.group() == "{" else -1
        if depth == 0:
            return brace.end()
    return None
