"""Facts a paper's title and abstract state: model size, hardware, reported gains, datasets and benchmarks,
parallelism dimensions. Rules, not a model: each fact keeps the phrase it was read from and where it is.

No fact is better than a wrong one, so the rules ask for the word that says what a number counts
(fact_numbers.py, fact_gains.py), and an abstract's sentences about other work ("Existing systems ...",
"Unlike prior work ...") give none.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from surveytool.analysis.fact_gains import gains
from surveytool.analysis.fact_numbers import Match, hardware, parameters
from surveytool.model import Paper

#: The kinds of fact, in the order a comparison table shows them.
KINDS = ("parameters", "hardware", "gain", "dataset", "parallelism")


class Fact(NamedTuple):
    """One fact. A plain tuple of numbers and strings, so a build's snapshot can keep it (marshal)."""

    kind: str  # one of KINDS
    value: int | float | str  # parameters: a count; hardware: the device count; gain: the factor; else a name
    detail: str  # hardware: the device; gain: what it measures
    unit: str  # gain: "x" or "%"
    field: str  # "title" or "abstract"
    start: int  # the phrase is the field's text[start:end]
    end: int
    phrase: str


# A bounded list of the datasets and benchmarks papers of the field name, by their own spelling.
_DATASETS: tuple[tuple[str, str], ...] = (
    ("ImageNet", r"ImageNet(?:-(?:1[kK]|21[kK]|22[kK]|20[01]\d))?"),
    ("CIFAR-10", r"(?:CIFAR|Cifar)-?10(?!\d)"),
    ("CIFAR-100", r"(?:CIFAR|Cifar)-?100"),
    ("MNIST", r"(?<!-)MNIST"),
    ("GLUE", r"GLUE"),
    ("SuperGLUE", r"SuperGLUE"),
    ("SQuAD", r"SQuAD(?:\s?v?[12]\.\d)?"),
    ("C4", r"C4|Colossal\s+Clean\s+Crawled\s+Corpus"),
    ("The Pile", r"[Tt]he Pile"),
    ("WMT", r"WMT(?:['’]?\d{2,4})?"),
    ("WikiText-103", r"WikiText-?103"),
    ("BookCorpus", r"Book[Cc]orpus"),
    ("Common Crawl", r"Common\s?Crawl"),
    ("OpenWebText", r"OpenWebText"),
    ("COCO", r"(?:MS[\s-]?)?COCO"),
    ("LibriSpeech", r"Libri[Ss]peech"),
    ("Criteo", r"Criteo"),
    ("OGB", r"OGB|ogbn-[a-z0-9]+"),
    ("MLPerf", r"MLPerf"),
    ("LAMBADA", r"LAMBADA"),
    ("MMLU", r"MMLU"),
    ("HellaSwag", r"HellaSwag"),
    ("GSM8K", r"GSM8K"),
    ("HumanEval", r"HumanEval"),
    ("Penn Treebank", r"Penn\s+Tree[Bb]ank"),
    ("JFT-300M", r"JFT-300M"),
    ("LAION", r"LAION(?:-\d+[MB])?"),
    ("RedPajama", r"RedPajama"),
    ("Kinetics", r"Kinetics-\d{3}"),
)
_DATASET = re.compile(
    "|".join(rf"(?P<d{i}>(?<![\w-])(?:{pattern})(?![\w-]))" for i, (_, pattern) in enumerate(_DATASETS))
)

# Parallelism: a list of dimensions before "parallel(ism)", e.g. "data, operator, and pipeline parallelism".
_DIMENSION = (
    r"(?:fully[\s-]+sharded[\s-]+data|sharded[\s-]+data|intra-?layer(?:\s+model)?|inter-?layer(?:\s+model)?"
    r"|intra-?op(?:erator)?|inter-?op(?:erator)?|pipeline(?:\s+model)?|data|tensor(?:\s+model)?|pipeline|expert"
    r"|sequence|context|model|operator|3D)"
)
_PARALLELISM = re.compile(
    rf"(?<![\w-])(?P<dims>{_DIMENSION}(?:-?(?:\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*/\s*){_DIMENSION})*)"
    r"[\s-]+parallel(?:ism|isms|ization)?(?![\w-])",
    re.IGNORECASE,
)
_ZERO = re.compile(r"(?<![\w-])(?:ZeRO(?:-(?:[123]|Offload|Infinity|\+\+))?|FSDP)(?![\w-])")
_DIMENSION_NAMES = (
    ("intra", "tensor"),
    ("inter", "pipeline"),
    ("pipeline", "pipeline"),
    ("operator", "tensor"),
    ("tensor", "tensor"),
    ("data", "data"),
    ("expert", "expert"),
    ("sequence", "sequence"),
    ("context", "sequence"),
    ("model", "model"),
)
_SPLIT_DIMENSIONS = re.compile(r"-?\s*(?:,\s*(?:and\s+|or\s+)?|\band\b|\bor\b|/)\s*", re.IGNORECASE)

# A sentence about other work: what it reports is not the paper's. Its subject says so ("Existing systems
# ...", "However, prior work ..."), within its first words; a later "than existing baselines" compares.
_BACKGROUND_SUBJECT = re.compile(
    r"\b(?:existing|current|currently|prior|previous|previously|traditional|conventional|typical|unlike|"
    r"until\s+now|recent\s+(?:work|works|studies|advances)|most\s+(?:work|systems|approaches|methods))\b",
    re.IGNORECASE,
)
_BACKGROUND_ANYWHERE = re.compile(
    r"\b(?:typically|traditionally|conventionally|have\s+been\s+proposed|(?:this|that)\s+line\s+of\s+(?:research|work)|"
    r"state[\s-]of[\s-]the[\s-]art\s+(?:systems|approaches|methods|frameworks|solutions))\b",
    re.IGNORECASE,
)
_SUBJECT_WORDS = re.compile(r"(?:\S+\s+){0,2}\S*")
# Just before a size or a device count: the number is of what the paper compares with.
_COMPARED = re.compile(
    r"\b(?:than|compared\s+(?:to|with)|outperform\w*|e\.g\.|such\s+as|like|versus|vs\.?)\W", re.IGNORECASE
)
# Just before a parallelism dimension: one the paper sets itself apart from.
_APART = re.compile(
    r"\b(?:faced\s+by|orthogonal|complementary|complimentary|compared\s+(?:to|with)|comparabl[ey]\s+(?:\w+\s+)?to|than|"
    r"instead\s+of|rather\s+than|without\s+(?:requiring|using|needing)|unlike)\b[^.;:]{0,25}$",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?…]+(?:\s+|$)")


def extract_facts(title: str | None, abstract: str | None) -> tuple[Fact, ...]:
    """The facts of a title and an abstract (or a list's snippet), in the order they appear, each once."""
    facts: list[Fact] = []
    seen: set[tuple[str, int | float | str, str, str]] = set()
    for field, text in (("title", title or ""), ("abstract", abstract or "")):
        for match in _field_matches(text, background=field == "abstract"):
            identity = (match.kind, match.value, match.detail, match.unit)
            if identity not in seen:
                seen.add(identity)
                facts.append(Fact(*identity, field, match.start, match.end, text[match.start : match.end]))
    return tuple(facts)


def paper_facts(paper: Paper) -> tuple[Fact, ...]:
    """The facts of a paper: of its title when it is resolved (an unresolved one's title is no paper's), and abstract."""
    return extract_facts(paper.title if paper.resolved else None, paper.abstract)


def _field_matches(text: str, background: bool) -> list[Match]:
    if not text or not _MAYBE.search(text):
        return []
    found = sorted(_matches(text), key=lambda m: (m.start, -m.end))
    kept: list[Match] = []
    for match in found:
        # One phrase is one fact: "8x A100" is hardware, not also a gain.
        if any(_overlap(match, other) for other in kept):
            continue
        kept.append(match)
    if background:
        kept = _own_work(text, kept)
    return kept


def _own_work(text: str, matches: list[Match]) -> list[Match]:
    """The finds that report the paper's own work: not in a sentence about other work, not of what it compares with."""
    kept = []
    sentences = list(_sentences(text))
    for match in matches:
        start, end = next((s, e) for s, e in sentences if s <= match.start < e)
        subject = _SUBJECT_WORDS.match(text, start)
        if _BACKGROUND_ANYWHERE.search(text, start, end):
            continue
        if subject and _BACKGROUND_SUBJECT.search(text, start, subject.end()):
            continue
        clause = _clause_start(text, start, match.start)
        if match.kind in ("parameters", "hardware") and _COMPARED.search(text, clause, match.start):
            continue
        if match.kind == "parallelism" and _APART.search(text, max(start, match.start - 60), match.start):
            continue
        kept.append(match)
    return kept


def _clause_start(text: str, sentence_start: int, position: int) -> int:
    """Where the clause holding ``position`` starts: in "(larger than GPT-3 175B) on 400 GPUs" the
    comparison holds inside the brackets only."""
    return max(sentence_start, *(text.rfind(mark, sentence_start, position) + 1 for mark in ",;:()"))


def _overlap(match: Match, other: Match) -> bool:
    """Whether two finds share characters (a list of dimensions is one phrase that gives several)."""
    if (match.kind, match.start, match.end) == (other.kind, other.start, other.end):
        return False
    return match.start < other.end and other.start < match.end


def _sentences(text: str) -> Iterator[tuple[int, int]]:
    start = 0
    for end in _SENTENCE_END.finditer(text):
        yield start, end.end()
        start = end.end()
    if start < len(text):
        yield start, len(text)


# The cheap test that lets most texts skip every rule: a digit, or a word some rule needs.
_MAYBE = re.compile(
    r"\d|illion|parallel|ZeRO|FSDP|GLUE|SQuAD|ImageNet|Pile|COCO|Crawl|Corpus|MLPerf|single", re.IGNORECASE
)


def _matches(text: str) -> Iterator[Match]:
    yield from parameters(text)
    yield from hardware(text)
    yield from gains(text)
    yield from _datasets(text)
    yield from _parallelism(text)


def _datasets(text: str) -> Iterator[Match]:
    for found in _DATASET.finditer(text):
        name = _DATASETS[int(next(k for k, v in found.groupdict().items() if v is not None)[1:])][0]
        yield Match("dataset", name, "", "", found.start(), found.end())


def _parallelism(text: str) -> Iterator[Match]:
    for found in _PARALLELISM.finditer(text):
        for dimension in _dimension_names(found["dims"]):
            yield Match("parallelism", dimension, "", "", found.start(), found.end())
    for found in _ZERO.finditer(text):
        yield Match("parallelism", "zero", "", "", found.start(), found.end())


def _dimension_names(words: str) -> Iterable[str]:
    names: list[str] = []
    for word in _SPLIT_DIMENSIONS.split(words.lower()):
        if word == "3d":
            names += ["data", "tensor", "pipeline"]
            continue
        if "sharded" in word:  # "fully sharded data": ZeRO's sharding, not plain data parallelism
            names.append("zero")
            continue
        names += [name for prefix, name in _DIMENSION_NAMES if word.startswith(prefix)][:1]
    return dict.fromkeys(names)


def fact_record(fact: Fact) -> dict:
    """A fact as entries.json and the JSON export show it: the normalised value, and the phrase with its span."""
    record: dict = {"kind": fact.kind}
    if fact.kind == "hardware":
        record.update(count=fact.value, device=fact.detail)
    elif fact.kind == "gain":
        record.update(value=fact.value, unit=fact.unit, measure=fact.detail)
    else:
        record["value"] = fact.value
    record["evidence"] = {"field": fact.field, "span": [fact.start, fact.end], "phrase": fact.phrase}
    return record
