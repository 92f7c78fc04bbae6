"""A learned tagger: TF-IDF centroids of words and word pairs, trained on tagged exemplars.

Exemplars come from three places, weighted in this order: the user's own tagged
entries, the bundled labelled corpus (``seeds/labelled/corpus.tsv``, train split,
only for a taxonomy that has every section it uses) and the taxonomy itself
(each section's title, description, aliases and vocabulary as one document).

Scoring is sparse: a feature adds to the sections whose exemplars have it, so
a paper costs one dictionary lookup per feature and a few additions.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence

from surveytool.analysis.tagging.complement import ComplementModel
from surveytool.analysis.tagging.exemplars import (
    OUT_OF_SCOPE,
    SETTINGS,
    Exemplar,
    Settings,
    corpus_exemplars,
    taxonomy_exemplars,
)
from surveytool.analysis.tagging.features import features, stem
from surveytool.digest import digest_text
from surveytool.model import Taxonomy

# Longer than any name that hides its topic ("DeepSpeedMoE", "FasterTransformer").
_LONGEST_NAME = 40


class CentroidModel:
    """Each section as the weighted sum of its exemplars' TF-IDF vectors; a paper scored by cosine with each.

    Unlike naive Bayes, a cosine does not favour the sections with few
    exemplars (or many): the corpus's sizes per section are not the user's.
    An exemplar can be left out of its section's sum, for cross-validation.
    """

    def __init__(self, sections: Sequence[str], exemplars: Sequence[Exemplar], settings: Settings = SETTINGS):
        self.sections = tuple(sections)
        self.settings = settings
        self.exemplars = tuple(exemplars)
        self.exemplar_features = [features(e.title, e.body) for e in self.exemplars]
        frequency: dict[str, int] = defaultdict(int)
        for found in self.exemplar_features:
            for feature in found:
                frequency[feature] += 1
        total = len(self.exemplars) + 1
        self._only_once = frozenset(f for f, n in frequency.items() if n == 1)
        self.idf = {f: math.log(total / (n + 1)) + 1.0 for f, n in frequency.items()}
        self._parts: dict[str, tuple[str, ...]] = {}
        self._postings: dict[str, list[tuple[int, float]]] | None = None
        index = {s: i for i, s in enumerate(self.sections)}
        sums: dict[str, dict[int, float]] = defaultdict(dict)
        self._columns: list[list[tuple[int, float]]] = []  # per exemplar: (section column, weight)
        self._primaries: list[tuple[dict[str, float], int, float] | None] = []  # what the complement model saw
        for exemplar, found in zip(self.exemplars, self.exemplar_features, strict=True):
            columns = [
                (index[s], exemplar.weight * (1.0 if n == 0 else settings.secondary_weight))
                for n, s in enumerate(exemplar.sections)
                if s in index
            ]
            self._columns.append(columns)
            vector = self.vector(found)
            primary = index.get(exemplar.sections[0]) if exemplar.sections else None
            self._primaries.append(None if primary is None else (vector, primary, exemplar.weight))
            for feature, value in vector.items():
                row = sums[feature]
                for column, weight in columns:
                    row[column] = row.get(column, 0.0) + weight * value
        self.sums = {f: tuple(sorted(row.items())) for f, row in sums.items()}
        norms = [0.0] * len(self.sections)
        for weights in self.sums.values():
            for column, value in weights:
                norms[column] += value * value
        self.norms = [math.sqrt(n) for n in norms]
        self.complement = ComplementModel(len(self.sections), [p for p in self._primaries if p is not None])
        # Keys and origins too: ``nearest`` orders equal cosines by key and picks by origin (the user model's votes).
        self.digest = digest_text(
            repr(settings),
            repr(self.sections),
            *(repr((e.key, e.title, e.body, e.sections, e.weight, e.origin)) for e in self.exemplars),
        )

    @property
    def counts(self) -> Mapping[str, tuple[tuple[int, float], ...]]:
        """The features the model knows."""
        return self.sums

    def parts(self, word: str) -> tuple[str, ...]:
        """A word the model does not know as two that it does: ``fastermoe`` -> ``fast``, ``moe``.

        Names often contain their topic ("FasterMoE", "DeepSpeed-MoE" is two words already).
        """
        found = self._parts.get(word)
        if found is None and len(word) > _LONGEST_NAME:
            return ()  # a run of letters pasted without spaces, no name: trying each split costs its length squared
        if found is None:
            found = ()
            idf = self.idf
            # The topic is the word's end as written ("moe"); its start may be inflected ("faster").
            known = [(stem(word[:i]), word[i:]) for i in range(3, len(word) - 2) if word[i:] in idf]
            known = [(start, end) for start, end in known if start in idf]
            if known:
                found = max(known, key=lambda pair: (min(len(pair[0]), len(pair[1])), pair))
            self._parts[word] = found
        return found

    def vector(
        self, found: Iterable[str], split: Collection[str] = (), leave_out: int | None = None
    ) -> dict[str, float]:
        """Known features weighted by rarity, unit length; unknown words of ``split`` (a title's: names live
        there) split into known ones where they can be. ``leave_out``: features only that exemplar has are
        unknown, as in a model that never saw it."""
        idf = self.idf
        unseen = self._only_once & self.exemplar_features[leave_out] if leave_out is not None else frozenset()
        # A title's words come as a list: looked up once per feature, a title of thousands of words took minutes.
        split = split if isinstance(split, set | frozenset) else frozenset(split)
        weights = {}
        for feature in found:
            weight = idf.get(feature)
            if weight is not None:
                if feature not in unseen:
                    weights[feature] = weight
            elif feature in split:
                for part in self.parts(feature):
                    if part not in unseen:
                        weights[part] = idf[part]
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        return {f: w / norm for f, w in weights.items()}

    def log_scores(self, found: Iterable[str] | dict[str, float], leave_out: int | None = None) -> list[float]:
        """Cosine of the paper (its features, or their ``vector``) with each section plus the complement model's
        score; ``leave_out``: as if that exemplar had not been seen."""
        query = found if isinstance(found, dict) else self.vector(found, leave_out=leave_out)
        dots = [0.0] * len(self.sections)
        sums = self.sums
        for feature, value in query.items():
            for column, weight in sums[feature]:
                dots[column] += value * weight
        norms = list(self.norms)
        if leave_out is not None:
            own = self.vector(self.exemplar_features[leave_out])
            for column, weight in self._columns[leave_out]:
                overlap = sum(v * dict(sums[f]).get(column, 0.0) for f, v in own.items())
                squared = norms[column] ** 2 - 2 * weight * overlap + weight * weight
                norms[column] = math.sqrt(max(squared, 0.0))
                dots[column] -= weight * sum(v * own.get(f, 0.0) for f, v in query.items())
        left = self._primaries[leave_out] if leave_out is not None else None
        complement = self.complement.scores(query, left)
        beta = self.settings.complement_weight
        return [
            (dot / norm if norm > 1e-9 else 0.0) + beta * extra
            for dot, norm, extra in zip(dots, norms, complement, strict=True)
        ]

    def nearest(
        self,
        found: frozenset[str] | dict[str, float],
        count: int = 3,
        leave_out: int | None = None,
        origins: tuple[str, ...] = ("user", "corpus"),
    ) -> list[tuple[float, Exemplar]]:
        """The exemplars most like ``found`` (features, or their ``vector``) by cosine, most similar first.

        Cosines are rounded to 4 places, equal ones ordered by key, so that the answer does not hang on the
        last bits of a sum.
        """
        if self._postings is None:  # built on first use: the user model, --explain and tag-outlier ask
            self._postings = defaultdict(list)
            for index, theirs in enumerate(self.exemplar_features):
                for feature, value in self.vector(theirs).items():
                    self._postings[feature].append((index, value))
        dots: dict[int, float] = defaultdict(float)
        query = found if isinstance(found, dict) else self.vector(found)
        for feature, value in query.items():
            for index, weight in self._postings.get(feature, ()):
                dots[index] += value * weight
        exemplars = self.exemplars
        wanted = [(dot, index) for index, dot in dots.items() if exemplars[index].origin in origins]
        if leave_out is not None:
            wanted = [(dot, index) for dot, index in wanted if index != leave_out]
        if len(wanted) > count:  # only the cosines that round to at least the count-th largest can be in the answer
            floor = round(heapq.nlargest(count, wanted)[-1][0], 4) - 1e-4
            wanted = [(dot, index) for dot, index in wanted if dot >= floor]
        scored = [(round(dot, 4), exemplars[index]) for dot, index in wanted]
        scored.sort(key=lambda item: (-item[0], item[1].key))
        return scored[:count]


def softmax(scores: Sequence[float]) -> list[float]:
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


# --- where exemplars come from ---------------------------------------------------------------


def train(
    taxonomy: Taxonomy,
    users: Sequence[Exemplar] = (),
    settings: Settings = SETTINGS,
    corpus: Sequence[Exemplar] | None = None,
) -> CentroidModel:
    """The model for ``taxonomy``: the user's exemplars, the bundled corpus where it applies, the taxonomy's text.

    When the corpus has papers out of the field's scope, they form one more column after the taxonomy's sections.
    """
    corpus = corpus_exemplars(taxonomy) if corpus is None else corpus
    described = taxonomy_exemplars(taxonomy, settings, alone=not corpus)
    background = (OUT_OF_SCOPE,) if any(e.sections[:1] == (OUT_OF_SCOPE,) for e in corpus) else ()
    return CentroidModel((*taxonomy.section_ids, *background), [*users, *corpus, *described], settings)


def posterior(model: CentroidModel, found: frozenset[str]) -> Mapping[str, float]:
    return dict(zip(model.sections, softmax(model.log_scores(found)), strict=True))
