"""What the learned tagger reads of a paper: stemmed title words and word pairs, and the opening of its abstract."""

from __future__ import annotations

from surveytool.model import Paper
from surveytool.text.normalize import normalize

_STOPWORDS = frozenset(
    "a an and are as at be by for from in into is it its of on or our over the their this to towards toward via "
    "we with without using use based new study studies can how what when which why do does not than that these "
    "those through at vs versus".split()
) | frozenset(
    # Words of deep learning at large, which name no section: in the corpus they are mostly the GNN rows'
    # "graph neural networks", and a general paper "... of Deep Neural Networks" followed them there.
    "neural network networks".split()
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


_TOKENS: dict[str, str] = {}  # word -> its feature ("" for a stopword): words repeat across entries


def stem(word: str) -> str:
    """A crude suffix stripper: ``parallelism``, ``parallelization``, ``parallel`` -> ``parallel``."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


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
    """(title, body) of a paper: the body is its abstract or snippet and its keywords (the rules read the venue)."""
    fields = paper.fields
    keywords = fields.get("keywords")
    # The abstract alone when there are no keywords: the same string the rules normalized (a cache hit).
    body = f"{fields.get('abstract', '')} {keywords}" if keywords else fields.get("abstract", "")
    return fields.get("title", ""), body


def has_body(paper: Paper) -> bool:
    """Whether more than a title is known of ``paper``: the tagger blends such a paper differently, and the
    library's shares weigh only the others."""
    return bool(paper_text(paper)[1])
