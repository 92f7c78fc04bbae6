"""Temporary files that name their writer, so that a later build can remove those a killed build left.

Every output is written under a temporary name beside it and moved into place
(``files.StagedFiles``). A build killed or stopped by a full disk leaves its
temporary files behind; another build may be writing its own in the same
folder at the same time. The name says which host and process wrote a file:
a later build removes those of its outputs whose writer is no longer running
on this host, and those of any writer once they are a day old.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import socket
import time
from collections.abc import Iterable
from functools import cache
from pathlib import Path

#: A writer on another host cannot be asked whether it still runs: its files are stale after this long.
STALE_AFTER_SECONDS = 24 * 3600

# ".references.bib.1a2b3c4d-4242.k3j_x9q2.tmp": name, host, process, tempfile's random part.
_OWNED = re.compile(r"\.(?P<name>.+)\.(?P<host>[0-9a-f]{8})-(?P<pid>[0-9]+)\.[a-z0-9_]+\.tmp")
# What earlier versions wrote: ".references.bib.k3j_x9q2.tmp".
_UNOWNED = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp")


@cache
def _host() -> str:
    return hashlib.blake2b(socket.gethostname().encode("utf-8", "replace"), digest_size=4).hexdigest()


def temporary_prefix(name: str) -> str:
    """The ``tempfile`` prefix of a temporary file for ``name``: it names this host and process."""
    return f".{name}.{_host()}-{os.getpid()}."


def remove_stale_temporaries(folder: Path, names: Iterable[str] | None = None) -> list[str]:
    """Remove the temporary files in ``folder`` of ``names`` (of any name if None) no running writer owns.

    Returns the names removed; a file that cannot be removed stays (it is only space).
    """
    wanted = None if names is None else set(names)
    removed = []
    try:
        candidates = [
            entry for entry in os.scandir(folder) if entry.name.startswith(".") and entry.name.endswith(".tmp")
        ]
    except OSError:
        return []
    for entry in candidates:
        owned = _OWNED.fullmatch(entry.name)
        match = owned or _UNOWNED.fullmatch(entry.name)
        if match is None or (wanted is not None and match["name"] not in wanted):
            continue
        if owned is not None and not _abandoned(owned["host"], int(owned["pid"]), entry):
            continue
        with contextlib.suppress(OSError):
            os.unlink(entry.path)
            removed.append(entry.name)
    return sorted(removed)


def _abandoned(host: str, pid: int, entry: os.DirEntry) -> bool:
    if host == _host() and not _running(pid):
        return True
    try:
        return time.time() - entry.stat(follow_symlinks=False).st_mtime > STALE_AFTER_SECONDS
    except OSError:
        return False


def _running(pid: int) -> bool:
    if pid <= 0 or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # another user's process, or no pid at all: leave it
    return True
