"""A build's reuse strategy (``pipeline.Reuse``): per-entry memos in the cache folder, and work shared with a forked child."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from surveytool.analysis.merge import IdentityCache
from surveytool.analysis.tagging.exemplars import Exemplar
from surveytool.analysis.tagging.self_training import TagAll, TagAllBy, Taught
from surveytool.analysis.tagging.tagger import Tagger
from surveytool.model import Finding, Paper
from surveytool.pipeline import Options, Stage, Survey, analyse, silent_stage
from surveytool.rebuild.bib_reading import ReusingBibReader
from surveytool.rebuild.exemplars import remember_exemplars
from surveytool.rebuild.memo import BuildCache
from surveytool.rebuild.tagging_reuse import ReusingTagger
from surveytool.rebuild.trace import Trace, entry_facts
from surveytool.sources.read import ReadResult


class BuildReuse:
    """Memos in ``folder`` (none when it is None: the forked child still shares the work); ``trace`` after a run."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self.memos = BuildCache(folder)
        self.read_bib = ReusingBibReader(self.memos.memo("bibtex"))
        self.trace: Trace | None = None

    def learned_from(self, exemplars: Sequence[Exemplar]) -> None:
        remember_exemplars(self.folder, exemplars)

    def tag_beside(self, tagger: Tagger, papers: Sequence[Paper]) -> AbstractContextManager[Any]:
        return ReusingTagger(tagger, self.memos.memo("tags")).tag_beside(papers)

    def tag_all_by(self, tagger: Tagger, ahead: Any) -> TagAllBy:
        known = ahead.result()

        def by(chosen: Tagger) -> TagAll:
            reusing = ReusingTagger(chosen, self.memos.memo("tags"))
            # What the child computed ahead is the first tagger's.
            return lambda todo: reusing.tag_all(todo, known if chosen is tagger else None)

        return by

    def record(
        self,
        displays: Sequence[str],
        read: ReadResult,
        keyed: Sequence[tuple[Paper, Paper]],
        identities: IdentityCache,
        pins: dict[str, str],
        taught: Taught,
    ) -> None:
        if self.folder is None:
            return
        self.trace = Trace(
            tuple(self.read_bib.layouts.get(display) for display in displays),
            not any(f.check == "encoding" for f in read.findings),
            entry_facts(read.papers, keyed, identities, pins),
            taught,
        )

    def finish(self) -> tuple[list[Finding], dict[str, tuple[int, int]]]:
        self.memos.save()
        return list(self.memos.discarded), self.memos.stats()


def analyse_reusing(options: Options, stage: Stage = silent_stage) -> Survey:
    """``analyse`` as the commands run it: with the memos of ``options.build_cache`` (if any) and a forked child."""
    return analyse(options, stage, BuildReuse(options.build_cache))
