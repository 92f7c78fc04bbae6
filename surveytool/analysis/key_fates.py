"""What became of every key the user wrote: kept, renamed, merged or dropped as a copy, each said in a message.

A key missing from the output breaks ``\\cite{key}`` in the user's paper, so
every key read from a .bib or CSL-JSON file is either written as it was or
named in a finding that says what happened to it and which key to cite.
"""

from __future__ import annotations

from collections.abc import Sequence

from surveytool.analysis.keys import run_order, runs_in_tex
from surveytool.model import Finding, Origin, Paper, Severity, SourceLocation

_USER_KEYED = (Origin.BIBTEX, Origin.CSL_JSON)
_WRITTEN = "bib -o and build"  # what surveytool writes; bib --in-place leaves the user's entries as they are


def key_findings(read: Sequence[Paper], written: Sequence[Paper], sources: Sequence[str] = ()) -> list[Finding]:
    """Findings for each key of ``read`` (records as read) that is not its own entry's key in ``written``.

    ``sources``: the run's source names in order, as ``keys.assign_keys`` was given them.
    """
    owner = {source: paper for paper in written for source in paper.sources}
    first_at: dict[str, tuple[SourceLocation, str]] = {}  # by the key lower-cased, as BibTeX compares keys
    findings: list[Finding] = []
    for record in sorted((p for p in read if p.key and p.origin in _USER_KEYED), key=run_order(sources)):
        where = record.sources[0]
        first, spelled = first_at.setdefault(record.key.lower(), (where, record.key))
        found = _fate(record.key, where, first, owner, spelled)
        if found:
            findings.append(found)
    return findings


def _fate(
    key: str,
    where: SourceLocation,
    first: SourceLocation,
    owner: dict[SourceLocation, Paper],
    spelled: str = "",
) -> Finding | None:
    """What happened to ``key`` read at ``where`` (``first``: where the key was read first, ``spelled`` as written
    there, which may differ in case)."""
    paper = owner.get(where)
    if paper is None:
        message = f"entry '{key}' is missing from the output"
        return Finding("duplicate-key", Severity.ERROR, message, where, "report this as a bug of surveytool", key, ())
    if paper.key == key:
        if first == where:
            return None
        if owner.get(first) is paper:
            message = f"entry key '{key}' is used again here by an identical copy of the entry at {first}; {_WRITTEN} leave this copy out"
            return Finding("duplicate-key", Severity.WARNING, message, where, "delete the copy", key, (first,))
        message = f"entry key '{key}' is used again here; \\cite{{{key}}} means this entry"
        if first in owner:
            message += f", the entry at {first} is written as '{owner[first].key}'"
        places = (first,) if first in owner else ()
        return Finding("duplicate-key", Severity.WARNING, message, where, "give each entry its own key", key, places)
    if key in paper.aliases:
        message = f"'{key}' is merged into '{paper.key}' (--merge-duplicates): cite '{paper.key}' instead"
        hint = (
            f"with --dialect biblatex '{key}' stays citable as an ids alias; "
            f"`surveytool rekey --tex FILE` rewrites \\cite{{{key}}} to \\cite{{{paper.key}}}"
        )
        return Finding("duplicate-entry", Severity.WARNING, message, where, hint, key, ())
    if runs_in_tex(key):
        message = (
            f"entry key '{key}' holds a TeX command, which would run wherever BibTeX copies the key; "
            f"{_WRITTEN} write this entry under the new key '{paper.key}'"
        )
        return Finding("unusable-key", Severity.ERROR, message, where, f"cite this entry as '{paper.key}'", key)
    holder = f"the entry at {first} keeps it" if first != where else "another entry holds it"
    if spelled and spelled != key:
        holder += f" as '{spelled}': BibTeX compares keys ignoring case"
    message = (
        f"entry key '{key}' is used again here ({holder}); {_WRITTEN} write this entry under the new key '{paper.key}'"
    )
    return Finding(
        "duplicate-key",
        Severity.WARNING,
        message,
        where,
        f"give each entry its own key, or cite this one as '{paper.key}'",
        key,
        (first,) if first != where else (),
    )
