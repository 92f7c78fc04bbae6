"""A nearest section for a paper no vocabulary rule places: TF-IDF cosine with each section's text."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence

from .models import Paper, Taxonomy
from .textnorm import normalize

# Words every paper in the field uses: they say nothing about a section.
_GENERIC_WORDS = frozenset(
    "neural network networks deep learning machine model models training train trained large scale "
    "based approach method methods paper propose proposed novel work results show data system systems "
    "performance efficient efficiently however recent state using used such these their which while "
    "this that with from have been into more most also than them they there where when what about "
    "many other both each only over under some very well will would could should does because time "
    "important increasing increasingly challenge challenges challenging problem problems task tasks".split()
)


class Suggester:
    """TF-IDF cosine between a paper and each section's title, description and vocabulary."""

    def __init__(self, taxonomy: Taxonomy, fields: Sequence[str]):
        self.fields = fields  # of a paper, compared with the sections
        documents = {}
        for section in taxonomy.sections:
            text = " ".join([section.title, section.description, *section.aliases, *(k.replace("*", "") for k in section.keywords)])
            documents[section.id] = Counter(w for w in normalize(text).split() if w not in _GENERIC_WORDS)
        frequency = Counter(word for counts in documents.values() for word in counts)
        self.idf = {w: math.log((1 + len(documents)) / (1 + n)) + 1 for w, n in frequency.items()}
        self.query_words = frozenset(w for w in self.idf if len(w) > 3)  # a paper's words that can count
        self.vectors = {s: self._weigh(c) for s, c in documents.items()}
        # word -> (section, weight): a paper's similarity to every section in one pass over its words.
        self.postings: dict[str, list[tuple[str, float]]] = defaultdict(list)
        for section_id, vector in self.vectors.items():
            for word, weight in vector.items():
                self.postings[word].append((section_id, weight))

    def _weigh(self, counts: Counter) -> dict[str, float]:
        vector = {w: (1 + math.log(n)) * self.idf[w] for w, n in counts.items() if w in self.idf}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        return {w: v / norm for w, v in vector.items()}

    def suggest(self, paper: Paper) -> tuple[str, float, list[str]] | None:
        # Field by field: the normalized fields are cached from scoring.
        words = (w for f in self.fields for w in normalize(paper.fields.get(f, "")).split())
        query = self._weigh(Counter(w for w in words if w in self.query_words))
        similarities: dict[str, float] = defaultdict(float)
        for word, weight in query.items():
            for section_id, section_weight in self.postings.get(word, ()):
                similarities[section_id] += weight * section_weight
        best: tuple[float, str] | None = None
        for section_id in self.vectors:  # taxonomy order: the first of equals wins
            similarity = similarities.get(section_id, 0.0)
            if similarity > 0 and (best is None or similarity > best[0]):
                best = (similarity, section_id)
        if best is None:
            return None
        shared = sorted((w for w in query if w in self.vectors[best[1]]), key=lambda w: -query[w] * self.vectors[best[1]][w])
        return best[1], best[0], shared[:5]
