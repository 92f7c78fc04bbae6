"""Reported gains: a factor ("3.5x", "2.3 times", "8-fold") or a percentage next to what it measures.

A factor is kept only when the words beside it name the measure ("3.5x speedup", "reduces memory by
8x", "up to 76% scaling efficiency"): "8x8 grid", "4x A100" or "improves by 3x" say no measure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from surveytool.analysis.fact_numbers import NUM, Match, number

_FACTOR = re.compile(
    NUM
    + r"(?:\s*(?:-|–|to)\s*(?P<upper>\d+(?:\.\d+)?))?"
    + r"(?P<unit>\s?[x×X](?![\w×])|[\s-]?fold\b|\s+times\b|\s?\+?%|\s+percent\b)"
)
# "up to 3.5x": read back from the number, so that the factor's pattern starts with its digit.
_QUALIFIER = re.compile(
    r"\b(?:up\s+to|over|about|around|nearly|almost|approximately|roughly|more\s+than|at\s+least|as\s+much\s+as)\s+$|~\s*$",
    re.IGNORECASE,
)
# What a reduction can be of, as an abstract names it.
_REDUCED = {
    "memory reduction": r"(?:(?:gpu|activation|peak|device|the)\s+)?memory(?:\s+(?:footprint|usage|consumption|requirements?))?",
    "communication reduction": r"(?:(?:the|network)\s+)?(?:communication(?:\s+(?:volume|costs?|overhead|traffic|time))?"
    r"|bandwidth(?:\s+requirements?)?|traffic)",
    "cost reduction": r"(?:(?:the|training|monetary)\s+)?costs?",
    "training time reduction": r"(?:(?:the|training|wall-clock|end-to-end|total)\s+)*(?:time|time-to-accuracy)",
    "energy reduction": r"(?:(?:the|training)\s+)?(?:energy|power)(?:\s+consumption)?",
}
_DOWN = r"(?:less|lower|fewer|smaller|reduced|cheaper)"
_CUT = r"(?:reduction|reductions|savings?|decrease|cut)"
_GROW = r"(?:higher|more|greater|better|increased|improved|larger)"
# Words after the factor: the factor's measure is their first match.
_AFTER: list[tuple[str, re.Pattern[str]]] = [
    ("speedup", re.compile(r"(?:faster|quicker)\b")),
    (
        "speedup",
        re.compile(r"(?:increases?|improvements?|gains?)\s+in\s+(?:(?:pre-?)?training\s+|inference\s+)?speed\b"),
    ),
    ("model size", re.compile(r"increases?\s+in\s+(?:the\s+)?(?:trainable\s+)?(?:model\s+)?size\b")),
    ("cost reduction", re.compile(r"cheaper\b")),
    ("latency reduction", re.compile(r"(?:lower|better|reduced|shorter)\s+(?:inference\s+)?latency\b")),
    (
        "speedup",
        re.compile(
            r"(?:(?:end-to-end|overall|training|average|performance|iteration|wall-clock|inference)\s+){0,2}"
            r"(?:speed-?ups?|acceleration)\b"
        ),
    ),
    ("scaling efficiency", re.compile(r"(?:(?:weak|strong)[\s-])?(?:scaling|parallel)\s+efficiency\b")),
    (
        "utilization",
        re.compile(
            r"(?:mfu|hfu|model\s+flops\s+utili[sz]ation|(?:hardware|gpu|flops?|compute)\s+utili[sz]ation"
            r"|of\s+(?:the\s+)?(?:theoretical\s+)?peak(?:\s+(?:flops|performance|throughput))?)\b"
        ),
    ),
    ("throughput", re.compile(_GROW + r"\s+(?:training\s+|end-to-end\s+)?throughput\b")),
    ("throughput", re.compile(r"(?:training\s+)?throughput\s+(?:improvements?|increases?|gains?|boosts?)?\b")),
    ("model size", re.compile(r"(?:larger|bigger)\s+models?\b")),
    *((m, re.compile(_DOWN + r"\s+" + noun + r"\b")) for m, noun in _REDUCED.items()),
    *((m, re.compile(noun + r"\s+" + _CUT + r"\b")) for m, noun in _REDUCED.items()),
    *((m, re.compile(_CUT + r"\s+(?:in|of)\s+" + noun + r"\b")) for m, noun in _REDUCED.items()),
]
_QUAL = (
    r"(?:up\s+to\s+|over\s+|about\s+|around\s+|nearly\s+|almost\s+|approximately\s+|roughly\s+|more\s+than\s+|~\s*)?"
)
# Words before the factor, ending where it starts: "reduces memory by", "a speedup of".
_BEFORE: list[tuple[str, re.Pattern[str]]] = [
    *(
        (
            m,
            re.compile(
                r"\b(?:reduc|cut|lower|decreas|sav|shrink|compress)\w*\s+(?:(?:its|their|our)\s+)?"
                + noun
                + r"\s+(?:[\w-]+\s+){0,3}?by\s+$"
            ),
        )
        for m, noun in _REDUCED.items()
    ),
    *((m, re.compile(r"\b" + noun + r"\s+" + _CUT + r"\s+(?:of\s+|by\s+)?$")) for m, noun in _REDUCED.items()),
    (
        "throughput",
        re.compile(
            r"\b(?:improv|increas|boost|rais)\w*\s+(?:the\s+)?(?:training\s+)?throughput\s+(?:[\w-]+\s+){0,3}?by\s+$"
        ),
    ),
    ("throughput", re.compile(r"\bthroughput\s+(?:improvements?|increases?|gains?)\s+(?:of\s+|by\s+)?$")),
    ("speedup", re.compile(r"\b(?:accelerat\w*|speeds?\s+up|speeding\s+up)\s+(?:[\w-]+\s+){0,4}?by\s+$")),
    ("speedup", re.compile(r"\b(?:speed-?ups?|accelerations?)\s+(?:of\s+|by\s+)?$")),
    ("scaling efficiency", re.compile(r"\b(?:scaling|parallel)\s+efficiency\s+(?:of\s+)?$")),
    ("utilization", re.compile(r"\b(?:utili[sz]ation|mfu|hfu)\s+(?:of\s+)?$")),
    # A gradient compression ratio is how much less the workers send.
    ("communication reduction", re.compile(r"\bgradient\s+compression\s+(?:ratios?|rates?)\s+(?:of\s+|from\s+)?$")),
]
_RANGE_END = re.compile(r"\s*(?:-|–|to|and)\s*(?P<top>\d+(?:\.\d+)?)\s?(?:[x×](?![\w×])|times\b|%|-?fold\b)")
_BEFORE_TAIL = re.compile(
    r"(?:\bby|\bof|\bfrom|reductions?|savings?|decrease|cut|improvements?|increases?|gains?|speed-?ups?|"
    r"accelerations?|efficiency|utili[sz]ation|mfu|hfu|ratios?|rates?)\s*$"
)
_PERCENT_ONLY = {"scaling efficiency", "utilization"}
_SENTENCE_END = re.compile(r"[.;!?]\s")


def gains(text: str) -> Iterator[Match]:
    for found in _FACTOR.finditer(text):
        percent = "%" in found["unit"] or "percent" in found["unit"]
        low = number(found["num"])
        high = number(found["upper"]) if found["upper"] else low
        if low is None or high is None:
            continue
        after = text[found.end() : found.end() + 80].lower()
        cut = _SENTENCE_END.search(after)
        after = after[: cut.start()] if cut else after
        upper = _RANGE_END.match(after)  # "1.7x-3.2x speedup": the range's top, the words after it
        range_end = found.end() + (upper.end() if upper else 0)
        if upper:
            high = number(upper["top"]) or high
            after = " " * upper.end() + after[upper.end() :]
        measure, end = _after_measure(after)
        qualifier = _QUALIFIER.search(text, max(0, found.start() - 25), found.start())
        start = qualifier.start() if qualifier else found.start()
        if measure:
            end += found.end() + len(after) - len(after.lstrip())
        else:
            measure, start = _before_measure(text, found.start("num"))
            end = range_end
        if not measure or (measure in _PERCENT_ONLY and not percent):
            continue
        if percent and not 0 < high <= (100 if "reduction" in measure or measure in _PERCENT_ONLY else 10**4):
            continue
        if not percent and high <= 1:
            continue  # "1x" is no gain
        yield Match("gain", float(high), measure, "%" if percent else "x", start, end)


def _after_measure(after: str) -> tuple[str, int]:
    words = after.lstrip()
    for measure, pattern in _AFTER:
        found = pattern.match(words)
        if found:
            return measure, found.end()
    return "", 0


def _before_measure(text: str, start: int) -> tuple[str, int]:
    window = text[max(0, start - 80) : start].lower()
    cut = list(_SENTENCE_END.finditer(window))
    offset = cut[-1].end() if cut else 0
    window = window[offset:]
    window_start = start - len(window)
    # The qualifier ("up to", "over") stays in the window: the patterns end just before the number.
    stripped = re.sub(_QUAL + r"$", "", window)
    if not _BEFORE_TAIL.search(stripped):  # how every pattern of _BEFORE ends: most numbers stop here
        return "", start
    for measure, pattern in _BEFORE:
        found = pattern.search(stripped)
        if found:
            return measure, window_start + found.start()
    return "", start
