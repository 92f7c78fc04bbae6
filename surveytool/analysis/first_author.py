"""Whether two records name the same first author, however each spells the family name.

Records of one paper spell its first author differently: ``von Neumann, John``, ``John von
Neumann``, ``Neumann, J. von``, a service's ``J. Von Neumann``; ``LeCun`` and ``Le Cun``;
``Müller`` and ``Mueller``; ``{Microsoft Research}`` and ``Microsoft Research``. A name is parsed
by BibTeX's rules (``bibtex/names.py``), its family name spelled in ASCII as keys spell it
(``text/transliterate.py``), and compared with its particles (``von``, ``van der``, ``de la``)
folded: with or without them, and whether BibTeX put them in the family name or, capitalised, at
the end of the given names. Only whole family names are compared: ``Li`` is never ``Lin``, and a
given name that looks like a particle (``Van Jacobson``) is never taken for one.

Spanish and Portuguese names have two family names, and BibTeX takes the first of them for a given
name in ``Gabriel García Márquez``: such a name is also read with its last given name opening the
family name. A record that writes only one of the two family names matches one that writes both as
the family name (``García Márquez, Gabriel``, ``G. García-Márquez``) when their first given names
agree: the first in Spanish usage (``Gabriel Garcia``), the last in Portuguese (``Maria Santos`` for
``Silva Santos, Maria``). The two may be joined by ``y``, ``e`` or ``i`` (``Ortega y Gasset``).
East Asian names are written family name first or last (``Zhang Wei``, ``Wei Zhang``): a name of
two whole words matches the same two words the other way round, unless both records wrote a comma.
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
# Words joining two family names ("Ortega y Gasset", "Silva e Santos", "Puig i Cadafalch"); BibTeX reads one as
# a "von" part, which would leave the first family name among the given names.
CONJUNCTIONS = frozenset({"y", "e", "i"})
# No name has more particles than this ("van de la"); a list of them is not folded further.
_MOST_PARTICLES = 4
# A particle joined to the name by an apostrophe or hyphen ("d'Alembert", "al-Khwarizmi"), split off.
_JOINED_PARTICLE = re.compile(r"^(d|l|al|el)['\u2019-](?=\w)", re.IGNORECASE)
# Not part of the family name at a name's end: DBLP's number telling namesakes apart ("Wei Zhang 0001"),
# a generation written without BibTeX's comma ("Martin Luther King Jr."), "et al." written into the name.
# A numeral only in capitals: "Ii" is a Japanese family name ("Naoki Ii").
_TRAILING_WORD = re.compile(r"\d+|[jJsS][rR]\.?|II|III|IV")
# German and Scandinavian letters have two ASCII spellings ("Müller": "Muller", "Mueller").
_LONG_SPELLING = str.maketrans(
    {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ø": "oe", "Ø": "Oe", "å": "aa", "Å": "Aa"}
)
_TABLES: tuple[dict[int, str], ...] = ({}, _LONG_SPELLING)


@dataclass(frozen=True)
class AuthorName:
    """A name's family name in each spelling it may take, the whole name (for corporate authors), and what
    the readings of two family names and of a name written family name first compare."""

    families: frozenset[str]
    wholes: frozenset[str]
    corporate: bool = False
    # The family name's words that are not particles, where there is one ("de Vries") or two ("García Márquez").
    singles: frozenset[str] = frozenset()
    doubles: frozenset[tuple[str, str]] = frozenset()
    # The first given name, with whether it is an initial ("G." agrees with "Gabriel", "Ana" does not).
    first_given: frozenset[tuple[str, bool]] = frozenset()
    given_words: frozenset[str] = frozenset()
    # A name of two whole words as (given, family), and whether a comma said which is which ("Zhang, Wei").
    two_words: frozenset[tuple[str, str]] = frozenset()
    comma: bool = False

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


def _word(token: str, table: dict[int, str]) -> str:
    return "".join(_spell(token.translate(table)))


def _initial(token: str) -> bool:
    return "." in token or len(_word(token, {})) < 2  # "G.", "J.-B.", "G" (or no letters at all)


def _core(family: list[str]) -> tuple[str, ...]:
    """The family name's words, each part of a hyphenated one a word (``García-Márquez``), less its particles."""
    words_ = (w for part in family for p in _split_particle(part) for w in _spell(p.replace("-", " ")))
    return tuple(w for w in words_ if w not in PARTICLES and w not in CONJUNCTIONS)


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
    first_names, tokens, family_tokens = person.first, person.first.split(), f"{person.von} {person.last}".split()
    if person.von.lower() in CONJUNCTIONS and len(tokens) > 1:  # "José Ortega y Gasset": family "Ortega y Gasset"
        first_names, tokens, family_tokens = " ".join(tokens[:-1]), tokens[:-1], tokens[-1:] + family_tokens
    # Spanish and Portuguese names have two family names, and BibTeX takes the first for a given name
    # ("Gabriel García Márquez": family "Márquez"): the last given name is also read as the family's first.
    double = len(tokens) > 1 and not _initial(tokens[-1]) and tokens[-1].lower() not in PARTICLES
    families: set[str] = set()
    wholes_: set[str] = set()
    cores: set[tuple[str, ...]] = set()
    for table in _TABLES:
        given = _spell(first_names.translate(table))
        family = [w for part in family_tokens for p in _split_particle(part) for w in _spell(p.translate(table))]
        families |= _family_spellings(given, family)
        if double and family:
            families |= _family_spellings(given[:-1], given[-1:] + family)
        wholes_.add("".join(given + family))
        # Only a family name the record writes as such: "Robert Adams Day" may be read "Adams Day" for the whole
        # name, but its "Adams" is no first family name to match "Robert Adams" by.
        cores.add(_core([t.translate(table) for t in family_tokens]))
    if not families:
        return _NOBODY
    # The first given name's spellings (one word, or none if it has no letters), for telling namesakes apart.
    first_given = [(w, _initial(tokens[0])) for t in _TABLES for w in _spell(tokens[0].translate(t))] if tokens else []
    # East Asian names are written family name first or last ("Zhang Wei", "Wei Zhang"), and BibTeX takes the last
    # word for the family name: a name of two whole words (no initial, no particle) may be read the other way.
    two_words = tokens + family_tokens
    if len(tokens) != 1 or len(two_words) != 2 or any(_initial(w) or w.lower() in PARTICLES for w in two_words):
        two_words = []
    return AuthorName(
        frozenset(families),
        frozenset(w for w in wholes_ if w),
        singles=frozenset(core[0] for core in cores if len(core) == 1),
        doubles=frozenset((core[0], core[1]) for core in cores if len(core) == 2),
        first_given=frozenset(first_given),
        given_words=frozenset(w for t in _TABLES for w in _spell(first_names.translate(t))),
        two_words=frozenset((_word(two_words[0], t), _word(two_words[1], t)) for t in _TABLES if two_words),
        comma="," in text,
    )


def first_author(paper: Paper) -> AuthorName:
    """The first author of ``paper`` as it is compared (empty: none is named)."""
    return _first_of(paper.fields.get("author", ""), paper.latex_fields.get("author", ""))


@lru_cache(maxsize=1 << 16)
def _first_of(author: str, latex: str) -> AuthorName:
    # Records are compared pairwise, many times each: a list is read once.
    names, _ = names_of(author, latex)
    return author_name(*names[0]) if names else _NOBODY


def same_authors(a: Paper, b: Paper) -> bool:
    """Whether two entries name the same authors in the same order, given names agreeing where both give one (a
    list ending "and others" may stop early)."""
    ones, one_etal = names_of(a.fields.get("author", ""), a.latex_fields.get("author", ""))
    others, other_etal = names_of(b.fields.get("author", ""), b.latex_fields.get("author", ""))
    if len(ones) != len(others) and not (
        one_etal and len(ones) < len(others) or other_etal and len(others) < len(ones)
    ):
        return False
    pairs = [(author_name(*x), author_name(*y)) for x, y in zip(ones, others, strict=False)]
    return bool(pairs) and all(
        same_author(x, y) and (not x.first_given or not y.first_given or first_givens_agree(x, y)) for x, y in pairs
    )


def same_author(a: AuthorName, b: AuthorName) -> bool:
    """Whether two named authors are one: a family name in common (or one of two, or the same two words the
    other way round), or a corporate name that is the other's whole name."""
    if a.corporate or b.corporate:
        return bool(a.wholes & b.wholes)
    return bool(a.families & b.families) or _one_of_two(a, b) or _one_of_two(b, a) or _other_way_round(a, b)


def _other_way_round(a: AuthorName, b: AuthorName) -> bool:
    """Whether one name's two words are the other's, given name and family name swapped ("Zhang Wei", "Wei Zhang").
    Only when at most one wrote a comma (two commas say two different family names) and both words are equal."""
    if not (a.two_words and b.two_words) or a.comma and b.comma:
        return False
    return any((family, given) in b.two_words for given, family in a.two_words)


def _one_of_two(one: AuthorName, two: AuthorName) -> bool:
    """Whether ``one`` names only one of ``two``'s two family names ("Gabriel Garcia", "García Márquez, Gabriel";
    "Maria Santos", "Silva Santos, Maria"). Weaker evidence than a whole family name, so the first given names
    must agree too, and neither family name of ``two`` may be a given name of ``one`` ("Gabriel Márquez García"
    is another order)."""
    if not two.doubles or not one.singles:  # most names: compared pairwise, this is the one quick answer
        return False
    either = {name for pair in two.doubles if not set(pair) & one.given_words for name in pair}
    return bool(one.singles & either) and first_givens_agree(one, two)


def first_givens_agree(a: AuthorName, b: AuthorName) -> bool:
    # An initial agrees with any name it begins; two whole names only when they are equal.
    return any(
        x == y or (x_initial or y_initial) and x[:1] == y[:1]
        for x, x_initial in a.first_given
        for y, y_initial in b.first_given
    )
