"""Two cores for one job: part of it in a forked child while this process does the rest.

Reading a large .bib and tagging its entries are CPU-bound pure Python, so
threads would not help, and a process pool would pay for starting
interpreters and for pickling. A fork shares everything already built (the
text, the macro table, the compiled taxonomy) at no cost; the child sends
back plain data with ``marshal``. Whatever goes wrong in the child (no fork
on this platform, an error, a kill) only means this process does that part
itself: results never depend on whether a child ran.
"""

from __future__ import annotations

import marshal
import os
import signal
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Set to 1 to keep every run in one process.
JOBS_VARIABLE = "SURVEYTOOL_JOBS"


def can_fork() -> bool:
    """Fork only where it is safe for a program like this: Linux and the BSDs (macOS's system libraries are not)."""
    if os.environ.get(JOBS_VARIABLE, "").strip() == "1":
        return False
    return hasattr(os, "fork") and sys.platform != "darwin" and cores() > 1


def cores() -> int:
    """The cores this process may run on (a container or taskset may allow fewer than the machine has)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on this platform
        return os.cpu_count() or 1


class Beside:
    """``compute()`` started in a forked child; ``result()`` collects it, or None when no child could deliver it.

    ``compute`` must return plain data other than None (what ``marshal``
    stores); with ``compute=None`` nothing starts. As a context manager, a
    child not collected by the end is stopped.
    """

    def __init__(self, compute: Callable[[], Any] | None):
        self._pid = 0
        self._reader = -1
        if compute is None or not can_fork():
            return
        reader, writer = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(reader)
            os.close(writer)
            return
        if pid == 0:
            os.close(reader)
            _child(compute, writer)
        os.close(writer)
        self._pid, self._reader = pid, reader

    def result(self) -> Any | None:
        if not self._pid:
            return None
        reader, self._reader = self._reader, -1  # the stream owns it from here, and closes it
        with os.fdopen(reader, "rb") as stream:
            data = stream.read()  # before waiting: the child blocks until its answer is read
        _, status = os.waitpid(self._pid, 0)
        self._pid = 0
        if status != 0:
            return None
        try:
            return marshal.loads(data)[0]
        except (EOFError, ValueError, TypeError, IndexError):
            return None

    def __enter__(self) -> Beside:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.cancel()

    def cancel(self) -> None:
        """Stop the child (this process failed or was interrupted): nothing is left behind."""
        if not self._pid:
            return
        with suppress(OSError):  # it may have ended, and been reaped, already
            os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
        if self._reader >= 0:
            os.close(self._reader)
            self._reader = -1
        self._pid = 0


def _child(compute: Callable[[], Any], writer: int) -> None:
    """Compute, send, and leave without running the parent's exit handlers or flushing its buffers."""
    status = 1
    try:
        data = marshal.dumps((compute(),))
        with os.fdopen(writer, "wb") as stream:
            stream.write(data)
        status = 0
    except BaseException:  # noqa: BLE001 - the parent computes it instead
        pass
    finally:
        os._exit(status)


def run_beside(background: Callable[[], Any], foreground: Callable[[], T]) -> tuple[T, Any]:
    """``(foreground(), background())``, the second computed in a forked child meanwhile when possible."""
    with Beside(background) as pending:
        result = foreground()
        value = pending.result()
    return result, value if value is not None else background()


def map_beside(function: Callable[[T], R], items: Sequence[T], to_plain: Callable[[R], Any] | None = None,
               from_plain: Callable[[Any], R] | None = None) -> list[R]:
    """``[function(item) for item in items]``, the second half computed by a forked child meanwhile.

    Results cross from the child as plain data: ``to_plain`` and ``from_plain``
    convert them when they are not plain already.
    """
    cut = len(items) // 2
    encode = to_plain or (lambda result: result)
    mine, theirs = run_beside(lambda: [encode(function(item)) for item in items[cut:]],
                              lambda: [function(item) for item in items[:cut]])
    return mine + (theirs if from_plain is None else [from_plain(plain) for plain in theirs])
