"""The entry written for a paper nobody resolved: a title and a label that say they are none, so the user, the checks
and a later run can tell it, also in a .bib written before."""

from __future__ import annotations

from surveytool.model import Paper

_PLACEHOLDER_WORDS = 12
#: How a placeholder title starts: the checks recognise one by it, also in a .bib written before.
PLACEHOLDER_PREFIXES = ("Unresolved snippet:", "Unresolved title:")
#: How the ``key`` field (BibTeX's label for an entry without authors) of a placeholder starts.
PLACEHOLDER_KEY = "Unresolved"


def is_placeholder_key(value: str) -> bool:
    return value == PLACEHOLDER_KEY or value.startswith(PLACEHOLDER_KEY + " ")


def is_placeholder_title(title: str) -> bool:
    return title.startswith(PLACEHOLDER_PREFIXES)


def placeholder_title(paper: Paper) -> str:
    """A title that says it is not one: the opening words of an unresolved snippet or title."""
    if paper.abstract and not paper.title:
        opening = " ".join(paper.abstract.split()[:_PLACEHOLDER_WORDS]).rstrip(".,;:…")
        return f"{PLACEHOLDER_PREFIXES[0]} {opening}…"
    cut = paper.truncated and not paper.abstract  # else the snippet below it was cut, not the title
    return f"{PLACEHOLDER_PREFIXES[1]} {paper.title or ''}{'…' if cut else ''}"
