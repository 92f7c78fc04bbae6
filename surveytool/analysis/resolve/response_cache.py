"""An on-disk cache of online answers (SQLite), so that reruns are offline and reproducible.

The file may come with a shared folder, or be damaged, so nothing read from it is trusted: every row
carries an HMAC-SHA256 of its URL, status, time and body under this user's key (the one that seals
the build cache, ``sealed.py``). A row that fails it (edited, planted, written by another
user or an earlier version) is deleted and asked for again, and one ``info`` finding says how many.
A file SQLite cannot read as a database is set aside (renamed ``<name>.unreadable``) and a new
one started. No answer larger than the bound is stored or read back.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from surveytool.errors import InputError

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS responses (url TEXT PRIMARY KEY, status INTEGER NOT NULL, body TEXT NOT NULL,"
    " fetched_at TEXT NOT NULL, seal TEXT)"
)
#: No answer longer than this (in characters) is stored or read back, whoever wrote the file.
MAX_BODY_CHARS = 4_000_000
#: SQLite's result codes for a file that is not a database, or a damaged one.
_DAMAGED = {getattr(sqlite3, "SQLITE_NOTADB", 26), getattr(sqlite3, "SQLITE_CORRUPT", 11)}
#: ... for a file that may be read but not written now: read-only, or locked by another run's write.
_UNWRITABLE = {
    getattr(sqlite3, "SQLITE_READONLY", 8),
    getattr(sqlite3, "SQLITE_BUSY", 5),
    getattr(sqlite3, "SQLITE_LOCKED", 6),
}


_COLUMNS = {"url", "status", "body", "fetched_at"}


class _OtherLayout(Exception):
    """The file is a database, but its responses are not the table this version writes."""


@dataclass(frozen=True)
class CachedResponse:
    status: int
    body: str
    fetched_at: str


def _key() -> bytes:
    """This user's key; without one (no home folder) a plain checksum still catches damage, not forgery."""
    from surveytool.regular_files import Unusable
    from surveytool.user_key import cache_key

    try:
        return cache_key()
    except Unusable:
        return b""


def _seal(key: bytes, url: str, status: int, body: str, fetched_at: str) -> str:
    message = "\0".join((url, str(status), fetched_at, body)).encode("utf-8", "surrogatepass")
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def _damaged(error: sqlite3.Error) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    return code in _DAMAGED or any(words in str(error) for words in ("not a database", "malformed"))


class ResponseCache:
    """URL -> answer. Each write is its own transaction: a crash leaves the cache as it was."""

    def __init__(self, path: Path, max_body_chars: int = MAX_BODY_CHARS):
        self.path = path
        self.max_body_chars = max_body_chars
        self.notes: list[str] = []  # what was not trusted, for info findings
        self.refused = 0  # rows that failed their seal
        self.unwritable = ""  # why the file cannot be written in this run, once a write failed
        self._key = _key()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise self._unusable(error) from None
        self._db = self._open()

    def _unusable(self, error: object) -> InputError:
        return InputError(
            f"cannot use the online answer cache: {error}",
            path=str(self.path),
            hint="delete the file, or choose another with --cache",
        )

    def _open(self) -> sqlite3.Connection:
        try:
            return self._connect()
        except _OtherLayout:  # a database that works, of another program: not ours to move or delete
            raise InputError(
                "is a database whose responses table another program laid out otherwise; it is left as it is",
                path=str(self.path),
                hint="choose another file with --cache",
            ) from None
        except sqlite3.Error as error:
            locked = (getattr(error, "sqlite_errorcode", 0) & 0xFF) in _UNWRITABLE  # another run holds it
            if locked or not self.path.exists():  # or a folder this run cannot write: nothing to delete, go on
                why = "is locked by another run" if locked else "cannot be created"
                self.notes.append(f"{self.path}: {why} ({error}); this run's answers are not cached")
                db = sqlite3.connect(":memory:")
                db.execute(_SCHEMA)
                return db
            if not _damaged(error):
                raise self._unusable(error) from None
            self._set_aside("is not a readable SQLite database")
        try:
            return self._connect()
        except sqlite3.Error as error:
            raise self._unusable(error) from None

    def _connect(self) -> sqlite3.Connection:
        if self.path.is_symlink():  # a link planted in a cloned folder: SQLite would write into the file it names
            raise self._unusable("it is a symbolic link, which is not followed")
        if self.path.exists() and not self.path.is_file():
            raise self._unusable("not a regular file")
        db = sqlite3.connect(self.path)
        try:
            with db:
                db.execute(_SCHEMA)
                kind = db.execute("SELECT type FROM sqlite_master WHERE name = 'responses'").fetchone()
                # (name, NOT NULL, default) of each column: one more that an insert may leave empty is no matter
                columns = {row[1]: (row[3], row[4]) for row in db.execute("PRAGMA table_info(responses)")}
                unfilled = [name for name, (required, default) in columns.items() if required and default is None]
                if kind != ("table",) or not set(columns) >= _COLUMNS or not set(unfilled) <= _COLUMNS:
                    raise _OtherLayout  # a view, or a table no row of ours would fit
                if "seal" not in columns:  # written by a version that sealed nothing: its rows are asked again
                    db.execute("ALTER TABLE responses ADD COLUMN seal TEXT")
        except (sqlite3.Error, _OtherLayout):
            db.close()
            raise
        return db

    def _set_aside(self, why: str) -> None:
        aside = self.path.with_name(self.path.name + ".unreadable")
        try:
            os.replace(self.path, aside)
        except OSError as error:
            raise self._unusable(f"it {why} and cannot be moved aside ({error.strerror})") from None
        for suffix in ("-journal", "-wal", "-shm"):  # they belong to the old file
            with contextlib.suppress(OSError):
                os.remove(f"{self.path}{suffix}")
        self.notes.append(f"{self.path}: {why}; moved to {aside.name} and a new cache started")

    def _recover(self) -> None:
        """The file went bad during the run: set it aside and go on with a new one."""
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
        self._set_aside("became unreadable as a SQLite database")
        try:
            self._db = self._connect()
        except sqlite3.Error as error:
            raise self._unusable(error) from None

    def get(self, url: str) -> CachedResponse | None:
        # Only what put() would have stored: a planted row cannot be huge or carry another status.
        try:
            row = self._db.execute(
                "SELECT status, body, fetched_at, seal FROM responses WHERE url = ? AND status IN (200, 404)"
                " AND typeof(body) = 'text' AND length(body) <= ? AND typeof(fetched_at) = 'text'",
                (url, self.max_body_chars),
            ).fetchone()
        except sqlite3.Error as error:
            if not _damaged(error):
                raise self._unusable(error) from None
            self._recover()
            return None
        if row is None:
            return None
        status, body, fetched_at, seal = row
        expected = _seal(self._key, url, status, body, fetched_at)
        if not isinstance(seal, str) or not hmac.compare_digest(seal.encode(), expected.encode()):
            self.refused += 1
            self.delete(url)
            return None
        return CachedResponse(status, body, fetched_at)

    def put(self, url: str, status: int, body: str, fetched_at: str) -> None:
        if len(body) > self.max_body_chars:
            return
        seal = _seal(self._key, url, status, body, fetched_at)
        self._write(
            "INSERT OR REPLACE INTO responses (url, status, body, fetched_at, seal) VALUES (?, ?, ?, ?, ?)",
            (url, status, body, fetched_at, seal),
        )

    def delete(self, url: str) -> None:
        self._write("DELETE FROM responses WHERE url = ?", (url,))

    def _write(self, statement: str, values: tuple) -> None:
        if self.unwritable:  # one wait for a lock per run, not one per answer
            return
        try:
            with self._db:
                self._db.execute(statement, values)
        except sqlite3.Error as error:
            if (getattr(error, "sqlite_errorcode", 0) & 0xFF) in _UNWRITABLE:  # an extended code's primary one
                # Not the user's to delete (a shared or read-only file): what was cached is still read.
                self.unwritable = str(error)
            elif not _damaged(error):
                raise self._unusable(error) from None
            else:
                self._recover()

    def problems(self) -> list[str]:
        """What this run did not trust in the file, one line each."""
        refused = []
        if self.refused:
            count = f"{self.refused} cached answer{'s' if self.refused > 1 else ''}"
            refused.append(
                f"{self.path}: {count} failed {'their' if self.refused > 1 else 'its'} checksum "
                "(edited, damaged or written by another user or version); asked again"
            )
        if self.unwritable:
            refused.append(
                f"{self.path}: cannot be written ({self.unwritable}); its answers were read, but this run's were "
                "not cached and are asked again next time"
            )
        return [*self.notes, *refused]

    def close(self) -> None:
        self._db.close()
