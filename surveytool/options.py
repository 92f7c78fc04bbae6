"""What a run is asked to do: the analysis options, the drafting options, and every path a build writes."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from surveytool.bibtex.format_options import STANDARD, BibFormat

#: Pins every key to the paper it was given to, beside the outputs (``analysis/keys.py``).
LOCK_FILE = "surveytool.lock.json"
#: The folder of a build's memos and snapshot, inside the out folder (``rebuild/``).
CACHE_FOLDER = ".surveytool-cache"


@dataclass(frozen=True)
class Options:
    """What a run reads and how; the defaults are the bundled seeds, taxonomy and catalog."""

    sources: tuple[Path, ...] = ()
    taxonomy: Path | None = None
    catalogs: tuple[Path, ...] = ()
    bundled_catalog: bool = True
    source_kind: str | None = None
    tags_field: str = "sections"
    lock_file: Path | None = None
    overrides: Path | None = None
    online: bool = False
    config: Path | None = None
    cache: Path | None = None  # where online answers are kept; default beside the outputs
    build_cache: Path | None = None  # folder of the per-entry memos that make rebuilds fast (rebuild/); None: none
    merge_duplicates: bool = (
        False  # also merge the user's own keyed entries that are one work (absorbed keys become aliases)
    )
    key_formula: str | None = None  # new entries' keys (analysis/key_formula.py); None: [keys] formula, or the default

    def read_files(self) -> tuple[Path, ...]:
        """The user's files this run reads, none of which an output may replace."""
        named = (*self.sources, *self.catalogs, self.taxonomy, self.overrides, self.config)
        return tuple(path for path in named if path is not None)


@dataclass(frozen=True)
class DraftOptions:
    level: str = "section"
    templates: Path | None = None
    dialect: str = "bibtex"
    bibliography: str = "references"
    chapter_file: str = "related_work"
    figure: bool = True  # the taxonomy tree (forest)
    table: bool = True  # the summary table (longtable)
    plot: bool = True  # papers per year (pgfplots)
    themes: bool = True  # a large section's papers under \paragraph headings by theme
    comparisons: bool = True  # a table per section of the facts its papers' abstracts state
    force: bool = False  # overwrite generated .tex files even if edited outside the notes regions
    bib_format: BibFormat = STANDARD  # the .bib's layout: the [bib] table of surveytool.toml, if any


@dataclass(frozen=True)
class BuildLayout:
    """Every path of a build into ``out``, computed once from the drafting options."""

    out: Path
    bibliography: Path
    chapter: Path
    main: Path
    entries: Path
    lock: Path
    cache: Path

    @classmethod
    def of(cls, out: Path, draft: DraftOptions = DraftOptions(), lock: Path | None = None) -> BuildLayout:
        return cls(
            out,
            out / f"{draft.bibliography}.bib",
            out / f"{draft.chapter_file}.tex",
            out / "main.tex",
            out / "entries.json",
            lock or out / LOCK_FILE,
            out / CACHE_FOLDER,
        )

    @property
    def generated_tex(self) -> tuple[Path, Path]:
        """The LaTeX files the author may write prose in."""
        return self.chapter, self.main

    def written(self) -> list[Path]:
        """Every file a build writes (and the backups it may leave), for the removal of a killed build's temporaries."""
        return [
            self.bibliography,
            self.chapter,
            self.chapter.with_name(self.chapter.name + ".bak"),
            self.main,
            self.main.with_name("main.tex.bak"),
            self.entries,
        ]
