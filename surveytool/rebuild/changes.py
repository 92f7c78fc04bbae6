"""Which chunks of the .bib sources changed since the last build, found from the text that changed.

The last build's snapshot keeps each source's text and chunk layout
(``snapshot.SourceLayout``). The new text is compared with the old one (a few
memcmp calls), and only the chunks around the text that changed are cut again
(``bib_reading.ChunkRun``); the others keep their digests, and those below the
change move by the lines added or removed above them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import NamedTuple

from surveytool.pipeline import Options, source_paths
from surveytool.rebuild.bib_reading import ChunkRun
from surveytool.rebuild.snapshot import SourceLayout
from surveytool.sources.read import detect_kind, read_text

#: More changed chunks than this, and a full build (which shares its work with a second core) is as quick.
MAX_CHANGED_CHUNKS = 64


def changed_chunks(
    options: Options, old: Sequence[SourceLayout]
) -> tuple[tuple[SourceLayout, ...], set[str], list[tuple[ChunkRun, int, dict[str, str]]], list[Move]] | None:
    """Each source's new layout, the digests of the chunks gone, the chunks new (run, index, macros), the lines moved."""
    sources = source_paths(options)
    if len(sources) != len(old):
        return None
    layouts: list[SourceLayout] = []
    removed: set[str] = set()
    added: list[tuple[ChunkRun, int, dict[str, str]]] = []
    moves: list[Move] = []
    for (path, display), before in zip(sources, old, strict=True):
        if display != before.display:
            return None
        try:
            if path.read_bytes() == before.source:  # as read last time: no need to decode it
                layouts.append(before)
                continue
        except OSError:
            return None  # read_text says why, in the build in full
        text, problems = read_text(path, display)
        if problems or (options.source_kind or detect_kind(path, text)) != "bib":
            return None
        changes = _changes_in(before, text, options.tags_field)
        if changes is None:
            return None
        layout, gone, new, move = changes
        layouts.append(layout)
        removed.update(gone)
        added.extend((run, index, dict(before.macros)) for run, index in new)
        moves.extend([move] if move else [])
    if len(removed) + len(added) > MAX_CHANGED_CHUNKS:
        return None
    return tuple(layouts), removed, added, moves


def _changes_in(
    before: SourceLayout, text: str, tags_field: str
) -> tuple[SourceLayout, list[str], list[tuple[ChunkRun, int]], Move | None] | None:
    """The file's new layout, its chunks gone and new, and how the lines below them moved.

    None if a changed chunk is not a lone plain entry. Only the chunks around
    the changed text are cut again: the one before, those holding changed text,
    the one after (a chunk's digest holds the next one's opening, and a change
    next to a chunk start can move it).
    """
    old_text = before.source.decode("utf-8", "surrogatepass")
    prefix, suffix = changed_span(old_text, text)
    count = len(before.starts)
    first = max(bisect_right(before.starts, max(prefix - 1, 0)) - 2, 0)
    end = min(bisect_right(before.starts, min(len(old_text) - suffix, len(old_text) - 1)) + 1, count)
    old_end = before.starts[end] if end < count else len(old_text)
    new_end = old_end + len(text) - len(old_text)
    start = before.starts[first]
    run = ChunkRun(text, start, new_end, before.lines[first], before.display, tags_field)
    old_keys = before.chunks[first:end]
    same, old_stop, new_stop = _differing_run(old_keys, run.keys)
    lines_moved = text.count("\n", start, new_end) - old_text.count("\n", start, old_end)
    below = before.lines[first + old_stop : end]
    if run.lines[:same] != list(before.lines[first : first + same]) or run.lines[new_stop:] != [
        line + lines_moved for line in below
    ]:
        return None
    gone = list(old_keys[same:old_stop])
    fresh = list(range(same, new_stop))
    if any(
        not before.lone_entries[first + i] or before.chunks.count(old_keys[i]) != 1 for i in range(same, old_stop)
    ) or any(
        not run.holds_one_plain_entry(i) or run.keys[i] in before.chunks or run.keys.count(run.keys[i]) != 1
        for i in fresh
    ):
        return None
    lone = (
        *before.lone_entries[first : first + same],
        *(True for _ in fresh),
        *before.lone_entries[first + old_stop : end],
    )
    shift = len(text) - len(old_text)
    layout = SourceLayout(
        before.display,
        text.encode("utf-8", "surrogatepass"),
        (*before.chunks[:first], *run.keys, *before.chunks[end:]),
        (*before.starts[:first], *run.starts, *(s + shift for s in before.starts[end:])),
        (*before.lines[:first], *run.lines, *(line + lines_moved for line in before.lines[end:])),
        (*before.lone_entries[:first], *lone, *before.lone_entries[end:]),
        before.macros,
    )
    first_moved = before.lines[first + old_stop] + 1 if first + old_stop < count else None
    move = Move(before.display, first_moved, lines_moved) if lines_moved and first_moved is not None else None
    return layout, gone, [(run, i) for i in fresh], move


class Move(NamedTuple):
    """Lines of a source from ``first`` (1-based) on moved by ``lines``: where the entries below a change are now."""

    path: str
    first: int
    lines: int


def moved_line(path: str, line: int, moves: Sequence[Move]) -> int:
    return line + sum(m.lines for m in moves if m.path == path and line >= m.first)


def moved_source(source: str, moves: Sequence[Move]) -> str:
    """A source as ``str(SourceLocation)`` prints it ("path:line"), moved."""
    path, _, line = source.rpartition(":")
    return f"{path}:{moved_line(path, int(line), moves)}" if line.isdigit() else source


def changed_span(old: str, new: str) -> tuple[int, int]:
    """(length of the longest common prefix, of the longest common suffix not overlapping it)."""
    limit = min(len(old), len(new))
    prefix = _common_length(lambda lo, hi: old[lo:hi] == new[lo:hi], limit)
    suffix = _common_length(
        lambda lo, hi: old[len(old) - hi : len(old) - lo] == new[len(new) - hi : len(new) - lo], limit - prefix
    )
    return prefix, suffix


def _common_length(same: Callable[[int, int], bool], limit: int) -> int:
    """The largest n <= limit with same(0, n): long strides first, then halving (each comparison is a memcmp)."""
    done, stride = 0, 1 << 16
    while done + stride <= limit and same(done, done + stride):
        done += stride
    high = min(done + stride, limit)
    while done < high:
        middle = (done + high + 1) // 2
        if same(done, middle):
            done = middle
        else:
            high = middle - 1
    return done


def _differing_run(old: Sequence[str], new: Sequence[str]) -> tuple[int, int, int]:
    """(start, end in old, end in new) of the run between the longest common prefix and suffix."""
    first = 0
    while first < min(len(old), len(new)) and old[first] == new[first]:
        first += 1
    last_old, last_new = len(old), len(new)
    while last_old > first and last_new > first and old[last_old - 1] == new[last_new - 1]:
        last_old, last_new = last_old - 1, last_new - 1
    return first, last_old, last_new
