"""Checks of the entries themselves: placeholders, missing fields, titles, keys."""

from __future__ import annotations

from collections.abc import Iterable

from surveytool.analysis.check_registry import CheckContext, register
from surveytool.bibtex.fields import REQUIRED_FIELDS, is_placeholder_title
from surveytool.model import Finding, Origin, Severity
from surveytool.text.latex import needs_title_protection


@register(
    "unresolved-entry",
    Severity.WARNING,
    "an entry without real metadata",
    "A snippet or id that no catalog or service could match to a paper stays a placeholder (title "
    "'Unresolved snippet: ...', key field 'Unresolved'), also after it was written to a .bib and read "
    "back. Add its DOI or arXiv id, or use --online.",
)
def _placeholders(context: CheckContext) -> Iterable[Finding]:
    for paper in context.papers:
        if paper.origin is Origin.BIBTEX and (
            paper.fields.get("key") == "Unresolved" or is_placeholder_title(paper.title or "")
        ):
            yield Finding(
                "unresolved-entry",
                Severity.WARNING,
                f"'{paper.key}' is a placeholder for an unidentified paper",
                min(paper.sources),
                "identify the paper and complete the entry",
                paper.key,
            )


@register(
    "missing-field",
    Severity.WARNING,
    "an entry without a field its type requires",
    "Required fields per entry type, for BibTeX (article: author, title, journal, year; inproceedings: "
    "author, title, booktitle, year; ...) or biblatex with --dialect biblatex (journaltitle, date). "
    "Unresolved placeholders are reported as unresolved-entry instead.",
)
def _missing(context: CheckContext) -> Iterable[Finding]:
    required = REQUIRED_FIELDS[context.dialect]
    for paper in context.papers:
        if not paper.resolved:
            continue
        needed = required.get(paper.entry_type, ())
        absent = [n.replace("|", " or ") for n in needed if not any(paper.fields.get(a) for a in n.split("|"))]
        if absent:
            yield Finding(
                "missing-field",
                Severity.WARNING,
                f"@{paper.entry_type} '{paper.key}' has no {', '.join(absent)}",
                min(paper.sources),
                "complete the entry, or change its type",
                paper.key,
            )


@register(
    "title-case-unprotected",
    Severity.WARNING,
    "capitals a BibTeX style would lowercase",
    "Styles that lowercase titles turn 'GShard' into 'gshard'. Words with capitals after their first letter "
    "need braces: {GShard}, {GPUs}. --fix adds them around those words only.",
    fixable=True,
)
def _title_case(context: CheckContext) -> Iterable[Finding]:
    for paper in context.papers:
        raw = paper.latex_fields.get("title")
        if raw:
            words = needs_title_protection(raw)
            if words:
                yield Finding(
                    "title-case-unprotected",
                    Severity.WARNING,
                    f"title of '{paper.key}' has unprotected capitals: {', '.join(words)}",
                    min(paper.sources),
                    "surveytool check --fix adds braces around them",
                    paper.key,
                )
