"""An on-disk cache of online answers (SQLite), so that reruns are offline and reproducible."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

_SCHEMA = "CREATE TABLE IF NOT EXISTS responses (url TEXT PRIMARY KEY, status INTEGER NOT NULL, body TEXT NOT NULL, fetched_at TEXT NOT NULL)"


@dataclass(frozen=True)
class CachedResponse:
    status: int
    body: str
    fetched_at: str


class ResponseCache:
    """URL -> answer. Each write is its own transaction: a crash leaves the cache as it was."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path)
        with self._db:
            self._db.execute(_SCHEMA)

    def get(self, url: str) -> CachedResponse | None:
        row = self._db.execute("SELECT status, body, fetched_at FROM responses WHERE url = ?", (url,)).fetchone()
        return CachedResponse(*row) if row else None

    def put(self, url: str, status: int, body: str, fetched_at: str) -> None:
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)", (url, status, body, fetched_at))

    def close(self) -> None:
        self._db.close()
