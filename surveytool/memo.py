"""An on-disk memo of per-entry work, keyed by content: what makes a rebuild after a small edit fast.

Each namespace (one per stage: chunks read, tags) is one file in the cache
folder. A run loads the files once, looks results up by a digest of
everything they depend on, and on saving keeps only what this run used, so an
edited or deleted entry leaves nothing stale behind. A key never names a
result computed from other input, so a hit is always right; what stays out of
the keys (surveytool's own code, the versions of bibtexparser and pylatexenc)
stamps the files, and a file with another stamp is ignored, as is one that
cannot be read.

Values are plain data (str, int, float, bool, None, tuples, lists, dicts), stored
with ``marshal``: it loads twice as fast as pickle here, and loading it runs no code.
The codecs below turn the records the memos hold into plain data and back.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from .models import Finding, Origin, Paper, Role, Severity, SourceLocation, Tag, frozen_mapping

if TYPE_CHECKING:
    import jinja2

CACHE_FOLDER = ".surveytool-cache"


def digest_text(*parts: str) -> str:
    """A short, stable digest of some strings (as a sequence: ("ab", "c") differs from ("a", "bc"))."""
    hasher = hashlib.blake2b(digest_size=16)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.hexdigest()


@cache
def code_stamp() -> str:
    """Changes with any change to surveytool's code or to the libraries that shape what it reads."""
    from importlib import metadata  # only when a build cache is used

    hasher = hashlib.blake2b(digest_size=16)
    hasher.update(f"{__version__}\0{sys.version}\0{marshal.version}\0".encode())  # the version too, should the sources be unreadable
    for path in sorted(Path(__file__).parent.glob("*.py")):
        hasher.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
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
    """The memos of one output folder. ``BuildCache(None)`` keeps nothing: every lookup misses."""

    def __init__(self, folder: Path | None):
        self.folder = folder
        self._memos: dict[str, Memo] = {}
        self._stamps: dict[str, str] = {}

    def memo(self, name: str, depends_on: str = "") -> Memo | None:
        """The memo ``name``; ``depends_on`` stamps it with what else its results depend on (a digest)."""
        if self.folder is None:
            return None
        if name not in self._memos:
            self._stamps[name] = stamp = code_stamp() + depends_on
            self._memos[name] = Memo(self._load(self.folder / f"{name}.marshal", stamp))
        return self._memos[name]

    def _load(self, path: Path, expected: str) -> dict[str, Any]:
        try:
            stamp, stored = marshal.loads(path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        return stored if stamp == expected and isinstance(stored, dict) else {}

    def save(self) -> None:
        """Write the memos this run changed; a cache that cannot be written only makes the next run slower."""
        if self.folder is None:
            return
        for stale in self.folder.glob("template-*.cache"):  # compiled by other code
            if not stale.name.endswith(f"-{code_stamp()[:16]}.cache"):
                stale.unlink(missing_ok=True)
        for name, memo in self._memos.items():
            if not memo.changed:
                continue
            data = marshal.dumps((self._stamps[name], memo.used()))
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                ignore = self.folder / ".gitignore"
                if not ignore.exists():
                    ignore.write_text("# made by surveytool: its rebuild cache, safe to delete\n*\n", encoding="utf-8")
                # A file of its own per writer: two builds into one folder never mix their halves.
                handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=f".{name}.", suffix=".tmp")
                with os.fdopen(handle, "wb") as stream:
                    stream.write(data)
                os.replace(temporary, self.folder / f"{name}.marshal")
            except OSError:
                pass

    def bytecode_cache(self) -> jinja2.BytecodeCache | None:
        """Where jinja2 keeps compiled templates; stamped like the memos, since the code sets up the environment."""
        import jinja2  # only the LaTeX outputs need it

        if self.folder is None:
            return None
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return None
        return jinja2.FileSystemBytecodeCache(str(self.folder), f"template-%s-{code_stamp()[:16]}.cache")

    def stats(self) -> dict[str, tuple[int, int]]:
        """Namespace -> (hits, misses) in this run."""
        return {name: (memo.hits, memo.misses) for name, memo in sorted(self._memos.items())}


# Codecs: records <-> plain data. Locations are stored as lines and moved on the way back,
# so that a chunk read before still fits when lines were added or removed above it.

def location_to_plain(where: SourceLocation | None) -> tuple | None:
    return None if where is None else (where.path, where.line)


def location_from_plain(data: tuple | None, shift: int = 0) -> SourceLocation | None:
    return None if data is None else SourceLocation(data[0], data[1] + shift)


def finding_to_plain(finding: Finding) -> tuple:
    return (finding.check, finding.severity.value, finding.message, location_to_plain(finding.location), finding.hint, finding.key)


def finding_from_plain(data: tuple, shift: int = 0) -> Finding:
    check, severity, message, where, hint, key = data
    return Finding(check, Severity(severity), message, location_from_plain(where, shift), hint, key)


def read_paper_to_plain(paper: Paper) -> tuple:
    """A paper as a reader made it (no tags, resolution or aliases yet)."""
    return (paper.origin.value, tuple(location_to_plain(s) for s in paper.sources), dict(paper.fields), paper.entry_type,
            paper.key, dict(paper.latex_fields), paper.raw, paper.truncated, paper.explicit_tags)


def read_paper_from_plain(data: tuple, shift: int = 0) -> Paper:
    origin, sources, fields, entry_type, key, latex_fields, raw, truncated, explicit_tags = data
    return Paper(Origin(origin), tuple(location_from_plain(s, shift) for s in sources), frozen_mapping(fields), entry_type,
                 key, frozen_mapping(latex_fields), raw, truncated, explicit_tags=explicit_tags)


def tags_to_plain(tags: tuple[Tag, ...]) -> tuple:
    return tuple((t.section, t.role.value, t.score, t.evidence, t.explicit, t.suggested) for t in tags)


def tags_from_plain(data: tuple) -> tuple[Tag, ...]:
    return tuple(Tag(section, Role(role), score, evidence, explicit, suggested)
                 for section, role, score, evidence, explicit, suggested in data)
