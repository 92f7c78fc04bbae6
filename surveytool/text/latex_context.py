"""Whether allowed LaTeX is valid where it stands: in text or in math, as an argument, in a conditional.

The allowlist (``latex_allowlist.py``) keeps commands that only print, but each of them still stops
the document in the wrong place: a math symbol in text (``\\|``: "Missing $ inserted"), ``\\TeX`` in math,
an accent before a ``}``, ``\\char`` without a number, ``\\hspace`` of what is no length, an ``\\ifmmode``
without its ``\\fi``, a ``\\par`` in an argument. This reads each value as TeX will, group by group, and
names those tokens, which are then written inert like any other offence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from surveytool.text.latex_commands import (
    ARGUMENTS,
    COUNTERS,
    LINK_COMMANDS,
    MATH_COMMANDS,
    TEXT_AND_MATH,
    TEXT_ONLY,
)
from surveytool.text.latex_shapes import (
    DELIMITED,
    KEYED,
    OPTIONAL,
    delimiter_offence,
    group_end,
    keys_offence,
    number_offence,
    optional_arguments,
    skip_spaces,
)

_TOKEN = re.compile(r"\\(?:[^\W\d_]|@)+|\\.|\\\Z|\$\$?|[{}]", re.S)
_AMOUNT = r"\s*[-+]?\s*(?:\d+(?:[.,]\d*)?|[.,]\d+)\s*"
_UNIT = "(?:pt|pc|in|bp|cm|mm|dd|cc|sp|em|ex)"
_DIMEN = _AMOUNT + _UNIT
_STRETCH = rf"{_AMOUNT}(?:{_UNIT}|fil{{1,3}})"
_GLUE = rf"{_DIMEN}(?:\s*plus{_STRETCH})?(?:\s*minus{_STRETCH})?"
_KERN = re.compile(_DIMEN)
_LINE_SPACE_OPENS = re.compile(r"\*?\s*\[")
_LINE_SPACE = re.compile(r"\*?\s*\[[^\]{}]*\]")  # what \\ reads: a star, then a length in brackets
_LINE_SPACE_DIMEN = re.compile(rf"\*?\s*\[{_DIMEN}\s*\]")
_HSPACE = re.compile(rf"\*?\s*\{{{_GLUE}\s*\}}")
_COUNTER = re.compile(r"\s*\{\s*([A-Za-z]+)\s*\}")
# The largest code each takes: pdfTeX has 256 characters; a math code of "8000 reads the character as a command.
_LARGEST = {"char": 255, "mathchar": 0x7FFF}
# What \limits and \nolimits may follow: a large operator or a named one, with its scripts.
_OPERATORS = (
    "sum prod coprod int oint iint iiint bigcup bigcap bigsqcup bigvee bigwedge bigodot bigotimes bigoplus biguplus"
    " lim liminf limsup max min sup inf det gcd Pr log ln exp sin cos tan arg deg dim hom ker lg sec csc cot"
    " sinh cosh tanh arcsin arccos arctan"
).split()
_SCRIPT = r"\s*[_^]\s*(?:\{[^{}]*\}|\\[A-Za-z]+|[^\s{}\\])"
_AFTER_OPERATOR = re.compile(
    rf"(?:\\(?:{'|'.join(_OPERATORS)})(?![A-Za-z])|\\operatorname\*?\s*\{{[^{{}}]*\}})(?:{_SCRIPT})*\s*$"
)


#: Groups nested deeper than this in one value are written as printed braces: TeX allows 255 in all, and the
#: bibliography and the chapter put a value inside a few of their own.
DEEPEST = 100
_GROUP_BRACE = re.compile(r"\\.|[{}]", re.S)


def may_nest_too_deep(value: str) -> bool:
    """The quick test before ``too_deep``: a value with no more than ``DEEPEST`` braces nests no deeper."""
    return value.count("{") > DEEPEST


def too_deep(value: str) -> list[tuple[int, int, str, str]]:
    """(start, end, brace, reason) of both braces of each group nested deeper than ``DEEPEST``."""
    if not may_nest_too_deep(value):
        return []
    found: list[tuple[int, int, str, str]] = []
    opened: list[int] = []
    reason = f"braces nested more than {DEEPEST} deep (TeX stops at 255: TeX capacity exceeded)"
    for match in _GROUP_BRACE.finditer(value):
        if match.group() == "{":
            opened.append(match.start())
        elif match.group() == "}" and opened:
            start = opened.pop()
            # An empty group (\textbraceleft{}, as such a brace is written) is one more level, never one more deep.
            if len(opened) >= DEEPEST and match.start() > start + 1:
                found += [(start, start + 1, "{", reason), (match.start(), match.end(), "}", reason)]
    return sorted(found)


@cache
def math_only() -> frozenset[str]:
    """Commands that stop the document outside math: the allowlist's math ones, ``\\|``, and those pylatexenc's
    encoder writes only inside ``\\ensuremath`` (read from its table)."""
    from pylatexenc.latexencode import get_builtin_conversion_rules

    inside: set[str] = set()
    outside: set[str] = set()
    for rule in get_builtin_conversion_rules("defaults"):
        for replacement in rule.rule.values():
            math = "".join(re.findall(r"\\ensuremath\{(.*)\}", replacement))
            inside.update(re.findall(r"\\([A-Za-z]+)", math))
            outside.update(re.findall(r"\\([A-Za-z]+)", replacement.replace(math, "")))
    return frozenset((MATH_COMMANDS | (inside - outside) | {"|", "mathchar"}) - TEXT_AND_MATH)


def paired_dollars(value: str) -> dict[int, int]:
    """Where each ``$`` or ``$$`` of ``value`` that opens or closes math starts, and its length, if the math closes
    in the same group (as TeX pairs them).

    A ``$`` that opens math nothing closes, or closes it in another group, stops the document: it is not here.
    """
    if "$" not in value:
        return {}
    paired: dict[int, int] = {}
    depth = 0
    opened: tuple[int, str, int] | None = None  # where the open math started, its token, its depth
    for match in _TOKEN.finditer(value):
        token, at = match.group(), match.start()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if opened and opened[2] > depth:
                opened = None  # the group ends before the math: that $ is never closed
        elif token[0] == "$":
            if opened is None:
                opened = (at, token, depth)
            elif opened[2] == depth and opened[1] == token:
                paired.update({opened[0]: len(token), at: len(token)})
                opened = None
            elif opened[2] == depth and opened[1] == "$":  # "$$" in inline math: one closes it, one opens more
                paired.update({opened[0]: 1, at: 1})
                opened = (at + 1, "$", depth)
    return paired


@dataclass
class _Group:
    mode: str  # "text" or "math"
    argument: bool  # inside a command's argument (or math): a \par there stops the document
    open: list[tuple[str, int, str]] = field(default_factory=list)  # \ifmmode and \left: (name, where, mode)


def context_offences(value: str, skip: set[int]) -> list[tuple[int, int, str, str]]:
    """(start, end, token, reason) of each allowed token that stops the document where it stands in ``value``.

    ``skip``: where the offences already found start (they are written inert whatever surrounds them).
    """
    found: list[tuple[int, int, str, str]] = []
    dollars = paired_dollars(value)
    groups = [_Group("text", False)]
    arguments: dict[int, tuple[str, bool]] = {}  # where an argument's brace is: its mode
    math_symbols = math_only()
    for match in _TOKEN.finditer(value):
        token, at = match.group(), match.start()
        group = groups[-1]
        if token == "{":
            mode, argument = arguments.pop(at, (group.mode, False))
            groups.append(_Group(mode, argument or group.argument or mode == "math"))
        elif token == "}":
            if len(groups) > 1:
                found.extend(_unclosed(groups.pop()))
        elif token[0] == "$":
            for dollar in range(at, at + len(token)):  # "$$" may close inline math and open more: two toggles
                if dollar in dollars:
                    group.mode = "text" if group.mode == "math" else "math"
                if dollars.get(dollar) == 2:
                    break
        elif at not in skip:
            reason, end = _misplaced(value, match, group, math_symbols, arguments, skip)
            if reason:
                found.append((at, end, value[at:end], reason))
    for group in groups:
        found.extend(_unclosed(group))
    return sorted(found)


def _unclosed(group: _Group) -> list[tuple[int, int, str, str]]:
    closing = {"ifmmode": "\\fi", "left": "\\right"}
    return [(at, at + len(n) + 1, "\\" + n, f"{closing[n]} does not follow in its group") for n, at, _ in group.open]


def _misplaced(
    value: str,
    match: re.Match,
    group: _Group,
    math_symbols: frozenset[str],
    arguments: dict[int, tuple[str, bool]],
    skip: set[int],
) -> tuple[str, int]:
    """Why the command ``match`` stops the document here, or "", and where what is then written literally ends.

    That is the command alone, or with what it reads when writing only the command literally would leave
    a piece TeX still reads as part of it (a key, a character code, a delimiter, an optional argument).
    """
    name = match.group()[1:]
    end = match.end()
    if name in DELIMITED:
        reason, end = delimiter_offence(value, end)
        if reason:
            return reason, end  # neither opens nor closes a pair
        end = match.end()
    reason = _misplaced_token(value, match, group, math_symbols, arguments)
    if reason:  # with its optional arguments, if it has any (\sqrt[3] without its argument)
        return reason, optional_arguments(value, end, OPTIONAL.get(name, 0))[0]
    if name in KEYED:
        return keys_offence(value, name, end)
    if name in _LARGEST:
        return number_offence(value, end, _LARGEST[name], skip)
    if name == "\\" and _LINE_SPACE_OPENS.match(value, end) and not _LINE_SPACE_DIMEN.match(value, end):
        bracket = _LINE_SPACE.match(value, end)
        return "reads the [...] after it as a length (\\\\[1em]): LaTeX stops (Missing number)", (
            bracket.end() if bracket else end
        )
    return "", end


def _misplaced_token(
    value: str, match: re.Match, group: _Group, math_symbols: frozenset[str], arguments: dict[int, tuple[str, bool]]
) -> str:
    name = match.group()[1:]
    if name in ("ifmmode", "left"):
        group.open.append((name, match.start(), group.mode))
        group.mode = "math" if name == "ifmmode" else group.mode  # the branch read in math (the other in text)
    elif name in ("else", "fi", "right"):
        opener = "left" if name == "right" else "ifmmode"
        if not group.open or group.open[-1][0] != opener:
            return f"no \\{opener} before it in its group"
        if name == "else":
            group.mode = "text"
        else:
            group.mode = group.open.pop()[2]
    if name in math_symbols and group.mode == "text":
        return "a math command outside math: LaTeX stops (Missing $ inserted)"
    if name in ("limits", "nolimits") and not _AFTER_OPERATOR.search(value, 0, match.start()):
        return (
            "follows no operator (\\sum, \\int, \\lim, ...): LaTeX stops (Limit controls must follow a math operator)"
        )
    if name in TEXT_ONLY and group.mode == "math":
        return "LaTeX stops at it in math"
    if name == "par" and group.argument:
        return "a paragraph cannot end inside an argument or math"
    if name in ("\\", "newline") and _after_par(value, match.start()):
        return "ends no line: after \\par, before any text, LaTeX stops (There's no line here to end)"
    if name == "kern" and not _KERN.match(value, match.end()):
        return "takes a length (\\kern0.5em)"
    elif name == "hspace" and not _HSPACE.match(value, match.end()):
        return "takes a length in braces (\\hspace{0.5em})"
    elif name == "arabic" and not ((counter := _COUNTER.match(value, match.end())) and counter.group(1) in COUNTERS):
        return f"takes the name of a counter every class defines ({', '.join(sorted(COUNTERS))})"
    elif name in ARGUMENTS:
        return _arguments(value, match.end(), name, group.mode, arguments)
    return ""


# A \par, then only spaces, braces and commands: TeX is still between paragraphs (a character, or a command that
# prints one, would start the next); more is checked this way than TeX would refuse, never less.
_PAR_GAP = re.compile(r"\\par(?![A-Za-z])(?:\s|[{}]|\\[A-Za-z]+)*")


def _after_par(value: str, at: int) -> bool:
    par = value.rfind("\\par", 0, at)
    return par >= 0 and _PAR_GAP.fullmatch(value, par, at) is not None


def _arguments(value: str, position: int, name: str, mode: str, arguments: dict[int, tuple[str, bool]]) -> str:
    """Why the arguments after ``\\name`` stop the document, or "" (their braces' modes noted in ``arguments``)."""
    count, kind = ARGUMENTS[name]
    position, reason = optional_arguments(value, position, OPTIONAL.get(name, 0))
    if reason:
        return reason
    for index in range(count):
        position = skip_spaces(value, position)
        if position >= len(value) or value[position] in "}$":
            return f"takes {count} argument{'s' if count > 1 else ''}, and a {value[position : position + 1] or 'value end'} follows"
        if value[position] != "{":  # one token: a command or a character
            word = re.match(r"\\(?:[^\W\d_]|@)+|\\.|.", value[position:], re.S)
            position += len(word.group()) if word else 1
            continue
        end = group_end(value, position)
        if index == 0 and name in (*LINK_COMMANDS, "doi") and re.search(r"\\(?:[^\W\d_]|@)", value[position:end]):
            return "a command in its address stops the document (write \\% or \\# for % and #)"
        arguments[position] = ({"t": "text", "m": "math"}.get(kind, mode), True)
        position = end
    return ""
