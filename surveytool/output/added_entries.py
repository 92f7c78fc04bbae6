"""Which entries of the other sources `bib --in-place` adds to the user's file, and why it leaves one out."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from surveytool.analysis.merge import identities
from surveytool.bibtex.field_spans import written_key
from surveytool.model import Finding, Paper, Severity
from surveytool.output.legacy_encoding import held_by
from surveytool.text.file_encoding import LEGACY_ENCODINGS, encoding_name

Render = Callable[[Sequence[Paper]], str]


def entries_to_add(
    new: Sequence[Paper], own: Sequence[Paper], display: str, encoding: str, rendered: Render, left: list[Finding]
) -> list[Paper]:
    """The papers of ``new`` to add to the file ``display`` whose entries are ``own``; a finding in ``left`` for
    each left out.

    Left out: an entry under a key the file has, for the same work. It is the entry a run added before, since
    edited in its source: added again (under a new key) by every run, the file filled with copies. And an
    entry the file's encoding cannot hold (see ``legacy_encoding``).
    """
    by_key = {paper.key.lower(): paper for paper in own}
    added = []
    for paper in new:
        mine = by_key.get((written_key(paper.raw) or paper.key).lower())
        if mine is not None and _same_work(mine, paper):
            left.append(_already_there(paper, mine, display))
        elif _held(paper, encoding, rendered, display, left):
            added.append(paper)
    return added


def _same_work(mine: Paper, theirs: Paper) -> bool:
    return any(
        identity.startswith(("title:", "short:", "doi:", "arxiv:"))
        for identity in set(identities(mine)) & set(identities(theirs))
    )


def _already_there(paper: Paper, mine: Paper, display: str) -> Finding:
    differs = sorted(
        name
        for name in {*paper.latex_fields, *mine.latex_fields}
        if paper.latex_fields.get(name) != mine.latex_fields.get(name)
    )
    at = f"{display}:{mine.sources[0].line}" if mine.sources else display
    return Finding(
        "already-in-file",
        Severity.WARNING,
        f"entry '{written_key(paper.raw) or paper.key}' is not added to {display}: {at} has that key for the same work"
        + (f" (they differ in {', '.join(differs)})" if differs else ""),
        paper.sources[0] if paper.sources else None,
        f"copy what you want of it into {display} by hand: bib --in-place never changes an entry of yours",
    )


def _held(paper: Paper, encoding: str, rendered: Render, display: str, left: list[Finding]) -> bool:
    """Whether ``paper``, written as a new entry, fits a file of ``encoding`` (a UTF-8 one holds any: not rendered)."""
    if encoding not in LEGACY_ENCODINGS:
        return True
    unheld = held_by(encoding, rendered([paper]))[1]
    if unheld:
        left.append(
            Finding(
                "not-in-file-encoding",
                Severity.ERROR,
                f"entry '{paper.key}' is not added to {display}: that file is {encoding_name(encoding)}, which cannot "
                f"hold '{unheld}' (U+{ord(unheld):04X}), and LaTeX has no ASCII spelling for it there",
                paper.sources[0] if paper.sources else None,
                f"save {display} as UTF-8 and run again, or add the entry by hand",
            )
        )
    return not unheld
