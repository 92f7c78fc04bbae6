"""Whether two records name the same first author, however each spells the family name.

Records of one paper spell its first author differently: ``von Neumann, John``, ``John von
Neumann``, ``Neumann, J. von``, a service's ``J. Von Neumann``; ``LeCun`` and ``Le Cun``;
``Müller`` and ``Mueller``; ``{Microsoft Research}`` and ``Microsoft Research``. A name is parsed
by BibTeX's rules (``bibtex/names.py``), its family name spelled in ASCII as keys spell it
(``text/transliterate.py``), and compared with its particles (``von``, ``van der``, ``de la``)
folded: with or without them, and whether BibTeX put them in the family name or, capitalised, at
the end of the given names. Only whole family names are compared: ``Li`` is never ``Lin``, and a
given name that looks like a particle (``Van Jacobson``) is never taken for one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from surveytool.analysis.key_authors import names_of
from surveytool.bibtex.names import split_names
from surveytool.model import Paper
from surveytool.text.transliterate import words

# Words that open a family name in the languages bibliographies meet ("de la Cruz", "van 't Hoff").
PARTICLES = frozenset(
    "von vom zu zur van den der de del della delle dello degli dei di da das dos do du des la le les lo los las "
    "ten ter te t 't op het d l al el".split()
)
# No name has more particles than this ("van de la"); a list of them is not folded further.
_MOST_PARTICLES = 4
# A particle joined to the name by an apostrophe or hyphen ("d'Alembert", "al-Khwarizmi"), split off.
_JOINED_PARTICLE = re.compile(r"^(d|l|al|el)['\u2019-](?=\w)", re.IGNORECASE)
# Not part of the family name at a name's end: DBLP's number telling namesakes apart ("Wei Zhang 0001"),
# a generation written without BibTeX's comma ("Martin Luther King Jr."), "et al." written into the name.
_TRAILING_WORD = re.compile(r"\d+|jr\.?|sr\.?|ii|iii|iv", re.IGNORECASE)
# German and Scandinavian letters have two ASCII spellings ("Müller": "Muller", "Mueller").
_LONG_SPELLING = str.maketrans(
    {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ø": "oe", "Ø": "Oe", "å": "aa", "Å": "Aa"}
)
_TABLES: tuple[dict[int, str], ...] = ({}, _LONG_SPELLING)


@dataclass(frozen=True)
class AuthorName:
    """A name's family name in each spelling it may take, and the whole name (for corporate authors)."""

    families: frozenset[str]
    wholes: frozenset[str]
    corporate: bool = False

    def __bool__(self) -> bool:
        return bool(self.families or self.wholes)


_NOBODY = AuthorName(frozenset(), frozenset())


def _spell(text: str) -> list[str]:
    """Each word of ``text`` in lower-case ASCII letters and digits (``Müller-Lüdenscheidt`` -> ``mullerludenscheidt``)."""
    return [w.lower() for w in words(text)]


def _without_trailing_words(text: str) -> str:
    # Word by word from the end: a pattern anchored at the end would be tried from every position.
    words_ = text.split()
    while len(words_) > 1:
        if _TRAILING_WORD.fullmatch(words_[-1]):
            del words_[-1:]
        elif len(words_) > 2 and words_[-1].lower() in ("al", "al.") and words_[-2].lower() in ("et", "et."):
            del words_[-2:]
        else:
            break
        words_[-1] = words_[-1].rstrip(",")
    return " ".join(words_)


def _split_particle(word: str) -> list[str]:
    match = _JOINED_PARTICLE.match(word)
    return [match.group(1), word[match.end() :]] if match else [word]


def _movable(word: str) -> bool:
    # An initial is a given name's ("Yu D. Ai" is not Dai), never a particle.
    return len(word) > 1 and word in PARTICLES


def _family_spellings(given: list[str], family: list[str]) -> set[str]:
    """The family name joined with and without its leading particles; capitalised particles that end
    the given names (BibTeX's reading of ``J. Von Neumann``) may open it, but one given name always stays."""
    moved = 0
    while moved < min(len(given) - 1, _MOST_PARTICLES) and _movable(given[len(given) - 1 - moved]):
        moved += 1
    joined = given[len(given) - moved :] + family
    spellings = set()
    for start, word in enumerate(joined[: 2 * _MOST_PARTICLES + 1]):
        spellings.add("".join(joined[start:]))
        if word not in PARTICLES:
            break
    return spellings


@lru_cache(maxsize=1 << 16)
def author_name(text: str, corporate: bool = False) -> AuthorName:
    """``text`` (one name, plain text) as it is compared; ``corporate``: a name never split into parts."""
    text = " ".join(text.split())
    people = [] if corporate else split_names(_without_trailing_words(text))
    if not corporate and not people:
        return _NOBODY
    if corporate or people[0].corporate:
        wholes = {"".join(_spell(text.translate(table))) for table in _TABLES}
        return AuthorName(frozenset(), frozenset(w for w in wholes if w), corporate=True)
    person = people[0]
    families: set[str] = set()
    wholes_: set[str] = set()
    for table in _TABLES:
        given = _spell(person.first.translate(table))
        family = [
            w
            for part in f"{person.von} {person.last}".split()
            for p in _split_particle(part)
            for w in _spell(p.translate(table))
        ]
        families |= _family_spellings(given, [w for w in family if w])
        wholes_.add("".join(given + family))
    return AuthorName(frozenset(families), frozenset(w for w in wholes_ if w)) if families else _NOBODY


def first_author(paper: Paper) -> AuthorName:
    """The first author of ``paper`` as it is compared (empty: none is named)."""
    return _first_of(paper.fields.get("author", ""), paper.latex_fields.get("author", ""))


@lru_cache(maxsize=1 << 16)
def _first_of(author: str, latex: str) -> AuthorName:
    # Records are compared pairwise, many times each: a list is read once.
    names, _ = names_of(author, latex)
    return author_name(*names[0]) if names else _NOBODY


def same_author(a: AuthorName, b: AuthorName) -> bool:
    """Whether two named authors are one: a family name in common, or a corporate name that is the other's whole name."""
    if a.corporate or b.corporate:
        return bool(a.wholes & b.wholes)
    return bool(a.families & b.families)
