"""The whole flow of a run as library calls: read, merge, resolve, key, tag, write.

Nothing here prints; the CLI presents what these functions return.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Sequence
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from typing import Protocol
from pathlib import Path

from .bibliography import render_bibliography, sort_papers
from .checks import CheckContext, run_checks
from .inplace import Edit, fix_entries, update_bib_in_place
from .bibtex_io import RawBlock
from .chapter import chapter_groups, publication_trend, summary_rows
from .errors import OutputError, TaxonomyError
from .latex import unencodable_chars
from .keys import assign_keys, dump_pins, load_pins
from .merge import merge_duplicates
from .overrides import apply_overrides, load_overrides
from . import __version__
from .models import Finding, Paper, Severity, SourceLocation, Taxonomy
from .readers import read_source, read_sources, read_text
from .regions import carry_over, edited_outside_regions, stamp
from .render import LEVELS, make_environment, render_template
from .resolve import CatalogResolver, Resolver, resolve_papers
from .resources import default_catalog, default_taxonomy, seed_lists
from .tagging import tag_papers
from .taxonomy import load_taxonomy

LOCK_FILE = "surveytool.lock.json"


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


@dataclass(frozen=True)
class Survey:
    """The result of analysing the sources: nothing written yet."""

    papers: tuple[Paper, ...]
    blocks: tuple[RawBlock, ...]
    findings: tuple[Finding, ...]
    taxonomy: Taxonomy
    pins: dict[str, str] = field(default_factory=dict)
    tags_field: str = "sections"

    def section_counts(self) -> Counter:
        return Counter(p.primary_section or "unclassified" for p in self.papers)

    @property
    def error_count(self) -> int:
        return sum(f.severity is Severity.ERROR for f in self.findings)


def source_paths(options: Options) -> list[tuple[Path, str]]:
    """(path, name shown in messages): user paths as given, bundled seeds as ``seeds/<name>``."""
    if options.sources:
        return [(p, str(p)) for p in options.sources]
    return [(p, f"seeds/{p.name}") for p in seed_lists()]


DEFAULT_CACHE = Path(".surveytool-cache.sqlite")


def load_resolvers(options: Options) -> list[Resolver]:
    """Catalogs first (the bundled one, then --catalog files), then online services if asked for."""
    resolvers: list[Resolver] = []
    catalogs = ([default_catalog()] if options.bundled_catalog else []) + list(options.catalogs)
    for path in catalogs:
        display = "seeds/catalog.bib" if path == default_catalog() else str(path)
        result = read_source(path, display, "bib")
        resolvers.append(CatalogResolver(result.papers, f"catalog:{display}"))
    if options.online:
        from .cache import ResponseCache
        from .config import load_online_settings
        from .fetch import HttpClient, HttpSettings
        from .online import online_resolvers

        settings = load_online_settings(options.config)
        agent = f"surveytool/{__version__} (mailto:{settings.contact})" if settings.contact else f"surveytool/{__version__}"
        client = HttpClient(HttpSettings(agent, settings.timeout, settings.retries, settings.backoff,
                                         min_interval=settings.min_interval),
                            ResponseCache(options.cache or DEFAULT_CACHE))
        resolvers.extend(online_resolvers(settings, client))
    return resolvers


def _resolver_findings(resolvers: Sequence[Resolver]) -> list[Finding]:
    """Service failures, one per entry and service: the run went on with what it had."""
    findings = []
    for resolver in resolvers:
        for paper, error in getattr(resolver, "errors", ()):
            findings.append(Finding("resolver-error", Severity.WARNING, f"{error.service} gave no usable answer: {error.message}",
                                    min(paper.sources), "rerun later; answers already received are cached", paper.key))
    return findings


class Stage(Protocol):
    """Called around each stage of a run: a progress display or a benchmark's timer."""

    def __call__(self, name: str) -> AbstractContextManager[None]: ...


@contextmanager
def _silent_stage(name: str) -> Iterator[None]:
    yield


def analyse(options: Options = Options(), stage: Stage = _silent_stage) -> Survey:
    """Read, merge, resolve, key and tag the sources of ``options``."""
    taxonomy = load_taxonomy(options.taxonomy or default_taxonomy(),
                             None if options.taxonomy else "seeds/taxonomy.toml")
    with stage("reading"):
        read = read_sources(source_paths(options), options.source_kind, options.tags_field)
    with stage("merging duplicates"):
        papers = merge_duplicates(read.papers)
    with stage("resolving"):
        unresolved = sum(not p.resolved for p in papers)
        resolvers = load_resolvers(options)
        papers, resolve_findings = resolve_papers(papers, resolvers)
        resolve_findings += _resolver_findings(resolvers)
        # Resolution can show that two records are one work (a snippet and its anchor).
        if sum(not p.resolved for p in papers) < unresolved:
            papers = merge_duplicates(papers)
    with stage("keys"):
        pins = load_pins(options.lock_file) if options.lock_file else {}
        papers, pins = assign_keys(papers, pins)
    override_findings: list[Finding] = []
    if options.overrides:
        overrides, lines = load_overrides(options.overrides)
        papers, override_findings = apply_overrides(papers, overrides, str(options.overrides), lines)
    with stage("tagging"):
        papers, tag_findings = tag_papers(papers, taxonomy)
    papers = sorted(papers, key=lambda p: p.key)
    findings = sorted([*read.findings, *resolve_findings, *override_findings, *tag_findings], key=_finding_order)
    return Survey(tuple(papers), read.blocks, tuple(findings), taxonomy, pins, options.tags_field)


def _finding_order(finding: Finding) -> tuple:
    where = finding.location
    return (where.path if where else "", where.line if where else 0, finding.check, finding.message)


def entry_record(paper: Paper) -> dict:
    """One object of entries.json (schema in the README)."""
    record = {
        "key": paper.key,
        "title": paper.title if paper.resolved else None,
        "year": paper.year,
        "authors": list(paper.authors),
        "entry_type": paper.entry_type,
        "abstract": paper.abstract,
        "tags": list(paper.section_ids),
        "resolved": paper.resolved,
        "sources": [str(s) for s in paper.sources],
        "origin": paper.origin.value,
        "truncated": paper.truncated,
        "doi": paper.fields.get("doi"),
        "eprint": paper.fields.get("eprint"),
        "aliases": list(paper.aliases),
        "tag_evidence": [
            {"section": t.section, "role": t.role.value, "score": t.score, "evidence": list(t.evidence),
             "explicit": t.explicit, "suggested": t.suggested}
            for t in paper.tags
        ],
        "resolution": None if paper.resolution is None else {
            "source": paper.resolution.source, "matched": paper.resolution.matched_key,
            "method": paper.resolution.method, "score": paper.resolution.score,
            "fields": list(paper.resolution.fields), "retrieved": paper.resolution.retrieved or None,
        },
    }
    return record


def entries_json(papers: Sequence[Paper]) -> str:
    return json.dumps([entry_record(p) for p in papers], indent=2, ensure_ascii=False) + "\n"


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader never sees half a file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except OSError as error:
        raise OutputError(f"cannot be written ({error.strerror})", path=str(path), hint="check the output folder's permissions") from None


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
    force: bool = False  # overwrite generated .tex files even if edited outside the notes regions


def render_outputs(survey: Survey, draft: DraftOptions = DraftOptions(), stage: Stage = _silent_stage) -> dict[str, str]:
    """File name -> text of every output of a build."""
    with stage("writing .bib"):
        bibliography = render_bibliography(survey.papers, survey.blocks, tags_field=survey.tags_field, dialect=draft.dialect)
    with stage("rendering"):
        return _render_documents(survey, draft, bibliography)


def _render_documents(survey: Survey, draft: DraftOptions, bibliography: str) -> dict[str, str]:
    env = make_environment(draft.templates)
    levels = LEVELS[draft.level]
    groups = chapter_groups(survey.papers, survey.taxonomy)
    context = {
        "title": survey.taxonomy.title,
        "levels": levels,
        "groups": groups,
        "rows": summary_rows(groups, survey.taxonomy),
        "trend": publication_trend(groups),
        "figure": draft.figure,
        "table": draft.table,
        "plot": draft.plot,
        "document_class": "report" if draft.level == "chapter" else "article",
        "chapter_file": draft.chapter_file,
        "bibliography": draft.bibliography,
    }
    chapter = render_template(env, "related_work.tex.j2", context)
    # Characters with no LaTeX spelling (CJK, emoji) stay UTF-8 in the .bib; pdfLaTeX
    # prints each as a visible [U+XXXX] marker instead of stopping with an error.
    context["unicode_fallbacks"] = unencodable_chars(bibliography)
    return {
        f"{draft.bibliography}.bib": bibliography,
        f"{draft.chapter_file}.tex": chapter,
        "main.tex": render_template(env, "main.tex.j2", context),
        "entries.json": entries_json(survey.papers),
    }


@dataclass(frozen=True)
class BuildResult:
    survey: Survey
    notes: tuple[str, ...]  # what happened to the author's prose and files, for the user


def build(options: Options, out_dir: Path, draft: DraftOptions = DraftOptions(), stage: Stage = _silent_stage) -> BuildResult:
    """The whole flow: analyse the sources and write every output into ``out_dir``."""
    lock = options.lock_file or out_dir / LOCK_FILE
    survey = analyse(replace(options, lock_file=lock), stage)
    outputs = render_outputs(survey, draft, stage)
    notes: list[str] = []
    prepared = {name: _keep_prose(out_dir / name, text, draft.force, notes) if name.endswith(".tex") else text
                for name, text in outputs.items()}
    for name, text in prepared.items():
        write_atomically(out_dir / name, text)
    write_atomically(lock, dump_pins(survey.pins))
    return BuildResult(survey, tuple(notes))


def _keep_prose(path: Path, text: str, force: bool, notes: list[str]) -> str:
    """The new text of a generated .tex file with the author's notes carried over.

    Refuses (unless ``force``) when generated text was edited by hand; with
    ``force`` the old file is kept as ``<name>.bak``.
    """
    if not path.exists():
        return stamp(text)
    old = path.read_text(encoding="utf-8", errors="replace")
    if edited_outside_regions(old):
        if not force:
            raise OutputError("was edited outside its notes regions; rebuilding would overwrite those edits",
                              path=str(path), hint="move your text between the '% surveytool: begin/end notes' lines, "
                                                   "or rerun with --force (the old file is kept as .bak)")
        backup = path.with_name(path.name + ".bak")
        write_atomically(backup, old)
        notes.append(f"{path}: edited outside its notes regions; old version kept as {backup}")
    merged = carry_over(text, old)
    if merged.kept:
        notes.append(f"{path}: kept your notes in {', '.join(merged.kept)}")
    if merged.orphaned:
        notes.append(f"{path}: notes of sections no longer generated ({', '.join(merged.orphaned)}) moved to the end")
    return stamp(merged.text)


def lock_beside(path: Path) -> Path:
    return path.parent / LOCK_FILE


def write_bib(options: Options, output: Path, *, dialect: str = "bibtex", order: str = "key",
              stage: Stage = _silent_stage) -> Survey:
    """Analyse the sources and write one .bib file (keys pinned beside it)."""
    lock = options.lock_file or lock_beside(output)
    survey = analyse(replace(options, lock_file=lock), stage)
    with stage("writing .bib"):
        papers = sort_papers(survey.papers, order, survey.taxonomy.section_ids)
        text = render_bibliography(papers, survey.blocks, tags_field=survey.tags_field, dialect=dialect, presorted=True)
    write_atomically(output, text)
    write_atomically(lock, dump_pins(survey.pins))
    return survey


def update_bib(options: Options, target: Path, *, dialect: str = "bibtex") -> tuple[Survey, list[Edit]]:
    """Rewrite the user's ``target`` .bib in place, changing only tags that must change and adding new entries."""
    sources = options.sources if target in options.sources else (target, *options.sources)
    lock = options.lock_file or lock_beside(target)
    survey = analyse(replace(options, sources=sources, lock_file=lock))
    original, _ = read_text(target, str(target))
    text, edits = update_bib_in_place(original, str(target), survey.papers, survey.taxonomy, survey.tags_field, dialect)
    if text != original:
        write_atomically(target, text)
    write_atomically(lock, dump_pins(survey.pins))
    return survey, edits


def draft_chapter(options: Options, output: Path, draft: DraftOptions = DraftOptions()) -> BuildResult:
    """Only the chapter, written to ``output`` with the author's notes carried over (keys pinned beside it)."""
    lock = options.lock_file or lock_beside(output)
    survey = analyse(replace(options, lock_file=lock))
    draft = replace(draft, chapter_file=output.stem)
    notes: list[str] = []
    text = _keep_prose(output, render_outputs(survey, draft)[f"{output.stem}.tex"], draft.force, notes)
    write_atomically(output, text)
    write_atomically(lock, dump_pins(survey.pins))
    return BuildResult(survey, tuple(notes))


@dataclass(frozen=True)
class CheckResult:
    findings: tuple[Finding, ...]
    fixes: tuple[str, ...]  # "path:line: key: what changed"


def check_sources(options: Options, tex_files: Sequence[Path], selected: Sequence[str], *, fix: bool = False,
                  dialect: str = "bibtex", thin: int = 2) -> CheckResult:
    """Run the selected checks; with ``fix``, first rewrite what is unambiguous in the .bib sources."""
    try:
        survey = analyse(options)
    except TaxonomyError as error:
        where = SourceLocation(error.path or "taxonomy", error.line or 1)
        return CheckResult((Finding("taxonomy-invalid", Severity.ERROR, error.message, where, error.hint),), ())
    fixes: list[str] = []
    if fix:
        for path, display in source_paths(options):
            if path.suffix.lower() not in (".bib", ".bibtex"):
                continue
            text, _ = read_text(path, display)
            fixed, edits = fix_entries(text, display, survey.papers, survey.taxonomy, survey.tags_field)
            if fixed != text:
                write_atomically(path, fixed)
                fixes.extend(f"{display}:{e.line}: {e.key}: {e.what}" for e in edits)
        if fixes:
            survey = analyse(options)  # report what is left after the fixes
    tex = [(str(p), read_text(p, str(p))[0]) for p in tex_files]
    context = CheckContext(survey.papers, survey.taxonomy, tex, dialect, thin)
    return CheckResult(tuple(run_checks(context, survey.findings, selected)), tuple(fixes))
