"""The tags a user gave an entry, read as the taxonomy's section ids."""

from __future__ import annotations

import shlex

from surveytool.analysis.section_names import canonical_section, suggest_section
from surveytool.bibtex.field_spans import field_spans, line_in
from surveytool.bibtex.values import FILING_FIELDS
from surveytool.model import Finding, Origin, Paper, Role, Severity, SourceLocation, Tag, Taxonomy
from surveytool.resources import DEFAULT_TAXONOMY_NAME

#: How a tag-variant finding ends that is about a section named twice, not a tag spelt otherwise.
AGAIN = "a second time"


def tags_location(paper: Paper, tag: str | None = None) -> SourceLocation:
    """Where the user wrote the entry's tags (``tag``, or else its first): their line of an overrides file, or the
    tags field's line."""
    return tag_locations(paper, tag)[0]


def tag_locations(paper: Paper, tag: str | None = None) -> tuple[SourceLocation, ...]:
    """Every place the user wrote ``tag`` (or else the entry's first tag): several for records merged into one."""
    if paper.tags_at:
        return (paper.tags_at,)
    if paper.tag_places:
        return paper.tag_places.get(tag or "") or next(iter(paper.tag_places.values()))
    return (_tags_field_line(paper),)


def _tags_field_line(paper: Paper) -> SourceLocation:
    start = min(paper.sources)
    # The reader keeps every field of an entry but its tags field: the one field of its text not among them.
    span = next((s for s in field_spans(paper.raw) if s.name.strip() not in paper.latex_fields), None)
    return start if span is None else SourceLocation(start.path, line_in(paper.raw, span.start, start.line))


def shares_names(tags_field: str) -> bool:
    """Whether the tags field is one a reference manager files entries by (``groups = {MoE, To read}``): its
    names are the user's own, so a name that is no section is no error, and none is respelled as an id."""
    return tags_field.lower() in FILING_FIELDS


def explicit_tags(
    paper: Paper, taxonomy: Taxonomy, tags_field: str = "sections"
) -> tuple[tuple[Tag, ...], tuple[str, ...], list[Finding]]:
    """The user's own tags as section ids, the ones naming no section, and a finding for each that is not an id
    (none for names read from a field shared with a reference manager: see ``shares_names``)."""
    tags: list[Tag] = []
    unknown: list[str] = []
    findings: list[Finding] = []
    # An overrides file holds only section tags: its tags are checked whatever the tags field. A CSL-JSON item's
    # keyword holds a reference manager's subjects beside the sections surveytool exported there.
    shared = (shares_names(tags_field) or paper.origin is Origin.CSL_JSON) and not paper.tags_at
    # Tags of an overrides file are mended there: check --fix and --in-place edit only the .bib.
    mended = f"in {paper.tags_at.path}" if paper.tags_at else "; surveytool check --fix does this"
    for raw in paper.explicit_tags:
        section_id = canonical_section(raw, taxonomy)
        if section_id is None:
            unknown.append(raw)
            if shared:
                continue
            guess = suggest_section(raw, taxonomy)
            findings.extend(
                Finding(
                    "unknown-tag",
                    Severity.ERROR,
                    f"tag '{raw}' is not a section of the taxonomy",
                    where,
                    _unknown_tag_hint(raw, guess, taxonomy),
                    paper.key,
                )
                for where in tag_locations(paper, raw)
            )
            continue
        if section_id != raw and not shared:
            findings.extend(
                Finding(
                    "tag-variant",
                    Severity.WARNING,
                    f"tag '{raw}' is written differently from its section id '{section_id}'",
                    where,
                    f"write '{section_id}'{' ' if paper.tags_at else ''}{mended}",
                    paper.key,
                )
                for where in tag_locations(paper, raw)
            )
        first = next((t for t in tags if t.section == section_id), None)
        if first is None:
            role = Role.PRIMARY if not tags else Role.SECONDARY
            tags.append(Tag(section_id, role, 1.0, (f"given by the user as '{raw}'",), explicit=True))
        elif section_id == raw and not shared and not paper.tag_places:  # merged records name it once each
            # check --fix and --in-place write the section once: a change no finding had announced.
            findings.extend(
                Finding(
                    "tag-variant",
                    Severity.WARNING,
                    f"tag '{raw}' names section '{section_id}' {AGAIN}",
                    where,
                    f"keep one{' in ' + str(paper.tags_at.path) if paper.tags_at else mended}",
                    paper.key,
                )
                for where in tag_locations(paper, raw)
            )
    return tuple(tags), tuple(unknown), findings


def _unknown_tag_hint(tag: str, guess: str | None, taxonomy: Taxonomy) -> str:
    """A group's own sections, the section meant, or the tree of the taxonomy the run read."""
    group = next((g for g in taxonomy.groups if g.id == tag), None)
    if group is not None and group.sections:
        return f"'{tag}' is a group; name one of its sections: {', '.join(group.sections)}"
    if guess:
        return f"did you mean '{guess}'?"
    named = "" if taxonomy.path in ("", DEFAULT_TAXONOMY_NAME) else f" --taxonomy {shlex.quote(taxonomy.path)}"
    return f"see `surveytool taxonomy{named}` for the section ids"
