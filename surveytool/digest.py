"""Content digests: the one way surveytool names a result by everything it depends on."""

from __future__ import annotations

import hashlib


def digest_text(*parts: str) -> str:
    """A short, stable digest of some strings (as a sequence: ("ab", "c") differs from ("a", "bc"))."""
    hasher = hashlib.blake2b(digest_size=16)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.hexdigest()
