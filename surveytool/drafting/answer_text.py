"""Reading a model's paragraph: its citation commands found and checked, the rest split into sentences.

The answer is plain text with ``\\cite``-like commands in it (what the prompt asks for), and
untrusted. A citation command is read by hand: the name (any command with "cite" in it), an
optional star, up to two optional arguments in brackets, then one brace group of keys separated
by commas. Anything else after a cite-like name (no key group, a brace never closed, braces or a
backslash among the keys, an empty key) makes the command malformed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from surveytool.text.latex import usable_key

#: Cite commands written as they were asked; the rest map to the natbib command of the same sense
#: (the chapter loads natbib, and the biblatex document its natbib compatibility).
NATBIB = frozenset(
    "cite citep citet citealp citealt citeauthor citeyear citeyearpar Citet Citep Citealp Citeauthor".split()
)
_BIBLATEX = {
    "parencite": "citep",
    "Parencite": "Citep",
    "textcite": "citet",
    "Textcite": "Citet",
    "autocite": "citep",
    "Autocite": "Citep",
    "footcite": "citep",
    "smartcite": "citep",
}
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_MAX_OPTIONAL = 200  # characters of an optional argument: longer is not a note, it is a bracket left open
# Characters TeX cannot take in a .tex file (an invalid character stops the run), or that start TeX's ^^ notation.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Words of a chat model's line before the paragraph it was asked for ("Sure! Here is the paragraph:").
_PREAMBLE_WORD = re.compile(r"\b(?:here|paragraph|below|following|sure|certainly)\b", re.I)
_THINKING_END = re.compile(r"</think(?:ing)?>")
# gpt-oss's channels, when the server passes its raw output on (llama.cpp without its parser): the thinking is
# the analysis channel, the answer the final one, up to the end of its message.
_FINAL_CHANNEL = re.compile(r"<\|channel\|>final<\|message\|>(.*?)(?:<\|(?:return|end)\|>|\Z)", re.S)
SENTINEL = "\ue000"  # stands for a citation while sentences are split (private use: never in an answer)


@dataclass(frozen=True)
class Cite:
    """One citation command of the answer: ``command`` None when it is malformed (``problem`` says why)."""

    written: str  # as the model wrote it
    command: str | None
    keys: tuple[str, ...]
    problem: str = ""


def clean(answer: str) -> str:
    """The answer without characters no .tex file may hold, a reasoning model's thinking, a Markdown fence, or the
    sentinel."""
    text = _CONTROL.sub("", answer).replace(SENTINEL, "")
    text = without_thinking(text.strip())
    fence = re.fullmatch(r"```[A-Za-z]*\n(.*?)\n?```", text, re.S)
    text = fence.group(1).strip() if fence else text
    return _without_preamble(text)


def _without_preamble(text: str) -> str:
    """``text`` without a chat model's line before the paragraph, one ending in a colon with no citation in it.
    The first line alone is read: a pattern run over the whole answer took time growing with its square."""
    first, newline, rest = text.partition("\n")
    line = first.rstrip(" \t\r")
    if newline and rest.strip() and line.endswith(":") and "\\" not in line and _PREAMBLE_WORD.search(line):
        return rest.lstrip()
    return text


def without_thinking(text: str) -> str:
    """``text`` without a reasoning model's thinking before its answer (DeepSeek-R1, Qwen3, QwQ, gpt-oss served
    by llama.cpp or Ollama). The chat template may open the block in the prompt, so the answer can hold its end
    alone; a block never closed (cut at the length limit) is all thinking."""
    if text.lstrip().startswith(("<|channel|>", "<|start|>")):
        final = _FINAL_CHANNEL.search(text)
        return final.group(1).strip() if final else ""
    end = _THINKING_END.search(text)
    if end:
        return text[end.end() :].strip()
    return "" if re.match(r"\s*<think(?:ing)?>", text) else text


def shown_key(key: str) -> str:
    """A key the model wrote, quoted for a message: a model that wrote a paragraph between the braces gives no
    5,000-character warning line."""
    return repr(key if len(key) <= 60 else key[:57] + "...")


def _after_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _read_cite(text: str, start: int, name: str, end_of_name: int) -> tuple[Cite, int]:
    """The citation command named ``name`` at ``start`` and where it ends."""
    position = end_of_name + (1 if text.startswith("*", end_of_name) else 0)
    for _ in range(2):
        after = _after_space(text, position)
        if not text.startswith("[", after):
            break
        close = text.find("]", after + 1, after + 2 + _MAX_OPTIONAL)
        if close < 0:
            return Cite(text[start : after + 1], None, (), "an optional argument is never closed"), after + 1
        position = close + 1
    after = _after_space(text, position)
    if not text.startswith("{", after):
        return Cite(text[start:after], None, (), "no {key} follows"), max(after, end_of_name)
    close = text.find("}", after + 1)
    inner_end = close if close >= 0 else len(text)
    inner = text[after + 1 : inner_end]
    written = text[start : inner_end + 1]
    if close < 0:
        return Cite(written, None, (), "its brace is never closed"), len(text)
    if "{" in inner or "\\" in inner:
        return Cite(written, None, (), "its keys hold braces or commands"), close + 1
    keys = tuple(part.strip() for part in inner.split(","))
    if not keys or any(not key for key in keys):
        return Cite(written, None, keys, "it has an empty key"), close + 1
    unusable = [key for key in keys if not usable_key(key)]
    if unusable:
        return Cite(written, None, keys, f"{shown_key(unusable[0])} cannot be a citation key"), close + 1
    command = name if name in NATBIB else _BIBLATEX.get(name)
    if command is None:
        return Cite(written, None, keys, f"\\{name} is not a citation command the chapter can use"), close + 1
    return Cite(written, command, keys), close + 1


def split_citations(text: str) -> tuple[str, list[Cite]]:
    """``text`` with each citation command replaced by :data:`SENTINEL`, and the commands in order."""
    pieces: list[str] = []
    cites: list[Cite] = []
    position = 0
    search_from = 0
    while (match := _COMMAND.search(text, search_from)) is not None:
        name = match.group(1)
        if "cite" not in name.lower():
            search_from = match.end()
            continue
        cite, end = _read_cite(text, match.start(), name, match.end())
        pieces.append(text[position : match.start()])
        pieces.append(SENTINEL)
        cites.append(cite)
        position = search_from = end
    pieces.append(text[position:])
    return "".join(pieces), cites


# Words after which a full stop does not end a sentence.
_ABBREVIATIONS = frozenset(
    "al e.g i.e cf vs fig figs sec eq eqs approx resp no nos vol ref refs viz "
    "dr mr mrs ms prof jr sr inc ltd corp dept univ ph.d pp ch ca".split()
)
# A sentence ends at . ! or ? (closing quotes or brackets may follow), before white space and a capital,
# a digit, an opening quote or bracket, or a citation. Tried at the first stop of a run only, and possessive
# (giving back a stop or a bracket never brings white space after it): a model repeating "!" 20,000 times made
# the search try every start and every split of them.
_END = re.compile(r"(?<![.!?])[.!?]++[\"')\]\u201d\u2019]*+(?=\s+[A-Z0-9\"'(\[\u201c\u2018" + SENTINEL + r"\\])")
_LAST_WORD = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_WORD_CHARS = 12  # longer than any abbreviation


def sentences(text: str) -> list[str]:
    """``text`` (citations replaced by the sentinel) split into sentences, white space made single spaces.

    A piece holding no words outside its citations (a citation left after the full stop) joins the sentence
    before it.
    """
    text = " ".join(text.split())
    found: list[str] = []
    start = 0
    for match in _END.finditer(text):
        # Searched in the few characters before the stop only: from the start, every stop cost the whole text.
        word = _LAST_WORD.search(text, max(0, match.start() - _WORD_CHARS), match.start())
        before = word.group(1).lower().rstrip(".") if word else ""
        if match.group().startswith(".") and (before in _ABBREVIATIONS or len(before) == 1):
            continue  # "et al.", "e.g.", an initial
        found.append(text[start : match.end()].strip())
        start = match.end()
    found.append(text[start:].strip())
    merged: list[str] = []
    for piece in found:
        if not piece:
            continue
        if merged and not re.search(r"\w", piece.replace(SENTINEL, "")):
            merged[-1] = f"{merged[-1]} {piece}"
        else:
            merged.append(piece)
    return merged
