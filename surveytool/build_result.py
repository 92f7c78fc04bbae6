"""What a build reports: a summary for the CLI, notes on the author's files, and the analysis behind it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from surveytool.model import Finding, Taxonomy
from surveytool.options import Options
from surveytool.output.prose import ProseNote
from surveytool.pipeline import Survey
from surveytool.rebuild.reuse import analyse_reusing


@dataclass(frozen=True)
class BuildSummary:
    """What the CLI says of a build."""

    entries: int
    resolved: int
    sections: Counter  # primary section id ("unclassified" for none) -> papers
    findings: tuple[Finding, ...]
    reused: dict[str, tuple[int, int]]  # what was reused from the last build -> (reused, done anew)
    taxonomy: Taxonomy
    discussed: tuple[int, int] | None = None  # (papers your notes cite, papers the chapter cites)


class BuildResult:
    """A build's summary and notes, and its survey: after a patched build (patch.py) analysed on first use."""

    def __init__(
        self,
        summary: BuildSummary,
        notes: tuple[ProseNote, ...],
        survey: Survey | None = None,
        options: Options | None = None,
    ):
        self.summary = summary
        self.notes = notes  # what happened to the author's prose and files, for the user
        self._survey = survey
        self._options = options

    @property
    def survey(self) -> Survey:
        if self._survey is None:
            assert self._options is not None
            self._survey = analyse_reusing(self._options)
        return self._survey
