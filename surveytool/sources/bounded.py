"""Reading a file the user named: only a regular file, and no more of it than such a file can sensibly hold.

A FIFO or a device (``--taxonomy /dev/zero``, ``--config /dev/stdin``) could block or never end, so it is
refused before a byte is read. Settings, taxonomies and overrides are small: a file far larger than any of
them is refused by its size, before it is read. Bibliographies (sources and catalogs) may be large (a 16k-entry
.bib is tens of megabytes), so their bound only keeps a sparse or runaway file from exhausting memory.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from surveytool.errors import InputError, SurveyToolError

#: A settings, taxonomy or overrides file: a taxonomy of 16,000 sections is about 2 MB.
SETTINGS_LIMIT = 16 << 20
#: A source or catalog (.bib, list, ids, CSL-JSON), or a .tex file.
DOCUMENT_LIMIT = 1 << 30


def _megabytes(size: int) -> str:
    return f"{size / (1 << 20):,.0f} MB"


def read_user_file(
    path: Path, display: str, limit: int, error: type[SurveyToolError] = InputError, what: str = ""
) -> bytes:
    """The bytes of the regular file ``path``; FileNotFoundError if there is none, else ``error`` (one line)
    when it is a folder, a device or FIFO, unreadable, or larger than ``limit`` bytes."""
    what = f"{what} " if what else ""
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)  # a FIFO must not block the open
    try:
        handle = os.open(path, flags)
    except FileNotFoundError:
        if not path.is_symlink():
            raise
        raise error(
            f"{what}is a symbolic link to {os.readlink(path)}, which does not exist",
            path=display,
            hint="point the link at the file, or name the file itself",
        ) from None
    except OSError as problem:
        if problem.errno == errno.EISDIR:
            raise error(f"{what}is a directory, not a file", path=display, hint="name a file inside it") from None
        if problem.errno == errno.ELOOP:
            raise error(
                f"{what}is a symbolic link that leads back to itself",
                path=display,
                hint="point the link at the file; ls -l shows where each link leads",
            ) from None
        hint = (
            "check its permissions" if problem.errno in (errno.EACCES, errno.EPERM) else "check that it can be opened"
        )
        raise error(f"{what}cannot be read ({problem.strerror})", path=display, hint=hint) from None
    if stat.S_ISDIR(os.fstat(handle).st_mode):  # Linux opens a folder for reading; fdopen would then fail
        os.close(handle)
        raise error(f"{what}is a directory, not a file", path=display, hint="name the files inside it")
    with os.fdopen(handle, "rb") as stream:
        status = os.fstat(stream.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise error(
                f"{what}is not a regular file (a device, FIFO or socket would be read without end)",
                path=display,
                hint="save its contents to a file and give that file",
            )
        if status.st_size > limit:
            raise error(
                f"{what}is too large ({_megabytes(status.st_size)}; at most {_megabytes(limit)})",
                path=display,
                hint="is this the right file? split it, or trim what it need not hold",
            )
        os.set_blocking(stream.fileno(), True)
        try:
            data = stream.read(limit + 1)
        except OSError as problem:
            raise error(f"{what}cannot be read ({problem.strerror})", path=display, hint="check the file") from None
    if len(data) > limit:  # grew while being read
        raise error(
            f"{what}is too large (more than {_megabytes(limit)})",
            path=display,
            hint="is this the right file? split it, or trim what it need not hold",
        )
    return data
