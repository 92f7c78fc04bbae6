"""A block with white space after its ``@`` (``@  misc  {  m4  ,``), or a line break before its delimiter
(``@misc`` then ``{m4,`` on the next line), read as BibTeX and biber read it.

BibTeX, and btparse (biber's reader), skip white space, line breaks included, between the ``@``, the type and the
``{``; bibtexparser reads a block start only as ``@type``, then spaces, then the delimiter, and took such an entry
for text between entries (``commented-entry``): the .bib surveytool writes kept it as a comment, and the user's key
was lost. ``chunks.py`` cuts a chunk at such a start (at the start of a line, as at any block start); before
bibtexparser reads it, the spaces after the ``@`` are moved after the type (``@misc    {``), and white space with a
line break in it after the delimiter (``@misc{`` then the line break, before the key): the same length, the same
lines. The text each block gives back (``raw``: ``bib --in-place`` finds it in the file) is the file's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from bibtexparser import model

#: A block start with white space after its ``@`` or after its type; groups: the two spaces, the type, the delimiter.
_HEAD = re.compile(r"[^\S\n]*@(\s*)(\w*)(\s*)([{(])")
#: Where a text may hold a spaced head: an ``@`` then white space, or a name then a line break.
_MAY_BE_SPACED = re.compile(r"@(?:\s|\w*[ \t\r]*\n)")


def may_hold_spaced_heads(text: str) -> bool:
    """False for most texts, at the cost of a search for each ``@``: a superset of the texts with a spaced head."""
    return _MAY_BE_SPACED.search(text) is not None


def _spaced_head(text: str, start: int) -> re.Match[str] | None:
    head = _HEAD.match(text, start)
    if head is None or ("\n" in head.group(1) + head.group(3) and not head.group(2)):
        return None  # a line break and no type: no block start (chunks.CHUNK_START), nor one for BibTeX
    return head if head.group(1) or "\n" in head.group(3) else None


def _as_read(head: re.Match[str]) -> str:
    """The head as bibtexparser reads it: ``@type`` then spaces and the delimiter, or the delimiter and a line break."""
    space = head.group(1) + head.group(3)
    if "\n" in space:
        return "@" + head.group(2) + head.group(4) + space
    return "@" + head.group(2) + space + head.group(4)


def readable(text: str, starts: Iterable[int]) -> str:
    """``text`` with the spaced head at each offset of ``starts`` written as bibtexparser reads it."""
    pieces: list[str] = []
    last = 0
    for start in starts:
        head = _spaced_head(text, start)
        if head is not None:
            pieces.extend((text[last : head.start(1) - 1], _as_read(head)))
            last = head.end()
    return "".join(pieces) + text[last:] if pieces else text


def as_written(block: model.Block, text: str, start: int) -> model.Block:
    """``block``, read from ``readable`` text, with the spaced head at ``start`` of ``text`` (the file's) put back."""
    raw = _raw_as_written(block.raw, text, start)
    if raw is None:  # a failed block's text is read from the file (reader.py)
        return block
    if isinstance(block, model.Entry):
        return model.Entry(block.entry_type, block.key, block.fields, block.start_line, raw)
    if isinstance(block, model.String):
        return model.String(block.key, block.value, block.start_line, raw, block.enclosing)
    if isinstance(block, model.Preamble):
        return model.Preamble(block.value, block.start_line, raw)
    if isinstance(block, model.ExplicitComment):
        return model.ExplicitComment(block.comment, block.start_line, raw)
    return block


def entry_as_written(block: model.Block, text: str, start: int) -> model.Block:
    """``as_written``, also for an entry with a field named twice (read as its first values, ``reader.py``)."""
    if not isinstance(block, model.DuplicateFieldKeyBlock):
        return as_written(block, text, start)
    entry = block.ignore_error_block
    if isinstance(entry, model.Entry) and (raw := _raw_as_written(entry.raw, text, start)) is not None:
        entry = model.Entry(entry.entry_type, entry.key, entry.fields, entry.start_line, raw)
        return model.DuplicateFieldKeyBlock(block.duplicate_keys, entry)
    return block


def _raw_as_written(raw: str | None, text: str, start: int) -> str | None:
    """A block's ``raw`` as read from ``readable`` text with the file's head at ``start`` of ``text``; None if it is
    not the block of that head."""
    head = _spaced_head(text, start)
    if head is None or not raw:
        return None
    read = _as_read(head)
    return text[head.start(1) - 1 : head.end()] + raw[len(read) :] if raw.startswith(read) else None
