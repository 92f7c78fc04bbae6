"""An on-disk cache of online answers (SQLite), so that reruns are offline and reproducible."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from surveytool.errors import InputError

_SCHEMA = "CREATE TABLE IF NOT EXISTS responses (url TEXT PRIMARY KEY, status INTEGER NOT NULL, body TEXT NOT NULL, fetched_at TEXT NOT NULL)"
#: No answer longer than this (in characters) is stored or read back, whoever wrote the file.
MAX_BODY_CHARS = 4_000_000


@dataclass(frozen=True)
class CachedResponse:
    status: int
    body: str
    fetched_at: str


class ResponseCache:
    """URL -> answer. Each write is its own transaction: a crash leaves the cache as it was."""

    def __init__(self, path: Path, max_body_chars: int = MAX_BODY_CHARS):
        self.path = path
        self.max_body_chars = max_body_chars
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path)
            with self._db:
                self._db.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as error:
            raise InputError(f"cannot use the online answer cache: {error}", path=str(path),
                             hint="delete the file, or choose another with --cache") from None

    def get(self, url: str) -> CachedResponse | None:
        # Only what put() would have stored: a planted row cannot be huge or carry another status.
        row = self._db.execute(
            "SELECT status, body, fetched_at FROM responses WHERE url = ? AND status IN (200, 404)"
            " AND typeof(body) = 'text' AND length(body) <= ? AND typeof(fetched_at) = 'text'",
            (url, self.max_body_chars),
        ).fetchone()
        return CachedResponse(*row) if row else None

    def put(self, url: str, status: int, body: str, fetched_at: str) -> None:
        if len(body) > self.max_body_chars:
            return
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)", (url, status, body, fetched_at))

    def delete(self, url: str) -> None:
        with self._db:
            self._db.execute("DELETE FROM responses WHERE url = ?", (url,))

    def close(self) -> None:
        self._db.close()
