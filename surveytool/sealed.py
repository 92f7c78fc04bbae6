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
from pathlib import Path
from typing import Any

from surveytool.output.staletemp import temporary_prefix
from surveytool.regular_files import Unusable, open_regular, read_exactly
from surveytool.user_key import KEY_BYTES, cache_key

_MAGIC = b"stcache1"
_DIGEST = KEY_BYTES
_HEADER = len(_MAGIC) + 8 + 2 * _DIGEST
#: Larger than any cache surveytool writes for a bibliography that fits in memory.
MAX_CACHE_FILE = 1 << 31
IGNORE_TEXT = "# made by surveytool: its rebuild cache, safe to delete\n*\n"


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
    stream, size = open_regular(path, follow=False)
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
        payload = read_exactly(stream, length)
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
