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
import mmap
import os
import signal
import struct
import sys
from collections.abc import Callable, Sequence
from contextlib import suppress
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Set to 1 to keep every run in one process.
JOBS_VARIABLE = "SURVEYTOOL_JOBS"

#: The one rule for when sharing work with a forked child pays: from this much work, counted in
#: entries (a fork, and sending the results back, cost about as much as the work of fewer).
SHARE_FROM_ENTRIES = 4000
#: About this many characters of .bib text hold one entry: a read is judged by its size.
CHARS_PER_ENTRY = 256


def worth_sharing(entries: float) -> bool:
    """Whether work worth ``entries`` entries (weighted by its cost per entry) is shared with a forked child."""
    return entries >= SHARE_FROM_ENTRIES and can_fork()


def map_each(function: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """``function`` over ``items``, in order; shared with a forked child when that is worth it."""
    if not worth_sharing(len(items)):
        return [function(item) for item in items]
    return map_beside(function, items)


# True in a forked child: it does its part alone, since on two cores a grandchild would only compete with it.
_in_child = False


def can_fork() -> bool:
    """Fork only where it is safe for a program like this: Linux and the BSDs (macOS's system libraries are not)."""
    if _in_child or os.environ.get(JOBS_VARIABLE, "").strip() == "1":
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
    global _in_child
    _in_child = True
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


def map_beside(
    function: Callable[[T], R],
    items: Sequence[T],
    to_plain: Callable[[R], Any] | None = None,
    from_plain: Callable[[Any], R] | None = None,
) -> list[R]:
    """``[function(item) for item in items]``, shared with a forked child (``FromBothEnds``).

    Results cross from the child as plain data: ``to_plain`` and ``from_plain``
    convert them when they are not plain already.
    """
    with FromBothEnds(function, items, to_plain, from_plain) as work:
        return work.results()


class FromBothEnds(Generic[T, R]):
    """``[function(item) for item in items]``: a forked child starts from the front at once, and
    ``results()`` works from the back until the two meet.

    Meanwhile this process may do other work. The split follows how fast each
    side really is, whatever else this process had to do and however much of a
    second core a shared machine gives. Each side publishes how far it got in
    a shared page; the child stops where this process has got to, and an item
    both sides computed (they can cross by one batch) or one a failed child did
    not deliver is simply taken from this process. Results cross from the child
    as plain data, converted as in ``map_beside``.
    """

    #: Items per step: each side checks the other's progress this often.
    BATCH = 32

    def __init__(
        self,
        function: Callable[[T], R],
        items: Sequence[T],
        to_plain: Callable[[R], Any] | None = None,
        from_plain: Callable[[Any], R] | None = None,
    ):
        self._function = function
        self._items = items
        self._from_plain = from_plain
        # Two counters: items the child has finished from the front, and where this process's part begins.
        self._progress = mmap.mmap(-1, 8)  # anonymous and shared: a forked child writes the same page
        self._publish(0, 0)
        self._publish(4, len(items))
        encode = to_plain or (lambda result: result)
        self._pending = Beside((lambda: self._front(encode)) if len(items) > 1 else None)

    def _publish(self, offset: int, value: int) -> None:
        struct.pack_into("=i", self._progress, offset, value)

    def _read(self, offset: int) -> int:
        return struct.unpack_from("=i", self._progress, offset)[0]

    def _front(self, encode: Callable[[R], Any]) -> list:
        done: list = []
        while (end := min(len(done) + self.BATCH, self._read(4))) > len(done):
            done.extend(encode(self._function(item)) for item in self._items[len(done) : end])
            self._publish(0, len(done))
        return done

    def results(self) -> list[R]:
        """Every item's result, in order; this process takes the back part (all of it without a child)."""
        back: list[list[R]] = []
        start = len(self._items)
        while start > self._read(0):
            end, start = start, max(start - self.BATCH, self._read(0))
            back.append([self._function(item) for item in self._items[start:end]])
            self._publish(4, start)
        front = self._pending.result() or []
        front = front[:start]
        decoded = front if self._from_plain is None else [self._from_plain(plain) for plain in front]
        gap = [self._function(item) for item in self._items[len(front) : start]]  # what a failed child left
        return [*decoded, *gap, *(result for part in reversed(back) for result in part)]

    def __enter__(self) -> FromBothEnds:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop a child still working (this process failed or was interrupted) and free the shared page."""
        self._pending.cancel()
        self._progress.close()
