"""Papers x taxonomy -> tags: a primary section, secondary ones, and the evidence for each.

Rules first: weighted field vocabulary from the taxonomy, matched in the title,
abstract, venue and keywords. Where no rule fires, a TF-IDF nearest-section
suggester (``suggester.py``) proposes a section, marked as a suggestion. Tags the user gave are
kept as they are and never overwritten.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace

from .forked import FromBothEnds, can_fork, map_beside
from .memo import Memo, digest_text, tags_from_plain, tags_to_plain
from .models import Finding, Paper, Role, Severity, Tag, Taxonomy
from .suggester import Suggester
from .taxonomy import canonical_section, suggest_section
from .vocabulary import PhraseMatcher

# How much a phrase counts, by the field it was found in.
FIELD_WEIGHTS = (("title", 2.0), ("abstract", 1.0), ("keywords", 1.5), ("booktitle", 0.5), ("journal", 0.5))
MIN_PRIMARY_SCORE = 1.0
SECONDARY_RATIO = 0.5
MIN_SECONDARY_SCORE = 2.5
MAX_SECONDARIES = 2
#: From this many papers to tag, tagging is shared with a forked child (``forked.py``).
PARALLEL_FROM_PAPERS = 2000


def text_of(paper: Paper) -> tuple[str, ...]:
    """The fields tags are computed from."""
    return tuple(paper.fields.get(f, "") for f, _ in FIELD_WEIGHTS)


class TagsAhead:
    """Tags of some texts, a forked child computing them meanwhile (``Tagger.tag_beside``); stopped on leaving a ``with``."""

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


class Tagger:
    """The taxonomy's vocabulary compiled once into a phrase matcher, and a suggester for the rest."""

    def __init__(self, taxonomy: Taxonomy):
        self.taxonomy = taxonomy
        self.order = {s.id: i for i, s in enumerate(taxonomy.sections)}
        by_phrase: dict[str, list[tuple[str, float]]] = defaultdict(list)
        for section in taxonomy.sections:
            for phrase, weight in section.keywords.items():
                by_phrase[phrase.strip().lower()].append((section.id, weight))
        self.weights = {phrase: tuple(sections) for phrase, sections in by_phrase.items()}
        self.matcher = PhraseMatcher(sorted(by_phrase))
        self.suggester = Suggester(taxonomy, tuple(f for f, _ in FIELD_WEIGHTS))
        self.digest = digest_text(repr(taxonomy.sections))  # what a memoized tag depends on besides the paper
        self._memo_keys: dict[tuple[str, ...], str] = {}

    def memo_key(self, text: tuple[str, ...]) -> str:
        """What computed tags depend on: the paper's ``text_of`` and the taxonomy."""
        key = self._memo_keys.get(text)
        if key is None:  # asked twice per entry in a run (tag_beside, tag_all): digested once
            key = self._memo_keys[text] = digest_text(self.digest, *text)
        return key

    def tag_beside(self, papers: Sequence[Paper], memo: Memo | None = None) -> TagsAhead:
        """Start tagging ``papers`` (those not in ``memo``) in a forked child; pass its result to ``tag_all``.

        The pipeline tags the entries as read while it merges duplicates and
        assigns keys; then this process tags from the other end until the two
        meet. Tags depend only on the text, so ``tag_all`` then computes only
        the papers that merging or resolution changed.
        """
        todo: dict[tuple[str, ...], Paper] = {}
        for paper in papers:
            text = text_of(paper)
            if not paper.explicit_tags and (memo is None or memo.peek(self.memo_key(text)) is None):
                todo.setdefault(text, paper)
        if len(todo) < PARALLEL_FROM_PAPERS or not can_fork():
            return TagsAhead([], None)
        return TagsAhead(list(todo), FromBothEnds(lambda paper: tags_to_plain(self.tag(paper)), list(todo.values())))

    def tag_all(self, papers: Sequence[Paper], memo: Memo | None = None,
                ahead: Mapping[tuple[str, ...], tuple] | None = None) -> list[tuple[Tag, ...]]:
        """``tag(paper)`` for each paper, taken from ``memo`` (tags of the same text and taxonomy in an
        earlier run) or ``ahead`` (``tag_beside``'s result) where they have it."""
        ahead = ahead or {}
        texts = [text_of(p) for p in papers]
        keys = [self.memo_key(text) for text in texts] if memo is not None else [""] * len(papers)
        known = [memo.get(key) for key in keys] if memo is not None else [None] * len(papers)
        todo = [i for i, stored in enumerate(known) if stored is None and texts[i] not in ahead]
        computed = dict(zip(todo, self._tag_many([papers[i] for i in todo]), strict=True))
        decoded: dict[tuple, tuple[Tag, ...]] = {}  # a few thousand distinct tag lists among 16k entries

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
        if len(papers) < PARALLEL_FROM_PAPERS:
            return [self.tag(p) for p in papers]
        return map_beside(self.tag, papers, tags_to_plain, tags_from_plain)

    def score(self, paper: Paper) -> dict[str, tuple[float, list[str]]]:
        """Section id -> (score, evidence phrases) from the vocabulary."""
        totals: dict[str, float] = defaultdict(float)
        evidence: dict[str, list[str]] = defaultdict(list)
        for field, field_weight in FIELD_WEIGHTS:
            text = paper.fields.get(field)
            if not text:
                continue
            seen: set[str] = set()
            for phrase, matched in self.matcher.find(text):
                if phrase.text in seen:
                    continue  # a phrase counts once per field
                seen.add(phrase.text)
                for section_id, weight in self.weights[phrase.text]:
                    totals[section_id] += weight * field_weight
                    evidence[section_id].append(f"{field}: \"{matched}\"")
        return {s: (round(totals[s], 3), evidence[s]) for s in totals}

    def tag(self, paper: Paper) -> tuple[Tag, ...]:
        scores = self.score(paper)
        ranked = sorted(scores.items(), key=lambda item: (-item[1][0], self.order[item[0]]))
        if not ranked or ranked[0][1][0] < MIN_PRIMARY_SCORE:
            suggestion = self.suggester.suggest(paper)
            if suggestion is None:
                return ()
            section_id, similarity, words = suggestion
            return (Tag(section_id, Role.PRIMARY, round(similarity, 3), tuple(f"similar words: {w}" for w in words), suggested=True),)
        top = ranked[0][1][0]
        tags = [Tag(ranked[0][0], Role.PRIMARY, top, tuple(ranked[0][1][1]))]
        for section_id, (score, found) in ranked[1:]:
            if len(tags) > MAX_SECONDARIES or score < max(MIN_SECONDARY_SCORE, SECONDARY_RATIO * top):
                break
            tags.append(Tag(section_id, Role.SECONDARY, score, tuple(found)))
        return tuple(tags)


def explicit_tags(paper: Paper, taxonomy: Taxonomy) -> tuple[tuple[Tag, ...], tuple[str, ...], list[Finding]]:
    """The user's own tags as section ids, the ones naming no section, and a finding for each that is not an id."""
    tags: list[Tag] = []
    unknown: list[str] = []
    findings: list[Finding] = []
    where = min(paper.sources)
    for raw in paper.explicit_tags:
        section_id = canonical_section(raw, taxonomy)
        if section_id is None:
            unknown.append(raw)
            guess = suggest_section(raw, taxonomy)
            findings.append(Finding("unknown-tag", Severity.ERROR, f"tag '{raw}' is not a section of the taxonomy", where,
                                    f"did you mean '{guess}'?" if guess else "see `surveytool taxonomy` for the section ids", paper.key))
            continue
        if section_id != raw:
            findings.append(Finding("tag-variant", Severity.WARNING, f"tag '{raw}' is written differently from its section id '{section_id}'",
                                    where, f"write '{section_id}'; surveytool check --fix does this", paper.key))
        if all(t.section != section_id for t in tags):
            role = Role.PRIMARY if not tags else Role.SECONDARY
            tags.append(Tag(section_id, role, 1.0, (f"given by the user as '{raw}'",), explicit=True))
    return tuple(tags), tuple(unknown), findings


def tag_papers(papers: Sequence[Paper], taxonomy: Taxonomy, tagger: Tagger | None = None,
               memo: Memo | None = None, ahead: dict[str, tuple] | None = None) -> tuple[list[Paper], list[Finding]]:
    """Every paper with tags: the user's when given, the tagger's (or ``memo``'s, or ``ahead``'s) otherwise."""
    tagger = tagger or Tagger(taxonomy)
    given = [explicit_tags(paper, taxonomy) for paper in papers]
    computed = iter(tagger.tag_all([p for p, (tags, _, _) in zip(papers, given, strict=True) if not tags], memo, ahead))
    tagged: list[Paper] = []
    findings: list[Finding] = []
    for paper, (tags, unknown, problems) in zip(papers, given, strict=True):
        findings.extend(problems)
        tags = tags or next(computed)
        if not tags and not paper.explicit_tags:  # unknown tags the user gave are reported as unknown-tag
            findings.append(Finding("no-section", Severity.WARNING, "no section could be chosen for this entry",
                                    min(paper.sources), "add a sections field naming its section", paper.key))
        tagged.append(replace(paper, tags=tags, unknown_tags=unknown))
    return tagged, findings
