"""Rewrite the keys of \\cite commands in .tex files after duplicates were merged: old key -> the key that replaced it.

A main file's inputs are rewritten too: the files ``check --tex`` follows (``text/tex_inputs.py``), every
``\\include`` whatever ``\\includeonly`` says (a chapter left out of today's run is compiled tomorrow), and
never a file outside the main file's folder. Only the keys inside citation commands change; every other byte of a file
stays as it was (its encoding, line endings, BOM, comments). A file is
rewritten atomically: the new text goes to a temporary file beside the real
one (a symlink is followed to its target), which takes the old file's mode and
owner and then replaces it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from surveytool.bibtex.field_spans import written_key
from surveytool.errors import InputError
from surveytool.model import Finding, Paper
from surveytool.output.files import refuse_read_only, write_in_place
from surveytool.output.notes_regions import restamped
from surveytool.sources.bounded import DOCUMENT_LIMIT, read_user_file
from surveytool.text.citations import blank_comments, cite_key_spans
from surveytool.text.tex_inputs import Unreadable, read_document


@dataclass(frozen=True)
class Rekeyed:
    """One key rewritten in a .tex file."""

    path: str
    line: int
    old: str
    new: str
    removed: bool = False  # the citation cites ``new`` already: ``old`` went with its comma

    def __str__(self) -> str:
        removed = " (cited beside it already: removed)" if self.removed else ""
        return f"{self.path}:{self.line}: {self.old} -> {self.new}{removed}"


def replacements(papers: Sequence[Paper]) -> dict[str, str]:
    """Each key absorbed by a merge -> the key of the entry it was merged into; and each entry's own key -> itself,
    so that a citation of an entry that stays is never taken, in another case, for an absorbed key's (biber tells
    ``vaswani17`` from ``Vaswani17``; BibTeX, which does not, cites one of them and says so)."""
    # As the files write them too: a key another entry's key already had in another case is written anew
    # (duplicate-key), and its citations are left to the author, whom that finding tells.
    renamed = {key: key for paper in papers for key in (paper.key, written_key(paper.raw)) if key}
    renamed.update({alias: paper.key for paper in papers for alias in paper.aliases if alias != paper.key})
    return renamed


def rekey_text(text: str, renamed: Mapping[str, str], path: str = "") -> tuple[str, list[Rekeyed]]:
    """``text`` with every cited key in ``renamed`` replaced, and what was replaced where.

    A key is matched in any case, as BibTeX matches it: ``\\cite{smith20}`` cites an entry ``Smith20`` and is
    rewritten with it (``_renamed_key``). A key whose new key the same citation already cites (in any case) is
    removed with its comma: ``\\cite{old,new}`` would print the paper twice.
    """
    scan = _as_lines(text)  # offsets as in ``text``, old Mac line ends read as line ends
    spans = cite_key_spans(scan)
    blanked = blank_comments(scan)  # a comma is looked for outside comments: "\\cite{new,% old one\n old}"
    folded = _folded(renamed)
    cited: dict[int, set[str]] = {}  # a citation's braces -> the keys it will cite, lower-cased
    for start, end, group in spans:
        if _renamed_key(text[start:end], renamed, folded) is None:
            cited.setdefault(group, set()).add(text[start:end].lower())
    pieces: list[str] = []
    changes: list[Rekeyed] = []
    last = 0
    for start, end, group in spans:
        old = text[start:end]
        new = _renamed_key(old, renamed, folded)
        if new is None:
            continue
        line = scan.count("\n", 0, start) + 1
        if new.lower() in cited.setdefault(group, set()):
            start, end = _with_its_comma(blanked, start, end, last)
            pieces.append(text[last:start])
            changes.append(Rekeyed(path, line, old, new, removed=True))
        else:
            cited[group].add(new.lower())
            pieces.extend((text[last:start], new))
            changes.append(Rekeyed(path, line, old, new))
        last = end
    pieces.append(text[last:])
    return "".join(pieces), changes


def _as_cited(renamed: Mapping[str, str], cited: Sequence[str]) -> dict[str, str]:
    """``renamed`` with each new key spelled as the documents already cite it (``cited``, in reading order).

    BibTeX matches a key in any case, so ``\\cite{smith20}`` cites ``Smith20``; but it stops at two spellings of
    one key ("Case mismatch error") and leaves the second undefined, as an old key rewritten to ``Smith20`` beside
    ``\\cite{smith20}`` was. The key as the .bib writes it is kept when the documents cite it so too.
    """
    folded = _folded(renamed)
    exact = set(cited)
    spelling: dict[str, str] = {}
    for key in cited:  # a citation of a kept key in another case; an old key's own spelling is no such citation
        if key not in renamed and folded.get(key.lower()) is not None:
            spelling.setdefault(key.lower(), key)
    return {
        old: new if old == new or new in exact or folded.get(new.lower()) != new else spelling.get(new.lower(), new)
        for old, new in renamed.items()
    }


def _folded(renamed: Mapping[str, str]) -> dict[str, str | None]:
    """``renamed`` by its keys lower-cased; None where two keys that differ only in case are renamed apart."""
    folded: dict[str, str | None] = {}
    for old, new in renamed.items():
        folded[old.lower()] = new if folded.get(old.lower(), new) == new else None
    return folded


def _renamed_key(cited: str, renamed: Mapping[str, str], folded: Mapping[str, str | None]) -> str | None:
    """The key a citation of ``cited`` is to be rewritten to, or None: ``cited`` as it is in ``renamed``, else
    as BibTeX matches keys, in any case (``\\cite{smith20}`` cites ``Smith20``, with no warning), unless two
    renamed keys match it so and are renamed apart (which entry BibTeX took is not known here). A citation
    that already spells the new key, in its case, is left as it is."""
    exact = renamed.get(cited)
    if exact is not None:
        return None if exact == cited else exact
    new = folded.get(cited.lower())
    # Another case of a key that stays (``replacements`` maps it to itself) is that key's citation, not an old one.
    return None if new is None or new.lower() == cited.lower() else new


def _with_its_comma(text: str, start: int, end: int, floor: int) -> tuple[int, int]:
    """The span of a key to remove from a key list with the comma that separates it: the one before it, or
    for the first key the one after it (and the spaces after that). ``text`` has its comments blanked: one
    between the comma and the key goes with them."""
    before = start
    while before > floor and text[before - 1] in " \t\r\n":
        before -= 1
    if before > floor and text[before - 1] == ",":
        return before - 1, end
    after = end
    while after < len(text) and text[after] in " \t\r\n":
        after += 1
    if after < len(text) and text[after] == ",":
        after += 1
        while after < len(text) and text[after] in " \t\r\n":
            after += 1
    return start, after


@dataclass(frozen=True)
class RekeyedDocuments:
    """What rewriting the citations of some documents changed, in which files, and what could not be followed."""

    changes: tuple[Rekeyed, ...]
    rewritten: tuple[str, ...]  # the files with a key rewritten (or to rewrite, on a dry run), as shown
    read: int  # how many files the documents are made of
    cited: int  # how many distinct keys they cite (0: perhaps not the document that cites these sources)
    findings: tuple[Finding, ...]  # tex-input warnings: an input missing, outside the folder, ...


_LONE_CR = re.compile(r"\r(?!\n)")


def _as_lines(text: str) -> str:
    """``text`` with each old Mac line end (a lone CR, a line end to TeX) written LF, at the same offsets: a comment
    ends there, and the keys and inputs after it are read (to blank_comments it would run to the end of the file)."""
    return _LONE_CR.sub("\n", text) if "\r" in text else text


def _decoded(data: bytes) -> str:
    # surrogateescape gives every byte that is not UTF-8 back unchanged: a Latin-1 file stays Latin-1.
    return data.decode("utf-8", errors="surrogateescape")


def rekey_documents(mains: Sequence[Path], renamed: Mapping[str, str], *, dry_run: bool = False) -> RekeyedDocuments:
    """Rewrite the cited keys of each main file and of the files it inputs in place (unless ``dry_run``); each
    file once, however many documents input it, and a file with nothing to rewrite is not written at all. A file
    that may not be written (read-only) stops the run before any file is written."""
    changes: list[Rekeyed] = []
    rewritten: list[str] = []
    writes: list[tuple[Path, str, str]] = []  # (file, shown, new text)
    findings: dict[Finding, None] = {}
    done: set[Path] = set()
    texts: dict[Path, str] = {}  # each file's text as read: written back with its own line ends

    def read_input(path: Path, shown: str) -> str:
        try:
            texts[path] = _decoded(read_user_file(path, shown, DOCUMENT_LIMIT))
        except FileNotFoundError:
            raise Unreadable("no such file") from None
        except InputError as problem:
            raise Unreadable(problem.message) from None
        return _as_lines(texts[path])

    files: list[tuple[Path, str]] = []
    cited: list[str] = []  # every cited key, in reading order: the documents' own spelling of a key is the first
    for main in mains:
        try:
            text = _decoded(read_user_file(main, str(main), DOCUMENT_LIMIT))
        except FileNotFoundError:
            raise InputError("no such file", path=str(main), hint="check the path") from None
        texts[main.resolve()] = text
        document = read_document(main, str(main), _as_lines(text), read_input, every_file=True)
        findings.update(dict.fromkeys(document.findings))
        for path, (shown, content) in zip(document.paths, document.files, strict=True):
            if path not in done:
                done.add(path)
                files.append((path, shown))
                cited.extend(content[start:end] for start, end, _ in cite_key_spans(content))
    spelled = _as_cited(renamed, cited)
    for path, shown in files:
        new_text, changed = rekey_text(texts[path], spelled, shown)
        if changed:
            writes.append((path, shown, restamped(texts[path], new_text)))
            changes.extend(changed)
            rewritten.append(shown)
    if not dry_run:
        for path, shown, _ in writes:
            refuse_read_only(path, shown, "make it writable (chmod u+w) for rekey to update it; no file was rewritten")
        for path, _, new_text in writes:
            write_in_place(path, new_text.encode("utf-8", errors="surrogateescape"))
    return RekeyedDocuments(tuple(changes), tuple(rewritten), len(done), len(set(cited)), tuple(findings))
