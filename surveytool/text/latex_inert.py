"""Writing LaTeX outside the allowlist so that it prints literally: what ``latex_allowlist.py`` found, made inert.

Braces are kept as they are (BibTeX counts them); everything else an offence holds is spelled
with text commands, so the value prints what was written and runs nothing.
"""

from __future__ import annotations

import re

from surveytool.text.latex_allowlist import (
    BRACE_TOKEN,
    CONTROL_CHARS_SET,
    TOKEN,
    LatexPolicy,
    Offence,
    caret_notation,
    find_offences,
    lone_escaped_braces,
    math_after,
)
from surveytool.text.preamble_text import definition_parameters

#: ASCII characters with a meaning in TeX or BibTeX, spelled to print literally (braces too: BibTeX counts them).
LITERAL_SPELLINGS = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "^": r"\textasciicircum{}",
    "_": r"\_",
    "%": r"\%",
    "~": r"\textasciitilde{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
_LITERAL = dict(LITERAL_SPELLINGS)
_LITERAL.update(
    {char: "".join(_LITERAL.get(spelled, spelled) for spelled in caret_notation(char)) for char in CONTROL_CHARS_SET}
)
# In a value that is rewritten anyway, the characters that would stop the document compiling
# (a parameter or alignment character, a comment that could hide a closing brace) print too.
_RENDERED = re.compile(TOKEN.pattern + "|[#&%_]", re.S)


def _literal(text: str, math: bool) -> str:
    if math and text in ("{", "}"):
        return "\\" + text  # a brace of a pair in math: \{ and \}, which BibTeX pairs too, open no group
    printed = "".join(_LITERAL.get(char, char) for char in text)
    # In math, in a group of its own: after a command or a ^ that reads one token, an \mbox alone stops the document.
    return r"{\mbox{" + printed + "}}" if math else printed


def render_inert(
    value: str,
    offences: list[Offence] | None = None,
    policy: LatexPolicy | None = None,
    preamble: bool = False,
    specials: bool = True,
) -> str:
    """``value`` with every offence written to print literally; a value without one is kept byte for byte.

    Braces are kept as they are (BibTeX counts them); in math mode the literal
    text goes in an ``\\mbox``. With ``specials`` (a value TeX typesets), the characters
    that would stop the document print too, and math left open prints its dollar signs.
    """
    offences = find_offences(value, policy, preamble) if offences is None else offences
    if not offences:
        return value
    starts = {o.start: o for o in offences}
    math = ""
    for match in TOKEN.finditer(value):
        if match.group()[0] == "$":
            math = math_after(math, match.group())
    math_closes = not math
    parameters = definition_parameters(value, set(starts)) if preamble and specials else set()  # a body's #1
    pieces: list[str] = []
    last = 0
    depth = 0
    math_groups: list[int] = []  # the depths of the \ensuremath arguments around: math too
    for match in _RENDERED.finditer(value):
        if match.start() < last:
            continue
        token = match.group()
        offence = starts.get(match.start())
        if offence is not None:
            literal = value[offence.start : offence.end]
        elif token in ("{", "}"):
            if token == "}" and math_groups and math_groups[-1] == depth:
                math_groups.pop()
            depth += 1 if token == "{" else -1
            continue
        elif token == "\\ensuremath" and value[match.end() :].lstrip().startswith("{"):
            math_groups.append(depth + 1)
            continue
        elif token[0] == "$" and math_closes:
            math = math_after(math, token)
            continue
        elif not specials or match.start() in parameters:
            continue
        elif (
            token in ("#", "&", "%", "$", "$$")
            or token in CONTROL_CHARS_SET
            or (token in ("_", "^") and not (math or math_groups))
        ):
            literal = token
        else:
            continue
        pieces.append(value[last : match.start()])
        pieces.append(_literal(literal, bool(math or math_groups)))
        last = match.start() + len(literal)
    pieces.append(value[last:])
    rendered = "".join(pieces)
    if find_offences(rendered, policy, preamble):  # cannot happen; should it, nothing may stay active
        return "".join(char if char in "{}" else _LITERAL.get(char, char) for char in value)
    return rendered


def balanced_for_bibtex(value: str) -> str:
    """``value`` with the braces BibTeX would misread spelled to print literally (``\\textbraceright{}``).

    BibTeX counts ``\\{`` and ``\\}`` as braces too: a lone one ends a value early or runs it into the
    next field. What is left is balanced as BibTeX counts braces and as TeX groups them: escaped braces
    paired with escaped ones, plain with plain. A value with nothing to spell is returned as it is.
    """
    spelled = {offence.start: offence.text for offence in lone_escaped_braces(value)}
    opened: list[int] = []
    for match in BRACE_TOKEN.finditer(value):
        if match.group() == "{":
            opened.append(match.start())
        elif match.group() == "}":
            if opened:
                opened.pop()
            else:
                spelled[match.start()] = "}"
    spelled.update((start, "{") for start in opened)  # plain ones left unpaired: only in a value rewritten anyway
    if not spelled:
        return value
    pieces: list[str] = []
    last = 0
    for start in sorted(spelled):
        pieces += [value[last:start], LITERAL_SPELLINGS[spelled[start][-1]]]
        last = start + len(spelled[start])
    pieces.append(value[last:])
    return "".join(pieces)
