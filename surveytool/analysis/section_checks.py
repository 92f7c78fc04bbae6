"""Checks of the taxonomy's coverage and of the tags: sections left empty or thin, entries untagged or misplaced."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace

from surveytool.analysis.check_registry import CheckContext, register
from surveytool.analysis.section_names import canonical_section
from surveytool.analysis.tagging.tagger import TAGGING_FINDINGS
from surveytool.analysis.tagging.user_tags import shares_names
from surveytool.bibtex.values import split_tags
from surveytool.model import Finding, Origin, Paper, Section, Severity, SourceLocation, Taxonomy

#: Checks of the taxonomy's coverage: a question for a build or `check --coverage`, noise on a plain .bib
#: (a user's file rarely fills every section of a taxonomy it did not choose).
COVERAGE_CHECKS = ("empty-section", "thin-section")


@register(
    "tag-outlier",
    Severity.WARNING,
    "a tag of yours that the tagger, trained without it, rejects",
    "For each entry you tagged, the tagger learns from all your other tagged entries (and the bundled corpus) "
    "and tags it again. When it is sure of another section (0.6 or more), gives yours under 0.1, and the "
    "entry's nearest tagged papers all sit elsewhere, the tag is reported with the likely section. A deliberate "
    "tag can stay: this only points at tags worth a second look.",
)
def _tag_outliers(context: CheckContext) -> Iterable[Finding]:
    if context.taxonomy is None:
        return ()
    from surveytool.analysis.tagging.review import tag_outliers

    return tag_outliers(context.papers, context.taxonomy)


@register(
    "untagged-entry",
    Severity.WARNING,
    "a .bib entry with no tags",
    "Entries of your .bib need a tags field (default 'sections') to be placed in the chapter on purpose. "
    "The hint shows the tagger's guess (`surveytool bib --in-place` writes it for you), or, when another field "
    "(tags, groups, keywords, ...) holds mostly section names, the --tags-field option that reads your tags there. A volume other entries "
    "name as their crossref or xdata parent (@proceedings, @collection, @periodical, @mvbook) is cited through "
    "them and needs none, nor does an @xdata entry (nor are they reported as no-section or needs-review).",
)
def _untagged(context: CheckContext) -> Iterable[Finding]:
    for paper in context.papers:
        if paper.origin is Origin.BIBTEX and not _places(paper, context):
            guess = paper.primary_section
            elsewhere = _tags_elsewhere(paper, context.taxonomy)
            hint = f"the tagger suggests '{guess}'" if guess else "add a tags field"
            if shares_names(context.tags_field):
                what = f"'{guess}', the tagger's guess," if guess else "its section"
                hint = f"add {what} to its {context.tags_field} field"
            if elsewhere:
                hint = _read_there(*elsewhere) + (f"; else the tagger suggests '{guess}'" if guess else "")
            yield Finding(
                "untagged-entry",
                Severity.WARNING,
                f"entry '{paper.key}' has no tags"
                if not paper.explicit_tags
                else f"entry '{paper.key}' has no section among its {context.tags_field}",
                min(paper.sources),
                hint,
                paper.key,
            )


def _places(paper: Paper, context: CheckContext) -> bool:
    """Whether the entry's tags field places it: any tag at all, as an unknown one is its own error; in a field
    a reference manager files by (JabRef's groups), only a name that is a section."""
    if not shares_names(context.tags_field) or context.taxonomy is None:
        return bool(paper.explicit_tags)
    return any(canonical_section(tag, context.taxonomy) for tag in paper.explicit_tags)


#: Fields other tools keep tags in (JabRef: groups; Zotero: keywords), where a user may have put sections.
_TAG_FIELDS = ("sections", "tags", "groups", "keywords", "categories")


def _tags_elsewhere(paper: Paper, taxonomy: Taxonomy | None, tags_field: str = "") -> tuple[str, str] | None:
    """A field of ``paper`` that is not its tags field but is mostly sections, and the first tag naming one."""
    if taxonomy is None:
        return None
    for name in (n for n in _TAG_FIELDS if n != tags_field):
        values = split_tags(paper.fields.get(name, ""))
        sections = [tag for tag in values if canonical_section(tag, taxonomy)]
        # Zotero's keywords mix subjects with the odd section title: only a field used for sections counts.
        if sections and len(sections) * 2 > len(values):
            return name, sections[0]
    return None


def _read_there(field: str, tag: str) -> str:
    return f"its {field} field names the section '{tag}': to read tags there, use --tags-field {field}"


def tags_field_hints(
    findings: Sequence[Finding], papers: Sequence[Paper], taxonomy: Taxonomy, tags_field: str
) -> list[Finding]:
    """``findings`` with the hint of each needs-review or no-section of a .bib entry whose other field (JabRef's
    groups, ...) is mostly sections naming the --tags-field that reads it, as untagged-entry's does: "add a tags
    field" alone would have the user write a second field of the same tags."""
    entries = {p.key: p for p in papers if p.origin is Origin.BIBTEX}
    mended = []
    for finding in findings:
        paper = entries.get(finding.key or "") if finding.check in TAGGING_FINDINGS else None
        elsewhere = _tags_elsewhere(paper, taxonomy, tags_field) if paper else None
        mended.append(
            replace(finding, hint=f"{_read_there(*elsewhere)}; else {finding.hint}") if elsewhere else finding
        )
    return mended


def _sections_with_counts(context: CheckContext) -> Iterable[tuple[Section, int, SourceLocation]]:
    """Each taxonomy section with the number of entries whose primary section it is, and where it is defined."""
    if context.taxonomy is None:
        return
    counts = Counter(p.primary_section for p in context.papers if p.primary_section)
    for section in context.taxonomy.sections:
        yield section, counts.get(section.id, 0), SourceLocation(context.taxonomy.path, section.line)


@register(
    "empty-section",
    Severity.WARNING,
    "a taxonomy section with no entries",
    "No entry has this section as its primary one, so the chapter's section will be empty.",
)
def _empty(context: CheckContext) -> Iterable[Finding]:
    for section, count, where in _sections_with_counts(context):
        if count == 0:
            yield Finding(
                "empty-section",
                Severity.WARNING,
                f"section '{section.id}' has no entries",
                where,
                "add papers or merge the section into another",
            )


@register(
    "thin-section",
    Severity.INFO,
    "a section with fewer entries than the threshold",
    "Sections with fewer than --thin N entries (default 2) read thin in a survey; consider merging them.",
)
def _thin(context: CheckContext) -> Iterable[Finding]:
    for section, count, where in _sections_with_counts(context):
        if 0 < count < context.thin:
            noun = "entry" if count == 1 else "entries"
            yield Finding(
                "thin-section",
                Severity.INFO,
                f"section '{section.id}' has {count} {noun}",
                where,
                f"fewer than {context.thin}",
            )
