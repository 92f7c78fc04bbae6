"""Writing output files: whole or not at all."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import OutputError


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader never sees half a file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except OSError as error:
        raise OutputError(f"cannot be written ({error.strerror})", path=str(path), hint="check the output folder's permissions") from None
