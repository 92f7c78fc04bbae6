"""Where `bib --in-place` puts the entries it adds in a user's file, as the tool that keeps the file would."""

from __future__ import annotations

import re

# At a line's start, after any of the three line endings.
_LINE_START = r"(?:\A|(?<=[\r\n]))"
_JABREF_META = re.compile(_LINE_START + r"[ \t]*@[ \t]*comment[ \t]*\{[ \t]*jabref-meta:", re.IGNORECASE)
_BRACE = re.compile(r"[{}]")


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
