"""Citations in the author's notes that lead to no entry: its paper left the sources, or was merged into another."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from pathlib import Path

from surveytool.output.notes_regions import region_spans
from surveytool.text.citations import citations


def citations_gone(
    path: Path, text: str, known: Collection[str], merged_into: Callable[[], Mapping[str, str]]
) -> list[str]:
    """What to tell of each key the author's notes cite that is in no entry (the generated text cites only entries)."""
    found = []
    merged: Mapping[str, str] | None = None
    above, counted = 0, 0  # lines above the region, counted once over the text: regions come in order
    for _, start, end in region_spans(text):
        if not text[start:end].strip():
            continue
        above, counted = above + text.count("\n", counted, start), start
        for citation in citations(text[start:end])[0]:
            if citation.key in known:
                continue
            merged = merged_into() if merged is None else merged
            where = f"{path}:{above + citation.line}: your notes cite '{citation.key}'"
            if citation.key in merged:
                into = merged[citation.key]
                found.append(
                    f"{where}, which --merge-duplicates merged into '{into}' (cite '{into}': "
                    "surveytool rekey with this build's sources and --tex FILE rewrites such citations; "
                    f"biblatex reads '{citation.key}' too)"
                )
            else:
                found.append(
                    f"{where}, which is not in the bibliography "
                    "(was its paper taken out of the sources? add it back, or change the citation)"
                )
    return found
