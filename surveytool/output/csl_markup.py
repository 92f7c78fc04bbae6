"""A BibTeX title's LaTeX as CSL-JSON rich text: the formatting commands a style keeps (``\\emph``,
``\\textit``, ``{\\em ...}``, bold, small caps, super- and subscripts) as the HTML-like tags citeproc-js and
pandoc read (``<i>``, ``<b>``, ...), every other part as its plain text.

Protecting braces are dropped as in the plain text (a reader protects capitals itself). Text that would read as
a tag (a title that says ``<i>`` in so many words) is written so that no CSL reader takes it for one: its ``<``
alone in a ``nocase`` span, which every reader shows as the character it is.
"""

from __future__ import annotations

import re

from surveytool.text.latex import latex_to_text, math_to_text

_COMMANDS = {
    "emph": "i",
    "textit": "i",
    "textsl": "i",
    "textbf": "b",
    "textsc": "sc",
    "textsuperscript": "sup",
    "textsubscript": "sub",
}
_DECLARATIONS = {"em": "i", "it": "i", "itshape": "i", "sl": "i", "slshape": "i", "bf": "b", "bfseries": "b"}
_DECLARATIONS |= {"sc": "sc", "scshape": "sc"}
_TAGS = {
    "i": ("<i>", "</i>"),
    "b": ("<b>", "</b>"),
    "sup": ("<sup>", "</sup>"),
    "sub": ("<sub>", "</sub>"),
    "sc": ('<span style="font-variant:small-caps;">', "</span>"),
}
_COMMAND = re.compile(r"\\(?:([A-Za-z]+)\s*|.)", re.DOTALL)
_DECLARATION = re.compile(r"\s*\\([A-Za-z]+)(?![A-Za-z])\s*")
_ANY_MARKUP = re.compile(
    r"\\(?:" + "|".join(sorted({*_COMMANDS, *_DECLARATIONS}, key=len, reverse=True)) + r")(?![A-Za-z])"
)
# A "<" that could open a tag for some CSL reader (<i>, </span>, <sc>...).
_TAG_START = re.compile(r"<(?=[A-Za-z/])")
_INERT_LT = '<span class="nocase"><</span>'
# What citeproc-js reads as a variable in a note: a line "name: value" (the name letters, digits, "-", "_" or
# spaces, for Zotero's and other readers' looser rules) and "{:name: value}" anywhere.
_NOTE_FIELD = re.compile(r"(^[ \t]*[-\w][-\w \t]*|\{):", re.MULTILINE)
_INERT_COLON = '<span class="nocase">:</span>'
_MAX_DEPTH = 40  # markup nested deeper than any title's: the plain text instead


class _TooDeep(Exception):
    pass


def inert_csl_text(text: str) -> str:
    """Plain text as CSL rich text that reads back as the same characters, no tag in it."""
    return _TAG_START.sub(_INERT_LT, text)


def inert_csl_name(name: dict[str, str]) -> dict[str, str | bool]:
    """A CSL name whose parts show their text as it is: citeproc-js reads family, given and literal as rich text.

    A name that needed a nocase span is sent with ``parse-names`` off: citeproc-js takes the lower-case words at
    the end of a given name (and the start of a family name) for particles, and would cut the span's
    ``class="nocase"`` off as one. Its particles are BibTeX's, already split out as it read the name.
    """
    inert: dict[str, str | bool] = {part: inert_csl_text(text) for part, text in name.items()}
    return inert | {"parse-names": False} if inert != name and "literal" not in name else inert


def inert_csl_note(text: str) -> str:
    """A note as inert CSL rich text that no reader takes for variables: citeproc-js (and Zotero) read a line
    ``type: book`` or a ``{:issued: 1900}`` in a note as the item's own, so each such colon is sent in a nocase
    span, which every reader shows as the colon it is."""
    return _NOTE_FIELD.sub(lambda field: field.group(1) + _INERT_COLON, inert_csl_text(text))


def _matching(latex: str, start: int) -> int | None:
    """The index of the ``}`` closing the ``{`` at ``start``, None when it is not closed."""
    depth = 0
    index = start
    while index < len(latex):
        char = latex[index]
        if char == "\\":
            index += 2
            continue
        depth += (char == "{") - (char == "}")
        if depth == 0:
            return index
        index += 1
    return None


def _plain(fragment: str) -> tuple[str, str]:
    """(rich, text) of LaTeX with no markup: its text, spaces at its ends kept as one space each."""
    if not fragment:
        return "", ""
    core = math_to_text(latex_to_text(fragment))
    text = (" " if fragment[:1].isspace() else "") + core + (" " if fragment[-1:].isspace() and core else "")
    return inert_csl_text(text), text


def _convert(latex: str, depth: int) -> tuple[str, str, bool]:
    """(rich text, plain text, whether any markup was found) of a LaTeX value."""
    rich: list[str] = []
    text: list[str] = []
    found = False
    start = index = 0

    def flush(end: int) -> None:
        piece = _plain(latex[start:end])
        rich.append(piece[0])
        text.append(piece[1])

    def wrap(tag: str, inner: str) -> None:
        nonlocal found
        if depth >= _MAX_DEPTH:
            raise _TooDeep
        content = _convert(inner, depth + 1)
        rich.append(_TAGS[tag][0] + content[0] + _TAGS[tag][1])
        text.append(content[1])
        found = True

    while index < len(latex):
        char = latex[index]
        if char == "\\":
            command = _COMMAND.match(latex, index)
            assert command is not None  # a backslash always starts one
            after = command.end()
            name = command.group(1)
            close = _matching(latex, after) if after < len(latex) and latex[after] == "{" else None
            if name in _COMMANDS and close is not None:
                flush(index)
                wrap(_COMMANDS[name], latex[after + 1 : close])
                index = start = close + 1
                continue
            index = after
            while index < len(latex) and latex[index] == "{":  # another command's arguments are its text
                end = _matching(latex, index)
                index = len(latex) if end is None else end + 1
            continue
        if char == "{":
            close = _matching(latex, index)
            if close is None:
                index += 1
                continue
            group = latex[index + 1 : close]
            declared = _DECLARATION.match(group)
            if declared and declared.group(1) in _DECLARATIONS:
                flush(index)
                wrap(_DECLARATIONS[declared.group(1)], group[declared.end() :])
                index = start = close + 1
                continue
            if _ANY_MARKUP.search(group):  # {The \emph{x}}: the braces protect, the markup inside still counts
                if depth >= _MAX_DEPTH:
                    raise _TooDeep
                flush(index)
                content = _convert(group, depth + 1)
                rich.append(content[0])
                text.append(content[1])
                found = found or content[2]
                index = start = close + 1
                continue
            index = close + 1
            continue
        if char == "$":  # math is one piece of text: a brace or command in it is no markup
            end = latex.find("$", index + 1)
            index = len(latex) if end < 0 else end + 1
            continue
        index += 1
    flush(len(latex))
    return "".join(rich), "".join(text), found


def csl_rich_title(latex: str, text: str) -> str:
    """``text`` (the plain text of the LaTeX value ``latex``) as CSL rich text, with the formatting ``latex`` has.

    The plain text stays as it was: where the pieces of the LaTeX read as other words than the whole does (math
    cut by a command), the value is sent without its formatting.
    """
    if _ANY_MARKUP.search(latex):
        try:
            rich, plain, found = _convert(latex, 0)
        except _TooDeep:
            return inert_csl_text(text)
        if found and " ".join(plain.split()) == " ".join(text.split()):
            return rich.strip()
    return inert_csl_text(text)
