"""The user's tagged entries the tagger learned from, kept for a patched rebuild to learn the same."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path

from surveytool.analysis.tagging.exemplars import Exemplar
from surveytool.rebuild.memo import code_stamp
from surveytool.regular_files import Unusable
from surveytool.sealed import read_sealed, write_sealed

EXEMPLARS_FILE = "exemplars.marshal"


def remember_exemplars(folder: Path | None, exemplars: Sequence[Exemplar]) -> None:
    """Keep the user's tagged entries the tagger learned from, for a patched rebuild to learn the same.

    A sealed file of its own beside the memos (``sealed.py``): it is not a per-entry memo, and a patch only reads it.
    """
    if folder is None:
        return
    try:
        write_sealed(folder, EXEMPLARS_FILE, (code_stamp(), [tuple(e) for e in exemplars]))
    except Unusable:
        pass  # a folder that is a link or unusable is never touched, and not read either
    except OSError:
        with contextlib.suppress(OSError):
            (folder / EXEMPLARS_FILE).unlink(missing_ok=True)  # a patch then builds in full


def stored_exemplars(folder: Path) -> tuple[Exemplar, ...] | None:
    """The exemplars the last build in ``folder`` learned from (``remember_exemplars``); None if unknown or untrusted."""
    try:
        stamp, stored = read_sealed(folder / EXEMPLARS_FILE)
        return tuple(Exemplar(*e) for e in stored) if stamp == code_stamp() else None
    except (OSError, Unusable, TypeError, ValueError):
        return None
