"""The section a user's tag text names: an id, a title or an alias, compared as normalized words (``MoE``,
``Mixture of Experts`` -> ``moe``)."""

from __future__ import annotations

import difflib

from surveytool.model import Taxonomy
from surveytool.text.normalize import normalize

#: Each taxonomy's lookup, made once: tags are looked up for every entry of a run.
_LOOKUPS: dict[int, tuple[Taxonomy, dict[str, str]]] = {}


def section_lookup(taxonomy: Taxonomy) -> dict[str, str]:
    """Normalized ids, titles and aliases -> section id."""
    made = _LOOKUPS.get(id(taxonomy))
    if made is None or made[0] is not taxonomy:  # kept with its taxonomy, so its id is never another's
        made = _LOOKUPS[id(taxonomy)] = (taxonomy, _lookup_of(taxonomy))
    return made[1]


def _lookup_of(taxonomy: Taxonomy) -> dict[str, str]:
    """Each name's first section, ids before titles and aliases: a tag "experts" is the section of that id, not
    one titled "Experts". A name of no letter or digit (a title "???") names none: "-" is no tag."""
    names = [(name_key(s.id), s.id) for s in taxonomy.sections]
    names += [(name_key(name), s.id) for s in taxonomy.sections for name in (s.title, *s.aliases)]
    return {name: section_id for name, section_id in reversed(names) if name}


def name_key(name: str) -> str:
    """``name`` as compared: its normalized words, or for a name in another script (which ``normalize`` folds
    to nothing: a Chinese title named no section) its letters and digits, case folded."""
    return normalize(name) or "".join(char for char in name.casefold() if char.isalnum())


def canonical_section(raw: str, taxonomy: Taxonomy) -> str | None:
    """The section id a user's tag text means (``MoE`` -> ``moe``), or None."""
    return section_lookup(taxonomy).get(name_key(raw))


def suggest_section(raw: str, taxonomy: Taxonomy) -> str | None:
    """The section whose name is closest to ``raw`` (what a misspelt tag likely means), or None."""
    lookup = section_lookup(taxonomy)
    close = difflib.get_close_matches(name_key(raw), list(lookup), n=1, cutoff=0.6)
    return lookup[close[0]] if close else None
