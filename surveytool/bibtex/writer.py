"""Entries and kept blocks -> the text of a .bib file, in one layout."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from surveytool.bibtex.format_options import STANDARD, BibFormat, field_lines
from surveytool.model import RawBlock
from surveytool.text.block_opens import block_opens

_COMMENT_HEAD = re.compile(r"@\s*comment\s*[{(]", re.IGNORECASE)


def tidy_text(text: str) -> str:
    """Text as the writer will write it: no trailing spaces, no blank lines around it."""
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


def bibtex_pieces(entries: Iterable[str], blocks: Iterable[RawBlock] = ()) -> list[str]:
    """The text of a .bib file, the kept blocks and then the ``entries`` (each made by ``entry_text``),
    as pieces to write one after the other: no one string holds it all (see ``entries.entries_json_pieces``).

    The layout is bibtexparser's writer with indent "  ", no value column, a
    trailing comma and one blank line between blocks. It is written here
    because that writer first builds a Library (key checks, a Field object per
    value) only to join strings, a large share of the time of `bib`.
    """
    pieces = [_block_text(block) + "\n" for block in _coalesce_comments(map(_unread_by_bibtex, blocks))]
    pieces.extend(entry + "\n" for entry in entries)  # one blank line after each
    # The file ends in exactly one newline.
    while pieces and not pieces[-1].strip("\n"):
        pieces.pop()
    if not pieces:
        return ["\n"]
    pieces[-1] = pieces[-1].rstrip("\n") + "\n"
    return pieces


def entry_text(entry_type: str, key: str, fields: Iterable[tuple[str, str]], fmt: BibFormat = STANDARD) -> str:
    """One entry from ``[(field, raw value), ...]``; values must already be valid BibTeX (see ``fields.py``)."""
    if fmt is STANDARD:
        body = "".join(f"  {name} = {_tidy_value(value)},\n" for name, value in fields)
    else:
        body = field_lines(((name, _tidy_value(value)) for name, value in fields), fmt)
    return f"@{entry_type}{{{key},\n{body}}}\n"


def _tidy_value(value: str) -> str:
    """No trailing spaces on any line of a multi-line value (the kept blocks are tidied when read)."""
    return tidy_text(value) if "\n" in value else value.rstrip()


def _unread_by_bibtex(block: RawBlock) -> RawBlock:
    """A comment with each @ written (at) where one opens a block: BibTeX's @comment is its name alone, and any
    other @ in free text starts a command, so BibTeX would read an entry there that surveytool shows as a comment."""
    if block.kind != "comment" or "@" not in block.text:
        return block
    if not any(m.group(1).lower() != "comment" for m in block_opens(block.text)):
        return block
    head = _COMMENT_HEAD.match(block.text)  # the comment's own @comment{ stays: biber and JabRef read it so
    kept = head.end() if head else 0
    return replace(block, text=block.text[:kept] + block.text[kept:].replace("@", "(at)"))


def _coalesce_comments(blocks: Iterable[RawBlock]) -> list[RawBlock]:
    """Adjacent free-text comments as one block: that is how they read back, so writing is a fixed point."""
    merged: list[RawBlock] = []
    for block in blocks:
        if (
            merged
            and block.kind == "comment" == merged[-1].kind
            and not block.text.startswith("@")
            and not merged[-1].text.startswith("@")
        ):
            merged[-1] = RawBlock("comment", merged[-1].text + "\n\n" + block.text, merged[-1].location)
        else:
            merged.append(block)
    return merged


#: Heads a block that could not be parsed (``bibtex-syntax``) in a written .bib.
FAILED_BLOCK_NOTE = (
    "% surveytool could not parse this block (bibtex-syntax): kept as a comment, each at sign written (at)\n"
)


def _block_text(block: RawBlock) -> str:
    """A kept block as written, with LF line ends as the entries have: a CRLF file's @comment, @string or
    @preamble put its CRs into a file of LFs."""
    if "\r" in block.text:
        block = replace(block, text=block.text.replace("\r\n", "\n").replace("\r", "\n"))
    if block.kind == "string":
        _, _, body = block.text.partition("{")
        key, _, value = body[:-1].partition("=")
        return f"@string{{{key.strip()} = {value.strip()}}}\n"
    if block.kind == "failed":
        # Kept, so nothing the user wrote is lost, but as lines BibTeX skips: read from its @, an unclosed
        # brace would take every entry after it along. BibTeX starts a command at any @, even in a comment.
        lines = block.text.rstrip("\n").replace("@", "(at)").split("\n")
        return FAILED_BLOCK_NOTE + "".join(f"% {line}".rstrip() + "\n" for line in lines)
    return block.text + "\n"  # comments (``_unread_by_bibtex``); preambles are kept as "@preamble{...}" already
