"""Taxonomy TOML -> a validated Taxonomy; raw tag text -> a section id.

Validation reports the offending line: tomllib gives positions only for syntax
errors, so tables and keys are located by scanning the text once.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from surveytool.analysis.section_names import name_key
from surveytool.analysis.taxonomy_values import (
    MAX_WEIGHT,
    RESERVED_IDS,
    dotted_key,
    finite_number,
    hidden_character,
    id_hint,
    ordered_groups,
    parent_hint,
    top_key_hint,
    unknown_key_hint,
)
from surveytool.errors import TaxonomyError, toml_problem
from surveytool.model import Group, Section, Taxonomy, frozen_mapping
from surveytool.sources.bounded import SETTINGS_LIMIT, read_user_file

T = TypeVar("T")
_TOP_KEYS = {"version", "title", "groups", "sections"}
_GROUP_KEYS = {"id", "title", "parent", "description"}
_SECTION_KEYS = {"id", "title", "parent", "description", "aliases", "keywords"}
_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_PRINTABLE = "remove it: only text and white space print"
_TABLE_HEADER = re.compile(r"^\s*\[\[\s*(groups|sections)\s*\]\]")


def load_taxonomy(
    path: Path, display: str | None = None, missing_hint: str = "check the path given with --taxonomy"
) -> Taxonomy:
    """The taxonomy of ``path``; ``missing_hint`` says where the user named it, for a file that is not there."""
    display = display or str(path)
    try:
        text = read_user_file(path, display, SETTINGS_LIMIT, TaxonomyError, "taxonomy file").decode("utf-8-sig")
    except FileNotFoundError:
        raise TaxonomyError("no such taxonomy file", path=display, hint=missing_hint) from None
    except UnicodeDecodeError as error:  # the line of the first byte that is no UTF-8 (a Latin-1 "é", say)
        line = bytes(error.object[: error.start]).count(b"\n") + 1
        raise TaxonomyError("not UTF-8 text", path=display, line=line, hint="save the taxonomy as UTF-8") from None
    except OSError as error:
        raise TaxonomyError(f"cannot be read ({error.strerror or error})", path=display, hint=missing_hint) from None
    return parse_taxonomy(text, display)


def parse_taxonomy(text: str, display: str = "<taxonomy>") -> Taxonomy:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message, line = toml_problem(error, text)
        raise TaxonomyError(
            f"not valid TOML: {message}",
            path=display,
            line=line,
            # A TAXONOMY.md of headings and bullets is no TOML at all: say what a taxonomy is, not only TOML's rules.
            hint="see https://toml.io for the syntax"
            if display.endswith(".toml")
            else "a taxonomy is a TOML file of [[sections]] tables: see 'The default taxonomy' in the README",
        ) from None
    except RecursionError:  # tomllib reads nested arrays and inline tables recursively
        raise TaxonomyError(
            "not valid TOML: arrays or tables nested too deeply",
            path=display,
            hint="a taxonomy needs no nesting deeper than [sections.keywords]",
        ) from None
    return _Validator(text, display).build(data)


class _Validator:
    def __init__(self, text: str, display: str):
        self.lines = text.splitlines()
        self.display = display
        self.table_lines: dict[str, list[int]] = {"groups": [], "sections": []}
        starts: list[int] = []
        for number, line in enumerate(self.lines, start=1):
            if match := _TABLE_HEADER.match(line):
                self.table_lines[match.group(1)].append(number)
                starts.append(number)
        # A table's first line -> the line after its last: where the next begins, or the end of the file.
        self.table_ends: dict[int, int] = dict(zip(starts, [*starts[1:], len(self.lines) + 1], strict=False))
        self.problems: list[TaxonomyError] = []
        self.top_lines: dict[str, int | None] = {}
        self.index_of: dict[int, int] = {}
        self.failed_ids: set[str] = set()  # ids of tables left out for a problem: naming one is no second problem
        self.unreadable: set[str] = set()  # "groups" or "sections" when it is no array of tables at all

    def fail(self, message: str, line: int | None, hint: str) -> None:
        raise TaxonomyError(message, path=self.display, line=line, hint=hint)

    def note(self, message: str, line: int | None, hint: str) -> None:
        """A problem told with the others the file has: the validation goes on past it."""
        self.problems.append(TaxonomyError(message, path=self.display, line=line, hint=hint))

    def line_of(self, table: str, index: int, key: str | None = None) -> int | None:
        starts = self.table_lines[table]
        if index >= len(starts):  # an inline array of tables (sections = [{...}, ...]): the array's line
            return self.top_line(table)
        start = starts[index]
        if key is None:
            return start
        end = self.table_ends[start]
        # key = ..., key.x = ... or keywords.key = ... (dotted keys), or a table: [sections.keywords], [[sections.x]]
        name = rf"\"?{re.escape(key)}\"?"
        pattern = re.compile(rf"^\s*(?:(?:keywords\s*\.\s*)?{name}\s*[=.]|\[\[?\s*{table}\s*\.\s*{name}\s*\])")
        for number in range(start, end):
            if pattern.match(self.lines[number - 1]):
                return number
        return start

    def phrase_line(self, index: int, phrase: str) -> int | None:
        """The line of a keyword: its own line in a [sections.keywords] table, or else the keywords' line."""
        where = self.line_of("sections", index, phrase)
        return self.line_of("sections", index, "keywords") if where == self.line_of("sections", index) else where

    def top_line(self, key: str) -> int | None:
        """Where top-level ``key`` is: ``key =``/``key.x =`` above the first table, or ``[[key]]``/``[key.x]``.
        Remembered: every table of an inline array of tables (sections = [{...}]) asks for the array's line."""
        if key not in self.top_lines:
            name = r"\s*(?:{0}|\"{0}\"|'{0}')\s*".format(re.escape(key))
            assignment, header = re.compile(rf"^{name}[.=]"), re.compile(rf"^\s*\[\[?{name}[.\]]")
            lines = list(enumerate(self.lines, 1))
            root = next((n for n, l in lines if l.lstrip().startswith("[")), len(lines) + 1)  # the first table's line
            found = (n for n, l in lines if header.match(l) or n < root and assignment.match(l))
            self.top_lines[key] = next(found, None)
        return self.top_lines[key]

    def build(self, data: Mapping[str, Any]) -> Taxonomy:
        """The taxonomy, or a TaxonomyError with every problem found (a table's first problem; then those
        between tables)."""
        allowed = "allowed: " + ", ".join(sorted(_TOP_KEYS))
        for key in (key for key in data if key not in _TOP_KEYS):
            self.note(f"unknown key '{key}'", self.top_line(key), top_key_hint(key, data[key], _TOP_KEYS, allowed))
        title = data.get("title", "Related Work")
        if not isinstance(title, str) or not title.strip():  # str() put a list's spelling in the chapter, "" nothing
            self.note("'title' must be a string of text", self.top_line("title"), 'title = "Related Work on ..."')
        elif hidden := hidden_character(title):
            self.note(f"'title' holds {hidden}", self.top_line("title"), _PRINTABLE)
        if data.get("version", 1) != 1 or isinstance(data.get("version"), bool):  # 1.0 == 1 is the same number
            self.note("'version' must be 1, the only format there is", self.top_line("version"), "version = 1")
        groups = self._each(data, "groups", self._group)
        known = len(self.problems)
        sections = self._each(data, "sections", self._section)
        if not sections and len(self.problems) == known:  # a [[sections]] table with a problem is reported already
            self.note(
                "the taxonomy has no [[sections]]", None, "add at least one [[sections]] table with an id and a title"
            )
        self._check_ids(groups, sections)
        if "groups" not in self.unreadable:  # else every parent would be "unknown"
            self._check_parents(groups, sections)
        self._check_names(sections)
        if self.problems:
            first, *more = sorted(self.problems, key=lambda p: (p.line is None, p.line or 0))
            raise TaxonomyError(first.message, path=first.path, line=first.line, hint=first.hint, more=tuple(more))
        return Taxonomy(
            str(data.get("title", "Related Work")),
            tuple(ordered_groups(groups, sections)),
            tuple(sections),
            self.display,
        )

    def _each(self, data: Mapping[str, Any], name: str, make: Callable[[int, Mapping[str, Any]], T]) -> list[T]:
        """Each ``[[name]]`` table made by ``make``; a table with a problem is noted and left out."""
        tables = data.get(name, [])
        if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
            self.note(f"'{name}' must be an array of tables", self.top_line(name), f"write each one as [[{name}]]")
            self.unreadable.add(name)
            return []
        made = []
        for index, table in enumerate(tables):
            try:
                made.append(make(index, table))
                self.index_of[id(made[-1])] = index  # its table's place in the file, though others are left out
            except TaxonomyError as problem:
                self.problems.append(problem)
                self.failed_ids.add(str(table.get("id", "")))
        return made

    def _common(self, table: str, index: int, raw: Mapping[str, Any], allowed: set[str]) -> tuple[str, str]:
        for key in raw:
            if key not in allowed:
                self.fail(
                    f"unknown key '{key}' in [[{table}]]",
                    self.line_of(table, index, key),
                    unknown_key_hint(key, raw[key], allowed),
                )
        for key in ("id", "title"):
            if not isinstance(raw.get(key), str) or not raw[key].strip():  # title = 5: its line, and what it holds
                given = f", not {raw[key]!r:.40}" if key in raw else ""
                where = self.line_of(table, index, key) if given else self.line_of(table, index)
                hint = f'write it as quoted text: {key} = "..."' if given else f'add {key} = "..."'
                self.fail(f"[[{table}]] needs a non-empty string '{key}'{given}", where, hint)
        for key in (key for key in ("parent", "description") if not isinstance(raw.get(key, ""), str)):
            self.fail(f"'{key}' in [[{table}]] must be a string", self.line_of(table, index, key), f'{key} = "..."')
        for key in (key for key in ("title", "parent", "description") if key in raw):  # an id has its pattern
            if hidden := hidden_character(raw[key]):
                self.fail(f"'{key}' in [[{table}]] holds {hidden}", self.line_of(table, index, key), _PRINTABLE)
        if not _ID.fullmatch(raw["id"]):
            self.fail(
                f"id '{raw['id']}' is not lowercase-with-hyphens", self.line_of(table, index, "id"), id_hint(raw["id"])
            )
        if raw["id"] in RESERVED_IDS:
            reason, hint = RESERVED_IDS[raw["id"]]
            self.fail(f"id '{raw['id']}' is {reason}", self.line_of(table, index, "id"), f"choose another id; {hint}")
        return raw["id"], raw["title"]

    def _group(self, index: int, raw: Mapping[str, Any]) -> Group:
        group_id, title = self._common("groups", index, raw, _GROUP_KEYS)
        return Group(group_id, title, (), parent=raw.get("parent", ""), line=self.line_of("groups", index, "id") or 0)

    def _section(self, index: int, raw: Mapping[str, Any]) -> Section:
        section_id, title = self._common("sections", index, raw, _SECTION_KEYS)
        aliases = raw.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            self.fail(
                "aliases must be a list of strings",
                self.line_of("sections", index, "aliases"),
                'write aliases = ["MoE", "mixture of experts"]',
            )
        keywords = raw.get("keywords", {})
        wrong = (
            next((k for k, w in keywords.items() if not finite_number(w)), None) if isinstance(keywords, dict) else ""
        )
        if wrong and isinstance(keywords[wrong], dict):  # gpt-3.5 = 4: TOML splits a bare key at its dots
            wrong = dotted_key(wrong, keywords[wrong])
            self.fail(
                f"keyword '{wrong}' is split at its dots", self.phrase_line(index, wrong), f'quote it: "{wrong}" = 4'
            )
        if wrong is not None:
            self.fail(
                f"keywords must map phrases to numeric weights from -{MAX_WEIGHT:.0f} to {MAX_WEIGHT:.0f}",
                self.phrase_line(index, wrong) if wrong else self.line_of("sections", index, "keywords"),
                '"pipeline parallel*" = 5',
            )
        for name, key in [*((a, "aliases") for a in aliases), *((k, "keywords") for k in keywords)]:
            if hidden := hidden_character(name):
                self.fail(
                    f"{key} of '{section_id}' hold {hidden}",
                    self.line_of("sections", index, key),
                    _PRINTABLE,
                )
        return Section(
            section_id,
            title,
            str(raw.get("parent", "")),
            str(raw.get("description", "")).strip(),
            tuple(aliases),
            frozen_mapping({str(k): float(v) for k, v in keywords.items()}),
            line=self.line_of("sections", index, "id") or 0,
        )

    def _check_ids(self, groups: list[Group], sections: list[Section]) -> None:
        seen: dict[str, int] = {}
        nodes: list[Group | Section] = sorted([*groups, *sections], key=lambda n: n.line)  # the file's order
        for node in nodes:
            if node.id in seen:
                self.note(
                    f"duplicate id '{node.id}' (first defined on line {seen[node.id]})",
                    node.line,
                    "give every group and section its own id",
                )
            seen.setdefault(node.id, node.line)

    def _check_parents(self, groups: list[Group], sections: list[Section]) -> None:
        group_ids = {g.id: g for g in groups}
        nodes: list[Group | Section] = sorted([*groups, *sections], key=lambda n: n.line)  # the file's order
        for node in nodes:
            parent = node.parent if isinstance(node, Group) else node.group
            if parent and parent not in group_ids and parent not in self.failed_ids:
                table = "groups" if isinstance(node, Group) else "sections"
                index = self.index_of[id(node)]
                self.note(
                    f"'{node.id}' names unknown parent '{parent}'",
                    self.line_of(table, index, "parent"),
                    parent_hint(parent, group_ids, sections),
                )
        # Each group's chain of parents is walked once: a walk stops at a group already known to lead to a root.
        rooted: set[str] = set()
        for group in groups:
            chain, on_chain, current = [group.id], {group.id}, group
            while current.parent in group_ids and current.id not in rooted:
                if current.parent in on_chain:
                    self.note(
                        f"groups form a cycle: {' -> '.join(chain + [current.parent])}",
                        group.line,
                        "remove one of these parent links",
                    )
                    break
                chain.append(current.parent)
                on_chain.add(current.parent)
                current = group_ids[current.parent]
            rooted.update(chain)

    def _check_names(self, sections: list[Section]) -> None:
        owner: dict[str, str] = {name_key(s.id): s.id for s in sections}
        titled: dict[str, str] = {}  # a title names its section too (the first so titled): no alias may take it
        for section in sections:
            titled.setdefault(name_key(section.title), section.id)
        for section in sections:
            index = self.index_of[id(section)]
            for phrase in section.keywords:
                if not any(char.isalnum() for char in phrase):  # "!!!", "*": phrases are matched on words
                    where = self.phrase_line(index, phrase)
                    self.note(f"keyword '{phrase}' of '{section.id}' has no letter or digit", where, "it never matches")
            for alias in section.aliases:
                line = self.line_of("sections", index, "aliases")
                if not any(char.isalnum() for char in alias):  # "!!!": a tag "-" or "?" would name this section
                    self.note(
                        f"alias '{alias}' of '{section.id}' has no letter or digit", line, "leave it out: it is no name"
                    )
                elif (
                    claimed := owner.setdefault(name_key(alias), titled.get(name_key(alias), section.id))
                ) != section.id:
                    self.note(
                        f"alias '{alias}' of '{section.id}' is already a name of '{claimed}'",
                        line,
                        "an alias must lead to one section only: ids, titles and aliases are all names",
                    )
