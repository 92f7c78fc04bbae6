"""Characters that change how the text around them shows: the controls (C0, DEL, C1), which a terminal reads as
escape sequences (ESC ]0; sets the window title, ESC ]52; writes the clipboard), and the bidi embeddings,
overrides and isolates, which make an editor show text in another order than it is read ("Trojan Source").

The marks U+200E and U+200F are not among them: they only set the direction of what is next to them, and
Arabic and Hebrew text holds them.
"""

from __future__ import annotations

import re

BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
#: C0, DEL and C1: U+009B alone is an escape sequence's start (CSI) to some terminals, as ESC [ is to all.
CONTROL_CHARS = frozenset(chr(code) for code in [*range(0x20), *range(0x7F, 0xA0)])
_CONTROL = re.compile("[" + re.escape("".join(sorted(CONTROL_CHARS))) + BIDI_CONTROLS + "]")
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")
# The controls data keeps nowhere: all but tab and line ends.
_UNPRINTED = re.compile("[" + re.escape("".join(sorted(CONTROL_CHARS - set("\t\n\r")))) + "]")
# What JSON writes raw in a string: it escapes C0 itself.
_RAW_IN_JSON = re.compile(f"[\x7f-\x9f{BIDI_CONTROLS}]")
# Shown escaped on a terminal besides: there a mark in a key or a file name can turn a message's words around,
# where an Arabic title in a file or a chapter holds them as its own.
_MARKS = "\u200e\u200f\u061c"
_ON_TERMINAL = re.compile(f"[{BIDI_CONTROLS}{_MARKS}]")
# Kept as they are where text is shown: a finding's line breaks are its own, a tab shows as space.
_LAYOUT = "\t\n"


def first_control(text: str) -> str:
    """The first control or bidi control character in ``text`` ("" for none)."""
    if text.isprintable() and text.isascii():  # most text: told faster than searched
        return ""
    found = _CONTROL.search(text)
    return found.group() if found else ""


def first_bidi_control(text: str) -> str:
    """The first bidi embedding, override or isolate in ``text`` ("" for none)."""
    if text.isascii():
        return ""
    found = _BIDI.search(text)
    return found.group() if found else ""


def escaped(char: str) -> str:
    """``char`` as Python writes it in a string: ``\\x1b``, ``\\u202e``."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """``text`` with each control and bidi control written as ``escaped`` (but tabs and line breaks), fit for a
    terminal or an editor: an escape sequence in a key or a value read from a file is shown, never run."""
    if not first_control(text):
        return text
    return _CONTROL.sub(lambda m: m.group() if m.group() in _LAYOUT else escaped(m.group()), text)


def controls_shown(text: str) -> str:
    """``text`` with each C0 control but tab and line ends, DEL and each C1 control written as ``escaped``: for
    data (a .bib, CSV with its CRLF) bound for a terminal, whose bidi controls are a value's own."""
    if text.isprintable() or not _UNPRINTED.search(text):
        return text
    return _UNPRINTED.sub(lambda m: escaped(m.group()), text)


def terminal_shown(text: str, data: bool = False) -> str:
    """``text`` as a terminal may show it: ``shown`` (a message) or, for ``data`` (a .bib, CSV with its CRLF),
    ``controls_shown``; and each bidi control and mark written as ``escaped``, which would reorder what is
    around it ("Trojan Source": a key ``abc<U+202E>fdp.exe`` shows as ``abcexe.pdf``)."""
    text = controls_shown(text) if data else shown(text)
    if text.isascii():
        return text
    return _ON_TERMINAL.sub(lambda m: escaped(m.group()), text)


def json_shown(json_text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with DEL, the C1 controls and the bidi controls written
    as ``\\u`` escapes: the same value when parsed, inert on a terminal. Outside its strings JSON is ASCII."""
    if json_text.isascii() and "\x7f" not in json_text:
        return json_text
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)
