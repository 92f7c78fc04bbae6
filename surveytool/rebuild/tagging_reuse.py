"""Tagging for a build: tags of a text seen before taken from a memo, the rest computed partly in a forked child.

The pipeline starts tagging the entries as read (``ahead``) while it merges duplicates and
assigns keys; then this process tags from the other end until the two meet. Tags depend only on
a paper's ``text_of``, on whether it is a paragraph of a related-paper list (exempt from the tagger's
"of the field, by its title" factor) and on the tagger (taxonomy, what the model learned from), so
``tag_all`` then computes only the papers that merging or resolution changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from surveytool.analysis.section_names import canonical_section
from surveytool.analysis.tagging.tagger import Tagger, blend_settings, text_of
from surveytool.digest import digest_text
from surveytool.model import Origin, Paper, Tag
from surveytool.parallel import FromBothEnds, map_beside, worth_sharing
from surveytool.rebuild.memo import Memo, tags_from_plain, tags_to_plain

#: Tagging an entry costs about twice the work of reading or writing one (``parallel.worth_sharing``).
TAGGING_COST = 2


def _tagged_text(paper: Paper) -> tuple[str, ...]:
    """What a paper's tags depend on: its ``text_of``, and whether it is a list's paragraph (``Tagger.blend``)."""
    return (*text_of(paper), "snippet" if paper.origin is Origin.SNIPPET else "")


class TagsAhead:
    """Tags of some texts, a forked child computing them meanwhile; stopped on leaving a ``with``."""

    def __init__(self, texts: list[tuple[str, ...]], work: FromBothEnds | None):
        self._texts = texts
        self._work = work

    def __enter__(self) -> TagsAhead:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._work is not None:
            self._work.close()

    def result(self) -> dict[tuple[str, ...], tuple]:
        """Text -> its tags as plain data: this process tags what the child has not reached yet."""
        return dict(zip(self._texts, self._work.results(), strict=True)) if self._work is not None else {}


class ReusingTagger:
    """A tagger whose results are kept in ``memo`` (none: nothing kept) and shared with a forked child."""

    def __init__(self, tagger: Tagger, memo: Memo | None = None):
        self.tagger = tagger
        self.memo = memo
        # What a memoized tag depends on besides the paper: the taxonomy, what the model learned from and the
        # library's shares its blends are weighed by.
        parts = (tagger.model.digest, repr(tagger.library_shares), repr(blend_settings()))
        self.digest = digest_text(repr(tagger.taxonomy.sections), *parts)
        self._memo_keys: dict[tuple[str, ...], str] = {}

    def memo_key(self, text: tuple[str, ...]) -> str:
        """What computed tags depend on: the paper's ``_tagged_text`` and the tagger."""
        key = self._memo_keys.get(text)
        if key is None:  # asked twice per entry in a run (tag_beside, tag_all): digested once
            key = self._memo_keys[text] = digest_text(self.digest, *text)
        return key

    def tag_beside(self, papers: Sequence[Paper]) -> TagsAhead:
        """Start tagging ``papers`` (those not in the memo) in a forked child; pass its result to ``tag_all``."""
        memo = self.memo
        todo: dict[tuple[str, ...], Paper] = {}
        for paper in papers:
            text = _tagged_text(paper)
            # tag_papers computes every entry whose tags name no section (a JabRef group "To read" names none).
            placed = any(canonical_section(tag, self.tagger.taxonomy) for tag in paper.explicit_tags)
            if not placed and (memo is None or memo.peek(self.memo_key(text)) is None):
                todo.setdefault(text, paper)
        if not worth_sharing(TAGGING_COST * len(todo)):
            return TagsAhead([], None)
        return TagsAhead(
            list(todo), FromBothEnds(lambda paper: tags_to_plain(self.tagger.tag(paper)), list(todo.values()))
        )

    def tag_all(
        self, papers: Sequence[Paper], ahead: Mapping[tuple[str, ...], tuple] | None = None
    ) -> list[tuple[Tag, ...]]:
        """The tags of each paper, taken from the memo (the same text and tagger in an earlier run) or
        ``ahead`` (``tag_beside``'s result) where they have it."""
        memo = self.memo
        ahead = ahead or {}
        texts = [_tagged_text(p) for p in papers]
        keys = [self.memo_key(text) for text in texts] if memo is not None else [""] * len(papers)
        known = [memo.get(key) for key in keys] if memo is not None else [None] * len(papers)
        todo = [i for i, stored in enumerate(known) if stored is None and texts[i] not in ahead]
        computed = dict(zip(todo, self._tag_many([papers[i] for i in todo]), strict=True))
        decoded: dict[tuple, tuple[Tag, ...]] = {}  # far fewer distinct tag lists than entries

        def from_plain(plain: tuple) -> tuple[Tag, ...]:
            found = decoded.get(plain)
            if found is None:
                found = decoded[plain] = tags_from_plain(plain)
            return found

        tags = []
        for index, (key, stored) in enumerate(zip(keys, known, strict=True)):
            if index in computed:
                tags.append(computed[index])
                if memo is not None:
                    memo.put(key, tags_to_plain(computed[index]))
            elif stored is not None:
                tags.append(from_plain(stored))
            else:  # computed ahead
                tags.append(from_plain(ahead[texts[index]]))
                if memo is not None:
                    memo.put(key, ahead[texts[index]])
        return tags

    def _tag_many(self, papers: Sequence[Paper]) -> list[tuple[Tag, ...]]:
        if not worth_sharing(TAGGING_COST * len(papers)):
            return self.tagger.tag_each(papers)
        return map_beside(self.tagger.tag, papers, tags_to_plain, tags_from_plain)
