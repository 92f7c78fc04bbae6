"""The features themes are found by: a paper's stemmed words and adjacent word pairs, and sparse vectors over them."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable

from surveytool.text.normalize import ascii_fold

#: A paper is its heaviest terms: the rest are noise, and dropping them keeps the cost linear in the papers.
PAPER_TERMS = 24


# Function words and the words every abstract uses: they neither separate papers nor name a theme.
STOP_WORDS = frozenset(
    "a about above across after again against all almost along also although am among an and another any are "
    "around as at be because been before being below between both but by can cannot could did do does doing done "
    "down during each either else enough especially etc even ever every few for from further had has have having "
    "he her here hers him his how however i if in into is it its itself just least less like made make makes many "
    "may me might more most much must my neither no nor not now of off often on once one only onto or other others "
    "otherwise our ours out over own per rather same several she should since so some such than that the their "
    "theirs them themselves then there therefore these they this those though through thus to too toward towards "
    "under until up upon us very via vs versus was we well were what when where whether which while who whom whose "
    "why will with within without would yet you your "
    # words of any abstract
    "approach approaches based demonstrate demonstrates existing experiment experiments experimental show shows "
    "shown novel paper present presents proposed propose proposes result results study studies use used uses "
    "using work works new method methods technique techniques achieve achieves achieved significantly significant "
    "compared state art recent recently first two three different various problem problems challenge challenging "
    "challenges key important effective effectively efficient efficiently improve improves improved improving "
    "provide provides large scale large-scale called thereby e g ie eg "
    # words of any title: they qualify a topic, never name one
    "accelerating better beyond enabling exploring fast faster rethinking revisiting scalable simple "
    "towards understanding making".split()
)


_SUFFIXES = ("izations", "ization", "isation", "izing", "ising", "ized", "ised", "izes", "ises", "isms", "ism",
             "ities", "ity", "ings", "ing", "ers", "er", "ed", "es", "s")  # fmt: skip


_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script: a word is shown as the papers spell it


_COMMAND = re.compile(r"\\[A-Za-z]+")  # \emph, \textbf: markup a BibTeX title may keep, never a topic


def stem(word: str) -> str:
    """A crude suffix stripper: ``schedules``, ``scheduling`` -> ``schedul``."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


_EXTENDED = "\x00"  # prefix of the surface keys that count the word triples holding a pair


_EXTEND_SHARE = 0.8


_TOKENS: dict[str, str] = {}  # word as written -> its stem, "" for a stop word: words repeat across papers


def paper_terms(text: str, surface: dict[str, Counter[str]]) -> set[str]:
    """Stemmed words and adjacent pairs of ``text``; records each term's surface form in ``surface``.

    A pair is two words adjacent in the text, neither a stop word: a pair that
    spanned a dropped word would read wrongly as a name.
    """
    words = _WORD.findall(_COMMAND.sub(" ", text))
    found: set[str] = set()
    run: list[tuple[str, str]] = []  # the (token, shown) of the last words, none of them a stop word
    for word in words:
        token = _TOKENS.get(word)
        if token is None:  # compared without accents ("über" is "uber"), shown with them
            lower = ascii_fold(word).lower()
            token = _TOKENS[word] = "" if lower in STOP_WORDS or len(lower) < 2 or lower.isdigit() else stem(lower)
        if not token:
            run = []
            continue
        shown = word if not word[1:].islower() else word.lower()  # keep GPU, MoE, ZeRO
        found.add(token)
        surface.setdefault(token, Counter())[shown] += 1
        run = [*run[-2:], (token, shown)]
        if len(run) >= 2:
            pair = f"{run[-2][0]} {token}"
            found.add(pair)
            surface.setdefault(pair, Counter())[f"{run[-2][1]} {shown}"] += 1
        if len(run) == 3:  # a word triple is only ever shown, in place of a pair it nearly always extends
            triple = " ".join(shown for _, shown in run)
            for held in (f"{run[0][0]} {run[1][0]}", pair):
                surface.setdefault(_EXTENDED + held, Counter())[triple] += 1
    return found


def display_term(term: str, surface: dict[str, Counter[str]]) -> str:
    """A term as most often written; a pair as the triple it nearly always belongs to ("graph neural networks")."""
    forms = surface[term]
    triples = surface.get(_EXTENDED + term)
    if triples:
        triple = min(triples, key=lambda form: (-triples[form], form))
        if triples[triple] >= _EXTEND_SHARE * sum(forms.values()):
            return triple
    return min(forms, key=lambda form: (-forms[form], form))


def normalized(vector: dict[str, float]) -> dict[str, float]:
    length = math.sqrt(sum(v * v for v in vector.values()))
    return {t: v / length for t, v in vector.items()} if length else {}


def strongest(vector: dict[str, float], count: int = PAPER_TERMS) -> dict[str, float]:
    """The ``count`` heaviest terms of a vector (ties by term), in term order."""
    if len(vector) <= count:
        return vector
    kept = sorted(vector.items(), key=lambda item: (-item[1], item[0]))[:count]
    return dict(sorted(kept))


def dot(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    get = b.get
    return sum([v * get(t, 0.0) for t, v in a.items()])  # a list sums faster than a generator


def centroid(members: Iterable[dict[str, float]]) -> dict[str, float]:
    total: dict[str, float] = {}
    for vector in members:
        for t, v in vector.items():
            total[t] = total.get(t, 0.0) + v
    return normalized({t: total[t] for t in sorted(total)})
