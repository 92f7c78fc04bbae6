"""A fast path for plain BibTeX entries: what bibtexparser's splitter makes of them, in a fifth of the time.

bibtexparser's splitter steps through every brace, quote, comma, equals sign
and newline of a file in Python; on a large .bib that is a third of a run.
Most entries are plain, ``@type{key, name = value, ...}`` with values made of
braced groups, quoted strings and bare words, and one regular expression per
field reads them. ``scan_plain_entry`` returns None for anything else (other
block types, ``(`` delimiters, duplicate fields, groups nested deeper than
four, a block start inside, text it does not end), and the caller hands that
to bibtexparser. Where it returns an entry, the entry is the one bibtexparser
makes: the same rules decide what a delimiter is (a brace, quote or comma after
a backslash is text; inside braces only braces count; inside quotes only quotes,
except ``{"}``), and a property test compares the two on generated text.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# The entry's start, its key and the comma after it (a key holding a delimiter is bibtexparser's to judge;
# so is a comma after a backslash, which it does not take for one).
_ENTRY_START = re.compile(r"[^\S\n]*(@[ \t]*\w*[ \t]*)\{([^{}\",=]*+)(?<!\\),")
_OTHER_BLOCKS = ("@comment", "@preamble", "@string")
# What bibtexparser takes for the start of a block anywhere in the text that follows.
_BLOCK_START = re.compile(r"@\w*[ \t]*[{(]")
# Inside braces: text, braces after a backslash, and nested groups (four levels in all).
_IN_BRACES = r"(?:[^{}]++|(?<=\\)[{}])*+"
for _ in range(3):
    _IN_BRACES = r"(?:[^{}]++|(?<=\\)[{}]|\{" + _IN_BRACES + r"\})*+"
# Inside quotes: anything but an unescaped quote; a closing quote right after "{" may be bibtexparser's {"}.
_QUOTED = r'"(?:[^"]++|(?<=\\)")*+(?<!\{)"'
# name = value, then the comma or brace that ends it (an "=" after a backslash is no delimiter either).
# Possessive quantifiers: no backtracking, linear time.
_FIELD = re.compile(
    r'([^{}",=]*+)(?<!\\)=((?:[^{}",]++|(?<=\\)[{}",]|\{' + _IN_BRACES + r"\}|" + _QUOTED + r")*+)([,}])"
)
_ENTRY_END = re.compile(r"\s*+\}")


class PlainEntry(NamedTuple):
    entry_type: str  # lower case, as bibtexparser gives it
    key: str
    fields: list[tuple[str, str]]  # (name as written, raw value), in order
    raw: str  # from "@" to the closing brace
    end: int  # offset just after the closing brace


def scan_plain_entry(text: str) -> PlainEntry | None:
    """The entry at the start of ``text`` (a block and the free text after it), or None if it is not plain."""
    start = _ENTRY_START.match(text)
    if start is None:
        return None
    head = "@" + start.group(1)[1:].lstrip().lower()  # "@ misc {": BibTeX skips the spaces (spaced_heads.py)
    if head.startswith(_OTHER_BLOCKS) or _BLOCK_START.search(text, start.end()):
        return None
    fields: list[tuple[str, str]] = []
    names: set[str] = set()
    position = start.end()
    while True:
        field = _FIELD.match(text, position)
        if field is None:
            end = _ENTRY_END.match(text, position)  # after a last comma, or no fields at all
            if end is None:
                return None
            position = end.end()
            break
        name = field.group(1).strip()
        if name in names:  # bibtexparser reports these (DuplicateFieldKeyBlock)
            return None
        names.add(name)
        fields.append((name, field.group(2).strip()))
        position = field.end()
        if field.group(3) == "}":
            break
    return PlainEntry(head[1:].strip(), start.group(2).strip(), fields, text[start.start(1) : position], position)
