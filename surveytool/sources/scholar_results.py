"""A Google Scholar result pasted into a related-paper list: its title line and its byline.

A browser copies each result as the title (perhaps after "[PDF]" or "[HTML]"), a byline of the authors'
initials and surnames, the venue and year and the host ("D Narayanan, A Harlap… - Proceedings of the 27th
…, 2019 - dl.acm.org"), then the snippet. Read as one paragraph, the title and byline became the snippet's
first words, and the paper was matched by neither its title nor its year.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The labels before a result's title: "[PDF]", "[HTML][HTML]", "[BOOK]", "[CITATION][C]".
_LABELS = re.compile(r"^\s*(?:\[(?:PDF|HTML|DOC|PS|BOOK|B|CITATION|C)\]\s*)+")
# The parts of a byline: Scholar joins them with " - ".
_PARTS = re.compile(r"\s+[-–]\s+")
_VENUE_YEAR = re.compile(r"^(?:(?P<venue>.*?),\s*)?(?P<year>(?:19|20)\d\d)$")
_HOST = re.compile(r"^[\w-]+(?:\.[\w-]+)+$")
_CUT = ("…", "...")
# A title runs over a line or two before its byline.
_MOST_TITLE_LINES = 3


@dataclass(frozen=True)
class Byline:
    authors: tuple[str, ...]  # as BibTeX names: "Narayanan, D"
    more_authors: bool  # Scholar cut the list short ("…")
    year: str


def read_byline(line: str, cited: bool = False) -> Byline | None:
    """The byline of a Scholar result, or None when ``line`` is not one.

    Scholar ends a byline with where it found the result, but for a result it has no link to: the one it labels
    [CITATION] (``cited``). A line of two parts elsewhere is a snippet's ("GPT Models - OpenAI, 2020").
    """
    parts = _PARTS.split(line.strip())
    if not (len(parts) == 3 or (cited and len(parts) == 2)) or (len(parts) == 3 and not _source(parts[2])):
        return None
    venue_year = _VENUE_YEAR.match(parts[1])
    if venue_year is None:
        return None
    names = parts[0].rstrip()
    more = names.endswith(_CUT)
    for cut in _CUT:
        names = names.removesuffix(cut)
    authors = [_author(name) for name in names.split(",")]
    if not all(authors):
        return None
    return Byline(tuple(authors), more, venue_year.group("year"))


def _source(part: str) -> bool:
    """Where Scholar found the result: a host ("dl.acm.org") or a publisher ("Elsevier", "Taylor & Francis")."""
    return bool(_HOST.match(part)) or (len(part) <= 40 and part[:1].isalpha() and not any(map(str.isdigit, part)))


def _author(name: str) -> str:
    """One author as Scholar writes them, initials with no full stops then the surname ("DP Kingma", "L van der
    Maaten", "É Moulines"), as a BibTeX name ("Kingma, DP"); "" for other text."""
    words = name.split()
    if len(words) < 2:
        return ""
    initials, *surname = words
    if not (initials.isalpha() and initials.isupper() and len(initials) <= 4 and 1 <= len(surname) <= 4):
        return ""
    if not all(word[:1].isalpha() for word in surname):
        return ""
    return f"{' '.join(surname)}, {initials}"


@dataclass(frozen=True)
class ScholarResult:
    title: str
    byline: Byline
    snippet_lines: list[str]


def read_result(lines: list[str]) -> ScholarResult | None:
    """The title, byline and snippet lines of an item's ``lines`` that are a Scholar result, else None."""
    labels = _LABELS.match(lines[0]) if lines else None
    cited = labels is not None and ("[CITATION]" in labels.group() or "[C]" in labels.group())
    for index, line in enumerate(lines[1 : _MOST_TITLE_LINES + 1], start=1):
        byline = read_byline(line, cited)
        if byline is not None:
            title = " ".join(part.strip() for part in lines[:index])
            title = _LABELS.sub("", title).strip()
            return ScholarResult(title, byline, lines[index + 1 :]) if title else None
    return None


def result_starts(lines: list[str]) -> list[int]:
    """Where each result in ``lines`` starts: results pasted with no blank line between them are one item, and the
    next starts at a title over a byline, after the snippet of the one before."""
    result = read_result(lines)
    starts = [0]
    begin = len(lines) - len(result.snippet_lines) if result else len(lines)  # the first line after the byline
    while (title := next((i for i in range(begin, len(lines) - 1) if read_result(lines[i : i + 2])), None)) is not None:
        starts.append(title)
        begin = title + 2  # a title found over its byline is one line
    return starts


def bibtex_authors(byline: Byline) -> str:
    """The byline's authors as a BibTeX author list, "and others" where Scholar cut it short."""
    return " and ".join((*byline.authors, "others") if byline.more_authors else byline.authors)
