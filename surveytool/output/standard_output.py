"""A file's text written to standard output (``-o -``), as the file it stands for."""

from __future__ import annotations

import sys
from collections.abc import Iterable


def print_data(pieces: Iterable[str]) -> None:
    """A file's text on standard output (``-o -``): into a file or a pipe exactly the UTF-8 bytes ``-o FILE``
    writes; on a terminal through the stream, which shows its control characters (``cli/printed.py``)."""
    pieces = iter(pieces)  # one of the two ways below reads it
    _print(pieces, (piece.encode("utf-8") for piece in pieces))


def print_file(data: bytes, text: str) -> None:
    """A file as ``data`` (its bytes, in its own encoding) on standard output, its ``text`` on a terminal: into
    a file or a pipe the bytes ``-o FILE`` writes, Latin-1 as Latin-1; on a terminal through the stream, which
    shows its control characters, where the raw bytes would have run an escape sequence in a value."""
    _print([text], [data])


def _print(texts: Iterable[str], data: Iterable[bytes]) -> None:
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if buffer is None or out.isatty():
        out.writelines(texts)
        return
    out.flush()
    for chunk in data:
        buffer.write(chunk)
    buffer.flush()
