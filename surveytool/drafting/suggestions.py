"""Suggested paragraphs for the chapter's themes: one checked draft per theme, from the answer cache or the model.

A suggestion sits in its theme's block of the chapter, below the author's notes region and never in it;
the chapter's renderer prints it as generated text, regenerated on every ``draft``. Without a client
(no ``--llm``) nothing is asked: suggestions already cached for the same papers are shown again, so a
rebuild is stable and needs no network.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from surveytool.drafting.answer_cache import AnswerCache
from surveytool.drafting.grounded import HALLUCINATED, MALFORMED, DraftTheme, ThemeDraft, ThemePaper, draft_theme
from surveytool.drafting.llm_client import LlmClient
from surveytool.drafting.llm_settings import LlmSettings
from surveytool.model import Finding, Severity
from surveytool.output.chapter_view import UNCLASSIFIED, GroupView, SectionView, ThemeView
from surveytool.text.latex import LatexMarkup


@dataclass
class Suggester:
    """Adds suggestions to the chapter's groups and keeps what it did for the run's summary."""

    settings: LlmSettings
    cache: AnswerCache
    client: LlmClient | None = None
    drafts: list[ThemeDraft] = field(default_factory=list)
    _notes: Mapping[str, str] = field(default_factory=dict)
    _taken: int = 0  # suggestions the author's notes hold whole: not written again

    @classmethod
    def for_chapter(cls, settings: LlmSettings, cache_folder: Path | None, client: LlmClient | None) -> Suggester:
        return cls(settings, AnswerCache(cache_folder), client)

    def __call__(self, groups: Sequence[GroupView], notes: Mapping[str, str] | None = None) -> list[GroupView]:
        """``groups`` with their suggestions; ``notes`` (region id -> the author's text) holds what was taken."""
        self._notes = notes or {}
        bibliography = {v.key for g in groups for s in g.sections for v in s.papers}
        try:
            return [
                replace(group, sections=tuple(self._section(s, bibliography) for s in group.sections))
                for group in groups
            ]
        finally:  # kept at once: a chapter that is then not written (edited outside its notes), or ^C, keeps them
            self.save()

    def _section(self, section: SectionView, bibliography: set[str]) -> SectionView:
        if section.id == UNCLASSIFIED or not section.papers or not self.settings.model:
            return section
        blocks = tuple(self._block(section, block, bibliography) for block in section.blocks)
        return replace(section, themes=blocks)

    def _block(self, section: SectionView, block: ThemeView, bibliography: set[str]) -> ThemeView:
        theme = DraftTheme(
            section.id,
            block.name or section.title,
            tuple(ThemePaper(v.key, v.title, v.year or None, v.snippet) for v in block.papers),
            section.title,
        )
        draft = draft_theme(theme, bibliography, self.cache, self.settings, self.client)
        self.drafts.append(draft)
        # A line the author copied into the block's notes ("move what you keep") would be printed twice.
        taken = " ".join(self._notes.get(block.region or section.id, "").split())
        lines = [line for line in draft.text.split("\n") if not (taken and " ".join(line.split()) in taken)]
        self._taken += bool(draft.text) and not lines
        return replace(block, suggested=LatexMarkup("\n".join(lines)))

    def findings(self) -> list[Finding]:
        found = [f for d in self.drafts for f in d.findings()]
        given_up = [d for d in self.drafts if d.source == "given-up"]
        if given_up:
            found.append(
                Finding(
                    check="llm-failed",
                    severity=Severity.WARNING,
                    message=f"{len(given_up)} theme(s) not asked: the model was given up on ({given_up[-1].error})",
                    hint="the notes and the rest of the chapter are unchanged; run draft --llm again later",
                )
            )
        if self.cache.problem:
            found.append(Finding(check="llm-cache", severity=Severity.INFO, message=self.cache.problem))
        return found

    def summary(self) -> str:
        """One line: what was asked, reused and dropped; '' when nothing was drafted."""
        sources = [d.source for d in self.drafts]
        written = sum(bool(d.text) for d in self.drafts) - self._taken
        failed, given_up = sources.count("failed"), sources.count("given-up")
        asked = sources.count("model") + failed  # a failed request was sent all the same
        if not written and not asked and not given_up:
            return ""
        kinds = Counter(r.kind for d in self.drafts for r in d.rejections)
        # Given up on for failing, for a wait it asked for, or for the spent time budget: its warning says which.
        not_asked = f", {given_up} not asked after the model was given up on" if given_up else ""
        if self._taken:
            not_asked += f", {self._taken} already in your notes"
        if sources.count("none"):  # without --llm: papers changed since, or another run's answers
            not_asked += f", {sources.count('none')} not in the cache (draft --llm asks for them)"
        malformed = f", {kinds[MALFORMED]} for a citation that does not read" if kinds[MALFORMED] else ""
        return (
            f"suggested paragraphs: {written} of {len(self.drafts)} themes ({asked} asked, "
            f"{sources.count('cache')} from the cache, {failed} failed{not_asked}); "
            f"{kinds.total()} sentence(s) dropped: {kinds[HALLUCINATED]} for citing a key that is not one of their "
            f"theme's papers (or in no entry at all){malformed}"
        )

    def save(self) -> str:
        """Keep the answers, this chapter's first (the oldest others go past a limit); the problem as text, else ''."""
        return self.cache.save(used={d.cache_key for d in self.drafts if d.cache_key})
