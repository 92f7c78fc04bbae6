"""A file's text written to standard output (``-o -``), as the file it stands for."""

from __future__ import annotations

import sys
from collections.abc import Iterable


def print_data(pieces: Iterable[str]) -> None:
    """A file's text on standard output (``-o -``): into a file or a pipe exactly the UTF-8 bytes ``-o FILE``
    writes; on a terminal through the stream, which shows its control characters (``cli/printed.py``)."""
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if buffer is None or out.isatty():
        out.writelines(pieces)
        return
    out.flush()
    for piece in pieces:
        buffer.write(piece.encode("utf-8"))
    buffer.flush()


def print_file(data: bytes, text: str) -> None:
    """A file as ``data`` (its bytes, in its own encoding) on standard output, its ``text`` on a terminal: into
    a file or a pipe the bytes ``-o FILE`` writes, Latin-1 as Latin-1; on a terminal through the stream, which
    shows its control characters, where the raw bytes would have run an escape sequence in a value."""
    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if buffer is None or out.isatty():
        out.write(text)
        return
    out.flush()
    buffer.write(data)
    buffer.flush()
