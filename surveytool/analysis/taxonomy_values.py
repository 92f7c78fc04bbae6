"""What a taxonomy's values may hold, and the hints given when they hold something else (taxonomy.py)."""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from surveytool.analysis.section_names import name_key
from surveytool.analysis.tagging.exemplars import OUT_OF_SCOPE
from surveytool.config import TABLES
from surveytool.model import Group, Section
from surveytool.output.chapter_view import GENERATED_IDS

#: Ids surveytool gives a meaning itself, each with why and what to do instead: the chapter's labels and notes
#: regions, and the learned tagger's background class.
_CHAPTER_OWN = ", ".join(GENERATED_IDS)
RESERVED_IDS = {
    **{
        id_: ("the chapter's own (its notes region and label would be taken twice)", f"reserved: {_CHAPTER_OWN}")
        for id_ in GENERATED_IDS
    },
    OUT_OF_SCOPE: ("the learned tagger's class of off-topic papers (they would train this section)", "e.g. 'other'"),
}

#: Scores add weights up: bounded weights keep every score a finite number that entries.json can hold.
MAX_WEIGHT = 1e6


def finite_number(value: Any) -> bool:
    """A weight a score can be made of: a number, not a boolean, nan or an infinity, and bounded."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return -MAX_WEIGHT <= value <= MAX_WEIGHT  # false for nan


def did_you_mean(word: str, options: Iterable[str], fallback: str) -> str:
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else fallback


def unknown_key_hint(key: str, value: Any, allowed: Iterable[str]) -> str:
    """The hint for an unknown key of a [[groups]] or [[sections]] table: a close key, else the allowed ones. A table
    inside the table ([[sections.subsections]]) is close only to ``keywords``, the one key that holds a table; else
    the hint says how a taxonomy nests: by ``parent`` alone."""
    if isinstance(value, dict) or isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        tables = [name for name in allowed if name == "keywords"]
        return did_you_mean(
            key,
            tables,
            "tables do not nest: make the outer one a [[groups]] table, and give each section parent = its id",
        )
    return did_you_mean(key, allowed, "allowed: " + ", ".join(sorted(allowed)))


def top_key_hint(key: str, value: Any, allowed: Iterable[str], fallback: str) -> str:
    """The hint for an unknown top-level key: a close key, or for a table of the settings file ([tag], [bib], ...)
    that this is surveytool.toml given as the taxonomy."""
    if key in TABLES and isinstance(value, dict):
        return f"[{key}] is a table of the settings file: give that file with --config, a taxonomy with --taxonomy"
    return did_you_mean(key, allowed, fallback)


def parent_hint(parent: str, group_ids: Iterable[str], sections: Iterable[Section]) -> str:
    """The hint for a parent that is no group: a section named as one is told how a taxonomy nests, not given a
    group of a close name (subsections were written with a section's id as their parent)."""
    if any(section.id == parent for section in sections):
        return f"'{parent}' is a section, and sections hold no others: make it a [[groups]] table to nest under it"
    return did_you_mean(parent, group_ids, "parents must be group ids")


def id_hint(raw: str) -> str:
    """How to write an id that is not lowercase-with-hyphens: its words so joined (``KV Cache`` -> ``kv-cache``)."""
    words = re.findall(r"[a-z0-9]+", name_key(raw))
    return f"write it '{'-'.join(words)}'" if words else "use ids like 'data-parallel'"


#: Joiners that Persian, Arabic and Indic words are spelled with: invisible, yet part of the word.
_JOINERS = "\u200c\u200d"


def hidden_character(value: str) -> str | None:
    """The first character of ``value`` that prints nothing and is no white space, told with its code point: a
    control character (an escape, a NUL, a bell) reached the terminal as it was (``taxonomy`` draws the titles),
    and an invisible formatting one showed the line as it is not (a direction override reversed the text after it,
    a zero-width space split a word)."""
    for char in value:
        kind = unicodedata.category(char)
        if kind == "Cc" and char not in "\t\n\r\f":
            return f"a control character (U+{ord(char):04X})"
        if kind == "Cf" and char not in _JOINERS:
            return f"an invisible character (U+{ord(char):04X}, {unicodedata.name(char, 'unnamed').lower()})"
    return None


def dotted_key(key: str, value: Any) -> str:
    """``gpt-3.5`` from what TOML reads of it, ``{"gpt-3": {"5": 4}}``: the bare key whose dots made tables."""
    while isinstance(value, dict) and value:
        sub, value = next(iter(value.items()))
        key += f".{sub}"
    return key


def ordered_groups(groups: list[Group], sections: list[Section]) -> list[Group]:
    """The groups, each with its sections in file order; sections of no group in an untitled group at the end."""
    members: dict[str, list[str]] = {}
    for section in sections:
        members.setdefault(section.group, []).append(section.id)
    ordered = [Group(g.id, g.title, tuple(members.get(g.id, ())), g.parent, g.line) for g in groups]
    loose = tuple(s.id for s in sections if not s.group)
    if loose:
        # Sections without a group (a flat taxonomy): an untitled group, drawn without a heading of its own.
        ordered.append(Group("", "", loose))
    return ordered
