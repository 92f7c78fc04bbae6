"""Groups of records of one work: a union-find whose unions hold for every pair, and findings about the rest.

Two groups join only when every member of one agrees with every member of
the other (``merge_evidence.disagreement``, and for a shared title the first
authors and years too), so look-alikes never chain two works together. A
record that matches two works which disagree joins neither. Keyed entries of
the user's .bib stay apart unless merging is asked for; records kept apart are
reported.
"""

from __future__ import annotations

from collections.abc import Sequence

from surveytool.analysis.first_author import first_author
from surveytool.analysis.identical_copies import identical_copies
from surveytool.analysis.merge_evidence import (
    Facts,
    compatible_for_title,
    disagreement,
    names_the_work,
    shared_evidence,
)
from surveytool.model import Finding, Origin, Paper, Severity, SourceLocation


class PairwiseGroups:
    """A union-find whose unions hold pairwise: every member agrees with every member of the other group."""

    def __init__(self, papers: Sequence[Paper], merge_user_entries: bool) -> None:
        self.papers = papers
        self.merge_user_entries = merge_user_entries
        self.parent = list(range(len(papers)))
        self.members: dict[int, list[int]] = {}
        self.facts: dict[int, Facts] = {}
        self.findings: list[Finding] = []
        self.reported: set[tuple[int, str]] = set()  # (record or group, check): one finding of each kind for each
        self.kept_apart: list[tuple[int, int, str]] = []  # keyed entries of one work, reported once all are joined
        self.suspicious: list[tuple[int, int, str, str]] = []  # records sharing an id that disagree, and why
        self.ambiguous: dict[int, tuple[int, int, str, str]] = {}  # record: two works it matches, evidence, why
        self.matches: dict[int, dict[int, str]] = {}  # record: the records it could merge with, and by what
        self._conflicts: dict[tuple[int, int, bool], str] = {}
        self._kinds: dict[int, int] = {}
        self._kind_ids: dict[tuple[Facts, object, str | None], int] = {}
        self._rank: dict[str, int] = {}  # each path by its place among the sources as given
        # A key two different entries use: whichever absorbed it, \cite{key} would change meaning.
        first_with_key: dict[str, Paper] = {}
        self.ambiguous_keys: set[str] = set()
        keys = [paper.key for paper in papers if paper.origin is _BIBTEX]
        for paper in papers if len(set(keys)) < len(keys) else ():
            if paper.origin is _BIBTEX and paper.key:
                first = first_with_key.setdefault(paper.key, paper)
                if first is not paper and not identical_copies(first, paper):
                    self.ambiguous_keys.add(paper.key)

    def find(self, i: int) -> int:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def group(self, root: int) -> list[int]:
        return self.members.get(root, [root])

    def facts_of(self, i: int) -> Facts:
        found = self.facts.get(i)
        if found is None:
            found = self.facts[i] = Facts.of(self.papers[i])
        return found

    def join_all(self, candidates: Sequence[tuple[int, int, str]]) -> None:
        """Join the records of each candidate pair (two records and the identity they share), in order.

        A record that matches two works which cannot be one (a snippet cut before the words that tell two
        abstracts apart, an undated record of a column in two volumes) joins neither: whichever it joined
        would depend on the order of the input, and the other would look like a separate, unmatched paper.
        It is kept as its own entry and reported with both candidates, so that the user completes or drops it.
        """
        self.ambiguous = self._find_ambiguous(candidates)
        for first, second, identity in candidates:
            self.consider(first, second, identity)
        self._report_duplicates()
        for first, second, identity, why in self.suspicious:
            self._report_suspicious(first, second, identity, why)
        for record, (one, other, identity, why) in sorted(self.ambiguous.items()):
            self._report_ambiguous(record, one, other, identity, why)

    def _find_ambiguous(self, candidates: Sequence[tuple[int, int, str]]) -> dict[int, tuple[int, int, str, str]]:
        """Each record whose matches include two that may not be in one group, with them, its evidence and why.
        Only a match it could merge with counts: two keyed entries of the user's kept apart are only reported."""
        matches = self.matches = {}
        papers = self.papers
        for first, second, identity in candidates:
            if not self._conflict(first, second, identity) and not self._kept_apart(papers[first], papers[second]):
                matches.setdefault(first, {}).setdefault(second, identity)
                matches.setdefault(second, {}).setdefault(first, identity)
        # The records of a group of n look-alikes each have n - 1 matches, most of which match each other: nothing
        # those state disagrees (nor, matched by a title, their authors or years), so only the rest are asked, in C
        # (and ``_conflict`` answers each two kinds of record once).
        not_by_title = {
            record: {o for o, by in others.items() if not _by_title(by)} for record, others in matches.items()
        }
        # A record whose matches all match each other and it (a group of look-alikes: the same set around each),
        # none of them otherwise than by the identity they share, has no two that may not be in one group.
        around: dict[frozenset[int], frozenset[int]] = {}
        closed: dict[int, frozenset[int]] = {}
        for record, others in matches.items():
            group = frozenset(others).union((record,))
            closed[record] = around.setdefault(group, group)  # one object for each set: compared by identity
        found: dict[int, tuple[int, int, str, str]] = {}
        for record, others in matches.items():
            group = closed[record]
            if all(closed[one] is group for one in others) and (
                all(not not_by_title[one] for one in group)
                or all(len(not_by_title[one]) == len(group) - 1 for one in group)
            ):
                continue
            titled = others.keys() - not_by_title[record]
            for one, by_one in sorted(others.items()):
                theirs = matches[one]
                unmatched = others.keys() - theirs.keys() - {one}
                # Matched otherwise than by a title, where this record's match is by one: authors and years unasked.
                unasked = (others.keys() if _by_title(by_one) else titled) & not_by_title[one]
                for other in sorted(o for o in unmatched | unasked if o > one):
                    by_other = others[other]
                    why = self._conflict(one, other, by_one) or self._conflict(one, other, by_other)
                    if why:
                        found[record] = (one, other, by_one, why)
                        break
                if record in found:
                    break
        return found

    def _may_join_despite_ambiguity(self, first: int, second: int) -> bool:
        """Two records of which one or both match two works that are not one may join only when both match the
        same records besides each other (one cut snippet listed twice): any other such join would pick one of the
        works by the order of the input."""
        if first not in self.ambiguous and second not in self.ambiguous:
            return True
        if first not in self.ambiguous or second not in self.ambiguous:
            return False
        return self.matches[first].keys() - {second} == self.matches[second].keys() - {first}

    def _conflict(self, i: int, j: int, identity: str) -> str:
        """Why records ``i`` and ``j`` may not be in one group joined on ``identity``, or ""; asked once for each two
        kinds of record (what they state, their first author and year): a group of look-alikes asks it of every pair."""
        key = (self._kind(i), self._kind(j), _by_title(identity))
        why = self._conflicts.get(key)
        if why is None:
            why = self._conflicts[key] = self._conflict_of(i, j, identity)
        return why

    def _conflict_of(self, i: int, j: int, identity: str) -> str:
        if _by_title(identity) and not compatible_for_title(self.papers[i], self.papers[j]):
            return "their first authors or years differ"
        return disagreement(self.facts_of(i), self.facts_of(j))

    def _kind(self, i: int) -> int:
        kind = self._kinds.get(i)
        if kind is None:
            paper = self.papers[i]
            stated = (self.facts_of(i), first_author(paper), paper.year)
            kind = self._kinds[i] = self._kind_ids.setdefault(stated, len(self._kind_ids))
        return kind

    def consider(self, first: int, second: int, identity: str) -> None:
        """Join the groups of two records sharing ``identity`` if the evidence holds; report them if not."""
        root_a, root_b = self.find(first), self.find(second)
        if root_a == root_b:
            return
        a, b = self.papers[first], self.papers[second]
        if identity.startswith("title:") and not compatible_for_title(a, b):
            return
        why_not = disagreement(self.facts_of(first), self.facts_of(second))
        if why_not:
            if names_the_work(identity, why_not):  # reported once all are joined, as duplicates are
                self.suspicious.append((first, second, identity, why_not))
            return
        if self._kept_apart(a, b):
            self.kept_apart.append((first, second, identity))
            return
        if self._may_join_despite_ambiguity(first, second) and self._groups_agree(root_a, root_b, identity):
            self.union(root_a, root_b)

    def _groups_agree(self, root_a: int, root_b: int, identity: str) -> bool:
        """Every member of one group agrees with every member of the other, as the evidence joining them requires."""
        for i in self.group(root_a):
            for j in self.group(root_b):
                if self._conflict(i, j, identity):
                    return False
                if self._kept_apart(self.papers[i], self.papers[j]):
                    return False
        return True

    def _kept_apart(self, a: Paper, b: Paper) -> bool:
        """Two keyed entries of the user's that may not merge: unasked, or under one key with different contents."""
        if not (_user_keyed(a) and _user_keyed(b)) or identical_copies(a, b):
            return False
        if a.key == b.key:
            # One entry of a library exported twice, as .bib and as CSL-JSON: one entry under its key.
            return a.origin is b.origin
        return not self.merge_user_entries or bool({a.key, b.key} & self.ambiguous_keys)

    def union(self, root_a: int, root_b: int) -> None:
        keep, gone = min(root_a, root_b), max(root_a, root_b)
        self.parent[gone] = keep
        self.members[keep] = self.group(keep) + self.group(gone)
        self.members.pop(gone, None)

    def in_order(self) -> list[list[int]]:
        """Each group's members in input order, groups by their first member."""
        groups: dict[int, list[int]] = {}
        for index in range(len(self.papers)):
            groups.setdefault(self.find(index), []).append(index)
        return list(groups.values())

    def _report_duplicates(self) -> None:
        """One finding for each group of entries kept apart from an earlier group, named as the merged entries are.

        Reported once every join is made: an identical copy of an entry (a co-author's file sharing it) joins
        that entry's group, and reported before, each copy was reported again beside the other work. The places
        are the merged entries' (see ``_place``), as the merge after resolving reports them.
        """
        for first, second, identity in self.kept_apart:
            if self._reported_once(first, second, "duplicate-entry"):
                continue
            (b, at_b), (a, at_a) = self._located(first, second)
            self.findings.append(
                Finding(
                    "duplicate-entry",
                    Severity.WARNING,
                    f"'{b.key}' ({at_b}) and '{a.key}' ({at_a}) look like the same work: "
                    f"{shared_evidence(identity)}; both are kept",
                    at_b,
                    _unmerged_hint({a.key, b.key} & self.ambiguous_keys if self.merge_user_entries else set()),
                    b.key,
                    (at_b, at_a),
                )
            )

    def _reported_once(self, first: int, second: int, check: str) -> bool:
        """Whether the later of the groups of ``first`` and ``second`` was reported for ``check`` already (and mark
        it): one finding for each group however many copies of either entry the sources hold."""
        later = max(self.find(first), self.find(second))
        if (later, check) in self.reported:
            return True
        self.reported.add((later, check))
        return False

    def _place(self, record: int) -> SourceLocation:
        """Where the group of ``record`` is first read as the sources were given (not a copy whose path sorts first)."""
        return min((s for i in self.group(self.find(record)) for s in self.papers[i].sources), key=self._order)

    def _order(self, place: SourceLocation) -> tuple[int, int]:
        """``place`` in the order of the sources as given (the first path on the command line first), then lines."""
        if not self._rank:
            paths = dict.fromkeys(source.path for paper in self.papers for source in paper.sources)
            self._rank = {path: rank for rank, path in enumerate(paths)}
        return self._rank[place.path], place.line

    def _located(self, first: int, second: int) -> list[tuple[Paper, SourceLocation]]:
        """Two records of a finding with their groups' places, the one it is located at first: in the first source
        given that has either (the file `bib --in-place` edits), the later of two there."""
        ends = [(*self._order(self._place(i)), self.find(i), i) for i in (first, second)]
        ends.sort(key=lambda end: (end[0], -end[1], -end[2]))
        return [(self.papers[i], self._place(i)) for *_, i in ends]

    def _report_suspicious(self, first: int, second: int, identity: str, why_not: str) -> None:
        if self._reported_once(first, second, "suspicious-duplicate-id"):
            return
        (b, at_b), (a, at_a) = self._located(first, second)
        self.findings.append(
            Finding(
                "suspicious-duplicate-id",
                Severity.WARNING,
                f"{_name(b, at_b)} and {_name(a, at_a)} share {shared_evidence(identity)}, but {why_not}: kept apart",
                at_b,
                "one of them probably carries a wrong id or a copied abstract; check both",
                b.key,
                (at_b, at_a),
            )
        )

    def _report_ambiguous(self, record: int, one: int, other: int, identity: str, why: str) -> None:
        papers = self.papers
        at = {i: min(papers[i].sources, key=self._order) for i in (record, one, other)}  # each record's own
        one, other = sorted((one, other), key=lambda i: self._order(at[i]))  # as given, whatever the order
        name, first, second = (_name(papers[i], at[i]) for i in (record, one, other))
        self.findings.append(
            Finding(
                "suspicious-duplicate-id",
                Severity.WARNING,
                f"{name} matches both {first} and {second} ({shared_evidence(identity)}), "
                f"which are two works ({why}): it is merged into neither",
                at[record],
                "give it a title, id or its full abstract so that it names one of them, or delete it",
                papers[record].key,
                (at[record], at[one], at[other]),
            )
        )


# Looked up once: an enum member's lookup is slow in a loop over every record.
_BIBTEX = Origin.BIBTEX
_CSL_JSON = Origin.CSL_JSON


def _name(paper: Paper, place: SourceLocation) -> str:
    """A record as messages name it: its key and place, or its place alone."""
    return f"'{paper.key}' ({place})" if paper.key else str(place)


def _user_keyed(paper: Paper) -> bool:
    """An entry of the user's .bib, or a CSL-JSON item with its citation key: its key may be cited, so it is
    never absorbed unasked."""
    return (paper.origin is _BIBTEX or paper.origin is _CSL_JSON) and bool(paper.key)


def _by_title(*identities: str) -> bool:
    return any(identity.startswith("title:") for identity in identities)


def _unmerged_hint(shared_keys: set[str]) -> str:
    """What to do about two entries of one work kept apart: merge them, or, when --merge-duplicates was given but a key
    of theirs is another work's too (\\cite of it would change meaning), first give that entry its own key."""
    if not shared_keys:
        return "delete one and cite the other, or merge them with --merge-duplicates"
    named = ", ".join(f"'{key}'" for key in sorted(shared_keys))
    return f"not merged: {named} is also another entry's key; give each entry its own key, then merge"
