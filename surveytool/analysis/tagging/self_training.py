"""A library's sure tags teach the tagger how this library is filed; the entries it was unsure of are tagged again.

A user's library is a list of its own: one survey's papers, with words and habits of filing the
bundled corpus may not know. The entries the tagger is sure of (``TEACHING_CONFIDENCE``) are taken
as if the user had tagged them (self-training), a second tagger learns from them beside the user's
own tags, and it tags again the entries the first was unsure of, its blends weighed by the library's own shares of
the sections (``label_shift.py``), estimated from the first tagger's blends of every entry. An entry below ``RETAG_FLOOR``
is left as it was: nothing of the field was found in it, and what the library teaches would only
pull it into some section. The second tagger learned from the first's own answers, so its shares
are over-confident: its confidence goes through a map of its own (``calibration.self_taught``),
fitted on the corpus's train split (tests/benchmarks/tagging_self_training.py --fit-confidence).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from surveytool.analysis.tagging import calibration
from surveytool.analysis.tagging.exemplars import SETTINGS, Exemplar
from surveytool.analysis.tagging.features import has_body, paper_text
from surveytool.analysis.tagging.label_shift import EntryShares, entry_shares, expected_shares, library_shares
from surveytool.model import Paper, Tag

if TYPE_CHECKING:
    from surveytool.analysis.tagging.tagger import Tagger

#: A computed tag this sure teaches the second tagger as the user's own tags do.
TEACHING_CONFIDENCE = 0.8
#: A computed tag less sure than this is not tagged again.
RETAG_FLOOR = 0.1
#: A library teaches only when this share of the entries the tagger tags are sure: one mostly of the field. In a
#: general bibliography (a lab's, a thesis's) a few sure entries say little about how the rest is filed, and a
#: second pass mostly pulls papers of other fields into some section.
MIN_SURE_SHARE = 0.2
#: How the evidence of a tag computed again begins.
AGAIN = "tagged again after learning from"

#: Tags each of some papers.
TagAll = Callable[[Sequence[Paper]], list[tuple[Tag, ...]]]
#: A ``TagAll`` with the tagger it is given: a build's takes tags from its memo and a forked child.
TagAllBy = Callable[["Tagger"], TagAll]


#: Each entry's part in estimating the library's shares (``label_shift.py``), by key.
KeyedShares = tuple[tuple[str, EntryShares], ...]


class Library(NamedTuple):
    """The rest of a library beside the papers a patched rebuild tags: its sure entries, how many it tagged and
    their parts in the library's shares."""

    teachers: tuple[Exemplar, ...] = ()
    computed: int = 0
    shares: KeyedShares = ()
    estimate: tuple[float, ...] = ()  # the last build's, while every part it was estimated from is in ``shares``


def tag_twice(
    tagger: Tagger,
    papers: Sequence[Paper],
    tag_all_by: TagAllBy,
    beside: Library | None = None,
    on_taught: Callable[[Taught], None] | None = None,
) -> list[tuple[Tag, ...]]:
    """The tags of ``papers``, those the first tagger was unsure of tagged again after the sure ones taught it.

    ``beside``: the rest of the library, when ``papers`` are not all of it (a patched rebuild's);
    ``on_taught`` is told what taught the second pass and which papers were tagged (a build keeps it for a patch).
    """
    beside = beside or Library()
    first = tag_all_by(tagger)(papers)
    taught = tuple(sorted({*beside.teachers, *teachers(papers, first)}, key=lambda e: (e.key, e.title, e.sections)))
    again = unsure(first)
    active = teaches(len(taught), beside.computed + len(papers))
    # Only where a second pass runs: a general bibliography never pays for blending every entry again.
    own = keyed_shares(tagger, papers) if active else ()
    if not active:
        estimate: tuple[float, ...] = ()
    elif own or not beside.estimate:
        estimate = estimated(tagger, (*beside.shares, *own))
    else:  # estimated from the same parts: as it was
        estimate = beside.estimate
    if on_taught is not None:
        keys = frozenset(papers[i].key for i in again), frozenset(p.key for p in papers)
        weighed = frozenset(papers[i].key for i in again if not has_body(papers[i]))
        on_taught(Taught(taught, *keys, own, estimate, weighed))
    if not again or not active:
        return list(first)
    second = tag_all_by(tagger.taught(taught, estimate))([papers[i] for i in again])
    return merged(first, dict(zip(again, second, strict=True)), len(taught))


def keyed_shares(tagger: Tagger, papers: Sequence[Paper]) -> KeyedShares:
    """Each paper's part in estimating the library's shares, in key order (none for a paper the tagger knows
    nothing of)."""
    blends = ((paper.key, tagger.blend(paper)) for paper in papers)
    return tuple(sorted((key, entry_shares(blend)) for key, blend in blends if blend is not None))


def estimated(tagger: Tagger, shares: KeyedShares) -> tuple[float, ...]:
    """The library's shares of the sections, from every entry's part in key order; () without a corpus."""
    expected = expected_shares(tagger)
    if expected is None or not shares:
        return ()
    return library_shares([own for _, own in sorted(shares)], expected)


def teaches(sure: int, computed: int) -> bool:
    """Whether ``sure`` entries of ``computed`` (those the tagger tagged) teach a second pass."""
    return sure > 0 and sure >= MIN_SURE_SHARE * computed


def teachers(papers: Sequence[Paper], tags: Sequence[tuple[Tag, ...]]) -> tuple[Exemplar, ...]:
    """The papers whose computed primary tag is sure enough to teach, as exemplars of that section, in key order."""
    exemplars = []
    for paper, found in zip(papers, tags, strict=True):
        if found and found[0].score >= TEACHING_CONFIDENCE:
            title, body = paper_text(paper)
            exemplars.append(Exemplar(paper.key, title, body, (found[0].section,), SETTINGS.user_weight, "user"))
    return tuple(sorted(exemplars, key=lambda e: (e.key, e.title, e.sections)))


def unsure(tags: Sequence[tuple[Tag, ...]]) -> list[int]:
    """Where the computed tags are worth computing again once the library has taught the tagger."""
    return [i for i, found in enumerate(tags) if found and RETAG_FLOOR <= found[0].score < TEACHING_CONFIDENCE]


def taught_tags(found: tuple[Tag, ...], teacher_count: int) -> tuple[Tag, ...]:
    """The second tagger's tags with the primary's confidence mapped, and saying what it learned from."""
    if not found:
        return found
    primary = found[0]
    entries = "entry" if teacher_count == 1 else "entries"
    evidence = (*primary.evidence, f"{AGAIN} {teacher_count} sure {entries} of this library")
    score = round(calibration.self_taught(primary.score), 3)
    return (replace(primary, score=score, evidence=evidence), *found[1:])


def merged(
    first: Sequence[tuple[Tag, ...]], again: dict[int, tuple[Tag, ...]], teacher_count: int
) -> list[tuple[Tag, ...]]:
    """``first`` with the entries tagged again (index -> the second tagger's tags) replaced."""
    return [taught_tags(again[i], teacher_count) if again.get(i) else tags for i, tags in enumerate(first)]


def second_tagger(tagger: Tagger, taught: Taught) -> Tagger:
    """The tagger a build's second pass tagged with, told what taught it (``tagger`` when it tagged none again)."""
    return tagger.taught(taught.teachers, taught.estimate) if taught.tagged_again else tagger


def tags_as_built(tagger: Tagger, second: Tagger, papers: Sequence[Paper], taught: Taught) -> list[tuple[Tag, ...]]:
    """The tags a build computed for ``papers`` (some it tagged), told what taught its second pass: the first
    tagger's, and for those it tagged again, the ``second``'s (for --explain, which shows what the build weighed)."""
    retagged = [i for i, paper in enumerate(papers) if paper.key in taught.tagged_again]
    first = tagger.tag_each(papers)
    if not retagged:
        return first
    again = second.tag_each([papers[i] for i in retagged])
    return merged(first, dict(zip(retagged, again, strict=True)), len(taught.teachers))


class Tagging(NamedTuple):
    """What tagged a library: the tagger, and what the library's sure entries taught its second pass."""

    tagger: Tagger
    taught: Taught


class Taught(NamedTuple):
    """What the library's sure entries taught the tagger's second pass: the teachers, the keys of the entries
    it tags again when they teach (``unsure``), and of every entry the tagger tagged (``computed``); when they
    teach, each entry's part in the library's shares of the sections, the shares (``estimate``) and the keys of
    the unsure entries they weigh (``weighed``: those known by their title alone)."""

    teachers: tuple[Exemplar, ...] = ()
    unsure: frozenset[str] = frozenset()
    computed: frozenset[str] = frozenset()
    shares: KeyedShares = ()
    estimate: tuple[float, ...] = ()
    weighed: frozenset[str] = frozenset()

    @property
    def active(self) -> bool:
        return teaches(len(self.teachers), len(self.computed))

    @property
    def tagged_again(self) -> frozenset[str]:
        """The keys of the entries the second pass tagged."""
        return self.unsure if self.active else frozenset()

    def to_plain(self) -> tuple:
        teachers = tuple(tuple(e) for e in self.teachers)
        keys = tuple(sorted(self.unsure)), tuple(sorted(self.computed))
        return teachers, *keys, self.shares, self.estimate, tuple(sorted(self.weighed))

    @classmethod
    def from_plain(cls, data: tuple) -> Taught:
        teachers, unsure, computed, shares, estimate, weighed = data
        keyed = tuple((key, (tuple(own), weight)) for key, (own, weight) in shares)
        exemplars = tuple(Exemplar(*e) for e in teachers)
        return cls(exemplars, frozenset(unsure), frozenset(computed), keyed, tuple(estimate), frozenset(weighed))

    def beside(self, changed: set[str]) -> Library:
        """The rest of the library when the entries whose keys ``changed`` (gone or read again) are taken out."""
        teachers = tuple(t for t in self.teachers if t.key not in changed)
        kept = tuple(s for s in self.shares if s[0] not in changed)
        return Library(teachers, len(self.computed - changed), kept, self.estimate if kept == self.shares else ())

    def after_patch(self, changed: set[str], news: Taught) -> Taught | None:
        """This with the entries whose keys ``changed`` tagged anew (``news``: what tagging them was told); None
        when another entry, unsure, is tagged otherwise now: a build in full tags it anew."""
        unsure, computed = (self.unsure - changed) | news.unsure, (self.computed - changed) | news.computed
        now = Taught(news.teachers, unsure, computed, weighed=(self.weighed - changed) | news.weighed)
        if now.active and not self.active:
            return None  # the other entries' parts in the library's shares were not kept: a build in full keeps them
        if now.active:  # as a build in full keeps them: only while they teach
            kept = tuple(s for s in self.shares if s[0] not in changed)
            now = now._replace(shares=tuple(sorted((*kept, *news.shares))), estimate=news.estimate)
        if now.active != self.active or (now.active and set(now.teachers) != set(self.teachers)):
            return now if not self.unsure - changed else None
        # The shares weigh only the unsure entries known by their title alone.
        return now if not now.active or now.estimate == self.estimate or not self.weighed - changed else None
