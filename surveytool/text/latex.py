"""The LaTeX boundary: plain text in, LaTeX out (and LaTeX to plain text for matching).

This module imports pylatexenc (``latex_allowlist`` only reads its encoder's table
of symbols). Everything that reaches a ``.tex`` or ``.bib`` file from untrusted
text (paper lists, online metadata) goes through :func:`escape_text` or
:func:`encode_bibtex_value`, so that it can never become an active command;
LaTeX from a user's ``.bib`` is checked against the allowlist of
``latex_allowlist`` (:func:`latex_offences`) and written inert where it leaves it.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Callable, Iterator
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
from pylatexenc.latexencode import UnicodeToLatexEncoder

from surveytool.text import latex_decode
from surveytool.text.latex_allowlist import (
    CONTROL_CHARS_SET,
    Misplaced,
    Offence,
    describe,
    find_block_offences,
    find_offences,
)
from surveytool.text.latex_decode import NEEDS_DECODING, PRINTED_TEXT, quick_decode, spell_ligatures
from surveytool.text.latex_inert import LITERAL_SPELLINGS, render_inert
from surveytool.text.pdflatex_glyphs import typesets
from surveytool.text.preamble_text import may_hold_specials, preamble_specials
from surveytool.text.title_case import WORD_CORE, needs_protection


class LatexMarkup(str):
    """Text that already is LaTeX and must not be escaped again."""

    __slots__ = ()


# ASCII characters with a meaning in LaTeX, and their literal spelling.
# Control characters (pasted from PDFs) print nothing, and pdfLaTeX stops at some: they are dropped.
_DROPPED = dict.fromkeys(CONTROL_CHARS_SET, "")
_SPECIALS = {**LITERAL_SPELLINGS, "{": r"\{", "}": r"\}", **_DROPPED}
_SPECIAL_RE = re.compile("[" + re.escape("".join(_SPECIALS)) + "]")
# BibTeX counts braces before LaTeX sees them: a literal brace must not be one.
_BIBTEX_SPECIALS = {**LITERAL_SPELLINGS, **_DROPPED}
_CONTROL_CHAR = re.compile("[" + "".join(sorted(CONTROL_CHARS_SET)) + "]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# Anything escape_text would change: most keys, years and titles have none of it.
_NEEDS_ESCAPING = re.compile("[" + re.escape("".join(_SPECIALS)) + r"'`\-]|[^\x00-\x7f]")
_WHITESPACE = re.compile(r"\s+")

#: Defined in the generated documents: prints a character that pdfLaTeX has no glyph for.
UNKNOWN_CHAR_MACRO = "stchar"


def _unknown_char(char: str) -> str:
    return latex_decode.accent_spelling(char) or f"\\{UNKNOWN_CHAR_MACRO}{{{ord(char):04X}}}"


@lru_cache(maxsize=1)
def _text_encoder() -> UnicodeToLatexEncoder:
    return UnicodeToLatexEncoder(
        non_ascii_only=True,
        replacement_latex_protection="braces-all",
        unknown_char_policy=_unknown_char,
        unknown_char_warning=False,
    )


@lru_cache(maxsize=1)
def _bibtex_encoder() -> UnicodeToLatexEncoder:
    # Characters without a LaTeX spelling (CJK, emoji) stay UTF-8 in the .bib: biber and Unicode engines read
    # them, and a macro of ours would leak into the user's bibliography.
    return UnicodeToLatexEncoder(
        non_ascii_only=True,
        replacement_latex_protection="braces-all",
        unknown_char_policy="keep",
        unknown_char_warning=False,
    )


# pylatexenc's encoder appends to a string attribute, which takes time quadratic in the
# text's length; its rules (a table of single characters, after NFC) let each non-ASCII
# character be encoded on its own, once.
@lru_cache(maxsize=4096)
def _text_char(char: str) -> str:
    return _text_encoder().unicode_to_latex(char) if typesets(char) else _unknown_char(char)


@lru_cache(maxsize=4096)
def bibtex_char(char: str) -> str:
    return _bibtex_encoder().unicode_to_latex(char) if typesets(char) else char


def _encode_non_ascii(encode_char: Callable[[str], str], text: str) -> str:
    return _NON_ASCII.sub(lambda m: encode_char(m.group()), unicodedata.normalize("NFC", text))


# Text macros our encoder writes that pylatexenc does not decode (or decodes to look-alikes).
_EXTRA_TEXT_MACROS = {
    "textless": "<",
    "textgreater": ">",
    "textbar": "|",
    "textbraceleft": "{",
    "textbraceright": "}",
    "textasciicircum": "^",
    "textasciitilde": "~",
    "TeX": "TeX",
    "LaTeX": "LaTeX",
    "LaTeXe": "LaTeX2e",
    "BibTeX": "BibTeX",
}


@lru_cache(maxsize=1)
def _decoder() -> LatexNodes2Text:
    context = get_default_latex_context_db()
    context.add_context_category(
        "surveytool",
        prepend=True,
        macros=[MacroTextSpec(name, text) for name, text in {**_EXTRA_TEXT_MACROS, **PRINTED_TEXT}.items()],
    )
    return LatexNodes2Text(latex_context=context, math_mode="verbatim", strict_latex_spaces=True)


# TeX ligatures that would change plain text: -- and --- (dashes), '' and `` (quotes), ?` and !` (¿ ¡).
_LIGATURE = re.compile(r"(?<=-)(?=-)|(?<=')(?=')|(?<=`)(?=`)|(?<=[?!])(?=`)")


def _break_ligatures(text: str) -> str:
    return _LIGATURE.sub("{}", text)


def latex_offences(latex: str, preamble: bool = False) -> list[Offence]:
    """The tokens of a LaTeX value (as TeX will read it) outside the allowlist (``latex_allowlist.py``); in a
    @preamble's value (``preamble``), its raw special characters too (``preamble_text.py``)."""
    found = find_offences(latex, preamble=preamble)
    if not (preamble and may_hold_specials(latex)):
        return found
    specials = [Misplaced(*item) for item in preamble_specials(latex, {o.start for o in found})]
    return sorted([*found, *specials], key=lambda o: o.start) if specials else found


def block_offences(text: str) -> list[Offence]:
    """Offences in a @comment or failed block: BibTeX may still read commands, and ``#`` joins, inside it."""
    return find_block_offences(text)


def inert_latex(
    latex: str, offences: list[Offence] | None = None, preamble: bool = False, specials: bool = True
) -> str:
    """``latex`` with every token outside the allowlist written to print literally; the rest byte for byte.

    ``specials``: also the characters that would stop the document (a value that TeX typesets).
    """
    return render_inert(latex, offences, preamble=preamble, specials=specials)


def describe_offences(offences: list[Offence], latex: str, braces: list[Offence] | None = None) -> str:
    """The offences for a message, as written and as TeX reads them; first the lone escaped ``braces``, if any."""
    return describe(offences, latex, braces=braces)


# A control character too: TeX stops at ^^? ("invalid character") and at most others inside \cite's \csname.
_CITABLE_KEY = re.compile(r"[^\s,{}\\%#~&$^" + re.escape("".join(sorted(CONTROL_CHARS_SET))) + "]+")


def usable_key(key: str) -> bool:
    """Whether LaTeX can take ``key`` in \\cite (BibTeX accepts keys that LaTeX cannot cite)."""
    return bool(_CITABLE_KEY.fullmatch(key))


def _escape_ascii(text: str) -> str:
    return _break_ligatures(_SPECIAL_RE.sub(lambda m: _SPECIALS[m.group()], text))


def without_control_chars(value: str) -> str:
    """``value`` (a raw BibTeX value) without the control characters that print nothing and stop pdfLaTeX."""
    # A control character is no printable one: most values are all printable, which is told faster than searched.
    return _CONTROL_CHAR.sub("", value) if not value.isprintable() and _CONTROL_CHAR.search(value) else value


def escape_text(text: str) -> LatexMarkup:
    """Plain text as LaTeX body text that prints literally and runs nothing."""
    if isinstance(text, LatexMarkup):
        return text
    text = str(text)
    if not _NEEDS_ESCAPING.search(text):
        return LatexMarkup(text)
    escaped = _escape_ascii(text)
    if _NON_ASCII.search(escaped):
        escaped = _encode_non_ascii(_text_char, escaped)
    return LatexMarkup(escaped)


def comment_text(text: str) -> LatexMarkup:
    """Plain text for a ``%`` comment: one line, so nothing escapes the comment."""
    one_line = _WHITESPACE.sub(" ", str(text)).strip()
    # ^^ is TeX's character-code notation, read even before comments are skipped.
    return LatexMarkup(one_line.replace("^^", "^ ^"))


def encode_bibtex_value(text: str) -> str:
    """Plain text as a BibTeX field value: specials escaped, accents as macros, braces balanced."""
    escaped = _break_ligatures(_SPECIAL_RE.sub(lambda m: _BIBTEX_SPECIALS[m.group()], text))
    if _NON_ASCII.search(escaped):
        escaped = _encode_non_ascii(bibtex_char, escaped)
    return escaped


def declared_chars(*texts: str) -> list[str]:
    """Hex codes of the non-ASCII characters in ``texts``, which main.tex declares: pdfLaTeX's inputenc knows
    only some of those a .bib holds as UTF-8 (a Zotero title's β stopped the build), or biber writes for \\v{x}."""
    chars = {c for text in texts if not text.isascii() for c in _NON_ASCII.findall(text)}
    return sorted(f"{ord(c):04X}" for c in chars.union(*map(latex_decode.biber_accents, texts)))


def char_spelling(code: str) -> LatexMarkup:
    """What main.tex declares the character ``code`` (hex) as: its LaTeX spelling, or ``\\stchar`` without one."""
    return LatexMarkup(_text_char(chr(int(code, 16))))


_TITLE_WORD = re.compile(r"\S+")


def encode_bibtex_title(text: str) -> str:
    """A title as a BibTeX value, with braces only around words a style would damage."""
    pieces: list[str] = []
    last = 0
    for match in _TITLE_WORD.finditer(text):
        pieces.append(text[last : match.start()])
        word = match.group()
        parts = WORD_CORE.match(word)
        if parts and needs_protection(parts.group("core")):
            pieces.append(
                encode_bibtex_value(parts.group("lead"))
                + "{"
                + encode_bibtex_value(parts.group("core"))
                + "}"
                + encode_bibtex_value(parts.group("trail"))
            )
        else:
            pieces.append(encode_bibtex_value(word))
        last = match.end()
    pieces.append(text[last:])
    return "".join(pieces)


def latex_to_text(value: str) -> str:
    """Plain text of a LaTeX value, for matching and display.

    Plain ASCII costs a regex check; common markup goes through the quick
    decoder; only values with commands it does not know reach pylatexenc.
    """
    if not NEEDS_DECODING.search(value):
        return " ".join(value.split())
    text, understood = quick_decode(value)
    if understood:
        return text
    try:
        decoded = _without_callers(_decoder().latex_to_text, spell_ligatures(value))
    except (IndexError, KeyError, TypeError, ValueError, AttributeError, RecursionError):
        return text  # pylatexenc stumbles on some malformed markup (an \href cut short); the quick decoding will do
    return _WHITESPACE.sub(" ", decoded).strip()


def _without_callers(function: Callable[[str], str], argument: str) -> str:
    """``function(argument)``, run as a generator's body so that its frames do not link to ours, and with
    pylatexenc's logging off.

    pylatexenc keeps the exception that ends its input in a local variable: a
    cycle through the traceback that outlives the call. Its frames link to
    their callers, which would pin the reader's frames (and the file's text)
    until the cycle collector runs, and a run pauses it. A suspended
    generator's frame has no caller, so the chain stops here.
    """

    def body() -> Iterator[str]:
        yield function(argument)

    quieted = [logger for logger in _pylatexenc_loggers() if not logger.disabled]
    for logger in quieted:
        logger.disabled = True
    try:
        return next(body())
    finally:
        for logger in quieted:
            logger.disabled = False


@lru_cache(maxsize=1)
def _pylatexenc_loggers() -> tuple[logging.Logger, ...]:
    """pylatexenc's loggers. What they warn of (``Expected exactly one argument for '\\input'``) is in a value that
    the findings report in their own form; with no logging set up, Python would print it on stderr as a bare line."""
    loggers = logging.Logger.manager.loggerDict.items()
    return tuple(lg for name, lg in loggers if name.split(".")[0] == "pylatexenc" and isinstance(lg, logging.Logger))


_MATH_SPAN = re.compile(r"(?<!\\)\$(?!\$)([^$]+)(?<!\\)\$")
_MATHY = re.compile(r"[\\^_{}]")


@lru_cache(maxsize=1)
def _math_decoder() -> LatexNodes2Text:
    return LatexNodes2Text(latex_context=_decoder().latex_context, math_mode="text")


def math_to_text(text: str) -> str:
    """``text`` (plain text that came from LaTeX, math kept as written) with each ``$...$`` as the characters it shows.

    For exports read by tools that print text, not TeX: ``$\\alpha$`` is "α", ``$x^2$`` stays "x^2".
    """
    if "$" not in text:
        return text

    def one(match: re.Match) -> str:
        # Math has a command, a script or a brace, or is one short token ($n$); "$5 and $10" is money.
        if not (_MATHY.search(match.group(1)) or len(match.group(1).split()) == 1):
            return match.group()
        try:
            return _without_callers(_math_decoder().latex_to_text, match.group()).strip()
        except (IndexError, KeyError, TypeError, ValueError, AttributeError, RecursionError):  # nested too deep
            return match.group()

    return _MATH_SPAN.sub(one, text)
