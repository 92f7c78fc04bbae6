"""The one boundary between what the CLI prints and the terminal: standard output and standard error escape the
control characters a file, a file name or an argument put in them, whoever writes them (a finding, a build note,
an error naming a path, click's usage error quoting an argument), so that a terminal shows them and runs none.

Standard error holds only messages: each control, bidi control and bidi mark in it is shown
(``control_chars.terminal_shown``). Standard output also carries data (a .bib, a chapter, CSV, JSON), in UTF-8 as
the files surveytool writes: its line ends and tabs are its own, its other controls and its bidi controls and marks
are shown, since a key or a file name holding U+202E would turn the line around it. A file ``-o -`` prints
(``output/standard_output.py``) goes into a file or a pipe as the bytes ``-o FILE`` would write (its bidi
controls, an ``@comment``'s form feed too), and onto a terminal as the rest.
"""

from __future__ import annotations

import codecs
import io
import sys
from collections.abc import Callable
from functools import partial
from typing import TextIO

from surveytool.text.control_chars import terminal_shown


class _Escaping(io.TextIOWrapper):
    """A text stream over another's bytes that writes each text through ``escape``."""

    def __init__(self, stream: TextIO, escape: Callable[[str], str], encoding: str | None = None) -> None:
        stream.flush()
        # click writes around a stream it deems ASCII, and so around this one: it gets UTF-8 as click would give it.
        ascii_only = codecs.lookup(stream.encoding or "ascii").name == "ascii"
        super().__init__(
            stream.buffer,
            encoding=encoding or ("utf-8" if ascii_only else stream.encoding),
            errors="backslashreplace" if ascii_only and not encoding else stream.errors,
            line_buffering=bool(stream.line_buffering),
            write_through=True,
        )
        self.unescaped = stream  # kept open: closing it with the garbage would close the bytes under both
        self._escape = escape

    def write(self, text: str) -> int:
        super().write(self._escape(text))
        return len(text)


def escape_printed() -> None:
    """Make standard output and standard error escape what they are given (the module's docstring)."""
    if isinstance(sys.stderr, io.TextIOWrapper) and not isinstance(sys.stderr, _Escaping):
        sys.stderr = _Escaping(sys.stderr, terminal_shown)
    if isinstance(sys.stdout, io.TextIOWrapper) and not isinstance(sys.stdout, _Escaping):
        # Data is UTF-8, as the files surveytool writes are: `bib -o - > refs.bib` under a console's code page
        # (PYTHONIOENCODING=ascii, cp1252) stopped at the first character it lacks.
        sys.stdout = _Escaping(sys.stdout, partial(terminal_shown, data=True), "utf-8")


def raw_stderr() -> TextIO:
    """Standard error unescaped, for the progress bar's own escape sequences."""
    return sys.stderr.unescaped if isinstance(sys.stderr, _Escaping) else sys.stderr
