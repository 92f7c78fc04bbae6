"""Rewrite the keys of \\cite commands in .tex files after duplicates were merged: old key -> the key that replaced it.

Only the keys inside citation commands change; every other byte of a file
stays as it was (its encoding, line endings, BOM, comments). A file is
rewritten atomically: the new text goes to a temporary file beside the real
one (a symlink is followed to its target), which takes the old file's mode and
owner and then replaces it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from surveytool.errors import InputError
from surveytool.model import Paper
from surveytool.output.files import write_in_place
from surveytool.sources.bounded import DOCUMENT_LIMIT, read_user_file
from surveytool.text.citations import cite_key_spans


@dataclass(frozen=True)
class Rekeyed:
    """One key rewritten in a .tex file."""

    path: str
    line: int
    old: str
    new: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.old} -> {self.new}"


def replacements(papers: Sequence[Paper]) -> dict[str, str]:
    """Each key absorbed by a merge -> the key of the entry it was merged into."""
    return {alias: paper.key for paper in papers for alias in paper.aliases if alias != paper.key}


def rekey_text(text: str, renamed: Mapping[str, str], path: str = "") -> tuple[str, list[Rekeyed]]:
    """``text`` with every cited key in ``renamed`` replaced, and what was replaced where."""
    pieces: list[str] = []
    changes: list[Rekeyed] = []
    last = 0
    for start, end in cite_key_spans(text):
        old = text[start:end]
        new = renamed.get(old)
        if new is None:
            continue
        pieces.extend((text[last:start], new))
        last = end
        changes.append(Rekeyed(path, text.count("\n", 0, start) + 1, old, new))
    pieces.append(text[last:])
    return "".join(pieces), changes


def rekey_file(path: Path, renamed: Mapping[str, str], *, dry_run: bool = False) -> list[Rekeyed]:
    """Rewrite the cited keys of one .tex file in place (unless ``dry_run``); what changed."""
    try:
        data = read_user_file(path, str(path), DOCUMENT_LIMIT)
    except FileNotFoundError:
        raise InputError("no such file", path=str(path), hint="check the path") from None
    # surrogateescape gives every byte that is not UTF-8 back unchanged: a Latin-1 file stays Latin-1.
    text = data.decode("utf-8", errors="surrogateescape")
    new_text, changes = rekey_text(text, renamed, str(path))
    if changes and not dry_run:
        write_in_place(path, new_text.encode("utf-8", errors="surrogateescape"))
    return changes
