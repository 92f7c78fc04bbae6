"""Reading a file that could be anything (a link, a device, a FIFO, a huge file): regular files only, bounded."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO


class Unusable(Exception):
    """Why a file (a cache file, a lock file) is not used: the reason, for a message."""


def read_regular(path: Path, limit: int, follow: bool = False) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; FileNotFoundError if there is none, else Unusable.

    Without ``follow``, a symbolic link is refused rather than followed.
    """
    stream, size = open_regular(path, follow)
    with stream:
        if size > limit:
            raise Unusable(f"is larger than {limit} bytes")
        return read_exactly(stream, size)


def open_regular(path: Path, follow: bool) -> tuple[BinaryIO, int]:
    """The file opened for reading, and its size; a FIFO or device is refused before it is read (it could block or never end)."""
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
        if not hasattr(os, "O_NOFOLLOW") and _is_link(path):
            raise Unusable("is a symbolic link")
    try:
        handle = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as error:
        if not follow and _is_link(path):
            raise Unusable("is a symbolic link") from None
        raise Unusable(f"cannot be read ({error.strerror})") from None
    status = os.fstat(handle)
    if not stat.S_ISREG(status.st_mode):
        os.close(handle)
        raise Unusable("is not a regular file")
    return os.fdopen(handle, "rb"), status.st_size


def read_exactly(stream: BinaryIO, size: int) -> bytes:
    try:
        data = stream.read(size + 1)
    except OSError as error:
        raise Unusable(f"cannot be read ({error.strerror})") from None
    if len(data) > size:
        raise Unusable("grew while it was read")
    return data


def _is_link(path: Path) -> bool:
    try:
        return path.is_symlink()
    except OSError:
        return False
