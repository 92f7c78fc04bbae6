"""Citation keys used in .tex files: every \\cite variant of LaTeX, natbib and biblatex."""

from __future__ import annotations

import re
from dataclasses import dataclass

# \cite, \citep*, \Citet, \parencite, \textcite, \autocite, \citeauthor, \nocite, ... with up to two
# optional arguments; biblatex's \cites{a}[p]{b} takes several key groups.
_CITE = re.compile(r"\\(?P<cmd>[A-Za-z]*[Cc]ite[A-Za-z]*)\*?\s*(?P<args>(?:\s*(?:\[[^\]]*\]|\([^)]*\)))*\s*(?:\{[^{}]*\}\s*(?:\[[^\]]*\]\s*)*)+)")
_GROUP = re.compile(r"\{([^{}]*)\}")
_COMMENT = re.compile(r"(?<!\\)%.*$", re.M)


@dataclass(frozen=True)
class Citation:
    key: str
    line: int


def citations(text: str) -> tuple[list[Citation], bool]:
    """Keys cited in ``text`` with their lines, and whether it has ``\\nocite{*}`` (cites everything)."""
    text = _COMMENT.sub("", text)
    found: list[Citation] = []
    cites_all = False
    for match in _CITE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        groups = _GROUP.findall(match.group("args"))
        if not match.group("cmd").endswith("cites"):
            groups = groups[:1]  # \cite{keys} takes one key group; later braces are text
        for group in groups:
            for key in (k.strip() for k in group.split(",")):
                if key == "*":
                    cites_all = True
                elif key:
                    found.append(Citation(key, line))
    return found, cites_all


def cite_key_spans(text: str) -> list[tuple[int, int]]:
    """Where each key cited in ``text`` is (start, end offsets), outside comments: for rewriting keys in place."""
    spans: list[tuple[int, int]] = []
    for match in _CITE.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if _COMMENT.search(text, line_start, match.start()):
            continue
        args_start = match.start("args")
        groups = list(_GROUP.finditer(match.group("args")))
        if not match.group("cmd").endswith("cites"):
            groups = groups[:1]
        for group in groups:
            offset = args_start + group.start(1)
            for part in re.finditer(r"[^,]+", group.group(1)):
                key = part.group().strip()
                if key and key != "*":
                    start = offset + part.start() + part.group().index(key)
                    spans.append((start, start + len(key)))
    return spans
