"""Facts a paper's title and abstract state: model size, hardware, reported gains, datasets and benchmarks,
parallelism dimensions. Rules, not a model: each fact keeps the phrase it was read from and where it is.

No fact is better than a wrong one, so the rules ask for the word that says what a number counts
(fact_numbers.py, fact_gains.py), and an abstract's sentences about other work ("Existing systems ...",
"Unlike prior work ...") give none.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from surveytool.analysis.fact_gains import gains
from surveytool.analysis.fact_numbers import Match, hardware, parameters
from surveytool.model import Paper

#: Characters of a field read: abstracts are shorter, and a field longer than any abstract costs no more.
READ_CHARS = 20_000
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


# A bounded list of the datasets and benchmarks papers of the field name, by their own spelling, each with
# the (lower-case) words one of its spellings holds: most texts name none, and a word test is cheap.
_DATASETS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("ImageNet", ("imagenet",), r"ImageNet(?:-(?:1[kK]|21[kK]|22[kK]|20[01]\d))?"),
    ("CIFAR-10", ("cifar",), r"(?:CIFAR|Cifar)-?10(?!\d)"),
    ("CIFAR-100", ("cifar",), r"(?:CIFAR|Cifar)-?100"),
    ("MNIST", ("mnist",), r"(?<!-)MNIST"),
    ("GLUE", ("glue",), r"GLUE"),
    ("SuperGLUE", ("glue",), r"SuperGLUE"),
    ("SQuAD", ("squad",), r"SQuAD(?:\s?v?[12]\.\d)?"),
    ("C4", ("c4", "colossal"), r"C4|Colossal\s+Clean\s+Crawled\s+Corpus"),
    ("The Pile", ("pile",), r"[Tt]he Pile"),
    ("WMT", ("wmt",), r"WMT(?:['’]?\d{2,4})?"),
    ("WikiText-103", ("wikitext",), r"WikiText-?103"),
    ("BookCorpus", ("bookcorpus",), r"Book[Cc]orpus"),
    ("Common Crawl", ("crawl",), r"Common\s?Crawl"),
    ("OpenWebText", ("openwebtext",), r"OpenWebText"),
    ("COCO", ("coco",), r"(?:MS[\s-]?)?COCO"),
    ("LibriSpeech", ("librispeech",), r"Libri[Ss]peech"),
    ("Criteo", ("criteo",), r"Criteo"),
    ("OGB", ("ogb",), r"OGB|ogbn-[a-z0-9]+"),
    ("MLPerf", ("mlperf",), r"MLPerf"),
    ("LAMBADA", ("lambada",), r"LAMBADA"),
    ("MMLU", ("mmlu",), r"MMLU"),
    ("HellaSwag", ("hellaswag",), r"HellaSwag"),
    ("GSM8K", ("gsm8k",), r"GSM8K"),
    ("HumanEval", ("humaneval",), r"HumanEval"),
    ("Penn Treebank", ("treebank",), r"Penn\s+Tree[Bb]ank"),
    ("JFT-300M", ("jft",), r"JFT-300M"),
    ("LAION", ("laion",), r"LAION(?:-\d+[MB])?"),
    ("RedPajama", ("redpajama",), r"RedPajama"),
    ("Kinetics", ("kinetics",), r"Kinetics-\d{3}"),
)
_DATASET_PATTERNS = tuple(re.compile(rf"(?<![\w-])(?:{pattern})(?![\w-])") for _, _, pattern in _DATASETS)

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
    for field, text in (("title", (title or "")[:READ_CHARS]), ("abstract", (abstract or "")[:READ_CHARS])):
        for match in _field_matches(text, background=field == "abstract"):
            identity = (match.kind, match.value, match.detail, match.unit)
            if identity not in seen:
                seen.add(identity)
                facts.append(Fact(*identity, field, match.start, match.end, text[match.start : match.end]))
    return tuple(facts)


# A build asks twice for each paper's facts (its chapter view, its entries.json object); the second time
# they come from here. Bounded, so that a process building many surveys does not keep them all.
_MEMO: dict[tuple[str | None, str | None], tuple[Fact, ...]] = {}
_MEMO_ENTRIES = 50_000


def paper_facts(paper: Paper) -> tuple[Fact, ...]:
    """The facts of a paper: of its title when it is resolved (an unresolved one's title is no paper's), and abstract."""
    key = (paper.title if paper.resolved else None, paper.abstract)
    found = _MEMO.get(key)
    if found is None:
        found = extract_facts(*key)
        if len(_MEMO) >= _MEMO_ENTRIES:
            _MEMO.clear()
        _MEMO[key] = found
    return found


def _field_matches(text: str, background: bool) -> list[Match]:
    if not text:
        return []
    found = sorted(_matches(text), key=lambda m: (m.start, -m.end))
    kept: list[Match] = []
    reach = -1  # the end of the kept finds: sorted by start, a find before it shares characters with one
    for match in found:
        # One phrase is one fact ("8x A100" is hardware, not also a gain); a list of dimensions is one phrase
        # that gives several.
        same_phrase = kept and (match.kind, match.start, match.end) == (kept[-1].kind, kept[-1].start, kept[-1].end)
        if match.start < reach and not same_phrase:
            continue
        kept.append(match)
        reach = max(reach, match.end)
    if background:
        kept = _own_work(text, kept)
    return kept


# How far before a find its clause is searched for a comparison: a clause, not a paragraph.
_LOOK_BACK = 120


def _own_work(text: str, matches: list[Match]) -> list[Match]:
    """The finds that report the paper's own work: not in a sentence about other work, not of what it compares with."""
    kept = []
    sentences = list(_sentences(text))
    starts = [start for start, _ in sentences]
    about_others: dict[int, bool] = {}
    for match in matches:
        start, end = sentences[bisect_right(starts, match.start) - 1]
        if start not in about_others:
            subject = _SUBJECT_WORDS.match(text, start)
            about_others[start] = bool(
                _BACKGROUND_ANYWHERE.search(text, start, end)
                or (subject and _BACKGROUND_SUBJECT.search(text, start, subject.end()))
            )
        if about_others[start]:
            continue
        clause = _clause_start(text, max(start, match.start - _LOOK_BACK), match.start)
        if match.kind in ("parameters", "hardware") and _COMPARED.search(text, clause, match.start):
            continue
        if match.kind == "parallelism" and _APART.search(text, max(start, match.start - 60), match.start):
            continue
        kept.append(match)
    return kept


def _clause_start(text: str, window_start: int, position: int) -> int:
    """Where the clause holding ``position`` starts: in "(larger than GPT-3 175B) on 400 GPUs" the
    comparison holds inside the brackets only."""
    return max(window_start, *(text.rfind(mark, window_start, position) + 1 for mark in ",;:()"))


def _sentences(text: str) -> Iterator[tuple[int, int]]:
    start = 0
    for end in _SENTENCE_END.finditer(text):
        yield start, end.end()
        start = end.end()
    if start < len(text):
        yield start, len(text)


_DIGIT = re.compile(r"\d")


def _matches(text: str) -> Iterator[Match]:
    """Every rule's finds; a rule runs only on a text holding a word it needs (most texts hold none)."""
    lower = text.lower()
    digit = bool(_DIGIT.search(text))
    if digit or "illion" in lower:
        yield from parameters(text)
    if digit or "single" in lower:
        yield from hardware(text)
    if digit:
        yield from gains(text)
    for (name, words, _), pattern in zip(_DATASETS, _DATASET_PATTERNS, strict=True):
        if any(word in lower for word in words):
            yield from (Match("dataset", name, "", "", m.start(), m.end()) for m in pattern.finditer(text))
    if "parallel" in lower:
        for found in _PARALLELISM.finditer(text):
            for dimension in _dimension_names(found["dims"]):
                yield Match("parallelism", dimension, "", "", found.start(), found.end())
    if "zero" in lower or "fsdp" in lower:
        yield from (Match("parallelism", "zero", "", "", m.start(), m.end()) for m in _ZERO.finditer(text))


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
