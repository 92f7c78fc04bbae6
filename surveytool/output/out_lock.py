"""One build at a time into an out folder: a second one reads the chapter while the first rewrites it, and the
author's notes saved in between are lost.

The lock is an advisory ``flock`` on the folder itself, opened for reading: no lock file to clutter the folder
or to be left behind, and a read-only folder can be locked (the build then says it cannot write there). The
kernel lets go when the process ends, killed or not. Where ``fcntl`` is missing (Windows), builds are not locked.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from surveytool.errors import OutputError

try:
    import fcntl
except ImportError:  # Windows: msvcrt locks byte ranges of files, not folders
    fcntl = None  # type: ignore[assignment]

#: How long a second build waits for the first to finish before it gives up.
WAIT_SECONDS = 5.0
_POLL_SECONDS = 0.1


class FolderBusy(OutputError):
    """Another build is writing into the out folder: nothing of the user's is wrong, so not a usage error."""

    exit_code = 1


@contextmanager
def building_into(folder: Path) -> Iterator[None]:
    """Hold the out ``folder`` (made if missing) for one build; the folders made for it are removed again if
    the build stops with nothing written there."""
    made = [parent for parent in (folder, *folder.parents) if not parent.exists() and not parent.is_symlink()]
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(
            f"cannot be made ({error.strerror})", path=str(folder), hint="check its parent folder's permissions"
        ) from None
    try:
        with _locked(folder):
            yield
    except BaseException:
        for parent in made:  # the deepest first; one with anything in it stays
            with suppress(OSError):
                parent.rmdir()
        raise


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    if fcntl is None:
        yield
        return
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:  # a folder that cannot be read is not written either: the build says so, naming the file
        yield
        return
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise FolderBusy(
                        f"another surveytool build is writing into this folder (waited {WAIT_SECONDS:g} s)",
                        path=str(folder),
                        hint="rerun once it has finished, or build into another folder with --out",
                    ) from None
                time.sleep(_POLL_SECONDS)
            except OSError:  # a file system without locks (some network mounts): built unlocked, as before
                break
        yield
    finally:
        os.close(handle)
