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
