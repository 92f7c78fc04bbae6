"""An entry added to a .bib that is not UTF-8, spelled so that the file's own encoding holds it.

Written as UTF-8 into a Latin-1 or Windows-1252 file, a Greek or Chinese title was read back as other
characters by every later run (and by the user's editor and BibTeX), which then added the entry again.
"""

from __future__ import annotations

import re

from surveytool.text.file_encoding import LEGACY_ENCODINGS
from surveytool.text.latex import bibtex_char

# Lines whose characters are no text to spell in LaTeX: the entry's key, and addresses and identifiers.
_VERBATIM_LINE = re.compile(r"\s*(?:@|(?:url|doi|eprint|file|pdf|isbn|issn)\s*=)", re.IGNORECASE)


def held_by(encoding: str, entry: str) -> tuple[str | None, str]:
    """``entry`` with each character ``encoding`` cannot hold written as its ASCII LaTeX spelling; or None and
    the first character that has no such spelling, or stands in a key, address or identifier."""
    if encoding not in LEGACY_ENCODINGS or _holds(encoding, entry):
        return entry, ""
    lines = []
    for line in entry.splitlines(keepends=True):
        unheld = [char for char in line if not _holds(encoding, char)]
        if unheld and _VERBATIM_LINE.match(line):
            return None, unheld[0]
        unspelled = [char for char in unheld if not bibtex_char(char).isascii()]
        if unspelled:
            return None, unspelled[0]
        lines.append("".join(bibtex_char(char) if char in unheld else char for char in line))
    return "".join(lines), ""


def _holds(encoding: str, text: str) -> bool:
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True
