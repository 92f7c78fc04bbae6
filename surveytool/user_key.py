"""This user's secret key: what seals the build cache and the online answers, kept outside every out folder."""

from __future__ import annotations

import contextlib
import os
import tempfile
from functools import lru_cache
from pathlib import Path

from surveytool.regular_files import Unusable, read_regular

#: Bytes of the key (and of an HMAC-SHA256 made with it).
KEY_BYTES = 32


KEY_FILE = Path("surveytool") / "cache-key"


def key_path() -> Path | None:
    """Where this user's key lives: beside other per-user caches, never in an out folder."""
    base = os.environ.get("XDG_CACHE_HOME")
    if base and os.path.isabs(base):
        return Path(base) / KEY_FILE
    try:
        return Path.home() / ".cache" / KEY_FILE
    except RuntimeError:  # no home folder
        return None


def cache_key() -> bytes:
    """This user's key, made on first use; raises Unusable when it can be neither read nor made."""
    path = key_path()
    if path is None:
        raise Unusable("no home folder to keep the build cache's key in")
    return _key_at(path)


@lru_cache(maxsize=4)
def _key_at(path: Path) -> bytes:
    with contextlib.suppress(FileNotFoundError):
        return _read_key(path)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".cache-key.", suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            stream.write(os.urandom(KEY_BYTES))
        try:
            os.link(temporary, path)  # never replaces the key another build made meanwhile
        except FileExistsError:
            pass
        finally:
            os.unlink(temporary)
        return _read_key(path)
    except OSError as error:
        raise Unusable(f"its key {path} cannot be made ({error.strerror})") from None


def _read_key(path: Path) -> bytes:
    try:
        key = read_regular(path, KEY_BYTES)
    except Unusable as problem:
        raise Unusable(f"its key {path} {problem}") from None
    if len(key) != KEY_BYTES:
        raise Unusable(f"its key {path} is not {KEY_BYTES} bytes long (delete it to have a new one made)")
    return key
