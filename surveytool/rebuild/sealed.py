"""Cache files a build can trust although the folder holding them cannot be: sealed data, read without following links.

An out folder can come from a cloned repository or a shared drive, so
nothing in it is trusted. A cache file is a header and a ``marshal`` payload
of plain values. The header holds the payload's length and HMAC-SHA256, and a digest of itself, under a key only this user holds: 32 random
bytes kept outside every out folder (``$XDG_CACHE_HOME/surveytool/cache-key``).
A planted file fails the header's digest after 80 bytes read; a truncated,
flipped or edited one fails the payload's, or its length. The file's name is
sealed too: one moved to another name is refused. Only then is the payload
unmarshalled, so marshal (not safe on crafted input) only ever reads what this
user's surveytool wrote. Without a key no cache is read or written.

Files are opened with ``O_NOFOLLOW`` and must be regular files; they are
written under a temporary name and moved into place, which replaces a link
instead of writing through it.
"""

from __future__ import annotations

import contextlib
import hmac
import marshal
import os
import stat
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO

from surveytool.output.staletemp import temporary_prefix

_MAGIC = b"stcache1"
_DIGEST = 32
_HEADER = len(_MAGIC) + 8 + 2 * _DIGEST
#: Larger than any cache surveytool writes for a bibliography that fits in memory.
MAX_CACHE_FILE = 1 << 31
KEY_FILE = Path("surveytool") / "cache-key"
IGNORE_TEXT = "# made by surveytool: its rebuild cache, safe to delete\n*\n"


class Unusable(Exception):
    """Why a cache file or folder is not used: the reason, for an info finding."""


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
            stream.write(os.urandom(_DIGEST))
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
        key = read_regular(path, _DIGEST)
    except Unusable as problem:
        raise Unusable(f"its key {path} {problem}") from None
    if len(key) != _DIGEST:
        raise Unusable(f"its key {path} is not {_DIGEST} bytes long (delete it to have a new one made)")
    return key


def read_regular(path: Path, limit: int, follow: bool = False) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; FileNotFoundError if there is none, else Unusable.

    Without ``follow``, a symbolic link is refused rather than followed.
    """
    stream, size = _open_regular(path, follow)
    with stream:
        if size > limit:
            raise Unusable(f"is larger than {limit} bytes")
        return _read_exactly(stream, size)


def _open_regular(path: Path, follow: bool) -> tuple[BinaryIO, int]:
    """The file opened for reading, and its size; a FIFO or device is refused before it is read (it could block or never end)."""
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
        if not hasattr(os, "O_NOFOLLOW") and _is_link(path):
            raise Unusable("is a symbolic link")
    try:
        handle = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as error:
        if not follow and _is_link(path):
            raise Unusable("is a symbolic link") from None
        raise Unusable(f"cannot be read ({error.strerror})") from None
    status = os.fstat(handle)
    if not stat.S_ISREG(status.st_mode):
        os.close(handle)
        raise Unusable("is not a regular file")
    return os.fdopen(handle, "rb"), status.st_size


def _read_exactly(stream: BinaryIO, size: int) -> bytes:
    try:
        data = stream.read(size + 1)
    except OSError as error:
        raise Unusable(f"cannot be read ({error.strerror})") from None
    if len(data) > size:
        raise Unusable("grew while it was read")
    return data


def _is_link(path: Path) -> bool:
    try:
        return path.is_symlink()
    except OSError:
        return False


def seal(value: Any, key: bytes, name: str) -> bytes:
    """``value`` (plain data) as the bytes of the cache file ``name`` (a file moved to another name fails its seal)."""
    payload = marshal.dumps(value)
    head = _MAGIC + len(payload).to_bytes(8, "little") + _mac(payload, key)
    return head + _mac(_named(head, name), key) + payload


def read_sealed(path: Path) -> Any:
    """The value sealed in the cache file ``path``; FileNotFoundError if there is none, Unusable if it cannot be trusted.

    The header is checked first: a file this user's surveytool did not write is refused after reading 80 bytes.
    """
    key = cache_key()
    stream, size = _open_regular(path, follow=False)
    with stream:
        head = stream.read(_HEADER)
        if (
            len(head) < _HEADER
            or not head.startswith(_MAGIC)
            or not hmac.compare_digest(head[-_DIGEST:], _mac(_named(head[:-_DIGEST], path.name), key))
        ):
            raise Unusable("was not written by this user's surveytool, or was changed since")
        length = int.from_bytes(head[len(_MAGIC) : len(_MAGIC) + 8], "little")
        if size != _HEADER + length or size > MAX_CACHE_FILE:
            raise Unusable("fails its checksum (truncated or changed since it was written)")
        payload = _read_exactly(stream, length)
    if len(payload) != length or not hmac.compare_digest(head[len(_MAGIC) + 8 : -_DIGEST], _mac(payload, key)):
        raise Unusable("fails its checksum (truncated or changed since it was written)")
    try:
        return marshal.loads(payload)
    except (EOFError, ValueError, TypeError):  # the same key, other code: a bug, not an attack
        raise Unusable("cannot be decoded") from None


def _named(head: bytes, name: str) -> bytes:
    return name.encode("utf-8", "surrogateescape") + b"\0" + head


def _mac(data: bytes, key: bytes) -> bytes:
    return hmac.digest(key, data, "sha256")


def prepare_folder(folder: Path) -> None:
    """Make the cache folder (with its .gitignore) if needed; raises Unusable for a link or anything but a folder."""
    try:
        status = folder.lstat()
    except FileNotFoundError:
        try:
            folder.mkdir(parents=True)
        except FileExistsError:
            pass  # made by another build meanwhile
        except OSError as error:
            raise Unusable(f"cannot be made ({error.strerror})") from None
        status = folder.lstat()
    except OSError as error:
        raise Unusable(f"cannot be read ({error.strerror})") from None
    if stat.S_ISLNK(status.st_mode):
        raise Unusable("is a symbolic link, which could lead out of the out folder")
    if not stat.S_ISDIR(status.st_mode):
        raise Unusable("is not a folder")
    try:
        os.listdir(folder)
    except OSError as error:
        raise Unusable(f"cannot be read ({error.strerror})") from None
    ignore = folder / ".gitignore"
    try:
        present = stat.S_ISREG(ignore.lstat().st_mode)
    except OSError:
        present = False
    if not present:
        with contextlib.suppress(OSError):  # a link there is replaced, never written through
            write_replacing(ignore, IGNORE_TEXT.encode("utf-8"))


def write_replacing(path: Path, data: bytes) -> None:
    """Write ``data`` under a temporary name beside ``path``, then move it into place (OSError if it cannot)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=temporary_prefix(path.name), suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_sealed(folder: Path, name: str, value: Any) -> None:
    """Seal ``value`` into ``folder/name``, whole or not at all; raises Unusable or OSError when it cannot be."""
    data = seal(value, cache_key(), name)
    prepare_folder(folder)
    write_replacing(folder / name, data)
