"""A source named ``-``: standard input, read once, its kind told by ``--kind`` or by what it holds."""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

from surveytool.errors import InputError
from surveytool.sources.paper_list import looks_like_paper_list

STDIN_NAME = "<stdin>"
# An entry or @string/@preamble/@comment at a line start: BibTeX, whatever else the text holds.
# An array of objects or an object with a key: not a list item numbered "[1]".
_JSON_OPENING = re.compile(r'^\ufeff?\s*(?:\[\s*[{\]]|\{\s*")')
_BIBTEX_BLOCK = re.compile(r"^[ \t]*@[ \t]*[A-Za-z]+[ \t]*[{(]", re.M)


def is_stdin(path: Path) -> bool:
    return str(path) == "-"


@cache
def stdin_bytes() -> bytes:
    """Everything piped in; read on first use and kept, so that each reader sees the same text."""
    if sys.stdin is None or sys.stdin.isatty():
        raise InputError(
            "reads standard input, but nothing is piped in",
            path=STDIN_NAME,
            hint="pipe a file in (surveytool bib - -o out.bib < refs.bib), or name the file",
        )
    return sys.stdin.buffer.read()


def sniff_kind(text: str) -> str | None:
    """The kind of a source with no telling name: CSL-JSON, BibTeX, or None (a list or ids: decided later)."""
    if _JSON_OPENING.match(text):
        return "csl-json"
    # Its snippets may quote an @entry{...}; a line such as "Papers related to X" before entries is BibTeX's text.
    if looks_like_paper_list(text, plain_only=True):
        return None
    if _BIBTEX_BLOCK.search(text):
        return "bib"
    return None
