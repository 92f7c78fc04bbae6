"""The analysis of a run as library calls: read, merge, resolve, key, tag (``build.py`` writes).

Nothing here prints; the CLI presents what these functions return.
"""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from surveytool import __version__
from surveytool.analysis.key_fates import key_findings, lost_pin_findings
from surveytool.analysis.key_formula import DEFAULT, KeyFormula, compile_formula, formula_option
from surveytool.analysis.key_lock import load_pins
from surveytool.analysis.keys import assign_keys, pinned_keys
from surveytool.analysis.merge import IdentityCache, merge_records
from surveytool.analysis.resolve.resolver import CatalogResolver, Resolver, resolve_papers
from surveytool.analysis.section_checks import tags_field_hints
from surveytool.analysis.tagging.exemplars import Exemplar, user_exemplars
from surveytool.analysis.tagging.self_training import TagAllBy, Tagging, Taught
from surveytool.analysis.tagging.tagger import Tagger, tag_papers
from surveytool.analysis.taxonomy import load_taxonomy
from surveytool.bibtex.order import in_bibtex_order
from surveytool.bibtex.reader import read_bibtex
from surveytool.model import Finding, Paper, RawBlock, Severity, Taxonomy
from surveytool.options import Options
from surveytool.resources import DEFAULT_TAXONOMY_NAME, default_catalog, default_taxonomy, seed_lists
from surveytool.sources.overrides import apply_overrides, load_overrides
from surveytool.sources.read import BibReader, ReadResult, read_source, read_sources
from surveytool.sources.stdin import STDIN_NAME, is_stdin


@dataclass(frozen=True)
class Survey:
    """The result of analysing the sources: nothing written yet."""

    papers: tuple[Paper, ...]
    blocks: tuple[RawBlock, ...]
    findings: tuple[Finding, ...]
    taxonomy: Taxonomy
    pins: dict[str, str] = field(default_factory=dict)
    tags_field: str = "sections"
    reused: dict[str, tuple[int, int]] = field(default_factory=dict)  # memo -> (hits, misses), with a build cache
    tagging: Tagging | None = None  # what tagged the entries (set by ``analyse``): --explain shows what it weighed

    def section_counts(self) -> Counter:
        return Counter(p.primary_section or "unclassified" for p in self.papers)


def source_paths(options: Options) -> list[tuple[Path, str]]:
    """(path, name shown in messages): user paths as given, bundled seeds as ``seeds/<name>``."""
    if options.sources:
        return [(p, STDIN_NAME if is_stdin(p) else str(p)) for p in options.sources]
    return [(p, f"seeds/{p.name}") for p in seed_lists()]


DEFAULT_CACHE = Path(".surveytool-cache.sqlite")


def catalog_paths(options: Options) -> list[Path]:
    """The catalogs a run resolves against, in order: the bundled one, then --catalog files."""
    return ([default_catalog()] if options.bundled_catalog else []) + list(options.catalogs)


def options_taxonomy(options: Options) -> Taxonomy:
    """The taxonomy of ``options``: its file, or the bundled one (named as in the seeds folder)."""
    return load_taxonomy(options.taxonomy or default_taxonomy(), None if options.taxonomy else DEFAULT_TAXONOMY_NAME)


def read_catalogs(options: Options) -> list[tuple[CatalogResolver, ReadResult]]:
    """Each catalog (the bundled one, then --catalog files) as a resolver, with what was read of it."""
    found = []
    for path in catalog_paths(options):
        display = "seeds/catalog.bib" if path == default_catalog() else str(path)
        result = read_source(path, display, "bib")
        found.append((CatalogResolver(result.papers, f"catalog:{display}"), result))
    return found


def load_resolvers(options: Options, services: Sequence[str] | None = None) -> list[Resolver]:
    """Catalogs first (the bundled one, then --catalog files), then online services if asked for (``services``:
    which, by name; default: the settings' ``services``)."""
    resolvers: list[Resolver] = [resolver for resolver, _ in read_catalogs(options)]
    if options.online:
        from surveytool.analysis.resolve.http import HttpClient, HttpSettings
        from surveytool.analysis.resolve.response_cache import ResponseCache
        from surveytool.analysis.resolve.services import online_resolvers
        from surveytool.online_settings import load_online_settings
        from surveytool.output.files import refuse_writing_over

        cache = options.cache or DEFAULT_CACHE
        # A file SQLite cannot read is set aside as a damaged cache: never one of the user's files.
        refuse_writing_over([cache], options.read_files(), "name another --cache")
        settings = load_online_settings(options.config)
        agent = (
            f"surveytool/{__version__} (mailto:{settings.contact})" if settings.contact else f"surveytool/{__version__}"
        )
        client = HttpClient(
            HttpSettings(
                agent,
                settings.timeout,
                settings.retries,
                settings.backoff,
                min_interval=settings.min_interval,
                max_wait=settings.max_wait,
                max_bytes=settings.max_bytes,
                budget=settings.budget,
                give_up_after=settings.give_up_after,
            ),
            ResponseCache(cache, settings.max_bytes),
        )
        resolvers.extend(online_resolvers(settings, client, services))
    return resolvers


def _resolver_findings(resolvers: Sequence[Resolver]) -> list[Finding]:
    """Service failures, one per entry and service: the run went on with what it had."""
    findings = []
    for resolver in resolvers:
        for paper, error in getattr(resolver, "errors", ()):
            findings.append(
                Finding(
                    "resolver-error",
                    Severity.WARNING,
                    f"{error.service} gave no usable answer: {error.message}",
                    min(paper.sources),
                    "rerun later; answers already received are cached",
                    paper.key,
                )
            )
    caches = {
        id(cache): cache for r in resolvers if (cache := getattr(getattr(r, "client", None), "cache", None)) is not None
    }
    for cache in caches.values():
        findings += [
            Finding("online-cache", Severity.INFO, problem, None, "nothing to do: those answers were asked again")
            for problem in cache.problems()
        ]
    return findings


#: The stages analyse() runs, in order (a progress display counts them).
ANALYSIS_STAGES = ("reading", "merging duplicates", "resolving", "keys", "tagging")


class Stage(Protocol):
    """Called around each stage of a run: a progress display or a benchmark's timer."""

    def __call__(self, name: str) -> AbstractContextManager[None]: ...


@contextmanager
def silent_stage(name: str) -> Iterator[None]:
    yield


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off for the duration, then back as it was.

    A run allocates a million or so long-lived objects (blocks, fields, papers)
    and makes almost no garbage cycles, but the collector walks all of them
    again and again, a large share of a big build. Reference counting frees
    memory as usual meanwhile.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class Reuse(Protocol):
    """How an analysis reuses earlier work and spare cores. ``NoReuse`` reuses nothing; a build
    passes one that keeps memos in its cache folder and shares work with a forked child
    (``rebuild/reuse.py``)."""

    @property
    def read_bib(self) -> BibReader: ...

    def learned_from(self, exemplars: Sequence[Exemplar]) -> None: ...

    def tag_beside(self, tagger: Tagger, papers: Sequence[Paper]) -> AbstractContextManager[Any]: ...

    def tag_all_by(self, tagger: Tagger, ahead: Any) -> TagAllBy:
        """How ``tag_papers`` tags, given the tagger it chose (``tagger``, or the second pass's)."""
        ...

    def record(
        self,
        displays: Sequence[str],
        read: ReadResult,
        keyed: Sequence[tuple[Paper, Paper]],
        identities: IdentityCache,
        pins: dict[str, str],
        taught: Taught,
    ) -> None: ...

    def finish(self) -> tuple[list[Finding], dict[str, tuple[int, int]]]: ...


class NoReuse:
    """Every stage computed anew, in this process."""

    read_bib: BibReader = staticmethod(read_bibtex)

    def learned_from(self, exemplars: Sequence[Exemplar]) -> None:
        pass

    @contextmanager
    def tag_beside(self, tagger: Tagger, papers: Sequence[Paper]) -> Iterator[None]:
        yield None

    def tag_all_by(self, tagger: Tagger, ahead: Any) -> TagAllBy:
        return lambda chosen: chosen.tag_each

    def record(
        self,
        displays: Sequence[str],
        read: ReadResult,
        keyed: Sequence[tuple[Paper, Paper]],
        identities: IdentityCache,
        pins: dict[str, str],
        taught: Taught,
    ) -> None:
        pass

    def finish(self) -> tuple[list[Finding], dict[str, tuple[int, int]]]:
        return [], {}


def analyse(options: Options = Options(), stage: Stage = silent_stage, reuse: Reuse | None = None) -> Survey:
    """Read, merge, resolve, key and tag the sources of ``options``."""
    with collector_paused():
        return _analyse(options, stage, reuse or NoReuse())


def _analyse(options: Options, stage: Stage, reuse: Reuse) -> Survey:
    taxonomy = options_taxonomy(options)
    formula = key_formula(options)  # a formula that cannot be read stops the run before any work
    sources = source_paths(options)
    with stage("reading"):
        read = read_sources(sources, options.source_kind, options.tags_field, reuse.read_bib)
    exemplars = user_exemplars(read.papers, taxonomy)
    reuse.learned_from(exemplars)
    tagger = Tagger(taxonomy, exemplars)
    identities = IdentityCache()  # shared by both merges and the keys
    # The reuse may tag the entries as read elsewhere while duplicates merge and keys are assigned here.
    with reuse.tag_beside(tagger, read.papers) as ahead:
        with stage("merging duplicates"):
            papers, merge_findings = merge_records(read.papers, identities, merge_user_entries=options.merge_duplicates)
        with stage("resolving"):
            unresolved = sum(not p.resolved for p in papers)
            resolvers = load_resolvers(options)
            papers, resolve_findings = resolve_papers(papers, resolvers)
            resolve_findings += _resolver_findings(resolvers)
            # Resolution can show that two records are one work (a snippet and its anchor).
            if sum(not p.resolved for p in papers) < unresolved:
                papers, more = merge_records(papers, identities, merge_user_entries=options.merge_duplicates)
                merge_findings = list(dict.fromkeys([*merge_findings, *more]))
        with stage("keys"):
            pins = load_pins(options.lock_file) if options.lock_file else {}
            unkeyed = papers
            order = [display for _, display in sources]
            pinned = pinned_keys(papers, pins, identities)
            papers, pins = assign_keys(papers, pins, identities, formula, order)
            merge_findings += key_findings(read.papers, papers, order) + lost_pin_findings(unkeyed, papers, pinned)
        override_findings: list[Finding] = []
        if options.overrides:
            overrides, lines = load_overrides(options.overrides)
            papers, override_findings = apply_overrides(papers, overrides, str(options.overrides), lines)
        with stage("tagging"):
            told: list[Taught] = []
            papers, tag_findings = tag_papers(
                papers,
                taxonomy,
                tagger,
                tag_all_by=reuse.tag_all_by(tagger, ahead),
                threshold=tag_threshold(options.config),
                tags_field=options.tags_field,
                on_taught=told.append,
            )
            tag_findings = tags_field_hints(tag_findings, papers, taxonomy, options.tags_field)
    taught = told[-1] if told else Taught()
    keyed = list(zip(unkeyed, papers, strict=True))
    reuse.record([display for _, display in sources], read, keyed, identities, pins, taught)
    reuse_findings, reused = reuse.finish()
    papers = in_bibtex_order(papers)
    # A key that cannot be cited: the key it is written under (key_fates.py) says more than the reader's "rename it".
    rekeyed = {f.key for f in merge_findings if f.check == "unusable-key"}
    read_findings = [f for f in read.findings if f.check != "unusable-key" or f.key not in rekeyed]
    findings = sorted(
        [*read_findings, *merge_findings, *resolve_findings, *override_findings, *tag_findings, *reuse_findings],
        key=finding_order,
    )
    tagging = Tagging(tagger, taught)
    return Survey(tuple(papers), read.blocks, tuple(findings), taxonomy, pins, options.tags_field, reused, tagging)


def key_formula(options: Options) -> KeyFormula:
    """The formula new entries get their keys by: --key-formula, else [keys] formula of the settings file, else the default."""
    from surveytool.config import load_key_formula

    if options.key_formula is None:
        text = load_key_formula(options.config)  # checked there, the message naming its line
        return compile_formula(text) if text else DEFAULT
    return formula_option(options.key_formula)


def tag_threshold(config: Path | None) -> float:
    """The [tag] threshold of the settings file, if any."""
    from surveytool.config import load_tag_settings

    return load_tag_settings(config).threshold


def finding_order(finding: Finding) -> tuple:
    where = finding.location
    return (where.path if where else "", where.line if where else 0, finding.check, finding.message)
