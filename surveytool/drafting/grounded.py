"""Grounded drafting: one suggested paragraph per theme, asked of a model that is shown only that theme's papers.

Every citation in the answer is checked against the theme's keys and the bibliography; a sentence
citing anything else, or with a citation command that cannot be read, is dropped and reported,
never written. What survives is rebuilt as LaTeX: the prose escaped at the usual boundary
(``text/latex.py``), the citations written anew from their checked keys, so nothing else the
model wrote can act. Answers are cached by content (``answer_cache.py``): without a client
(no ``--llm``) only cached answers are used and nothing is sent anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from surveytool.drafting.answer_cache import AnswerCache
from surveytool.drafting.answer_text import SENTINEL, Cite, clean, sentences, shown_key, split_citations
from surveytool.drafting.llm_client import LlmClient, LlmError, answer_key, one_line
from surveytool.drafting.llm_settings import LlmSettings
from surveytool.model import Finding, Severity
from surveytool.text.latex import LatexMarkup, escape_text, usable_key

#: Characters of a paper's abstract (or snippet) shown to the model: its opening says what the paper does.
ABSTRACT_CHARS = 1500
TITLE_CHARS = 300
HALLUCINATED = "hallucinated-citation"
MALFORMED = "malformed-citation"

SYSTEM_PROMPT = (
    "You help write the related-work chapter of a research survey. Write one paragraph of plain text "
    "(no Markdown, no headings, no lists) that presents, compares and connects the papers the user gives, "
    "saying only what their titles and abstracts support. Cite a paper with \\cite{key}, using only the "
    "keys given, exactly as written; several papers go in one command: \\cite{key1,key2}. Do not cite or "
    "name any other work, and use no LaTeX command other than \\cite."
)
# What the model may have escaped out of habit: printed as the character itself.
_MODEL_ESCAPES = re.compile(r"\\([%&_#$])")
#: The longest line a suggested sentence is written on. Escaping makes text up to 18 times longer
#: (``^`` is ``\\textasciicircum{}``), and TeX stops at a line of over 200,000 characters ("Unable to read
#: an entire line"): an answer of 20,000 characters could make one.
LINE_CHARS = 2000
# Where a line may break: after a space (the line end is one), else after a closing brace.
_PIECE = re.compile(r"[^ }]*[ }]|[^ }]+")


@dataclass(frozen=True)
class ThemePaper:
    key: str
    title: str
    year: str | int | None = None
    abstract: str = ""  # the abstract, or the snippet a paper list gave


@dataclass(frozen=True)
class DraftTheme:
    section_id: str
    name: str
    papers: tuple[ThemePaper, ...]
    section_title: str = ""


@dataclass(frozen=True)
class Rejection:
    """A sentence that was not written: ``kind`` is hallucinated-citation or malformed-citation."""

    kind: str
    key: str  # the offending key ('' when a malformed command has none)
    sentence: str  # as the model wrote it
    reason: str

    def as_finding(self, section_id: str, theme: str) -> Finding:
        return Finding(
            check=self.kind,
            severity=Severity.WARNING,
            message=f"section {section_id}, theme {one_line(theme, 60)!r}: a suggested sentence was dropped, "
            f"{self.reason}: '{one_line(self.sentence, 120)}'",  # as written: a repr doubles its backslashes
            key=self.key,
            hint="nothing was written; the other sentences of the suggestion stand",
        )


@dataclass(frozen=True)
class ThemeDraft:
    """What drafting one theme gave. ``source``: 'model' (asked now), 'cache', 'none' (not cached and no
    client: nothing was asked), 'failed' (``error`` says why), 'given-up' (not asked: the model had failed too
    often or the budget was spent, ``error`` says which) or 'empty' (no paper can be cited)."""

    section_id: str
    theme: str
    text: LatexMarkup  # the surviving sentences, one a line; '' when none
    sentences_kept: int
    rejections: tuple[Rejection, ...]
    source: str
    cache_key: str = ""
    error: str = ""

    def findings(self) -> list[Finding]:
        found = [r.as_finding(self.section_id, self.theme) for r in self.rejections]
        if self.error and self.source != "given-up":  # those not asked are told once, by the run (``Suggester``)
            found.append(
                Finding(
                    check="llm-failed",
                    severity=Severity.WARNING,
                    message=f"section {self.section_id}, theme {one_line(self.theme, 60)!r}: no suggestion "
                    f"({self.error})",
                    hint="the notes and the rest of the chapter are unchanged; run draft --llm again later",
                )
            )
        return found


def _flat(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3].rstrip() + "..."


def citable_papers(theme: DraftTheme) -> list[ThemePaper]:
    """The theme's papers LaTeX can cite, in the theme's order, each once."""
    seen: set[str] = set()
    papers = []
    for paper in theme.papers:
        if usable_key(paper.key) and paper.key not in seen:
            seen.add(paper.key)
            papers.append(paper)
    return papers


def build_messages(theme: DraftTheme) -> list[dict[str, str]]:
    """The chat messages for ``theme``: the instructions, then the theme's papers and nothing else."""
    section = theme.section_title or theme.section_id
    lines = [f"Section: {_flat(section, 200)}", f"Theme: {_flat(theme.name, 200)}", "", "Papers:"]
    for paper in citable_papers(theme):
        lines += [
            "",
            f"key: {paper.key}",
            f"title: {_flat(paper.title, TITLE_CHARS)}",
            f"year: {paper.year if paper.year not in (None, '') else 'n.d.'}",
        ]
        if paper.abstract.strip():
            lines.append(f"abstract: {_flat(paper.abstract, ABSTRACT_CHARS)}")
    lines += ["", "Write the paragraph now, citing these papers by their keys with \\cite{...}."]
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(lines)}]


def _written(sentence: str, cites: Sequence[Cite]) -> str:
    """The sentence as the model wrote it, citations included."""
    pieces = sentence.split(SENTINEL)
    return "".join(piece + (cites[i].written if i < len(cites) else "") for i, piece in enumerate(pieces))


def _problems(sentence: str, cites: Sequence[Cite], theme_keys: Collection[str], bibliography: Collection[str]):
    for cite in cites:
        if cite.command is None:
            # Quoted as written, as the sentence is: a repr would double its backslashes ('\\cite{...').
            written = one_line(cite.written, 80)
            yield Rejection(MALFORMED, cite.keys[0] if cite.keys else "", sentence, f"'{written}': {cite.problem}")
            continue
        for key in cite.keys:
            if key not in bibliography:
                yield Rejection(
                    HALLUCINATED, key, sentence, f"it cites {shown_key(key)}, which is not in the bibliography"
                )
            elif key not in theme_keys:
                yield Rejection(
                    HALLUCINATED, key, sentence, f"it cites {shown_key(key)}, which is not one of this theme's papers"
                )


def _render(sentence: str, cites: Sequence[Cite]) -> str:
    """The sentence as LaTeX: prose escaped, each citation written anew from its checked keys."""
    pieces = sentence.split(SENTINEL)
    out: list[str] = []
    for i, piece in enumerate(pieces):
        tie = ""
        if i < len(cites) and piece.endswith("~"):
            piece, tie = piece[:-1], "~"
        out.append(escape_text(_MODEL_ESCAPES.sub(r"\1", piece)))
        if i < len(cites):
            cite = cites[i]
            out.append(f"{tie}\\{cite.command}{{{','.join(cite.keys)}}}")
    return _wrapped("".join(out))


def _wrapped(latex: str) -> str:
    """``latex`` (escaped prose and citations) on lines of at most about :data:`LINE_CHARS` characters.

    A line breaks at a space, which the line end stands for; a run of more than a line without one
    breaks after a closing brace (an escaped character's ``{}``, a citation), where the line end
    adds a space. Nothing else changes: no break falls inside a command or its argument.
    """
    if len(latex) <= LINE_CHARS:
        return latex
    lines: list[str] = []
    line = ""
    for piece in _PIECE.findall(latex):
        if line and len(line) + len(piece) > LINE_CHARS:
            lines.append(line.rstrip(" "))
            line = ""
        line += piece
    lines.append(line)
    return "\n".join(lines)


def _respelt(cite: Cite, allowed: Collection[str], bibliography: Collection[str]) -> Cite:
    """``cite`` with a key the model wrote in another case (``Huang2019GPipe``) spelt as its theme's paper is, when
    it is no other entry's key and one paper of the theme alone has it in any case: BibTeX and biber match keys by
    their case, and the citation is written anew from the checked keys."""
    if cite.command is None or all(key in bibliography for key in cite.keys):
        return cite
    spelt = {key.lower(): [k for k in allowed if k.lower() == key.lower()] for key in cite.keys}
    keys = tuple(
        spelt[key.lower()][0] if key not in bibliography and len(spelt[key.lower()]) == 1 else key for key in cite.keys
    )
    return replace(cite, keys=keys)


def check_answer(
    answer: str, theme_keys: Collection[str], bibliography: Collection[str]
) -> tuple[LatexMarkup, int, list[Rejection]]:
    """The answer's sentences whose every citation is a key of the theme and of the bibliography, as LaTeX
    (one sentence a line), how many there are, and why each other sentence was dropped."""
    text, cites = split_citations(clean(answer))
    allowed = {key for key in theme_keys if key in bibliography}
    cites = [_respelt(cite, allowed, bibliography) for cite in cites]
    kept: list[str] = []
    rejections: list[Rejection] = []
    position = 0
    cited = False
    for sentence in sentences(text):
        count = sentence.count(SENTINEL)
        own = cites[position : position + count]
        position += count
        problems = list(_problems(_written(sentence, own), own, allowed, bibliography))
        if problems:
            rejections.extend(problems)
        else:
            kept.append(_render(sentence, own))
            cited = cited or count > 0
    if not cited:  # what is left cites none of the papers ("Sure!", a refusal): it is not grounded in them
        kept = []
    return LatexMarkup("\n".join(kept)), len(kept), rejections


def draft_theme(
    theme: DraftTheme,
    bibliography: Collection[str],
    cache: AnswerCache,
    settings: LlmSettings,
    client: LlmClient | None = None,
) -> ThemeDraft:
    """A checked suggestion for ``theme``: from the cache, else from ``client`` when given (else none)."""
    papers = citable_papers(theme)
    if not papers:
        return ThemeDraft(theme.section_id, theme.name, LatexMarkup(""), 0, (), "empty")
    messages = build_messages(theme)
    key = answer_key(settings.model, messages)
    answer = cache.get(key)
    source = "cache"
    if answer is None:
        if client is None:
            return ThemeDraft(theme.section_id, theme.name, LatexMarkup(""), 0, (), "none", key)
        reason = client.given_up()
        if reason:
            return ThemeDraft(theme.section_id, theme.name, LatexMarkup(""), 0, (), "given-up", key, reason)
        try:
            answer = client.complete(messages)
        except LlmError as error:
            return ThemeDraft(theme.section_id, theme.name, LatexMarkup(""), 0, (), "failed", key, str(error))
        cache.put(key, answer)
        source = "model"
    text, kept, rejections = check_answer(answer, {p.key for p in papers}, bibliography)
    if not kept and not rejections:  # no citation at all: not kept, so that draft --llm asks again
        cache.drop(key)
        reason = f"the answer cites none of the theme's papers, so none of it was written: '{one_line(answer, 80)}'"
        # One an earlier version cached is counted as from the cache: it was not asked for.
        failed = "failed" if source == "model" else source
        return ThemeDraft(theme.section_id, theme.name, LatexMarkup(""), 0, (), failed, key, reason)
    return ThemeDraft(theme.section_id, theme.name, text, kept, tuple(rejections), source, key)
