"""A learned tagger: TF-IDF centroids of words and word pairs, trained on tagged exemplars.

Exemplars come from three places, weighted in this order: the user's own tagged
entries, the bundled labelled corpus (``seeds/labelled/corpus.tsv``, train split,
only for a taxonomy that has every section it uses) and the taxonomy itself
(each section's title, description, aliases and vocabulary as one document).

Scoring is sparse: a feature adds to the sections whose exemplars have it, so
a paper costs one dictionary lookup per feature and a few additions.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from surveytool.digest import digest_text
from surveytool.model import Paper, Taxonomy
from surveytool.resources import bundled_dir
from surveytool.text.normalize import normalize

_STOPWORDS = frozenset(
    "a an and are as at be by for from in into is it its of on or our over the their this to towards toward via "
    "we with without using use based new study studies can how what when which why do does not than that these "
    "those through at vs versus".split()
)
_SUFFIXES = (
    "izations",
    "ization",
    "isation",
    "izing",
    "ising",
    "ized",
    "ised",
    "izes",
    "ises",
    "ism",
    "isms",
    "ities",
    "ity",
    "ings",
    "ing",
    "ers",
    "er",
    "ed",
    "es",
    "s",
)
#: Words of a long text that count: the opening says what a paper is about.
BODY_WORDS = 60


def stem(word: str) -> str:
    """A crude suffix stripper: ``parallelism``, ``parallelization``, ``parallel`` -> ``parallel``."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


_TOKENS: dict[str, str] = {}  # word -> its feature ("" for a stopword): words repeat across entries


def _token(word: str) -> str:
    token = _TOKENS.get(word)
    if token is None:
        token = _TOKENS[word] = "" if word in _STOPWORDS or len(word) < 2 else stem(word)
    return token


def _words(text: str, limit: int | None = None) -> list[str]:
    if not text:
        return []
    words = normalize(text).split()
    if limit is not None:
        words = words[:limit]
    tokens = _TOKENS
    found = [tokens[w] if w in tokens else _token(w) for w in words]
    return [t for t in found if t]


def features(title: str, body: str = "") -> frozenset[str]:
    """The words (stemmed) and adjacent word pairs of a title and of the opening of a body text."""
    return _features(_words(title), body)


def _features(title_words: list[str], body: str) -> frozenset[str]:
    found = set(title_words)
    found.update([f"{a}_{b}" for a, b in zip(title_words, title_words[1:], strict=False)])
    if body:
        words = _words(body, BODY_WORDS)
        found.update(words)
        found.update([f"{a}_{b}" for a, b in zip(words, words[1:], strict=False)])
    return frozenset(found)


def paper_features(paper: Paper) -> tuple[frozenset[str], list[str]]:
    """``features`` of a paper's text, and its title's words (which ``CentroidModel.vector`` may split)."""
    title, body = paper_text(paper)
    title_words = _words(title)
    return _features(title_words, body), title_words


def paper_text(paper: Paper) -> tuple[str, str]:
    """(title, body) of a paper: the body is its abstract or snippet, keywords and venue."""
    fields = paper.fields
    keywords = fields.get("keywords")
    # The abstract alone when there are no keywords: the same string the rules normalized (a cache hit).
    body = f"{fields.get('abstract', '')} {keywords}" if keywords else fields.get("abstract", "")
    return fields.get("title", ""), body


class Exemplar(NamedTuple):
    """A tagged paper the model learns from."""

    key: str
    title: str
    body: str
    sections: tuple[str, ...]  # primary first
    weight: float
    origin: str  # "user", "corpus" or "taxonomy"


@dataclass(frozen=True)
class Settings:
    """How much each kind of exemplar counts; tuned on the corpus's train split."""

    user_weight: float = 4.0  # a user's tagged entry counts this many corpus rows
    taxonomy_weight: float = 2.0
    secondary_weight: float = 0.25  # a secondary tag of an exemplar, relative to its primary


SETTINGS = Settings()


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
        self.idf = {f: math.log(total / (n + 1)) + 1.0 for f, n in frequency.items()}
        self._parts: dict[str, tuple[str, ...]] = {}
        self._postings: dict[str, list[tuple[int, float]]] | None = None
        index = {s: i for i, s in enumerate(self.sections)}
        sums: dict[str, dict[int, float]] = defaultdict(dict)
        self._columns: list[list[tuple[int, float]]] = []  # per exemplar: (section column, weight)
        for exemplar, found in zip(self.exemplars, self.exemplar_features, strict=True):
            columns = [
                (index[s], exemplar.weight * (1.0 if n == 0 else settings.secondary_weight))
                for n, s in enumerate(exemplar.sections)
                if s in index
            ]
            self._columns.append(columns)
            vector = self.vector(found)
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
        self.digest = digest_text(
            repr(settings),
            repr(self.sections),
            *(repr((e.title, e.body, e.sections, e.weight)) for e in self.exemplars),
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

    def vector(self, found: Iterable[str], split: Collection[str] = ()) -> dict[str, float]:
        """Known features weighted by rarity, unit length; unknown words of ``split`` (a title's: names live
        there) split into known ones where they can be."""
        idf = self.idf
        weights = {}
        for feature in found:
            weight = idf.get(feature)
            if weight is not None:
                weights[feature] = weight
            elif feature in split:
                for part in self.parts(feature):
                    weights[part] = idf[part]
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        return {f: w / norm for f, w in weights.items()}

    def log_scores(self, found: Iterable[str] | dict[str, float], leave_out: int | None = None) -> list[float]:
        """Cosine of the paper (its features, or their ``vector``) with each section; ``leave_out``: as if that
        exemplar had not been seen."""
        query = found if isinstance(found, dict) else self.vector(found)
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
        return [dot / norm if norm > 1e-9 else 0.0 for dot, norm in zip(dots, norms, strict=True)]

    def nearest(
        self,
        found: frozenset[str],
        count: int = 3,
        leave_out: int | None = None,
        origins: tuple[str, ...] = ("user", "corpus"),
    ) -> list[tuple[float, Exemplar]]:
        """The exemplars most like ``found`` (cosine of their TF-IDF vectors), most similar first."""
        if self._postings is None:  # built on first use: only --explain and tag-outlier ask
            self._postings = defaultdict(list)
            for index, theirs in enumerate(self.exemplar_features):
                for feature, value in self.vector(theirs).items():
                    self._postings[feature].append((index, value))
        dots: dict[int, float] = defaultdict(float)
        for feature, value in self.vector(found).items():
            for index, weight in self._postings.get(feature, ()):
                dots[index] += value * weight
        scored = [
            (round(dot, 4), self.exemplars[index])
            for index, dot in dots.items()
            if index != leave_out and self.exemplars[index].origin in origins
        ]
        scored.sort(key=lambda item: (-item[0], item[1].key))
        return scored[:count]


def softmax(scores: Sequence[float]) -> list[float]:
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


# --- where exemplars come from ---------------------------------------------------------------


def corpus_path() -> Path:
    return bundled_dir("seeds") / "labelled" / "corpus.tsv"


class CorpusRow(NamedTuple):
    title: str
    year: str
    venue: str
    sections: tuple[str, ...]
    split: str
    provenance: str


def read_corpus(path: Path | None = None) -> list[CorpusRow]:
    """The labelled corpus's rows (header skipped); nothing when it is not installed."""
    path = path or corpus_path()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    rows = []
    for line in lines[1:]:
        parts = line.split("\t")
        if len(parts) < 6 or not parts[0].strip():
            continue
        sections = tuple(s.strip() for s in parts[3].split(",") if s.strip())
        rows.append(
            CorpusRow(
                parts[0].strip(), parts[1].strip(), parts[2].strip(), sections, parts[4].strip(), parts[5].strip()
            )
        )
    return rows


@lru_cache(maxsize=4)
def _corpus_exemplars(path: str, section_ids: tuple[str, ...]) -> tuple[Exemplar, ...]:
    rows = read_corpus(Path(path))
    known = set(section_ids)
    used = {s for r in rows for s in r.sections}
    if not rows or not used <= known:
        return ()  # a taxonomy of its own: the corpus's labels mean nothing there
    return tuple(
        Exemplar(f"corpus:{n + 2}", r.title, "", r.sections, 1.0, "corpus")
        for n, r in enumerate(rows)
        if r.split == "train"
    )


def corpus_exemplars(taxonomy: Taxonomy, path: Path | None = None) -> tuple[Exemplar, ...]:
    """The corpus's train split, when every section it labels is one of ``taxonomy``'s."""
    return _corpus_exemplars(str(path or corpus_path()), taxonomy.section_ids)


def taxonomy_exemplars(taxonomy: Taxonomy, settings: Settings = SETTINGS) -> tuple[Exemplar, ...]:
    """Each section's title, description, aliases and vocabulary as one document."""
    exemplars = []
    for section in taxonomy.sections:
        phrases = [k.replace("*", "") for k in section.keywords]
        body = " ".join([section.description, *section.aliases, *phrases])
        exemplars.append(
            Exemplar(f"taxonomy:{section.id}", section.title, body, (section.id,), settings.taxonomy_weight, "taxonomy")
        )
    return tuple(exemplars)


def user_exemplars(papers: Iterable[Paper], taxonomy: Taxonomy, settings: Settings = SETTINGS) -> tuple[Exemplar, ...]:
    """The entries the user tagged (their tags as section ids), in key order."""
    from surveytool.analysis.taxonomy import canonical_section

    exemplars = []
    for paper in papers:
        if not paper.explicit_tags:
            continue
        sections = tuple(dict.fromkeys(s for s in (canonical_section(t, taxonomy) for t in paper.explicit_tags) if s))
        title, body = paper_text(paper)
        if sections and (title or body):
            exemplars.append(Exemplar(paper.key, title, body, sections, settings.user_weight, "user"))
    return tuple(sorted(exemplars, key=lambda e: (e.key, e.title, e.sections)))


def train(
    taxonomy: Taxonomy,
    users: Sequence[Exemplar] = (),
    settings: Settings = SETTINGS,
    corpus: Sequence[Exemplar] | None = None,
) -> CentroidModel:
    """The model for ``taxonomy``: the user's exemplars, the bundled corpus where it applies, the taxonomy's text."""
    corpus = corpus_exemplars(taxonomy) if corpus is None else corpus
    return CentroidModel(taxonomy.section_ids, [*users, *corpus, *taxonomy_exemplars(taxonomy, settings)], settings)


def posterior(model: CentroidModel, found: frozenset[str]) -> Mapping[str, float]:
    return dict(zip(model.sections, softmax(model.log_scores(found)), strict=True))
