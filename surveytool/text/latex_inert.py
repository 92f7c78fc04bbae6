"""Writing LaTeX outside the allowlist so that it prints literally: what ``latex_allowlist.py`` found, made inert.

Braces are kept as they are (BibTeX counts them); everything else an offence holds is spelled
with text commands, so the value prints what was written and runs nothing.
"""

from __future__ import annotations

import re

from surveytool.text.latex_allowlist import (
    CONTROL_CHARS_SET,
    TOKEN,
    LatexPolicy,
    Offence,
    find_offences,
    math_after,
)

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
    {
        char: r"\textasciicircum{}\textasciicircum{}" + _LITERAL.get(chr(ord(char) ^ 64), chr(ord(char) ^ 64))
        for char in CONTROL_CHARS_SET
    }
)
# In a value that is rewritten anyway, the characters that would stop the document compiling
# (a parameter or alignment character, a comment that could hide a closing brace) print too.
_RENDERED = re.compile(TOKEN.pattern + "|[#&%_]", re.S)


def _literal(text: str, math: bool) -> str:
    printed = "".join(_LITERAL.get(char, char) for char in text)
    return r"\mbox{" + printed + "}" if math else printed


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
    pieces: list[str] = []
    last = 0
    for match in _RENDERED.finditer(value):
        if match.start() < last:
            continue
        token = match.group()
        offence = starts.get(match.start())
        if offence is not None:
            literal = value[offence.start : offence.end]
        elif token[0] == "$" and math_closes:
            math = math_after(math, token)
            continue
        elif not specials:
            continue
        elif token in ("#", "&", "%", "$", "$$") or token in CONTROL_CHARS_SET or (token in ("_", "^") and not math):
            literal = token
        else:
            continue
        pieces.append(value[last : match.start()])
        pieces.append(_literal(literal, bool(math)))
        last = match.start() + len(literal)
    pieces.append(value[last:])
    rendered = "".join(pieces)
    if find_offences(rendered, policy, preamble):  # cannot happen; should it, nothing may stay active
        return "".join(char if char in "{}" else _LITERAL.get(char, char) for char in value)
    return rendered
