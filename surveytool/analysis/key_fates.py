"""What became of every key the user wrote: kept, renamed, merged or dropped as a copy, each said in a message.

A key missing from the output breaks ``\\cite{key}`` in the user's paper, so
every key read from a .bib or CSL-JSON file is either written as it was or
named in a finding that says what happened to it and which key to cite.
"""

from __future__ import annotations

import shlex
import unicodedata
from collections.abc import Sequence

from surveytool.analysis.keys import lookalike_key, run_order, runs_in_tex, unreadable_in_key, unwritable_key
from surveytool.model import Finding, Origin, Paper, Severity, SourceLocation
from surveytool.text.control_chars import escaped, first_control

_USER_KEYED = (Origin.BIBTEX, Origin.CSL_JSON)
_WRITTEN = "bib -o and build"  # what surveytool writes; bib --in-place leaves the user's entries as they are


def key_findings(read: Sequence[Paper], written: Sequence[Paper], sources: Sequence[str] = ()) -> list[Finding]:
    """Findings for each key of ``read`` (records as read) that is not its own entry's key in ``written``.

    ``sources``: the run's source names in order, as ``keys.assign_keys`` was given them.
    """
    records = sorted((p for p in read if p.key and p.origin in _USER_KEYED), key=run_order(sources))
    at: dict[SourceLocation, list[Paper]] = {}  # several entries may start on one line (a one-line file)
    for entry in written:
        for source in entry.sources:
            at.setdefault(source, []).append(entry)
    owners = _owners(records, at)
    first_at: dict[str, tuple[SourceLocation, str]] = {}  # by the key lower-cased, as BibTeX compares keys
    looks: dict[str, tuple[SourceLocation, str]] = {}  # by the key as a reader sees it (keys.lookalike_key)
    rekey = shlex.join(["surveytool", "rekey", *sources, "--tex", "FILE"])  # the run's merges, as the run made them
    findings: list[Finding] = []
    for record, paper in zip(records, owners, strict=True):
        where = record.sources[0]
        first, spelled = first_at.setdefault(record.key.lower(), (where, record.key))
        found = _fate(record.key, where, paper, first, at.get(first, []), spelled, rekey)
        if found:
            findings.append(found)
        seen_at, seen = looks.setdefault(lookalike_key(record.key), (where, record.key))
        if seen.lower() != record.key.lower():
            findings.append(_lookalike(record.key, where, seen, seen_at))
    return findings


def _lookalike(key: str, where: SourceLocation, seen: str, seen_at: SourceLocation) -> Finding:
    """A key that reads as the key ``seen`` at ``seen_at`` but is written with other code points (one in NFD)."""
    decomposed, which = (key, "here") if unicodedata.normalize("NFC", key) != key else (seen, "there")
    # A combining mark (U+0308 after u), or a Hangul jamo that NFC joins into a syllable.
    composed = unicodedata.normalize("NFC", decomposed)
    parts = (c for c in decomposed if unicodedata.combining(c) or (not c.isascii() and c not in composed))
    marks = ", ".join(dict.fromkeys(f"U+{ord(c):04X}" for c in parts))
    message = (
        f"entry key '{key}' looks like the key of the entry at {seen_at} but is written with other code points "
        f"(a letter in parts {which}: {marks}): BibTeX reads two keys and \\cite finds the one typed "
        "the same way; biber reads one key and skips this entry"
    )
    return Finding("duplicate-key", Severity.WARNING, message, where, "give each entry its own key", key, (seen_at,))


def lost_pin_findings(
    unkeyed: Sequence[Paper], written: Sequence[Paper], pinned: Sequence[str | None]
) -> list[Finding]:
    """A warning for each paper not given the key the lock file pins for it: another entry took it, and
    \\cite{key} now means that one. ``unkeyed``: the papers as ``keys.assign_keys`` was given them; ``written``:
    as it keyed them; ``pinned``: the key pinned for each (``keys.pinned_keys``), all in one order."""
    holders = {key.lower(): n for n, paper in enumerate(written) for key in (paper.key, *paper.aliases)}
    findings = []
    for before, paper, pin in zip(unkeyed, written, pinned, strict=True):
        if not pin or pin == paper.key or unwritable_key(pin) or _own_key(before):
            continue  # a key read with the paper comes before a pin
        holder = holders.get(pin.lower())
        place = written[holder].sources[0] if holder is not None and written[holder].sources else None
        taker = f"the entry at {place}" if place else "another entry"
        if holder is not None and not _own_key(unkeyed[holder]) and (pinned[holder] or "").lower() == pin.lower():
            # Two lock files merged (two branches each pinned it): the warning stays until the lock says which.
            held = f" is pinned in surveytool.lock.json both to this paper and to {taker}, which keeps it"
            hint = f"cite this paper as '{paper.key}', and write that key in its pin in surveytool.lock.json"
        else:
            held = f", pinned to this paper in surveytool.lock.json, is taken by {taker}"
            hint = f"cite this paper as '{paper.key}', or give {taker} another key"
        message = f"key '{pin}'{held}; {_WRITTEN} write this paper under the new key '{paper.key}'"
        places = (place,) if place else ()
        where = paper.sources[0] if paper.sources else None
        findings.append(Finding("duplicate-key", Severity.WARNING, message, where, hint, paper.key, places))
    return findings


def _own_key(paper: Paper) -> bool:
    """Whether ``paper`` (as read) has a key of its own that it keeps unless another entry holds it."""
    return paper.origin in _USER_KEYED and bool(paper.key) and not unwritable_key(paper.key)


def _owners(records: Sequence[Paper], at: dict[SourceLocation, list[Paper]]) -> list[Paper | None]:
    """The written entry each record went to: the one at its place that kept its key, else one there left over
    (renamed), else the one there it was merged into."""
    left = {where: list(papers) for where, papers in at.items()}
    owners: list[Paper | None] = []
    for record in records:
        here = left.get(record.sources[0], [])
        kept = next((p for p in here if p.key == record.key), None)
        if kept is not None:
            here.remove(kept)
        owners.append(kept)
    for n, record in enumerate(records):
        here = left.get(record.sources[0], [])
        if owners[n] is None and here:
            owners[n] = here.pop(0)
        elif owners[n] is None:  # merged into an entry that lists the place once for several records
            there = at.get(record.sources[0], [])
            owners[n] = next((p for p in there if record.key in (p.key, *p.aliases)), there[0] if there else None)
    return owners


def _fate(
    key: str,
    where: SourceLocation,
    paper: Paper | None,
    first: SourceLocation,
    at_first: list[Paper],
    spelled: str,
    rekey: str,
) -> Finding | None:
    """What happened to ``key`` read at ``where`` and written as ``paper`` (``first``: where the key was read first,
    ``spelled`` as written there, which may differ in case; ``at_first``: the entries written from there; ``rekey``:
    the command that rewrites a merged key's citations)."""
    if paper is None:
        message = f"entry '{key}' is missing from the output"
        return Finding("duplicate-key", Severity.ERROR, message, where, "report this as a bug of surveytool", key, ())
    if paper.key == key:
        if first == where:
            return None
        if paper in at_first and where.path != first.path:
            # A co-author's file, or one library exported twice, shares entries: nothing to mend, and
            # `bib --in-place` would otherwise warn each run about the copies it added itself.
            message = f"entry '{key}' here is an identical copy of the entry at {first}; {_WRITTEN} write it once"
            hint = (
                "nothing to do for surveytool; BibTeX reports a repeated entry if both files are in one \\bibliography"
            )
            return Finding("duplicate-key", Severity.INFO, message, where, hint, key, (first,))
        if paper in at_first:
            message = f"entry key '{key}' is used again here by an identical copy of the entry at {first}; {_WRITTEN} leave this copy out"
            return Finding("duplicate-key", Severity.WARNING, message, where, "delete the copy", key, (first,))
        message = f"entry key '{key}' is used again here; \\cite{{{key}}} means this entry"
        if at_first:
            kept_as = next((p for p in at_first if p.key.lower() == spelled.lower()), at_first[0])
            message += f", the entry at {first} is written as '{kept_as.key}'"
        places = (first,) if at_first else ()
        return Finding("duplicate-key", Severity.WARNING, message, where, "give each entry its own key", key, places)
    if key in paper.aliases:
        message = f"'{key}' is merged into '{paper.key}' (--merge-duplicates): cite '{paper.key}' instead"
        hint = (
            f"with --dialect biblatex '{key}' stays citable as an ids alias; "
            f"`{rekey}` rewrites \\cite{{{key}}} to \\cite{{{paper.key}}}"
        )
        return Finding("duplicate-entry", Severity.WARNING, message, where, hint, key, ())
    if runs_in_tex(key):
        message = (
            f"entry key '{key}' holds a TeX command, which would run wherever BibTeX copies the key; "
            f"{_WRITTEN} write this entry under the new key '{paper.key}'"
        )
        return Finding("unusable-key", Severity.ERROR, message, where, f"cite this entry as '{paper.key}'", key)
    if unwritable_key(key):
        char = unreadable_in_key(key)
        why = "terminals and editors act on" if _control(char) else "BibTeX or biber does not read in a key"
        why = "biber, and LaTeX in \\cite and BibTeX's .bbl, read as a comment's start" if char == "%" else why
        message = (
            f"entry key '{key}' has {_named(char)}, which {why}; "
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


def _control(char: str) -> bool:
    return bool(first_control(char)) and char not in "\t\r\n"  # those are spaces to BibTeX


def _named(char: str) -> str:
    if _control(char):
        return f"the control character {escaped(char)}"
    return "a space" if char.isspace() else f"'{char}'"
