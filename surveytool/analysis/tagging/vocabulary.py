"""Finding vocabulary phrases in text: a word-index matcher, linear in the text's length.

A phrase is a sequence of words; a word ending in ``*`` matches any ending
("parallel*" matches "parallelism"). At each position the longest phrase that
matches wins, and a phrase inside one found before is not found again, so
"pipeline parallelism" is found instead of "parallelism". Phrases that only
overlap are both found: "high performance model merging" has "performance
model" and "model merging".
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from surveytool.text.normalize import normalize

# A lower-case letter, then a capital and a lower-case one: the seam of a name such as "FasterMoE" or
# "DeepSpeed". "ZeRO" and "LoRA" have none (a capital run is an acronym's, not a word's start).
_SEAM = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])")
_HAS_SEAM = re.compile(r"[a-z][A-Z][a-z]")  # most texts have none: one scan answers for them
_COMPOUND = re.compile(r"\b[A-Za-z]*[a-z][A-Z][a-z][A-Za-z]*")  # from a word's start only: linear, not quadratic


def name_parts(text: str) -> list[str]:
    """The words of each compound name in ``text``, written apart: "FasterMoE" -> "Faster MoE".

    Systems are named after their topic, and a phrase otherwise only matches at a word's start.
    """
    if not _HAS_SEAM.search(text):
        return []
    return [" ".join(_SEAM.split(name)) for name in _COMPOUND.findall(text)]  # each name has a seam


@dataclass(frozen=True)
class Phrase:
    text: str
    words: tuple[tuple[str, bool], ...]  # (word, is a prefix)


def compile_phrase(text: str) -> Phrase:
    words: list[tuple[str, bool]] = []
    for raw in text.split():
        parts = normalize(raw.rstrip("*")).split()
        words.extend((part, False) for part in parts)
        if raw.endswith("*") and words:
            words[-1] = (words[-1][0], True)
    return Phrase(text, tuple(words))


class PhraseMatcher:
    def __init__(self, phrases: Sequence[str]):
        compiled = [compile_phrase(p) for p in phrases]
        # Longest first, so the first candidate that matches at a position is the longest.
        self.phrases = sorted((p for p in compiled if p.words), key=lambda p: (-len(p.words), -len(p.text), p.text))
        self._exact: dict[str, list[int]] = defaultdict(list)
        self._prefix: dict[str, list[int]] = defaultdict(list)
        for index, phrase in enumerate(self.phrases):
            word, is_prefix = phrase.words[0]
            (self._prefix if is_prefix else self._exact)[word].append(index)
        self._max_prefix = max((len(w) for w in self._prefix), default=0)
        # A phrase's words when none is a prefix: compared with a slice of the text's words at once.
        self._exact_words = [
            None if any(p for _, p in phrase.words) else [w for w, _ in phrase.words] for phrase in self.phrases
        ]
        self._lengths = [len(phrase.words) for phrase in self.phrases]
        self._cache: dict[str, list[int]] = {}  # word -> candidates; words repeat across entries

    def _candidates(self, word: str) -> list[int]:
        cached = self._cache.get(word)
        if cached is None:
            found = list(self._exact.get(word, ()))
            for end in range(1, min(len(word), self._max_prefix) + 1):
                found.extend(self._prefix.get(word[:end], ()))
            cached = self._cache[word] = sorted(found)  # back into longest-first order
        return cached

    def _matches_at(self, words: list[str], start: int, index: int) -> bool:
        """Whether the phrase at ``index``, one with a word that is a prefix, matches the words from ``start``."""
        for offset, (word, is_prefix) in enumerate(self.phrases[index].words):
            actual = words[start + offset]
            if not (actual.startswith(word) if is_prefix else actual == word):
                return False
        return True

    def find(self, text: str) -> Iterator[tuple[Phrase, str]]:
        """Each phrase found in ``text`` (normalized first), with the words it matched."""
        words = normalize(text).split()
        cache = self._cache
        for word in set(words).difference(cache):
            self._candidates(word)
        count = len(words)
        lengths, exact_words = self._lengths, self._exact_words
        end_found = 0  # where the phrases found so far end
        # Most words start no phrase: only the positions of those that may are tried.
        for start in [i for i, word in enumerate(words) if cache[word]]:
            for index in cache[words[start]]:
                end = start + lengths[index]
                if end > count:
                    continue
                exact = exact_words[index]
                if words[start:end] == exact if exact is not None else self._matches_at(words, start, index):
                    if end > end_found:  # not inside a phrase found before (the longest here is not, or none is)
                        yield self.phrases[index], " ".join(words[start:end])
                        end_found = end
                    break
