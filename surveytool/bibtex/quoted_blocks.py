"""A ``@string`` or ``@preamble`` whose quoted value holds a brace its quotes do not pair, read as a field is read.

In an entry bibtexparser reads a quoted value up to its closing quote, braces and all; in a ``@string`` or
``@preamble`` it counts the braces alone, so a lone ``}`` between the quotes ends the block there (``@string{s =
"x } y"}`` defines ``s`` as ``"x``, and ``y"}`` is text after it; a lone ``{`` runs the block on until it fails,
and it is kept as a comment, ``bibtex-syntax``). Read here with the rules of a field's value (``scan.py``: between quotes only a quote counts, unless it is
``{"}``; a character after a backslash is text), the block keeps its whole value, which ``value_braces.py``
reports and writes balanced as it does a field's (BibTeX counts every brace between quotes, ``unbalanced-brace``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

# BibTeX reads white space, line breaks included, around the type (chunks.CHUNK_START).
_HEAD = re.compile(r"[^\S\n]*@\s*(string|preamble)\s*([{(])", re.IGNORECASE)
_MARK = re.compile(r'\\.|[{}()"]', re.S)


class QuotedBlock(NamedTuple):
    kind: str  # "string" or "preamble"
    key: str  # a @string's name ("" for a @preamble)
    value: str  # as bibtexparser gives it: a @string's stripped, a @preamble's all between its delimiters
    end: int  # just after its closing delimiter


def quoted_block(source: str) -> QuotedBlock | None:
    """The @string or @preamble at the start of a chunk's ``source`` read so, if a quoted piece of it holds a brace
    (only there can bibtexparser read it otherwise); None if it holds none, or is no such block, or never closes."""
    head = _HEAD.match(source)
    if head is None or '"' not in source:
        return None
    closing = "}" if head.group(2) == "{" else ")"
    depth, quoted, braced = 0, False, False
    for mark in _MARK.finditer(source, head.end()):
        char, at = mark.group(), mark.start()
        if quoted:
            if char == '"' and not (source[at - 1] == "{" and source[at + 1 : at + 2] == "}"):  # {"} is a quote
                quoted = False
            braced = braced or char in "{}"
        elif char == '"' and depth == 0:
            quoted = True
        elif char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char == closing and depth == 0:  # a ) in braces is text: @string(j = {c)d})
            return _block(source, head, at, braced)
    return None


def _block(source: str, head: re.Match[str], close: int, braced: bool) -> QuotedBlock | None:
    body = source[head.end() : close]
    if not braced:
        return None
    if head.group(1).lower() == "preamble":
        return QuotedBlock("preamble", "", body, close + 1)
    key, equals, value = body.partition("=")
    return QuotedBlock("string", key.strip(), value.strip(), close + 1) if equals and key.strip() else None
