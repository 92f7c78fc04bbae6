"""Whether the .bib a build writes anew was changed since the last build wrote it: an edit there would be lost."""

from __future__ import annotations

from pathlib import Path

from surveytool.errors import SurveyToolError
from surveytool.rebuild.memo import BuildCache
from surveytool.rebuild.snapshot import content_digest, load_snapshot
from surveytool.regular_files import Unusable, read_regular
from surveytool.sealed import MAX_CACHE_FILE


def changed_since_built(memos: BuildCache, bib_path: Path) -> bytes | None:
    """The .bib at ``bib_path`` if it is not what the last build with this cache wrote (edited since), else None."""
    snapshot = load_snapshot(memos)
    if snapshot is None or not snapshot.written:
        return None
    try:
        data = read_regular(bib_path, MAX_CACHE_FILE, True)
    except (OSError, SurveyToolError, Unusable):
        return None  # none to lose
    return data if content_digest(data) != snapshot.written[0] else None
