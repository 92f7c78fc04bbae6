"""How an analysis with a build cache got its papers: what a snapshot of the build (``snapshot.py``) keeps."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from surveytool.analysis.keys import lookalike_key
from surveytool.analysis.tagging.self_training import Taught
from surveytool.model import Origin, Paper
from surveytool.rebuild.bib_reading import ChunkLayout


@dataclass(frozen=True)
class Trace:
    """How an analysis with a build cache got its papers, for a snapshot of the build."""

    layouts: tuple[ChunkLayout | None, ...]  # per source, as read
    readable: bool  # every source was UTF-8
    facts: dict[str, EntryFacts]  # key -> the identities it holds and the keys it claims
    taught: Taught  # what the library's sure entries taught the tagger's second pass


class EntryFacts(NamedTuple):
    identities: tuple[str, ...]  # of the records it was made from and of itself (merge.identities)
    claims: tuple[str, ...]  # claims_of


def entry_facts(
    read: Sequence[Paper],
    keyed: Sequence[tuple[Paper, Paper]],
    identities_of: Callable[[Paper], list[str]],
    pins: Mapping[str, str],
) -> dict[str, EntryFacts]:
    """Each paper's facts by its key; ``keyed`` pairs each paper as keys were assigned to it with the paper as it ended."""
    from surveytool.analysis.keys import identity_of

    # A merged paper holds the identities of every record it was merged from.
    owner = {where: paper.key for _, paper in keyed if len(paper.sources) > 1 for where in paper.sources}
    merged: dict[str, set[str]] = {}
    for paper in read:
        key = owner.get(paper.sources[0]) if paper.sources else None
        if key is not None:
            merged.setdefault(key, set()).update(identities_of(paper))
    facts = {}
    for unkeyed, paper in keyed:
        found = identities_of(unkeyed)
        held = tuple(sorted(merged[paper.key].union(found))) if paper.key in merged else tuple(found)
        facts[paper.key] = EntryFacts(held, claims_of(unkeyed, paper, found, identity_of(unkeyed, found), pins))
    return facts


def claims_of(
    unkeyed: Paper, keyed: Paper, found: Sequence[str], identity: str, pins: Mapping[str, str]
) -> tuple[str, ...]:
    """The keys a paper holds or would take in keys.assign_keys: the key it got, its own key, the keys of the
    duplicates merged into it (a new entry under one of those keys undoes the merge), its pinned keys.

    ``unkeyed`` is the paper as keys were assigned to it, ``found`` and ``identity`` its identities there.
    Lowered, as assign_keys compares them: BibTeX takes ``Smith2020`` and ``smith2020`` for one key; and in NFC,
    as key_fates compares them for a key written with other code points.
    """
    own = unkeyed.key if unkeyed.origin in (Origin.BIBTEX, Origin.CSL_JSON) else ""
    pinned = [pins[i] for i in (*found, identity) if i in pins]
    return tuple(dict.fromkeys(lookalike_key(k) for k in (keyed.key, own, *keyed.aliases, *pinned) if k))
