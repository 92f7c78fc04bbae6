"""A library's sure tags teach the tagger how this library is filed; the entries it was unsure of are tagged again.

A user's library is a list of its own: one survey's papers, with words and habits of filing the
bundled corpus may not know. The entries the tagger is sure of (``TEACHING_CONFIDENCE``) are taken
as if the user had tagged them (self-training), a second tagger learns from them beside the user's
own tags, and it tags again the entries the first was unsure of. An entry below ``RETAG_FLOOR``
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
from surveytool.analysis.tagging.features import paper_text
from surveytool.model import Paper, Tag

if TYPE_CHECKING:
    from surveytool.analysis.tagging.tagger import Tagger

#: A computed tag this sure teaches the second tagger as the user's own tags do.
TEACHING_CONFIDENCE = 0.8
#: A computed tag less sure than this is not tagged again.
RETAG_FLOOR = 0.1
#: How the evidence of a tag computed again begins.
AGAIN = "tagged again after learning from"

#: Tags each of some papers.
TagAll = Callable[[Sequence[Paper]], list[tuple[Tag, ...]]]
#: A ``TagAll`` with the tagger it is given: a build's takes tags from its memo and a forked child.
TagAllBy = Callable[["Tagger"], TagAll]


def tag_twice(
    tagger: Tagger,
    papers: Sequence[Paper],
    tag_all_by: TagAllBy,
    teachers_elsewhere: Sequence[Exemplar] = (),
    on_taught: Callable[[Taught], None] | None = None,
) -> list[tuple[Tag, ...]]:
    """The tags of ``papers``, those the first tagger was unsure of tagged again after the sure ones taught it.

    ``teachers_elsewhere``: sure entries of the library that are not among ``papers`` (a patched rebuild's);
    ``on_taught`` is told what taught the second pass and which papers were unsure (a build keeps it for a patch).
    """
    first = tag_all_by(tagger)(papers)
    taught = tuple(sorted({*teachers_elsewhere, *teachers(papers, first)}, key=lambda e: (e.key, e.title, e.sections)))
    again = unsure(first)
    if on_taught is not None:
        on_taught(Taught(taught, frozenset(papers[i].key for i in again)))
    if not taught or not again:
        return list(first)
    second = tag_all_by(tagger.taught(taught))([papers[i] for i in again])
    return merged(first, dict(zip(again, second, strict=True)), len(taught))


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
    evidence = (*primary.evidence, f"{AGAIN} {teacher_count} sure entries of this library")
    score = round(calibration.self_taught(primary.score), 3)
    return (replace(primary, score=score, evidence=evidence), *found[1:])


def merged(
    first: Sequence[tuple[Tag, ...]], again: dict[int, tuple[Tag, ...]], teacher_count: int
) -> list[tuple[Tag, ...]]:
    """``first`` with the entries tagged again (index -> the second tagger's tags) replaced."""
    return [taught_tags(again[i], teacher_count) if again.get(i) else tags for i, tags in enumerate(first)]


class Taught(NamedTuple):
    """What a build's second tagger learned from, and the keys of the entries it tags again (``unsure``) when
    anything taught it."""

    teachers: tuple[Exemplar, ...] = ()
    unsure: frozenset[str] = frozenset()

    def to_plain(self) -> tuple:
        return tuple(tuple(e) for e in self.teachers), tuple(sorted(self.unsure))

    @classmethod
    def from_plain(cls, data: tuple) -> Taught:
        teachers, keys = data
        return cls(tuple(Exemplar(*e) for e in teachers), frozenset(keys))

    def after_patch(self, changed: set[str], news: Taught) -> Taught:
        """This with the entries whose keys ``changed`` tagged anew (``news``: what tagging them was told)."""
        return Taught(news.teachers, frozenset(self.unsure - changed) | news.unsure)


def teachers_beside(last: Taught, changed: set[str], papers: Sequence[Paper], tagger: Tagger) -> list[Exemplar] | None:
    """For a patched rebuild: the last build's teachers but those whose keys ``changed`` (gone or read again),
    for ``tag_twice`` to tag ``papers`` (those read again) as a full build would. None when what the second
    tagger learns changes while other entries are unsure: a full build tags them anew."""
    kept = [t for t in last.teachers if t.key not in changed]
    if set(kept).union(teachers(papers, tagger.tag_each(papers))) != set(last.teachers) and last.unsure - changed:
        return None
    return kept
