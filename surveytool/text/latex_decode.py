"""LaTeX to plain text without pylatexenc: a table-driven decoder for matching and de-duplication.

Accents, the symbols our encoder writes, braces and ligatures are decoded;
math stays as written; unknown commands with an argument keep the argument.
``quick_decode`` also says whether it understood every command, so that
latex.latex_to_text can hand the rest to pylatexenc.
"""

from __future__ import annotations

import re
import unicodedata

NEEDS_DECODING = re.compile(r"[\\{}$~^_%&#]|[^\x00-\x7f]|--|[?!`]`|''")

_ACCENTS = {
    '"': "\u0308",
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "c": "\u0327",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "k": "\u0328",
    "r": "\u030a",
    "d": "\u0323",
    "b": "\u0331",
}
# A line break \\ is matched as well, and kept: its second backslash starts no accent (Plain\\'quoted').
# An accent on an empty group (\~{}) prints nothing, as pylatexenc reads it.
_ACCENT = re.compile(
    r"\\\\|\\([\"'`^~=.]|[cuvHkrdb](?=[\s{]))\s*(?:\{\s*(\\[ij](?![A-Za-z])|[A-Za-z])?\s*\}|(\\[ij](?![A-Za-z])|[A-Za-z]))"
)
#: Commands pylatexenc reads as nothing, and what they print: a line or paragraph break or a space ends a word
#: (Scaling\newline Laws); \slash is a / a line may break after (input\slash output).
PRINTED_TEXT = {
    **dict.fromkeys("newline par space enspace thinspace nobreakspace quad qquad addspace".split(), " "),
    "slash": "/",
}
_SYMBOLS = {
    "textellipsis": "…",
    "ldots": "…",
    "dots": "…",
    "textendash": "–",
    "textemdash": "—",
    "textquoteright": "’",
    "textquoteleft": "‘",
    "textquotedblleft": "“",
    "textquotedblright": "”",
    "textquestiondown": "¿",
    "textexclamdown": "¡",
    "&": "&",
    "%": "%",
    "_": "_",
    "#": "#",
    "$": "$",
    "{": "{",
    "}": "}",
    "textbackslash": "\\",
    "textbraceleft": "{",
    "textbraceright": "}",
    "textasciitilde": "~",
    "textasciicircum": "^",
    "textless": "<",
    "textgreater": ">",
    "textbar": "|",
    "ss": "ß",
    " ": " ",  # a control space: \LaTeX\ and
    "\\": " ",  # a line break: Plain\\ text
    ",": " ",  # a thin space: 5\,GB
    **PRINTED_TEXT,
    "TeX": "TeX",
    "LaTeX": "LaTeX",
    "LaTeXe": "LaTeX2e",
    "BibTeX": "BibTeX",
    "o": "ø",
    "O": "Ø",
    "aa": "å",
    "AA": "Å",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "l": "ł",
    "L": "Ł",
    "i": "ı",
    "j": "ȷ",
}
# One pass, so that a brace a command stands for is not then removed as markup. A line break \\ takes its star
# (after spaces, not a blank line) and a [length] right after, as pylatexenc reads them: Plain\\*[2pt]text.
_COMMAND_OR_BRACE = re.compile(
    r"\\(?:([A-Za-z]+)\s*(?:\{\})?|([&%_#${} ,])|(\\)(?:[^\S\n]*\n?[^\S\n]*\*)?(?:\[(?:\{[^{}]*\}|[^\]{}])*\])?)|[{}]"
)
# A ~ after a backslash is an accent, unless the backslash ends a line break (Plain\\~text).
_TIE = re.compile(r"(?<!\\)((?:\\\\)*)~")


_LIGATURES_IN = re.compile(r"---|--|[?!`]`|''")
_LIGATURE_MACROS = {
    "---": r"\textemdash{}",
    "--": r"\textendash{}",
    "``": r"\textquotedblleft{}",
    "''": r"\textquotedblright{}",
    "?`": r"\textquestiondown{}",  # ?`Qu\'e? is Spanish's ¿Qué?
    "!`": r"\textexclamdown{}",
}


def spell_ligatures(value: str) -> str:
    """TeX's input ligatures as the macros they mean, before any braces are removed."""
    return _LIGATURES_IN.sub(lambda m: _LIGATURE_MACROS[m.group()], value)


# Commands whose argument is plain text to keep: the command itself is dropped.
_FORMATTING = frozenset(
    [
        "emph",
        "textbf",
        "textit",
        "texttt",
        "textsc",
        "textrm",
        "textsf",
        "textup",
        "textmd",
        "textnormal",
        "textsl",
        "mbox",
        "hbox",
        "url",
        "protect",
        "relax",
        "bf",
        "it",
        "em",
        "rm",
        "sc",
        "tt",
        "sf",
        "sl",
        "normalfont",
        "small",
        "footnotesize",
        "large",
        "Large",
    ]
)


# A $ after \\ (a line break) opens math; one after a lone backslash is a dollar sign, also inside math ($a\$b$).
_MATH = re.compile(r"(?<!\\)(?:\\\\)*(\$(?:[^$\\]|\\[\s\S])*\$)")
# Without these (a NUL is where text_part keeps a tie), the ligatures and braces are all a value has to decode.
_COMMAND_MATH_OR_TIE = re.compile(r"[\\$~\0]")
_LIGATURE_TEXT = {ligature: _SYMBOLS[macro[1:-2]] for ligature, macro in _LIGATURE_MACROS.items()}
_ARGUMENT_FOLLOWS = re.compile(r"\s*\{")


def _accented(match: re.Match) -> str:
    if match.group(1) is None:  # a line break
        return match.group()
    letter = match.group(2) or match.group(3)
    return letter.lstrip("\\") + _ACCENTS[match.group(1)] if letter else ""


def quick_decode(value: str) -> tuple[str, bool]:
    """(plain text, whether every command was understood). Math stays as written, like pylatexenc's verbatim mode."""
    if not _COMMAND_MATH_OR_TIE.search(value):  # braces, ligatures and letters beyond ASCII: pages, most titles
        text = _LIGATURES_IN.sub(lambda m: _LIGATURE_TEXT[m.group()], value).replace("{", "").replace("}", "")
        return " ".join(unicodedata.normalize("NFC", text).split()), True
    understood = True

    def command(match: re.Match) -> str:
        nonlocal understood
        name = match.group(1) or match.group(2) or match.group(3) or ""
        if name in _SYMBOLS:
            return _SYMBOLS[name]
        # An unknown command with an argument (\ce{H2O}, \textsuperscript{2}) wraps text we keep;
        # one without (\copyright, \S) is a symbol only pylatexenc may know.
        if match.group(1) and name not in _FORMATTING and not _ARGUMENT_FOLLOWS.match(match.string, match.end()):
            understood = False
        return ""

    def text_part(part: str) -> str:
        part = _ACCENT.sub(_accented, spell_ligatures(part))
        # A tie is no space a control word swallows ("\\TeX~book" is "TeX book"): it is spaced after them.
        return _COMMAND_OR_BRACE.sub(command, _TIE.sub(r"\1" + "\0", part)).replace("\0", " ")

    pieces, last = [], 0
    for math in _MATH.finditer(value):
        pieces.append(text_part(value[last : math.start(1)]))
        pieces.append(math.group(1))
        last = math.end()
    pieces.append(text_part(value[last:]))
    return " ".join(unicodedata.normalize("NFC", "".join(pieces)).split()), understood


def quick_latex_to_text(value: str) -> str:
    """Plain text of long values (abstracts) without pylatexenc: accents, symbols, braces.

    Table-driven and fast; unknown commands are dropped. Good enough for matching
    and de-duplication, where pylatexenc's cost per value would dominate a run.
    """
    if not NEEDS_DECODING.search(value):
        return " ".join(value.split())
    return quick_decode(value)[0]


# biber decodes accent commands and writes the result into the .bbl: a letter with no precomposed character
# (\v{x}; \"{x} is ẍ, which inputenc does not know) or a letter accent on anything but a letter (\v{}) gave a
# character pdfLaTeX stopped at ("not set up for use with LaTeX") unless main.tex declares it.
_BIBER_MARKS = {**_ACCENTS, "t": "\u0311", "G": "\u030f"}
_BIBER_ACCENT = re.compile(
    r"\\([\"'`^~=.]|[cuvHkrdbtG](?![A-Za-z]))\s*(?:\{\s*(\\[ij](?![A-Za-z])|[A-Za-z](?=\s*\}))?|(\\[ij](?![A-Za-z])|[A-Za-z]))"
)
_ACCENT_NAMES = {mark: name for name, mark in _ACCENTS.items()}


def biber_accents(text: str) -> set[str]:
    """The characters beyond ASCII that biber writes for the accent commands in ``text`` (a .bib); a letter
    accent on anything but one letter (\\t{oo}, \\v{}) is its mark alone (biber keeps \\"{} as it is)."""
    found: set[str] = set()
    for match in _BIBER_ACCENT.finditer(text) if "\\" in text else ():
        letter = (match.group(2) or match.group(3) or "").lstrip("\\")
        if letter or match.group(1).isalpha():
            found.update(c for c in unicodedata.normalize("NFC", letter + _BIBER_MARKS[match.group(1)]) if c > "\x7f")
    return found


def accent_spelling(char: str) -> str | None:
    """``char`` as LaTeX's accents on an ASCII letter (ẍ is \\"{x}), or on nothing for a lone mark; else None."""
    decomposed = unicodedata.normalize("NFD", char)
    base, marks = ("", decomposed) if decomposed[0] in _ACCENT_NAMES else (decomposed[0], decomposed[1:])
    if not marks or not base.isascii() or any(mark not in _ACCENT_NAMES for mark in marks):
        return None
    for mark in marks:
        base = f"\\{_ACCENT_NAMES[mark]}{{{base}}}"
    return base
