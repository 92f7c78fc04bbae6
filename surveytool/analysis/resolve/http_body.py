"""Reading an answer's body: within the size limit, whole, and as the bytes the server meant.

The client asks for no compression, yet some servers (and proxies) compress anyway; gzip and deflate are
undone here under the same limit, so that a small bomb cannot grow past it. A body shorter than its
Content-Length is a connection cut early, which a retry may mend, not an answer to parse.
"""

from __future__ import annotations

import http.client
import json
import zlib

from surveytool.analysis.resolve.http_connection import HttpError, Retry

_READ_SIZE = 64 * 1024
# zlib's window bits: 32 + 15 reads a gzip (or zlib) header; -15 is raw deflate, as some servers send it.
_GZIP, _ZLIB, _RAW_DEFLATE = 47, 15, -15
_CODINGS = {"gzip": _GZIP, "x-gzip": _GZIP, "deflate": _ZLIB}


def read_body(answer: http.client.HTTPResponse, limit: int) -> bytes:
    """The body of ``answer``, decompressed if it came so, refused once it passes ``limit`` bytes either way."""
    coding = (answer.getheader("Content-Encoding") or "identity").strip().lower()
    if answer.status == 429 or answer.status >= 500:  # its status is the news, whatever the body
        return _error_part(answer, coding)
    if coding not in _CODINGS and coding != "identity":
        shown = "".join(c if c.isprintable() else "?" for c in coding[:40])
        raise HttpError(f"the server sent an answer compressed as {shown!r}, which it was not asked for")
    declared = (answer.getheader("Content-Length") or "").strip()
    if declared.isdigit() and len(declared) < 20 and int(declared) > limit:
        raise HttpError(f"answer of {int(declared):,} bytes is larger than the limit of {limit:,}")
    chunks: list[bytes] = []
    size = 0
    try:
        while chunk := answer.read(min(_READ_SIZE, limit + 1 - size)):
            size += len(chunk)
            if size > limit:
                raise HttpError(f"answer larger than the limit of {limit:,} bytes")
            chunks.append(chunk)
    except http.client.IncompleteRead as error:  # a chunked body that stops before its last chunk
        raise Retry(f"answer cut short after {size + len(error.partial):,} bytes", None) from None
    if answer.length:  # http.client counts down what Content-Length promised; a close leaves the rest
        raise Retry(f"answer cut short: {size:,} of {size + answer.length:,} bytes arrived", None)
    body = b"".join(chunks)
    return body if coding == "identity" else _decompressed(body, coding, limit)


def _decompressed(body: bytes, coding: str, limit: int) -> bytes:
    wbits = _CODINGS[coding]
    if wbits == _ZLIB and body[:1] != b"\x78":  # "deflate" sent as raw deflate, without the zlib header
        wbits = _RAW_DEFLATE
    output: list[bytes] = []
    size = 0
    rest = body
    while rest:  # gzip allows members one after another
        inflater = zlib.decompressobj(wbits)
        try:
            piece = inflater.decompress(rest, limit + 1 - size)
        except zlib.error:
            raise HttpError(f"the answer's {coding} data is damaged") from None
        size += len(piece)
        if size > limit or inflater.unconsumed_tail:
            raise HttpError(f"answer larger than the limit of {limit:,} bytes once decompressed ({coding})")
        if not inflater.eof:
            raise Retry(f"answer cut short: its {coding} data ends early", None)
        output.append(piece)
        rest = inflater.unused_data if wbits == _GZIP else b""
    return b"".join(output)


_SAID_CHARS = 160
# Enough of an error body for its JSON message; an error page can be of any size, and is not an answer.
_ERROR_BYTES = 16 * 1024


def _error_part(answer: http.client.HTTPResponse, coding: str) -> bytes:
    """The start of an error's body: never refused for its size nor its end, as it only explains the status."""
    try:
        part = answer.read(_ERROR_BYTES)
        if coding not in _CODINGS:  # unreadable (br, zstd) is nothing said, not another error
            return part if coding == "identity" else b""
        return zlib.decompressobj(_CODINGS[coding]).decompress(part, _ERROR_BYTES)
    except (OSError, http.client.HTTPException, zlib.error):
        return b""


# The error codes that no wait mends: OpenAI's for an account whose quota or credit is spent.
_NOT_TRANSIENT = frozenset({"insufficient_quota", "billing_hard_limit_reached"})


def service_said(body: bytes) -> tuple[str, bool]:
    """What a JSON error body says, as ": message (code)" or "", and whether waiting cannot mend it.

    Only JSON's message and code are quoted, cut short and without control characters (a terminal's escape
    codes); an HTML error page says nothing a user can act on.
    """
    try:
        document = json.loads(body.decode("utf-8", errors="replace").removeprefix("\ufeff"))
    except (ValueError, RecursionError):
        return "", False
    error = document.get("error", document) if isinstance(document, dict) else None
    if isinstance(error, str):
        error = {"message": error}
    if not isinstance(error, dict):
        return "", False
    message = next((v for v in (error.get("message"), error.get("detail")) if isinstance(v, str) and v), "")
    codes = [v for v in (error.get("code"), error.get("type")) if isinstance(v, str) and v]
    said = _printable(message)
    if len(said) > _SAID_CHARS:
        said = said[: _SAID_CHARS - 3].rstrip() + "..."
    if codes:
        said = f"{said} ({_printable(codes[0])[:40]})".strip()
    return (f": {said}" if said else ""), any(code in _NOT_TRANSIENT for code in codes)


def _printable(text: str) -> str:
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())
