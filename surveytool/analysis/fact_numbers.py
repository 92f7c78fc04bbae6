"""The numeric rules of fact extraction: model size, hardware and reported gains.

Each rule is a regular expression anchored on a number and the word that says what it counts; a
number with no such word beside it is no fact ("8x8 grid", "Figure 3", a year, "O(n^2)").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import NamedTuple


class Match(NamedTuple):
    """One rule's find in a text: the normalised value and where its phrase is."""

    kind: str
    value: int | float | str
    detail: str
    unit: str
    start: int
    end: int


# A number as abstracts write it: 1024, 3,072, 8.3. Not a piece of a name ("v3", "GPT-3"), a decimal
# or a list ("1,2"), and never followed by more digits ("8x8" fails at the "x" rule, not here).
# A digit first, the look behind after it: a pattern that starts with a digit is searched for far faster.
NUM = r"(?P<num>\d(?<![\w.,/^-]\d)(?:\d{0,2}(?:,\d{3})+(?![\d,])|\d*(?:\.\d+)?))"
_SCALES = {
    "thousand": 10**3,
    "k": 10**3,
    "million": 10**6,
    "m": 10**6,
    "mn": 10**6,
    "billion": 10**9,
    "b": 10**9,
    "bn": 10**9,
    "trillion": 10**12,
    "t": 10**12,
}


# Spelled-out numbers, only before a scale word ("one trillion parameters"): alone they are rarely a fact.
_SPELLED = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}


def number(text: str) -> Decimal | None:
    if text.lower() in _SPELLED:
        return Decimal(_SPELLED[text.lower()])
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


# --- model size --------------------------------------------------------------------------------

_PARAM_WORD = r"(?:parameters?|params?)(?![\w-])(?!\s+serv)"  # "parameter servers" count machines
_SCALED = r"(?:[\s-]*(?P<word>thousand|million|billion|trillion)|\s?(?P<letter>[KMBT]|[Bb]n|Mn)(?![\w]))"
_PARAMETERS = re.compile(
    NUM + _SCALED + "?"
    r"(?:\s*\+)?[\s-]*" + _PARAM_WORD,  # one way to read a run of spaces: two would backtrack without end
    re.IGNORECASE,
)
_SPELLED_PARAMETERS = re.compile(
    r"(?<![\w-])(?P<num>one|two|three|four|five|six|seven|eight|nine|ten)[\s-]+(?P<word>thousand|million|billion|trillion)"
    r"(?P<letter>)(?:\s*\+)?[\s-]*" + _PARAM_WORD,
    re.IGNORECASE,
)
# "from 70 million to 16 billion parameters": the range's first end is a size too.
_RANGE_START = re.compile(NUM + _SCALED + r"\s+(?:to|and|-)\s+(?:over\s+|up\s+to\s+)?(?=\d)")
# "MT-NLG 530B", "GPT-3 175B", "LLaMA-65B": a size after a model's name, in billions or trillions.
_NAMED_SIZE = re.compile(
    r"(?<![\w-])(?=[\w.-]*[A-Z])[A-Za-z][\w.]*(?:-[\w.]+)*[\s-](?P<num>\d+(?:\.\d+)?)(?P<letter>[BT])(?![\w-])"
    r"(?!\s*(?:tokens?|words?|bytes?|images?|samples?|examples?|sequences?|documents?|pairs?|hours?)\b)"
)

# "a 530B model", "13B-parameter" aside: a size in billions or trillions before the word model.
_SIZED_MODEL = re.compile(
    NUM + r"(?P<letter>[BT])[\s-]+(?:(?:dense|sparse|MoE|Transformer|language|LM)[\s-]+)?(?:models?|LMs?)\b"
)

_SIZE_LETTER = re.compile(r"\d[BT](?![\w-])")


def parameters(text: str) -> Iterator[Match]:
    spelled = _SPELLED_PARAMETERS.finditer(text) if "illion" in text.lower() else ()
    for found in (*_PARAMETERS.finditer(text), *spelled):
        value = number(found["num"])
        scale = found["word"] or found["letter"]
        if value is None:
            continue
        if found.start() > 0:
            start = _RANGE_START.search(text, max(0, found.start() - 40), found.start() + 1)
            if start and start.end() == found.start():
                low = number(start["num"])
                size = int(low * _SCALES[(start["word"] or start["letter"]).lower()]) if low is not None else 0
                if size >= 10**6:
                    yield Match("parameters", size, "", "", start.start(), start.end() - 1)
        size = int(value * _SCALES[scale.lower()]) if scale else int(value)
        # A bare count of parameters is a model size only when it is one; "8 parameters" is a formula's.
        if size >= 10**6:
            yield Match("parameters", size, "", "", found.start(), found.end())
    if not _SIZE_LETTER.search(text):  # what both rules below need, found far faster than they run
        return
    for found in (*_NAMED_SIZE.finditer(text), *_SIZED_MODEL.finditer(text)):
        value = number(found["num"])
        if value is not None and value > 0:
            size = int(value * _SCALES[found["letter"].lower()])
            yield Match("parameters", size, "", "", found.start("num"), found.end())


# --- hardware ----------------------------------------------------------------------------------

_VENDOR = r"(?:(?:NVIDIA|Nvidia|nVidia|AMD|Google|Cloud|Intel|Huawei|Graphcore)\s+)?"
_DEVICE = (
    r"(?P<device>"
    r"TPU[\s-]?v(?P<tpu>\d[a-z]?)(?:[\s-]?(?P<tpupart>cores?|chips?|Pods?))?"
    r"|TPU[\s-]?(?P<tpupart2>cores?|chips?|Pods?)|TPUs?"
    r"|(?P<model>[AHVPKTL]\d{2,3}[a-zA-Z]?|MI\d{2,3}X?|Ascend[\s-]?910[AB]?|Gaudi\s?\d?|GH200|GB200)"
    r"(?:\s?\d{2,3}\s?GB)?(?:\s+(?:Tensor\s+Core\s+)?(?:GPUs?|NPUs?|accelerators?|chips?))?"
    r"|GPUs?|IPUs?|NPUs?|CPU[\s-]cores?|CPUs?"
    r")"
)
# "8 GPU servers" and "64 GPU nodes" count machines, "1000 GPU hours" time; "an 8-GPU server" does count GPUs.
_NOT_DEVICES = r"(?![\s-]*(?:hours?|days?|years?|months?|memory|kernels?|time)\b)"
_NOT_MACHINES = r"(?!\s+(?:nodes?|servers?|machines?|clusters?|instances?|workers?)\b)"
_HARDWARE = re.compile(
    NUM
    + r"(?:\s*[x×]\s*|(?P<hyphen>-)|\s+)"
    + _VENDOR
    + _DEVICE
    + r"(?![\w-])"
    + _NOT_DEVICES
    + r"(?(hyphen)|"
    + _NOT_MACHINES
    + ")",
)
# "on a single GPU": one device, when the paper says it ran on it.
_SINGLE = re.compile(r"(?<![\w-])(?P<phrase>on\s+a\s+single\s+)" + _VENDOR + _DEVICE + r"(?![\w-])" + _NOT_DEVICES)
_FITS = re.compile(r"\b(?:fits?|fitting|memory|capacity|limit)\b[^.;]{0,30}$", re.IGNORECASE)


def _device_name(found: re.Match[str]) -> str:
    if found["tpu"]:
        part = found["tpupart"] or ""
        return f"TPU v{found['tpu']}" + (f" {_singular(part.lower())}" if part else "")
    if found["tpupart2"]:
        return f"TPU {_singular(found['tpupart2'].lower())}"
    if found["model"]:
        return " ".join(found["model"].split()).replace("Ascend910", "Ascend 910")
    device = _singular(" ".join(found["device"].replace("-", " ").split()))
    return device if device.startswith("CPU") else device.upper()


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") else word


def hardware(text: str) -> Iterator[Match]:
    for found in _HARDWARE.finditer(text):
        count = number(found["num"])
        if count is None or count != count.to_integral_value() or count < 1:
            continue  # "1.5 GPUs" is no device count
        yield Match("hardware", int(count), _device_name(found), "", found.start(), found.end())
    for found in _SINGLE.finditer(text):
        # "too large to fit on a single GPU" says what the paper overcomes, not what it ran on.
        if not _FITS.search(text, 0, found.start()):
            yield Match("hardware", 1, _device_name(found), "", found.start("phrase") + 3, found.end())
