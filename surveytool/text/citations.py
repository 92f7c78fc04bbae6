"""Citation keys used in .tex files: every \\cite variant of LaTeX, natbib and biblatex."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

# \cite, \citep*, \Citet, \parencite, \textcite, \autocite, \citeauthor, \nocite, ... with up to two
# optional arguments; biblatex's \cites{a}[p]{b} takes several key groups. The arguments are read by
# hand, each character once: a regex with nested optional whitespace backtracks over long runs of spaces.
# A control symbol is read whole, so that the backslash of \\ (a line break) starts no command: \\citet{x} is text.
_COMMAND = re.compile(r"\\(?:([A-Za-z]+)|.)", re.DOTALL)
_CITE_NAME = re.compile(r"[Cc]ite")
# Commands named like citations that take no keys: natbib's and biblatex's settings and free text, and
# the commands that define a citation command (\DeclareCiteCommand{\citejournal}) or an alias
# (natbib's \defcitealias{key}{text}, which writes no \citation: \citetalias cites).
_NOT_CITING = re.compile(r"(?:[Dd]eclare|[Rr]enew|[Nn]ew|[Pp]rovide|set|def)|cite(?:style|text|reset|setup)$")
# biblatex's \volcite[prenote]{volume}[pages]{key} (\pvolcite, \ftvolcite, ... and \volcites): a volume before each key.
_VOLUME_CITE = re.compile(r"volcites?$")
# An optional argument whose braces hold brackets ({[}online{]}); an unbraced "[" ends the reading, so
# that each character is read a bounded number of times however many brackets are left open.
_BRACED_OPTION = {
    "[": re.compile(r"\[(?:[^\[\]{}]|\{[^{}]*\})*\]"),
    "(": re.compile(r"\((?:[^()\[{}]|\{[^{}]*\})*\)"),
    "<": re.compile(r"<(?:[^<>{}]|\{[^{}]*\})*>"),
}
_SPACE = re.compile(r"\s*")
_OPTIONAL_CLOSE = {"[": "]", "(": ")", "<": ">"}  # apacite's \cite<prefix>[postfix]{key}
# A key inside a key group: no commas, no surrounding space.
_KEY_PART = re.compile(r"[^,\s](?:[^,]*[^,\s])?")


@dataclass(frozen=True)
class Citation:
    key: str
    line: int


class _Finder:
    """``text.find(char, start)`` for starts that mostly move forward: each answer is kept and reused while it
    still lies ahead, so that many unclosed brackets do not each scan the rest of the text."""

    def __init__(self, text: str):
        self.text = text
        self.found: dict[str, tuple[int, int]] = {}  # char -> (searched from, found at or -1)

    def find(self, char: str, start: int) -> int:
        searched_from, at = self.found.get(char, (len(self.text) + 1, -1))
        if searched_from <= start and (at == -1 or at >= start):
            return at
        at = self.text.find(char, start)
        self.found[char] = (start, at)
        return at


def _after_space(text: str, position: int) -> int:
    match = _SPACE.match(text, position)
    return match.end() if match else position


def _key_groups(text: str, position: int, finder: _Finder) -> tuple[list[tuple[int, int]], int] | None:
    """Where the brace groups of a citation command's arguments starting at ``position`` (just after its name)
    hold their keys (start, end offsets inside the braces), and where the arguments end; None when no key group follows."""
    if text.startswith("*", position):
        position += 1
    position = _after_space(text, position)
    while position < len(text) and text[position] in _OPTIONAL_CLOSE:  # [prenote] [postnote], (volume), <prefix>
        close = finder.find(_OPTIONAL_CLOSE[text[position]], position + 1)
        if 0 <= finder.find("{", position + 1) < close:  # a bracket in braces ({[}online{]}) closes nothing
            braced = _BRACED_OPTION[text[position]].match(text, position)
            close = braced.end() - 1 if braced else -1
        if close < 0:
            return None
        position = _after_space(text, close + 1)
    groups: list[tuple[int, int]] = []
    while text.startswith("{", position):
        close, inner_open = finder.find("}", position + 1), finder.find("{", position + 1)
        if close < 0 or 0 <= inner_open < close:  # nested braces are not a key list
            break
        groups.append((position + 1, close))
        position = _after_space(text, close + 1)
        while text.startswith("[", position):  # a postnote between the groups of \cites
            close = finder.find("]", position + 1)
            if close < 0:
                break
            position = _after_space(text, close + 1)
    return (groups, position) if groups else None


def blank_comments(text: str) -> str:
    """``text`` with each comment, verbatim text (``\\verb|...|``, a verbatim environment) and what follows
    ``\\end{document}`` replaced by spaces:
    nothing in it is cited or input, and offsets and lines stay."""
    if not any(mark in text for mark in ("%", "\\verb", "\\begin{", "\\end", "\\iffalse", "inline")):
        return text
    pieces: list[str] = []
    done = 0
    next_line = _Finder(text)
    for start, end in _inert_spans(text, next_line):
        pieces += [text[done:start], _SPACES.sub(" ", text[start:end])]
        done = end
    return "".join([*pieces, text[done:]])


_INERT_START = re.compile(
    r"(?<!\\)(?:\\\\)*(?:%|(?P<skip>\\iffalse)(?![A-Za-z@]))|\\verb\*?|\\lstinline(?:\[[^\]\n]*\])?|\\mintinline\{[^{}\n]*\}"
    r"|\\begin\{(verbatim\*?|Verbatim\*?|lstlisting|minted|comment)\}|\\end\s*\{document\}(?!\s*\})"
    r"|(?P<address>\\(?:url|href)\{[^{}\n]*\})"  # its % is a character: \url{http://x.org/a%20b} \cite{key}
)
_SPACES = re.compile(r"[^\n]")
# What TeX sees in the text a false conditional skips: commands (a conditional opens a level, \fi closes one, \else
# at the first level ends the skip) and comments. Only TeX's own conditionals count; \ifthenelse is a macro.
_SKIPPED_TOKEN = re.compile(r"\\(?:([A-Za-z@]+)|.)|%[^\n]*", re.DOTALL)
_DEFINING = re.compile(r"\\(?:let|def|[gex]def|(?:re)?newcommand|providecommand)(?![A-Za-z@])[^\n]*$")
_CONDITIONALS = frozenset(
    "if ifcat ifnum ifdim ifodd ifvmode ifhmode ifmmode ifinner ifvoid ifhbox ifvbox ifx ifeof iftrue iffalse "
    "ifcase ifdefined ifcsname iffontchar ifincsname".split()
)


def _skipped_end(text: str, position: int) -> int:
    """Where the text that ``\\iffalse`` skips, from ``position``, ends: after its \\fi or \\else (or the text's end)."""
    depth = 0
    for token in _SKIPPED_TOKEN.finditer(text, position):
        name = token.group(1)
        if name in _CONDITIONALS:
            depth += 1
        elif name == "fi" or (name == "else" and depth == 0):
            if depth == 0:
                return token.end()
            depth -= 1
    return len(text)


def _inert_spans(text: str, finder: _Finder) -> Iterator[tuple[int, int]]:
    """(start, end) of each comment and verbatim text, in order; each character is looked at a bounded number of
    times (an unclosed environment runs to the end, as LaTeX reads it)."""
    position = 0
    while (found := _INERT_START.search(text, position)) is not None:
        start, after = found.start(), found.end()
        line_end = finder.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        # A \url's % is no comment; \let\ifdraft\iffalse or \newcommand{\done}{\end{document}} is a definition.
        if found.group("address") or (
            (found.group("skip") or found.group().endswith("{document}"))
            and _DEFINING.search(text, max(0, start - 80), start)
        ):
            position = after
            continue
        if found.group().endswith("{document}"):  # LaTeX stops reading there: what follows is neither cited nor input
            start, end = after, len(text)
        elif found.group("skip"):  # \iffalse ... \fi: text commented out
            end = _skipped_end(text, after)
        elif found.group(2):  # an environment: to its \end, or to the end of the text
            close = text.find(f"\\end{{{found.group(2)}}}", after)
            end = len(text) if close < 0 else close
        elif found.group().endswith("%"):  # after an even number of backslashes: \\% ends a line, then comments
            end = line_end
        else:  # \verb<delimiter>...<delimiter> (\lstinline's also {...}), on one line; anything else is no \verb
            delimiter = text[after : after + 1]
            closing = "}" if delimiter == "{" and not found.group().startswith("\\verb") else delimiter
            close = text.find(closing, after + 1, line_end) if delimiter and not delimiter.isalpha() else -1
            if delimiter.isspace() or close < 0:
                position = after
                continue
            end = close + 1
        yield start, end
        position = max(end, after)


def _cited_keys(text: str) -> Iterator[tuple[int, int, int, int]]:
    """(command start, its key group's start, key start, key end) of every key cited in ``text`` (comments
    blanked), in order."""
    finder = _Finder(text)
    position = 0
    while (command := _COMMAND.search(text, position)) is not None:
        position = command.end()
        name = command.group(1)
        if name is None or not _CITE_NAME.search(name) or _NOT_CITING.match(name):
            continue
        parsed = _key_groups(text, position, finder)
        if parsed is None:
            continue
        groups, position = parsed
        if _VOLUME_CITE.search(name):
            groups = groups[1::2] if name.endswith("s") else groups[1:2]
        elif not name.endswith("cites"):
            groups = groups[:1]  # \cite{keys} takes one key group; later braces are text
        for group_start, group_end in groups:
            for part in _KEY_PART.finditer(text, group_start, group_end):
                if part.group()[0] != "#" and "\\" not in part.group():  # a macro's parameter, a command
                    yield command.start(), group_start, part.start(), part.end()


def citations(text: str) -> tuple[list[Citation], bool]:
    """Keys cited in ``text`` with their lines, and whether it has ``\\nocite{*}`` (cites everything)."""
    text = blank_comments(text)
    found: list[Citation] = []
    cites_all = False
    line, counted_to = 1, 0
    for command_start, _, start, end in _cited_keys(text):
        line += text.count("\n", counted_to, command_start)
        counted_to = command_start
        key = text[start:end]
        if key == "*":
            cites_all = True
        else:
            found.append(Citation(key, line))
    return found, cites_all


def cite_key_spans(text: str) -> list[tuple[int, int, int]]:
    """Where each key cited in ``text`` is (start, end offsets, and the start of the braces that hold it, which
    keys of one citation share), outside comments: for rewriting keys in place."""
    return [(start, end, group) for _, group, start, end in _cited_keys(blank_comments(text)) if text[start:end] != "*"]
