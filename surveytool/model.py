"""Immutable values passed between the stages of a run.

Text in these values is plain Unicode unless a name says otherwise
(``latex_fields``): escaping happens once, when writing LaTeX or BibTeX.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any, TypeVar

V = TypeVar("V")
_DATE_YEAR = re.compile(r"\s*(\d{4})(?!\d)")
#: A year inside other text: four digits from 1000 to 2999, not part of a longer number.
_YEAR_IN_TEXT = re.compile(r"(?<![0-9])[12][0-9]{3}(?![0-9])")


#: The month of a biblatex date, only when it is one (01-12): "2021-21" is a season, "2021-00" no month.
DATE_MONTH = re.compile(r"\s*\d{4}-(0[1-9]|1[0-2])(?!\d)")


def month_of_date(date: str) -> int | None:
    """The month a biblatex date names: 3 of "2021-03-15" and "2021-03/2021-05"; None for "2021" or "2021-21"."""
    month = DATE_MONTH.match(date)
    return int(month.group(1)) if month else None


def year_of_date(date: str) -> str | None:
    """The year a biblatex date starts with: "2021" of "2021-03-15", "2021/2022" and "2021?"."""
    year = _DATE_YEAR.match(date)
    return year.group(1) if year else None


def year_of(value: str | None) -> str:
    """The year a year or date field gives, the one rule keys and merging share: the four digits it starts with
    ("2021", "2021-03-15", "2021a"), else the one year it holds ("(2021)", "c2021", "c. 2010"); "" for none
    or two ("in press", "either 2009 or 2010") and for digits that are no year ("12021", "202")."""
    value = value or ""
    if start := year_of_date(value):
        return start
    found = _YEAR_IN_TEXT.findall(value)
    return found[0] if len(found) == 1 else ""


def frozen_mapping(values: Mapping[str, V] | None = None) -> Mapping[str, V]:
    """A read-only view of a copy of ``values``, for fields of frozen dataclasses."""
    return MappingProxyType(dict(values or {}))


@dataclass(frozen=True, order=True)
class SourceLocation:
    """Where a record came from: a path as the user gave it and a 1-based line."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


class Origin(StrEnum):
    """What kind of input a paper was read from."""

    SNIPPET = "snippet"  # a paragraph of a related-paper list
    ANCHOR = "anchor"  # the header title of a related-paper list
    BIBTEX = "bibtex"
    IDENTIFIER = "identifier"
    CSL_JSON = "csl-json"


class Role(StrEnum):
    PRIMARY = "primary"
    SECONDARY = "secondary"


@dataclass(frozen=True)
class Tag:
    """One section assignment of a paper, with the reason for it."""

    section: str
    role: Role
    score: float
    evidence: tuple[str, ...] = ()
    explicit: bool = False  # given by the user: never overwritten by the tagger
    suggested: bool = False  # proposed by similarity, not by vocabulary rules


@dataclass(frozen=True)
class Resolution:
    """Which source gave a paper its metadata, and how sure the match was."""

    source: str  # e.g. "catalog:seeds/catalog.bib", "openalex"
    matched_key: str
    method: str  # e.g. "abstract-prefix", "doi", "title-prefix"
    score: float
    fields: tuple[str, ...] = ()
    retrieved: str = ""  # when an online answer was fetched (UTC, ISO 8601); empty for catalogs


@dataclass(frozen=True)
class Paper:
    """One bibliography entry as it moves through the pipeline."""

    origin: Origin
    sources: tuple[SourceLocation, ...]
    fields: Mapping[str, str] = field(default_factory=frozen_mapping)
    entry_type: str = "misc"
    key: str = ""
    # Original BibTeX values (still LaTeX) of fields read from a .bib file, so that
    # writing does not re-encode what the user wrote.
    latex_fields: Mapping[str, str] = field(default_factory=frozen_mapping)
    raw: str = ""  # the entry's text as read from a .bib, for edits that keep it byte for byte
    truncated: bool = False
    resolution: Resolution | None = None
    tags: tuple[Tag, ...] = ()
    explicit_tags: tuple[str, ...] = ()
    unknown_tags: tuple[str, ...] = ()  # explicit tags naming no section: reported, and kept as written
    tags_at: SourceLocation | None = None  # where explicit_tags were given outside the entry (an overrides file)
    # A merged paper's tags, each where its entries wrote it: its raw is one entry's text of several.
    tag_places: Mapping[str, tuple[SourceLocation, ...]] = field(default_factory=frozen_mapping)
    aliases: tuple[str, ...] = ()  # keys absorbed when duplicates merged

    @property
    def resolved(self) -> bool:
        return self.resolution is not None or self.origin in (Origin.BIBTEX, Origin.CSL_JSON)

    @property
    def title(self) -> str | None:
        return self.fields.get("title") or None

    @property
    def year(self) -> str | None:
        """Its year field, or else the year biblatex's ``date`` starts with ("2021-03-15", "2021/2022")."""
        year = self.fields.get("year")
        if year:
            return year
        return year_of_date(self.fields.get("date", ""))

    @property
    def venue(self) -> str:
        """Where the record says it appeared: its journal (biblatex's journaltitle) or booktitle, "" if neither."""
        fields = self.fields
        return fields.get("journal") or fields.get("journaltitle") or fields.get("booktitle") or ""

    @property
    def abstract(self) -> str | None:
        return self.fields.get("abstract") or None

    @property
    def authors(self) -> tuple[str, ...]:
        raw = self.fields.get("author", "")
        return tuple(a.strip() for a in raw.split(" and ") if a.strip())

    @property
    def primary_section(self) -> str | None:
        return next((t.section for t in self.tags if t.role is Role.PRIMARY), None)

    @property
    def section_ids(self) -> tuple[str, ...]:
        """Section ids, primary first."""
        return tuple(t.section for t in self.tags)


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    """A problem found in the input or the result, kept as data so the run can go on."""

    check: str
    severity: Severity
    message: str
    location: SourceLocation | None = None
    hint: str = ""
    key: str = ""
    # The places the message names besides ``location``, each printed as "path:line", in the order it names them;
    # None when unsaid. A patched rebuild renumbers them when an edit above moves their lines.
    places: tuple[SourceLocation, ...] | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        hint = f" ({self.hint})" if self.hint else ""
        return f"{where}{self.severity.value} [{self.check}] {self.message}{hint}"


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    group: str
    description: str = ""
    aliases: tuple[str, ...] = ()
    keywords: Mapping[str, float] = field(default_factory=frozen_mapping)
    line: int = 0


@dataclass(frozen=True)
class Group:
    id: str
    title: str
    sections: tuple[str, ...]
    parent: str = ""
    line: int = 0


@dataclass(frozen=True)
class Taxonomy:
    title: str
    groups: tuple[Group, ...]
    sections: tuple[Section, ...]
    path: str = ""

    def section(self, section_id: str) -> Section:
        for section in self.sections:
            if section.id == section_id:
                return section
        raise KeyError(section_id)

    @property
    def section_ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.sections)

    def nested_groups(self) -> list[tuple[Group, int]]:
        """The groups in the order the chapter heads them, each with the number of groups it is nested in: a group,
        then the groups in it, before its next sibling (the taxonomy's checks leave no cycle and no unknown parent)."""
        children: dict[str, list[Group]] = defaultdict(list)
        for group in self.groups:
            children[group.parent].append(group)
        ordered: list[tuple[Group, int]] = []
        waiting = [(group, 0) for group in reversed(children[""])]
        while waiting:  # not recursive: a taxonomy may nest its groups deeper than Python recurses
            group, depth = waiting.pop()
            ordered.append((group, depth))
            if group.id:  # the untitled group of a flat taxonomy's sections holds no groups
                waiting.extend((child, depth + 1) for child in reversed(children[group.id]))
        return ordered


@dataclass(frozen=True)
class RawBlock:
    """A non-entry block kept verbatim for output: @string, @preamble, a comment, a failed block."""

    kind: str  # "string" | "preamble" | "comment" | "failed"
    text: str
    location: SourceLocation
    key: str = ""  # the macro name of an @string


#: Maps a function over items, in order: a build passes one that shares large maps with a forked child.
MapEach = Callable[[Callable[[Any], Any], Sequence[Any]], list[Any]]
