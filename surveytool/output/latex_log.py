"""The root cause of a failed LaTeX run, from what BibTeX or biber (``main.blg``) and TeX (``main.log``) wrote.

One broken entry in a ``.bib`` makes BibTeX stop, and every citation after it is undefined: the user
needs the one line BibTeX complained about, not hundreds of undefined citations. An undefined command
is named (TeX puts it at the end of the first line of the error's context), and an error in the
``.bbl`` is traced to the entry the ``.bbl`` line belongs to and to where that entry is in the ``.bib``.
"""

from __future__ import annotations

import json
import os
import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from surveytool.regular_files import Unusable, read_regular

_SHOWN = 5

# BibTeX: "I was expecting a `,' or a `}'---line 9 of file references.bib", then " : " lines around the spot;
# "I found no \bibdata command---while reading file main.aux".
_BIBTEX_ERROR = re.compile(r"^(?P<message>.+?)---(?:line (?P<line>\d+) of|while reading) file (?P<file>\S+)\s*$")
_BIBTEX_DATABASE = re.compile(r"^Database file #\d+: (?P<file>\S+)")
_BIBTEX_NO_ENTRY = re.compile(r'^Warning--I didn\'t find a database entry for "(?P<key>[^"]*)"')
# biber: "[429] Utils.pm:399> ERROR - BibTeX subsystem: /tmp/biber_tmp/x.utf8, line 9, syntax error: ...".
_BIBER_MESSAGE = re.compile(r"^\[\d+\] \S+> (?P<level>ERROR|WARN) - (?P<message>.*)$")
_BIBER_SOURCE = re.compile(r"Found BibTeX data source '(?P<file>[^']+)'")
_BIBER_AT_LINE = re.compile(r"^BibTeX subsystem: (?P<file>.+?), line (?P<line>\d+), (?P<message>.*)$")
_BIBER_NO_ENTRY = re.compile(r"^I didn't find a database entry for '(?P<key>[^']*)'")
# TeX with -file-line-error ("./main.bbl:15: Undefined control sequence.") or without ("! Undefined ...").
_TEX_ERROR = re.compile(r"^(?:(?:\./)?(?P<file>[^\s:]+\.(?:tex|sty|cls|bbl)):(?P<line>\d+): |! )(?P<message>.+)$")
_TEX_LINE = re.compile(r"^l\.(?P<line>\d+)")
_CONTROL_SEQUENCE = re.compile(r"\\(?:[A-Za-z@]+|.)")
_ENTRY_START = re.compile(r"\\(?:bibitem|entry)\b")  # BibTeX's thebibliography, biblatex's .bbl
_BIBDATA = re.compile(r"\\bibdata\{(?P<names>[^{}]*)\}")


@dataclass(frozen=True)
class BblEntry:
    key: str
    line: int  # where its \bibitem (or biblatex \entry) is
    text: str


_READ_LIMIT = 256 * 1024 * 1024


_STRAY_BYTE = re.compile("[\udc80-\udcff]")


def log_text(data: bytes) -> str:
    """A log's text: UTF-8, which TeX copies from the document (大 in an error message, not å¤§), and every
    other byte as its Latin-1 character, so that any log reads (TeX may cut a character at a line break)."""
    return _STRAY_BYTE.sub(lambda m: chr(ord(m[0]) - 0xDC00), data.decode("utf-8", "surrogateescape"))


def _read(folder: Path, name: str) -> str:
    """A file TeX, BibTeX or biber left in ``folder`` (see ``log_text``), or "" when there is none or it is
    not a regular file inside the folder: a planted link must not make a report print another file."""
    path = folder / name
    try:
        if not path.resolve().is_relative_to(folder.resolve()):
            return ""
        return log_text(read_regular(path, _READ_LIMIT, follow=True))
    except (OSError, Unusable):
        return ""


def _key_after(text: str, position: int) -> str | None:
    """The key of a ``\\bibitem[label]{key}`` or ``\\entry{key}`` whose name ends at ``position``."""
    position = _after_space(text, position)
    if text.startswith("[", position):  # the label may hold brackets inside braces: it ends at a ] outside them
        depth = 0
        position += 1
        while position < len(text) and not (text[position] == "]" and depth == 0):
            depth += (text[position] == "{") - (text[position] == "}")
            position += 1
        position = _after_space(text, position + 1)
    if not text.startswith("{", position):
        return None
    close = text.find("}", position)
    return text[position + 1 : close].strip() if close > 0 else None


def _after_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def bbl_entries(bbl: str) -> list[BblEntry]:
    """The entries of a ``.bbl`` file in order, each with its first line and its text."""
    starts = []
    for match in _ENTRY_START.finditer(bbl):
        key = _key_after(bbl, match.end())
        if key:
            starts.append((match.start(), key))
    entries = []
    line, counted_to = 1, 0
    for index, (start, key) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(bbl)
        line += bbl.count("\n", counted_to, start)
        counted_to = start
        entries.append(BblEntry(key, line, bbl[start:end]))
    return entries


# The next entry's start; a child's crossref and xdata fields (braced or quoted, as surveytool writes them).
_NEXT_ENTRY = re.compile(r"^[ \t]*@", re.M)
_PARENTS = re.compile(r"\b(?:crossref|xdata)\s*=\s*[{\"](?P<keys>[^{}\"]*)[}\"]", re.I)


def in_folder(folder: Path, place: str) -> str:
    """A place TeX or BibTeX names (``file`` or ``file:line``, in ``folder`` unless absolute) named from where
    ``folder`` was named: what the user can open."""
    return place if os.path.isabs(place) else os.path.join(folder, place)


def _bib_files(folder: Path, aux: str, blg: str) -> list[str]:
    """The .bib files the run read, as named in its .blg (or the .aux's \\bibdata when BibTeX left no .blg)."""
    named = [m.group("file") for line in blg.splitlines() for m in [_BIBTEX_DATABASE.match(line)] if m]
    named += _BIBER_SOURCE.findall(blg)
    if not named:
        for match in _BIBDATA.finditer(aux):
            named += [
                n.strip() if n.strip().endswith(".bib") else n.strip() + ".bib" for n in match["names"].split(",")
            ]
    return [name for name in dict.fromkeys(named) if name]


def _entry_text(folder: Path, bib_files: Sequence[str], key: str) -> tuple[str, str, int] | None:
    """(file, the entry's text, its first line) of the entry ``key`` in the first of ``bib_files`` that has it."""
    start = re.compile(r"^[ \t]*@[ \t]*\w+[ \t]*[{(][ \t]*" + re.escape(key) + r"\s*,", re.M)
    for name in bib_files:
        text = _read(folder, name)  # only the build's own files: a .bib elsewhere is not this report's to open
        match = start.search(text)
        if match:
            after = _NEXT_ENTRY.search(text, match.end())
            return (
                name,
                text[match.start() : after.start() if after else len(text)],
                text.count("\n", 0, match.start()) + 1,
            )
    return None


def _read_from(folder: Path) -> dict[str, str]:
    """Key -> where the build read the entry (the first of its sources in the folder's entries.json, named as the
    user named them): the file to edit, which the written .bib is not."""
    try:
        entries = json.loads(_read(folder, "entries.json") or "[]")
    except ValueError:
        return {}
    if not isinstance(entries, list):
        return {}
    found = {}
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("key"), str) and entry.get("sources"):
            found[entry["key"]] = str(entry["sources"][0])
    return found


def _entry_place(
    folder: Path,
    bib_files: Sequence[str],
    key: str,
    macro: str | None = None,
    read_from: Mapping[str, str] | None = None,
) -> str:
    """``'key', out/references.bib:8, read from lib.bib:3``: where the entry ``key`` starts (and where the build
    read it); when ``macro`` is not in it but in an entry it inherits from (crossref, xdata), where that one
    starts: BibTeX and biber print the parent's fields as the child's."""
    found = _entry_text(folder, bib_files, key)
    if found is None:
        return f"'{key}'"
    name, text, line = found
    if macro is not None and not _mentions(text, macro):
        for parent in (p.strip() for m in _PARENTS.finditer(text) for p in m.group("keys").split(",")):
            inherited = _entry_text(folder, bib_files, parent) if parent else None
            if inherited is not None and _mentions(inherited[1], macro):
                where = in_folder(folder, f"{inherited[0]}:{inherited[2]}")
                return f"'{key}', whose parent '{parent}' holds it, {where}{_source(read_from, parent)}"
    return f"'{key}', {in_folder(folder, f'{name}:{line}')}{_source(read_from, key)}"


def _source(read_from: Mapping[str, str] | None, key: str) -> str:
    return f", read from {read_from[key]}" if read_from and key in read_from else ""


def _entry_note(folder: Path, bib_files: Sequence[str], keys: Sequence[str], macro: str | None = None) -> str:
    """`` (it comes from the entry 'key', out/references.bib:8, read from lib.bib:3)``, or nothing when no entry
    is known."""
    read_from = _read_from(folder) if keys else {}
    notes = [_entry_place(folder, bib_files, key, macro, read_from) for key in keys[:_SHOWN]]
    if not notes:
        return ""
    more = f" and {len(keys) - _SHOWN} more" if len(keys) > _SHOWN else ""
    return f" (it comes from the {'entry' if len(keys) == 1 else 'entries'} {'; '.join(notes)}{more})"


def bibliography_errors(blg: str, blg_name: str = "main.blg") -> tuple[list[str], list[str]]:
    """(errors as ``file:line: BibTeX: message``, keys cited but in no .bib) from BibTeX's or biber's .blg."""
    errors: list[str] = []
    missing: list[str] = []
    lines = blg.splitlines()
    source = ""
    for index, line in enumerate(lines):
        if line.startswith("---") and index:  # the message was long enough to take a line of its own
            line = lines[index - 1] + line
        if bibtex := _BIBTEX_ERROR.match(line):
            where = f"{bibtex['file']}:{bibtex['line']}" if bibtex["line"] else bibtex["file"]
            context = [c[3:].strip() for c in lines[index + 1 : index + 3] if c.startswith(" : ")]
            near = f' (near "{context[-1]}")' if len(context) == 2 and context[-1] else ""
            if bibtex["file"].endswith(".aux") and context and context[0].startswith("\\citation{{"):
                near += _BRACED_KEY  # pdfLaTeX wrote a key's first character in braces: it is not ASCII
            errors.append(f"{where}: BibTeX: {bibtex['message'].strip()}{near}")
        elif found := _BIBTEX_NO_ENTRY.match(line):
            missing.append(found["key"])
        elif biber := _BIBER_MESSAGE.match(line):
            message = biber["message"].strip()
            if biber["level"] == "WARN":
                if found := _BIBER_NO_ENTRY.match(message):
                    missing.append(found["key"])
                continue
            if at := _BIBER_AT_LINE.match(message):
                # biber parses a UTF-8 copy in a temporary folder: the data source it just found is the file
                errors.append(f"{source or at['file']}:{at['line']}: biber: {at['message']}")
            else:
                errors.append(f"{blg_name}: biber: {message}")
        elif source_match := _BIBER_SOURCE.search(line):
            source = source_match["file"]
    return errors, list(dict.fromkeys(missing))


_BRACED_KEY = (
    ": a cited key starts with a character that is not ASCII, which pdfLaTeX writes braced"
    " (rename the key; check reports it as key-not-ascii; biblatex and biber read it: --dialect biblatex)"
)


@dataclass(frozen=True)
class TexError:
    where: str  # file:line
    message: str
    keys: tuple[str, ...]  # the .bib entries it comes from, when it comes from the .bbl


def _entry_at(bbl: Sequence[BblEntry], line: int) -> tuple[str, ...]:
    """The key of the .bbl entry that holds ``line``: the last one starting at or before it (``bbl`` is in order)."""
    index = bisect_right(bbl, line, key=lambda entry: entry.line)
    return (bbl[index - 1].key,) if index else ()


def tex_errors(log: str, tex_name: str, bbl: Sequence[BblEntry], limit: int | None = None) -> list[TexError]:
    """TeX's errors in order (the first ``limit``), with the undefined command's name and the .bbl entries
    they come from."""
    found: list[TexError] = []
    lines = log.splitlines()
    for index, line in enumerate(lines):
        if len(found) == limit:
            break
        error = _TEX_ERROR.match(line)
        if error is None or error["message"].lstrip().startswith("==>"):
            continue  # "==> Fatal error occurred" only follows the real error
        if found and error["message"].startswith("Emergency stop"):
            continue  # nor does TeX's stop after it
        file, number = error["file"], error["line"]
        context = [c for c in lines[index + 1 : index + 12] if c.strip()]
        if number is None:  # "! ..." names no place: the context's "l.NN" line does, and the file is the one of
            # the "file:NN:" line that may follow at that line ("./related_work.tex:105: Emergency stop.")
            number = next((m["line"] for c in context for m in [_TEX_LINE.match(c)] if m), None)
            placed = (m for c in context for m in [_TEX_ERROR.match(c)] if m and m["file"] and m["line"] == number)
            file = next((m["file"] for m in placed), tex_name)
        message = error["message"].strip()
        in_bbl = file.endswith(".bbl") and number is not None
        keys = _entry_at(bbl, int(number)) if in_bbl and number else ()
        if message.startswith("Undefined control sequence") and context:
            # TeX's help: "The control sequence at the end of the top line of your error message was never \def'ed."
            names = _CONTROL_SEQUENCE.findall(context[0].rstrip())
            if names:
                message = f"{names[-1]} is not defined"
                if not in_bbl:  # printed from a field (biblatex): the entries that hold it
                    keys = tuple(entry.key for entry in bbl if _mentions(entry.text, names[-1]))
        found.append(TexError(f"{file}:{number}" if number else file, message, keys))
    return found


def _mentions(text: str, macro: str) -> bool:
    return re.search(re.escape(macro) + (r"(?![A-Za-z@])" if macro[-1].isalpha() else ""), text) is not None


def root_causes(folder: Path, tex_name: str = "main.tex") -> list[str]:
    """What to fix first after a failed run in ``folder``, as ``file:line: what happened`` lines, each file
    named from where ``folder`` was named (``in_folder``)."""
    stem = Path(tex_name).stem
    log, blg, bbl_text, aux = (_read(folder, f"{stem}.{suffix}") for suffix in ("log", "blg", "bbl", "aux"))
    bbl = bbl_entries(bbl_text)
    bib_files = _bib_files(folder, aux, blg)
    causes: list[str] = []
    latex = tex_errors(log, tex_name, bbl, _SHOWN)  # -halt-on-error leaves one; a log from elsewhere may hold many
    missing: list[str] = []
    # With -halt-on-error a LaTeX error outside the .bbl stops the run before BibTeX: the .blg is an old run's.
    if all(error.where.split(":")[0].endswith(".bbl") for error in latex):
        errors, missing = bibliography_errors(blg, f"{stem}.blg")
        causes += [in_folder(folder, error) for error in errors[:_SHOWN]]
    # An error is a cause worth leading with when it says more than the summary: the command, the entry.
    named = [error for error in latex if error.keys or error.message.endswith(" is not defined")]
    for error in named[:_SHOWN]:
        macro = error.message.removesuffix(" is not defined") if error.message.endswith(" is not defined") else None
        note = _entry_note(folder, bib_files, error.keys, macro)
        if not error.keys:
            note = " (a package is missing, or the document or a template uses a command of its own)"
        causes.append(f"{in_folder(folder, error.where)}: {error.message}{note}")
    if missing:
        shown = ", ".join(f"'{key}'" for key in missing[:_SHOWN])
        more = f" and {len(missing) - _SHOWN} more" if len(missing) > _SHOWN else ""
        where = bib_files[0] if len(bib_files) == 1 else f"{stem}.aux"
        causes.append(f"{in_folder(folder, where)}: no entry for {shown}{more}, which the document cites")
    return causes
