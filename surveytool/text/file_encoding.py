"""How a user's file is decoded, and encoded again so that bytes nobody edited come back unchanged.

The scheme, in order:

1. a UTF-8 byte-order mark: UTF-8, the mark kept;
2. a UTF-16 byte-order mark: UTF-16 of that byte order, the mark kept;
3. valid UTF-8: UTF-8;
4. UTF-8 with stray bytes (at least as many valid multi-byte characters as bytes that are not): UTF-8, each
   stray byte read as its Windows-1252 character for the tools and kept as the very byte when the file
   is edited in place (a ``mixed-encoding`` warning names the line of the first one);
5. otherwise: GBK when every run of non-ASCII bytes is an even number of
   bytes and they decode as GBK to mostly CJK characters, else Windows-1252 when bytes 0x80-0x9f occur
   (the five it leaves undefined read as their Latin-1 characters), else Latin-1 (the same characters).

Editing in place encodes with the same scheme, so a Latin-1 file stays Latin-1 and a GBK file GBK
(an added entry is spelled so that the encoding holds it: ``output/legacy_encoding.py``).

The tools read old Mac line endings (a CR alone) as LF, one character for one, so that lines count as
an editor shows them; the exact text keeps the CRs.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, replace

_UTF16_BOMS = {codecs.BOM_UTF16_LE: "utf-16-le", codecs.BOM_UTF16_BE: "utf-16-be"}
_NON_ASCII_RUN = re.compile(rb"[\x80-\xff]+")
_C1_BYTES = re.compile(rb"[\x80-\x9f]")
_STRAY = re.compile("[\udc80-\udcff]")


def _utf8_fallback(error: UnicodeError) -> tuple[bytes, int]:
    """Characters the file's encoding cannot hold are written as UTF-8."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return error.object[error.start : error.end].encode("utf-8", "surrogateescape"), error.end


codecs.register_error("surveytool-utf8-fallback", _utf8_fallback)

# The five bytes Windows-1252 leaves undefined: read as their Latin-1 characters (C1 controls), so that one of them
# does not make a whole file Latin-1 and its curly quotes control characters; written back as those bytes.
_WINDOWS_UNDEFINED = frozenset("\x81\x8d\x8f\x90\x9d")


def _windows_undefined(error: UnicodeError) -> tuple[str | bytes, int]:
    if isinstance(error, UnicodeDecodeError):
        return chr(error.object[error.start]), error.start + 1
    if isinstance(error, UnicodeEncodeError):
        text = error.object[error.start : error.end]
        return b"".join(
            c.encode("latin-1" if c in _WINDOWS_UNDEFINED else "utf-8", "surrogateescape") for c in text
        ), error.end
    raise error


codecs.register_error("surveytool-windows-1252", _windows_undefined)


def _stray_char(byte: int) -> str:
    """A stray byte of a mostly UTF-8 file as Windows-1252 reads it: an editor's curly quote, not a control."""
    return bytes([byte]).decode("cp1252", "surveytool-windows-1252")


_STRAY_CHARS = {chr(0xDC00 + byte): _stray_char(byte) for byte in range(0x80, 0x100)}


@dataclass(frozen=True)
class TextFile:
    """A file's text and how to turn it back into the file's bytes."""

    text: str  # what the tools read: no byte-order mark, stray bytes as Windows-1252 characters, a lone CR as LF
    encoding: str  # a Python codec name: utf-8, utf-16-le, utf-16-be, gbk, cp1252 or latin-1
    bom: bytes = b""
    odd_line: int = 0  # the line of the first byte that is not UTF-8 (0: none)
    stray_bytes: int = 0  # how many bytes that are not UTF-8 a mostly UTF-8 file has
    editable: str | None = None  # the text as the bytes are (stray bytes as surrogates), when it differs from ``text``

    @property
    def exact_text(self) -> str:
        """The text that ``encode`` turns back into the file's bytes exactly."""
        return self.editable if self.editable is not None else self.text

    def encode(self, text: str) -> bytes:
        """``text`` (derived from ``exact_text``) as the file's bytes: same encoding, same mark."""
        errors = {"utf-8": "surrogateescape", "cp1252": "surveytool-windows-1252"}.get(
            self.encoding, "surveytool-utf8-fallback"
        )
        return self.bom + text.encode(self.encoding, errors)


_NAMES = {"latin-1": "Latin-1", "cp1252": "Windows-1252", "gbk": "GBK"}
#: The encodings of ``TextFile`` that cannot hold every character (the others are UTF-8 and UTF-16).
LEGACY_ENCODINGS = frozenset(_NAMES)


def encoding_name(codec: str) -> str:
    """A codec name of ``TextFile.encoding`` as editors call it."""
    return _NAMES.get(codec, codec)


_LONE_CR = re.compile(r"\r(?!\n)")
_SAMPLE = 4096  # bytes looked at for the zero bytes of UTF-16 without a mark


def decode_bytes(data: bytes) -> TextFile:
    """The text of ``data`` under the scheme in this module's docstring."""
    decoded = _decode(data)
    if "\r" not in decoded.text or not _LONE_CR.search(decoded.text):
        return decoded
    return replace(decoded, text=_LONE_CR.sub("\n", decoded.text), editable=decoded.exact_text)


def _decode(data: bytes) -> TextFile:
    if data.startswith(codecs.BOM_UTF8):
        try:
            return TextFile(data[3:].decode("utf-8"), "utf-8", codecs.BOM_UTF8)
        except UnicodeDecodeError:
            return _mostly_utf8(data[3:], codecs.BOM_UTF8) or replace(_legacy(data[3:]), bom=codecs.BOM_UTF8)
    for bom, encoding in _UTF16_BOMS.items():
        if data.startswith(bom):
            try:
                return TextFile(data[2:].decode(encoding), encoding, bom)
            except UnicodeDecodeError:
                break  # not UTF-16 after all: a Latin-1 file may start with these bytes
    unmarked = _unmarked_utf16(data) if b"\x00" in data[:_SAMPLE] else None
    if unmarked is not None:
        try:
            return TextFile(data.decode(unmarked), unmarked)
        except UnicodeDecodeError:
            pass
    try:
        return TextFile(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    return _mostly_utf8(data, b"") or _legacy(data)


def _unmarked_utf16(data: bytes) -> str | None:
    """UTF-16 saved without its byte-order mark (some Windows tools): text of Latin letters has a zero byte in
    each pair, on the same side; no text file of another encoding has zero bytes at all."""
    sample = data[: _SAMPLE - _SAMPLE % 2]
    if len(sample) < 4 or len(data) % 2:
        return None
    pairs = len(sample) // 2
    high_zero, low_zero = sample[1::2].count(0), sample[0::2].count(0)
    if high_zero * 10 >= pairs * 9 and not low_zero:
        return "utf-16-le"
    if low_zero * 10 >= pairs * 9 and not high_zero:
        return "utf-16-be"
    return None


def _mostly_utf8(data: bytes, bom: bytes) -> TextFile | None:
    editable = data.decode("utf-8", "surrogateescape")
    stray = len(_STRAY.findall(editable))
    # Two bytes of GBK or Latin-1 may happen to be valid UTF-8: the file is UTF-8 when its valid
    # multi-byte characters are at least as many as its stray bytes.
    if sum(ord(c) > 0x7F for c in editable) - stray < stray:
        return None
    first = _STRAY.search(editable)
    line = editable.count("\n", 0, first.start() if first else 0) + 1
    text = _STRAY.sub(lambda m: _STRAY_CHARS[m.group()], editable)
    return TextFile(text, "utf-8", bom, line, stray, editable)


def _legacy(data: bytes) -> TextFile:
    first = _NON_ASCII_RUN.search(data)
    line = data.count(b"\n", 0, first.start() if first else 0) + 1
    runs = _NON_ASCII_RUN.findall(data)
    if runs and all(len(run) % 2 == 0 for run in runs):
        try:
            text = data.decode("gbk")
            if _mostly_cjk("".join(run.decode("gbk") for run in runs)) and text.encode("gbk") == data:
                return TextFile(text, "gbk", odd_line=line)
        except UnicodeDecodeError:
            pass
    # Bytes 0x80-0x9f are control characters in Latin-1 and Windows' curly quotes, dashes and ellipsis
    # in Windows-1252, which Windows ("ANSI") editors write.
    if _C1_BYTES.search(data):
        return TextFile(data.decode("cp1252", "surveytool-windows-1252"), "cp1252", odd_line=line)
    return TextFile(data.decode("latin-1"), "latin-1", odd_line=line)


def _mostly_cjk(text: str) -> bool:
    """Chinese text in GBK, rather than Latin-1 letters that pair up by chance (pinyin's "ü" may be among it)."""
    return sum("\u3000" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef" for c in text) * 2 > len(text)
