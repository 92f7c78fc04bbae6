"""Blocks whose bounds BibTeX reads otherwise than bibtexparser, because of a brace or quote after a backslash.

bibtexparser (and ``scan.py``, which mirrors it) takes a brace or quote after a backslash for text; BibTeX
counts every brace, and ends a quoted value at any quote outside braces. Where that moves the end of a value,
text surveytool reads inside a title can be an entry to BibTeX (``{A \\\\} @misc{hidden, ...}}``: BibTeX ends
the title at the brace, stops at the text after it and starts again at the next ``@``), and a value can run on
past its entry, taking the entries after it along. After ``\\\\`` (a line break) TeX reads the brace or quote
too, so the value bibtexparser read is one no reader reads, and no spelling of it can be written; such a chunk
is read again with those marks counted (``line_breaks.py``), and kept if BibTeX reads the same blocks in it
without an error (``title = {A line\\\\{\\em x} end}``).

A chunk (``chunks.py``) holding such a mark is read here twice, by one reader of BibTeX's grammar: counting
every mark, as BibTeX does, then skipping those after a backslash, as bibtexparser does. When the two start
different blocks, or they differ at all and a mark after ``\\\\`` was skipped, the chunk is refused: it is
read as one failed block with a ``bibtex-syntax`` error that says what BibTeX reads, and the .bib surveytool
writes keeps it as a comment. Where they start the same blocks, the entry is read as bibtexparser reads it, and
``value_braces.py`` reports its lone escaped braces and quotes (errors: BibTeX reads the value otherwise, or on
into the entries after it) and writes them paired or in braces.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from bibtexparser.exceptions import BlockAbortedException

#: A brace or quote after a backslash: only a chunk holding one can be read otherwise (a test in C, false for most).
ESCAPED_MARK = re.compile(r'\\[{}"]')
# A brace or quote after an even number of backslashes: a line break (\\), then one TeX reads and bibtexparser skips.
# It starts with the pair, not with the look behind it: the search then skips to each "\\" (a scan of the file
# took 0.56 s, and every field_spans and value_end made one of its entry).
COUNTED_BY_TEX = re.compile(r'\\\\(?<!\\\\\\)(?:\\\\)*[{}"]')
_WHITE = re.compile(r"\s*")
_SHOWN = 30  # characters of a value shown where BibTeX ends it
# What BibTeX reads as an entry type, a field name, a macro or a number.
_NAME = re.compile(r"[^\s\"#%'(),={}]+")
_KEY = {"}": re.compile(r"[^,}\s]*"), ")": re.compile(r"[^,\s]*")}
# Inside a braced value only braces count; inside a quoted one, braces and quotes.
_BIBTEX_MARKS = {"{": re.compile(r"[{}]"), '"': re.compile(r'[{}"]')}
_PARSER_MARKS = {"{": re.compile(r"(?<!\\)[{}]"), '"': re.compile(r'(?<!\\)[{}"]')}


class _Stop(Exception):
    """BibTeX stops reading the block here, with an error; it reads on from the next ``@``."""


@dataclass
class Reading:
    """What one reader makes of a chunk's text."""

    blocks: list[tuple[int, str, str]] = field(default_factory=list)  # each block's "@" offset, type and key
    values: list[tuple[str, int, int]] = field(default_factory=list)  # each value's field name (as written), start, end
    runs_on: str | None = None  # the field read on past the chunk's end, into the next chunk ("" for no field)
    failed: bool = False  # a block started and stopped with an error before its end
    ends: list[int] = field(default_factory=list, compare=False)  # where each block read whole ends


class _Reader:
    """BibTeX's grammar over one chunk, as bibtex.web reads a database (``marks``: which braces count)."""

    def __init__(self, text: str, marks: dict[str, re.Pattern[str]]):
        self.text, self.marks, self.pos = text, marks, 0
        self.reading = Reading()
        self.field = ""

    def read(self) -> Reading:
        while (at := self.text.find("@", self.pos)) >= 0:
            self.pos = at + 1
            # At an error BibTeX skips whatever remains of the block: it looks for the next "@" from there.
            started = len(self.reading.blocks)
            try:
                self._block(at)
                self.reading.ends.append(self.pos)
            except _Stop:
                self.reading.failed = self.reading.failed or len(self.reading.blocks) > started
        return self.reading

    def _next(self, awaiting: bool = False) -> str:
        """The next character after white space; at the chunk's end, stop (reading on into the next chunk unless
        ``awaiting`` a comma or a closing delimiter, where BibTeX stops at the next chunk's "@" and reads it)."""
        self.pos = _WHITE.match(self.text, self.pos).end()  # type: ignore[union-attr]
        if self.pos < len(self.text):
            return self.text[self.pos]
        if not awaiting:
            self.reading.runs_on = self.field
        raise _Stop

    def _name(self) -> str:
        self._next()
        name = _NAME.match(self.text, self.pos)
        if name is None:
            raise _Stop
        self.pos = name.end()
        return name.group()

    def _expect(self, char: str) -> None:
        if self._next() != char:
            raise _Stop
        self.pos += 1

    def _block(self, at: int) -> None:
        kind = self._name().lower()
        if kind == "comment":  # BibTeX reads nothing of a comment but its name: on from the next "@"
            self.reading.blocks.append((at, kind, ""))
            return
        opening = self._next()
        if opening not in "{(":
            raise _Stop
        self.pos += 1
        closing = "}" if opening == "{" else ")"
        if kind in ("preamble", "string"):
            self.reading.blocks.append((at, kind, ""))
            if kind == "string":
                name = self._name()
                self._expect("=")
            self._value(kind if kind == "preamble" else name)
            if self._next(awaiting=True) != closing:
                raise _Stop
            self.pos += 1
            return
        self._next()
        key = _KEY[closing].match(self.text, self.pos).group()  # type: ignore[union-attr]
        self.pos += len(key)
        self.reading.blocks.append((at, kind, key))
        while (char := self._next(awaiting=True)) != closing:
            if char != ",":
                raise _Stop
            self.pos += 1
            if self._next() == closing:
                break
            name = self._name()
            self._expect("=")
            self._value(name)
        self.pos += 1

    def _value(self, name: str) -> None:
        """Read one value (pieces joined by ``#``) of the field ``name``."""
        self.field = name
        self._next()
        start = self.pos
        self.reading.values.append((name, start, start))
        while True:
            char = self._next()
            if char in '{"':
                self._delimited(char)
            else:
                self._name()
            self.reading.values[-1] = (name, start, self.pos)
            if self._next(awaiting=True) != "#":
                break
            self.pos += 1
        self.field = ""

    def _delimited(self, opening: str) -> None:
        depth = 0
        for mark in self.marks[opening].finditer(self.text, self.pos + 1):
            char = mark.group()
            if char == "{":
                depth += 1
            elif char == "}" and depth:
                depth -= 1
            elif char == "}" and opening == '"':  # BibTeX stops here: unbalanced braces
                name, start, _ = self.reading.values[-1]
                self.reading.values[-1] = (name, start, mark.end())
                self.pos = mark.start()
                raise _Stop
            elif depth == 0:  # the closing brace, or a quote outside braces
                self.pos = mark.end()
                return
        self.pos = len(self.text)
        self.reading.runs_on = self.field
        raise _Stop


class ReadOtherwise(BlockAbortedException):
    """A chunk whose blocks BibTeX reads otherwise than surveytool: a failed block with this message, hint and key."""

    def __init__(self, message: str, hint: str, key: str):
        super().__init__(message)
        self.message, self.hint, self.key = message, hint, key


HINT = (
    "BibTeX counts \\{ and \\} as braces too: pair each with the other, or write \\textbraceleft{} or "
    '\\textbraceright{} for a lone one; write an accent in braces, {\\"u}; after \\\\ put a space before a brace or quote'
)


def readings(text: str) -> tuple[Reading, Reading]:
    """What BibTeX makes of a chunk's ``text``, and what bibtexparser makes of it (it skips a mark after a backslash)."""
    return _Reader(text, _BIBTEX_MARKS).read(), _Reader(text, _PARSER_MARKS).read()


def read_otherwise(
    text: str, first_line: int, followed: bool, read: tuple[Reading, Reading] | None = None
) -> ReadOtherwise | None:
    """Why BibTeX reads the blocks of a chunk's ``text`` (on line ``first_line``, 1-based; ``followed`` by another
    chunk; ``read``: its ``readings``, if made) otherwise than surveytool, where the chunk must be refused; None where
    it need not."""
    if not ESCAPED_MARK.search(text):
        return None
    bibtex, parser = read or readings(text)
    if bibtex == parser:
        return None
    runs_on = bibtex.runs_on if followed and bibtex.runs_on is not None and parser.runs_on is None else None
    gained = [block for block in bibtex.blocks if block not in parser.blocks]
    lost = [block for block in parser.blocks if block not in bibtex.blocks]
    counted = COUNTED_BY_TEX.search(text)
    if not gained and not lost and not counted:
        # The same blocks (a value may run on into the next chunk's, as a "{" between quotes does): the entry
        # is read as bibtexparser reads it, and value_braces.py reports the lone braces and writes them paired.
        return None

    _, kind, key = (parser.blocks or bibtex.blocks)[0]
    said = _what_bibtex_does(text, first_line, bibtex, parser, runs_on, counted)
    told = ", ".join(said[:-1]) + ", and " + said[-1] if len(said) > 1 else said[0]
    message = (
        f"{f'entry {key!r}' if key else f'@{kind}'} is read otherwise by BibTeX, which reads a brace or a quote "
        f"after a backslash as any other, where surveytool's parser skips it: BibTeX {told}; the .bib surveytool "
        "writes keeps it as a comment (check and bib --in-place leave it as you wrote it)"
    )
    return ReadOtherwise(message, HINT, key)


def parser_reads_on(
    text: str, read: tuple[Reading, Reading]
) -> tuple[int, int, str, str, list[tuple[str, str]]] | None:
    """The one block of a chunk's ``text`` (``read``: its ``readings``) as BibTeX reads it, where BibTeX reads it
    whole and bibtexparser, skipping a brace or quote after a backslash, reads on past its end and fails: ``@string{bs
    = {\\}}`` is a lone backslash to BibTeX. (start, end, type, key, [(field name, value as written), ...]); None
    elsewhere. The chunk is then read as BibTeX reads it, and its values are checked as TeX reads them."""
    bibtex, parser = read
    if bibtex.failed or bibtex.runs_on is not None or not (parser.failed or parser.runs_on is not None):
        return None
    if len(bibtex.blocks) != 1 or bibtex.blocks != parser.blocks or bibtex.blocks[0][1] == "comment":
        return None
    ((at, kind, key),) = bibtex.blocks
    return at, bibtex.ends[0], kind, key, [(name, text[start:end]) for name, start, end in bibtex.values]


def bibtex_blocks(text: str) -> list[tuple[str, str, list[tuple[str, str]]]] | None:
    """(type, key, [(field name, value as written), ...]) of each block but comments BibTeX reads in a chunk's
    ``text``, in order (a @string's or @preamble's key is "", its name the field's); None where it stops at an
    error in one."""
    reading = _Reader(text, _BIBTEX_MARKS).read()
    if reading.failed:
        return None
    starts = [at for at, _, _ in reading.blocks]
    values: list[list[tuple[str, str]]] = [[] for _ in starts]
    for name, start, end in reading.values:
        values[bisect_right(starts, start) - 1].append((name.lower(), text[start:end]))
    return [
        (kind, key, found) for (_, kind, key), found in zip(reading.blocks, values, strict=True) if kind != "comment"
    ]


def _what_bibtex_does(
    text: str, first_line: int, bibtex: Reading, parser: Reading, runs_on: str | None, counted: re.Match[str] | None
) -> list[str]:
    """What BibTeX does otherwise in the chunk ``text``, each said for a message, in order."""

    def line(offset: int) -> int:
        return first_line + text.count("\n", 0, offset)

    def named(blocks: list[tuple[int, str, str]]) -> str:
        return ", ".join(
            f"@{kind}{{{key}}} (line {line(at)})" if key else f"@{kind} (line {line(at)})" for at, kind, key in blocks
        )

    said: list[str] = []
    differing = next((pair for pair in zip(bibtex.values, parser.values, strict=False) if pair[0] != pair[1]), None)
    # A value BibTeX did not finish (end at its start) is not ended: it runs on (runs_on says so) or stops BibTeX.
    if differing is not None and differing[0][0] == differing[1][0] and differing[0][2] > differing[0][1]:
        name, start, end = differing[0]
        shown = text[max(start, end - _SHOWN) : end].replace("\n", " ")
        said.append(f"ends field '{name}' after '{'…' if end - start > _SHOWN else ''}{shown}' (line {line(end)})")
    if runs_on is not None:
        said.append(f"reads {f'field {runs_on!r}' if runs_on else 'it'} on past its end, into the entries after it")
    if gained := [block for block in bibtex.blocks if block not in parser.blocks]:
        said.append(f"reads {named(gained)} as a block of its own, which surveytool took for text in a value")
    if lost := [block for block in parser.blocks if block not in bibtex.blocks]:
        said.append(f"does not read {named(lost)}")
    if counted:
        mark = "quote" if counted.group()[-1] == '"' else "brace"
        said.append(f"counts the {mark} after \\\\ on line {line(counted.start())}, as TeX does")
    return said
