"""An on-disk memo of per-entry work, keyed by content: what makes a rebuild after a small edit fast.

Each namespace (one per stage: chunks read, tags) is one file in the cache
folder. A run loads the files once, looks results up by a digest of
everything they depend on, and on saving keeps only what this run used, so an
edited or deleted entry leaves nothing stale behind. A key never names a
result computed from other input, so a hit is always right; what stays out of
the keys (surveytool's own code, the versions of bibtexparser and pylatexenc)
stamps the files, and a file with another stamp is ignored.

Values are plain data (str, int, float, bool, None, tuples, lists, dicts), kept
in sealed files (``sealed.py``): ``marshal`` data that is unmarshalled only once
a key this user holds shows that this user's surveytool wrote it, unchanged.
The codecs below turn the records the memos hold into plain data and back.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sys
from functools import cache
from pathlib import Path
from typing import Any

from surveytool import __version__
from surveytool.model import Finding, Origin, Paper, Role, Severity, SourceLocation, Tag, frozen_mapping
from surveytool.regular_files import Unusable
from surveytool.sealed import prepare_folder, read_sealed, write_sealed
from surveytool.user_key import cache_key

#: The check of the findings that say a cache file was not used: about this run only, never replayed.
CACHE_CHECK = "build-cache"


@cache
def code_stamp() -> str:
    """Changes with any change to surveytool's code or to the libraries that shape what it reads."""
    from importlib import metadata  # only when a build cache is used

    hasher = hashlib.blake2b(digest_size=16)
    hasher.update(
        f"{__version__}\0{sys.version}\0{marshal.version}\0".encode()
    )  # the version too, should the sources be unreadable
    package = Path(__file__).resolve().parent.parent
    for path in sorted(package.rglob("*.py")):
        hasher.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    for name in ("bibtexparser", "pylatexenc"):
        try:
            hasher.update(f"{name}={metadata.version(name)}\0".encode())
        except metadata.PackageNotFoundError:
            hasher.update(f"{name}=?\0".encode())
    return hasher.hexdigest()


class Memo:
    """One namespace: results by key, and which keys this run used (``hits`` reused, ``misses`` computed anew)."""

    def __init__(self, stored: dict[str, Any]):
        self._stored = stored
        self._used: dict[str, Any] = {}
        self._put = False
        self.hits = 0
        self.misses = 0

    def peek(self, key: str) -> Any:
        """The stored value, or None; it counts as used only once taken with ``get``."""
        return self._stored.get(key)

    def get(self, key: str) -> Any:
        value = self._stored.get(key)
        if value is not None:
            self.hits += 1
            self._used[key] = value
        return value

    def put(self, key: str, value: Any) -> None:
        self.misses += 1
        self._used[key] = value
        self._put = True

    @property
    def changed(self) -> bool:
        """Whether saving would write something else than was loaded (a new value, even under an old key)."""
        return self._put or self._used.keys() != self._stored.keys()

    def used(self) -> dict[str, Any]:
        return self._used


class BuildCache:
    """The memos of one output folder. ``BuildCache(None)`` keeps nothing: every lookup misses.

    Its files are sealed (``sealed.py``): one that cannot be trusted is not read, and ``discarded``
    says why as info findings; its results are computed anew and the file written again.
    """

    def __init__(self, folder: Path | None):
        self.folder = folder
        self.discarded: list[Finding] = []
        self._memos: dict[str, Memo] = {}
        self._stamps: dict[str, str] = {}
        self._unusable = False

    def memo(self, name: str, depends_on: str = "") -> Memo | None:
        """The memo ``name``; ``depends_on`` stamps it with what else its results depend on (a digest)."""
        if self.folder is None:
            return None
        if name not in self._memos:
            self._stamps[name] = stamp = code_stamp() + depends_on
            stored = self.load(f"{name}.marshal", stamp)
            self._memos[name] = Memo(stored if isinstance(stored, dict) else {})
        return self._memos[name]

    def load(self, name: str, stamp: str) -> Any:
        """The value kept in the file ``name`` under ``stamp``, or None (none, another stamp, or not to be trusted)."""
        # Reading makes no folder: a run stopped by bad input must leave no cache (nor out folder) behind.
        if self.folder is None or not os.path.lexists(self.folder) or not self._usable():
            return None
        path = self.folder / name
        try:
            kept, value = read_sealed(path)
        except FileNotFoundError:
            return None
        except (Unusable, ValueError, TypeError) as problem:
            self._discard(path, str(problem) or "has another layout")
            return None
        return value if kept == stamp else None

    def keep(self, name: str, stamp: str, value: Any) -> None:
        """Write ``value`` under ``stamp`` into the file ``name``; one that cannot be written only makes the next run slower."""
        if self.folder is None or not self._usable():
            return
        try:
            write_sealed(self.folder, name, (stamp, value))
        except Unusable as problem:
            self._discard(self.folder, str(problem))
        except OSError:
            pass

    def _usable(self) -> bool:
        if self._unusable:
            return False
        assert self.folder is not None
        try:
            cache_key()
            prepare_folder(self.folder)
        except Unusable as problem:
            self._unusable = True
            self._discard(self.folder, str(problem))
        return not self._unusable

    def _discard(self, path: Path, reason: str) -> None:
        self.discarded.append(
            Finding(
                CACHE_CHECK,
                Severity.INFO,
                f"{path}: {reason}; not used, the build does its work anew",
                None,
                "nothing to do: the cache only makes rebuilds faster",
            )
        )

    def save(self) -> None:
        """Write the memos this run changed."""
        if self.folder is None:
            return
        for name, memo in self._memos.items():
            if memo.changed:
                self.keep(f"{name}.marshal", self._stamps[name], memo.used())

    def stats(self) -> dict[str, tuple[int, int]]:
        """Namespace -> (hits, misses) in this run."""
        return {name: (memo.hits, memo.misses) for name, memo in sorted(self._memos.items())}


def forget_compiled_templates(folder: Path) -> None:
    """Remove jinja2 bytecode files earlier versions left: compiled code is never loaded from an out folder."""
    with contextlib.suppress(OSError):
        for old in folder.glob("template-*.cache"):
            old.unlink(missing_ok=True)


# Codecs: records <-> plain data. Locations are stored as lines and moved on the way back,
# so that a chunk read before still fits when lines were added or removed above it.


def location_to_plain(where: SourceLocation | None) -> tuple | None:
    return None if where is None else (where.path, where.line)


def location_from_plain(data: tuple | None, shift: int = 0) -> SourceLocation | None:
    return None if data is None else SourceLocation(data[0], data[1] + shift)


def finding_to_plain(finding: Finding) -> tuple:
    return (
        finding.check,
        finding.severity.value,
        finding.message,
        location_to_plain(finding.location),
        finding.hint,
        finding.key,
    )


def finding_from_plain(data: tuple, shift: int = 0) -> Finding:
    check, severity, message, where, hint, key = data
    return Finding(check, Severity(severity), message, location_from_plain(where, shift), hint, key)


def read_paper_to_plain(paper: Paper) -> tuple:
    """A paper as a reader made it (no tags, resolution or aliases yet)."""
    return (
        paper.origin.value,
        tuple(location_to_plain(s) for s in paper.sources),
        dict(paper.fields),
        paper.entry_type,
        paper.key,
        dict(paper.latex_fields),
        paper.raw,
        paper.truncated,
        paper.explicit_tags,
    )


def read_paper_from_plain(data: tuple, shift: int = 0) -> Paper:
    origin, sources, fields, entry_type, key, latex_fields, raw, truncated, explicit_tags = data
    return Paper(
        Origin(origin),
        tuple(SourceLocation(path, line + shift) for path, line in sources),
        frozen_mapping(fields),
        entry_type,
        key,
        frozen_mapping(latex_fields),
        raw,
        truncated,
        explicit_tags=explicit_tags,
    )


def tags_to_plain(tags: tuple[Tag, ...]) -> tuple:
    return tuple((t.section, t.role.value, t.score, t.evidence, t.explicit, t.suggested) for t in tags)


def tags_from_plain(data: tuple) -> tuple[Tag, ...]:
    return tuple(
        Tag(section, Role(role), score, evidence, explicit, suggested)
        for section, role, score, evidence, explicit, suggested in data
    )
