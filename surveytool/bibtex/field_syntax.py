"""Entries that BibTeX reads otherwise than bibtexparser, losing what follows: a line commented out with ``%``
inside an entry, a comma forgotten between two fields, an entry type with no brace after it.

BibTeX has no comments inside an entry and stops reading the entry at either of the first two, so every
field after it is lost in the user's own build; bibtexparser reads on, into a field named ``% doi`` or an
author that runs on into the next field. The third is no entry to bibtexparser (text between entries) and
an error to BibTeX: either way the entry the user wrote is gone.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from surveytool.bibtex.brace_bounds import ReadOtherwise
from surveytool.bibtex.field_spans import (
    ENTRY_HEADER,
    field_location,
    field_name,
    field_spans,
    line_in,
    value_end,
    written_field,
)
from surveytool.bibtex.writer import tidy_text
from surveytool.model import Finding, Paper, RawBlock, Severity, SourceLocation
from surveytool.text.block_opens import block_opens
from surveytool.text.latex import usable_key

_REMARK = re.compile(r"^[ \t]*%", re.M)
# An "@type" at a line's start followed by anything but the brace or parenthesis that opens an entry.
_HEADLESS_ENTRY = re.compile(r"^[ \t]*@[ \t]*(?P<type>[A-Za-z]+)\b(?![ \t]*(?:[{(]|$))", re.M)
_SHOWN = 30
_AS_WRITTEN = " (check and bib --in-place leave it as you wrote it)"
_KEY = re.compile(r"\s*([^\s,{}()]*)")
# What BibTeX reads as a field's name.
_FIELD_NAME = re.compile(r"[^\s\"#%'(),={}]+")
# A field's name as both BibTeX and biber read one: no digit first, and none of the characters btparse (biber's
# parser) stops at, a backslash among them; letters beyond ASCII as BibTeX takes them.
_IDENTIFIER = re.compile(r"(?!\d)[\w!$&*+\-./:;<>?\[\]^`|]+")


def bibtex_name(name: str) -> bool:
    """Whether ``name`` (a field's, as bibtexparser read it) is a field name BibTeX and biber both read."""
    return name.isalpha() or _IDENTIFIER.fullmatch(name) is not None


def without_remark(value: str) -> str:
    """``value`` without the ``%`` remark lines bibtexparser read into it after its end (``{x} % why``)."""
    end = value_end(value, 0) if "%" in value else None
    rest = value[end:].strip() if end is not None else ""
    if rest and all(line.lstrip().startswith("%") for line in rest.splitlines()):
        return value[:end]
    return value


def syntax_findings(paper: Paper, fields: Sequence[tuple[str, str]]) -> list[Finding]:
    """``bibtex-syntax`` errors for the remark lines and run-on values of ``paper`` (``fields``: those of its fields'
    names and values as bibtexparser read them that hold a ``%`` or an ``=``)."""
    found = []
    remarked = next((key for key, _ in fields if "%" in key), None)
    if remarked is not None:
        start = min(paper.sources)
        name = field_name(remarked)
        remark = _REMARK.search(paper.raw)
        if remark:  # a line of its own
            where = SourceLocation(start.path, line_in(paper.raw, remark.start(), start.line))
        else:  # at the end of a field's line: the field after it
            where = field_location(paper, name) if name else start
        message = (
            f"entry '{paper.key}' has a % remark between its fields: BibTeX has no comments inside an entry and "
            "stops reading it there, losing the fields after it; the .bib surveytool writes leaves such remarks out"
        )
        hint = "delete the remark or move it above the entry; check and bib --in-place leave it as you wrote it"
        found.append(Finding("bibtex-syntax", Severity.ERROR, message, where, hint, paper.key))
    for key, value in fields:
        name = field_name(key)
        if name and not bibtex_name(name):
            message = (
                f"entry '{paper.key}' has a field named '{name}', which is no field name: biber stops at it with a "
                f"syntax error, and no style prints such a field; the .bib surveytool writes leaves it out{_AS_WRITTEN}"
            )
            hint = "rename the field with letters, digits and - _ . : only, or delete it"
            found.append(
                Finding("bibtex-syntax", Severity.ERROR, message, field_location(paper, name), hint, paper.key)
            )
            continue
        if name and (rest := run_on(value)):
            rest = " ".join(rest.split())  # one line: a finding is printed on one
            shown = rest if len(rest) <= _SHOWN else rest[:_SHOWN] + "…"
            what = f"field '{written_field(paper.raw, name)}' of '{paper.key}'"
            if rest.startswith("%"):
                message = f"{what} is followed by '{shown}', which BibTeX does not read as a comment: it stops reading the entry there; the .bib surveytool writes leaves it out{_AS_WRITTEN}"
                hint = "delete the remark or move it above the entry"
            elif "=" not in rest:  # no field after it: text left after the value
                message = (
                    f"{what} is followed by '{shown}' after its value: BibTeX expects a comma or the entry's end "
                    f"there and stops reading the entry; the .bib surveytool writes has the value without it{_AS_WRITTEN}"
                )
                hint = "delete it, or put it inside the value's braces"
            else:
                kept = [field for field, _ in as_bibtex_reads(value)[1]]
                written = f"the comma and {', '.join(kept)}" if kept else "the value without what follows it"
                message = (
                    f"{what} runs on into '{shown}': a comma is missing after its value, and BibTeX stops reading "
                    f"the entry there; the .bib surveytool writes has {written}{_AS_WRITTEN}"
                )
                hint = "add the comma"
            found.append(
                Finding("bibtex-syntax", Severity.ERROR, message, field_location(paper, name), hint, paper.key)
            )
    return found


#: The joiners Persian, Arabic and Indic words are spelled with (ZWNJ, ZWJ): a Persian keyboard types one between
#: two letters (می‌خواهم), so the key is typed with it in a \\cite too. Anywhere else they are a paste's leftover.
_JOINERS = "\u200c\u200d"


def unseen_in_key(key: str, at: int) -> bool:
    """Whether ``key[at]`` is a character no one sees (a format, control or space character beyond ASCII) that a
    \\cite typed by hand leaves out: a joiner between two letters (or a letter's mark) of a script that writes
    them is part of the word."""
    char = key[at]
    if char.isascii() or unicodedata.category(char)[0] not in "ZC":
        return False
    return not (char in _JOINERS and 0 < at < len(key) - 1 and _in_word(key[at - 1]) and _in_word(key[at + 1]))


def _in_word(char: str) -> bool:
    return not char.isascii() and unicodedata.category(char)[0] in "LM"


def key_findings(key: str, raw: str, where: SourceLocation) -> list[Finding]:
    """An ``unusable-key`` error for a key ``\\cite`` cannot take, or one that holds a character no one sees (a
    no-break or zero-width space, a soft hyphen, pasted from a web page or a PDF): BibTeX keeps it in the key, even
    one before the comma that the reader strips, so the key as typed in a ``\\cite`` finds no entry."""
    header = ENTRY_HEADER.match(raw)
    written = raw[header.end("open") : header.end() - 1].strip(" \t\r\n") if header else key
    unseen = [] if written.isascii() else [i for i in range(len(written)) if unseen_in_key(written, i)]
    if unseen:
        hidden = written[unseen[0]]
        name = unicodedata.name(hidden, "a control character").lower()
        message = (
            f"key '{key}' is written with U+{ord(hidden):04X} ({name}), which no one sees and BibTeX keeps in the key: "
            f"\\cite{{{''.join(c for i, c in enumerate(written) if i not in unseen)}}} does not find the entry"
        )
        return [Finding("unusable-key", Severity.ERROR, message, where, "delete the character: retype the key", key)]
    if usable_key(key):
        return []
    hint = "rename it with letters, digits and - _ : . / only"
    return [Finding("unusable-key", Severity.ERROR, f"key '{key}' cannot be used in \\cite", where, hint, key)]


def first_of_each(fields: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """An entry's fields (name, value) with each name, in any case, kept at its first value, as BibTeX reads them
    ("I'm ignoring x's extra "title" field"), and the later ones left out (lower-case name, value; bibtexparser
    keeps the last)."""
    if len({key.lower() for key, _ in fields}) == len(fields) and not any("%" in key for key, _ in fields):
        return list(fields), []  # no name twice, none commented out: most entries
    kept: list[tuple[str, str]] = []
    dropped: list[tuple[str, str]] = []
    seen: set[str] = set()
    for key, value in fields:
        name = field_name(key)
        if name is not None and name in seen:
            dropped.append((name, value))
            continue
        seen.update([name] if name is not None else [])
        kept.append((key, value))
    return kept, dropped


def repeated_field_findings(paper: Paper, names: Sequence[str]) -> dict[str, Finding]:
    """A ``duplicate-field`` error for each field of ``paper`` named twice (by name), on the line of its second value."""
    found = {}
    start = min(paper.sources)
    for name in dict.fromkeys(names):
        spans = [span for span in field_spans(paper.raw) if span.name == name]
        where = SourceLocation(start.path, line_in(paper.raw, spans[1].start, start.line)) if len(spans) > 1 else start
        written = spans[0].written_name(paper.raw) if spans else name  # as written_field names it
        message = (
            f"entry '{paper.key}' has the field '{written}' again: BibTeX reads its first value and ignores the "
            "others, and so does surveytool (the .bib surveytool writes has the first; your file keeps every one)"
        )
        hint = "delete the value you do not mean"
        found[name] = Finding("duplicate-field", Severity.ERROR, message, where, hint, paper.key)
    return found


def may_run_on(value: str) -> bool:
    """Whether something may follow the value at the start of ``value`` (as bibtexparser read it): a braced or
    quoted value that does not end with its closing mark, or a bare one (a number, a macro) with a space in it.
    A cheap look for every field; ``run_on`` tells."""
    first, last = value[:1], value.rstrip()[-1:]
    if first in ("{", '"'):
        if last != ("}" if first == "{" else '"'):
            return True
        # It ends with its closing mark, yet an earlier one may end the value ({A} {\em x}, "A" "b"): look closer.
        return value.count(first) > (1 if first == "{" else 2) and bool(run_on(value))
    return " " in value or "\t" in value or "\n" in value


def fields_as_read(fields: list[tuple[str, str]], suspects: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """An entry's fields (name, value) as bibtexparser read them, each value as BibTeX reads it (``as_bibtex_reads``)
    and with the fields a forgotten comma ran one into; adds to ``suspects`` those that BibTeX may read otherwise
    (``syntax_findings`` tells), a cheap look at each."""
    read: list[tuple[str, str]] = []
    after: list[tuple[str, str]] = []
    for key, value in fields:
        if "%" in key or "%" in value or "=" in value or may_run_on(value) or not bibtex_name(key):
            suspects.append((key, value))
            value, ran_into = as_bibtex_reads(without_remark(value) if "%" in value else value)
            after.extend(ran_into)
        read.append((key, value))
    if not after:
        return read
    named = {key.lower() for key, _ in fields}
    return read + [(key, value) for key, value in after if key not in named]  # one written twice: BibTeX's error


def as_bibtex_reads(value: str) -> tuple[str, list[tuple[str, str]]]:
    """For the .bib surveytool writes: the value at the start of ``value`` (as bibtexparser read it) as BibTeX reads
    it, without the text after it, and the fields a forgotten comma ran it into ((name, value), in order).

    BibTeX reads the value up to its end, then stops at the text after it and loses the rest of the entry; written
    as read, that text would stop BibTeX on the written file too (``title = {A} \\par,``). The value BibTeX reads
    is kept, as a remark after a value is left out (``without_remark``): joining the text into the value would make
    up a value no reader read (``year = {2021 extra}``), and ``syntax_findings`` names what is left out. After a
    forgotten comma the text is fields (``title = {A} year = 2020``): they are kept, as if the comma were there.
    """
    end = value_end(value, 0)
    if end is None or not value[end:].strip():
        return value, []
    rest = "@x{k," + value[end:] + "}"
    fields = [(span.name, span.value(rest)) for span in field_spans(rest)]
    named = [_FIELD_NAME.fullmatch(name) is not None for name, _ in fields]  # "a b = 1" is no field to BibTeX
    return value[:end], fields[: named.index(False) if False in named else len(fields)]


def run_on(value: str) -> str:
    """What follows the value at the start of ``value`` (with its ``#`` parts): "" when nothing does."""
    end = value_end(value, 0)
    return "" if end is None else value[end:].strip()


def headless_entry_finding(comment: str, where: SourceLocation) -> Finding | None:
    """A ``bibtex-syntax`` error for an ``@type`` in text between entries (``comment``, read at ``where``) that
    opens no entry (``@article key,``): BibTeX stops at it."""
    found = _HEADLESS_ENTRY.search(comment)
    if found is None or found.group("type").lower() == "comment":
        return None
    at = SourceLocation(where.path, where.line + comment.count("\n", 0, found.start()))
    message = (
        f"@{found.group('type')} has no {{ after it, so neither BibTeX nor surveytool reads an entry there; "
        "the .bib surveytool writes keeps it as a comment"
    )
    return Finding("bibtex-syntax", Severity.ERROR, message, at, "write @type{key, ...")


def commented_entry(comment: str, where: SourceLocation) -> Finding | None:
    """A ``commented-entry`` warning when an @ in a comment (``@comment{...}``'s body, or text between entries) opens
    a block: biber and JabRef skip it, but BibTeX's @comment is its name alone and any other @ starts a command, so
    BibTeX reads the entry (and, before an entry of the same key, cites it instead). Any name counts (``@-{key,``,
    ``@misc`` then a newline after other text on its line): BibTeX reads a type no style defines as a misc.
    ``writer.py`` writes such an @ (at)."""
    found = next((m for m in block_opens(comment) if m.group(1).lower() != "comment"), None)
    if found is None:
        return None
    key = _KEY.match(comment, found.end()).group(1)  # type: ignore[union-attr]
    entry = f"@{found.group(1)}{{{key}}}" if key else f"@{found.group(1)}"
    message = (
        f"{entry} inside this comment is read by BibTeX as an entry (biber and JabRef skip it); "
        "the .bib surveytool writes has its @ written (at)"
    )
    at = SourceLocation(where.path, where.line + comment.count("\n", 0, found.start()))
    hint = "delete the entry, or write its @ as (at) to keep it out of BibTeX too"
    return Finding("commented-entry", Severity.WARNING, message, at, hint)


def free_text_block(comment: str, where: SourceLocation) -> tuple[RawBlock | None, Finding | None]:
    """Text between entries (``comment``, read at ``where``) as the block kept for the .bib surveytool writes, if
    any, and what is wrong with it: an @type that opens no entry (failed), or one BibTeX reads (``commented_entry``)."""
    if headless := headless_entry_finding(comment, where):
        return RawBlock("failed", tidy_text(comment), where), headless
    if not comment.strip():
        return None, None
    return RawBlock("comment", tidy_text(comment), where), commented_entry(comment, where)


def failed_block_finding(error: BaseException, where: SourceLocation) -> Finding:
    """The ``bibtex-syntax`` error for a block that did not parse, or that BibTeX reads otherwise (``brace_bounds``)."""
    if isinstance(error, ReadOtherwise):
        return Finding("bibtex-syntax", Severity.ERROR, error.message, where, error.hint, error.key)
    reason = getattr(error, "abort_reason", None) or str(error)
    message = f"this block could not be parsed: {reason.strip()}; the .bib surveytool writes keeps it as a comment"
    return Finding("bibtex-syntax", Severity.ERROR, message, where, "check for an unbalanced brace or a missing comma")
