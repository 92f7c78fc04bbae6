"""Bidi controls in a field's value: the embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) make
an editor show the text around them in another order than TeX, BibTeX and a reviewer's diff read it ("Trojan
Source": ``abc<U+202E>fdp.exe`` shows as ``abcexe.pdf``).

Bibliographic data has no use for them: an Arabic or Hebrew title is ordered by the Unicode bidi algorithm on
its own, and where it needs help it holds the marks U+200E and U+200F, which are not reported. The value is
kept as written: it may be a title quoted from a source that holds one, and the user decides.
"""

from __future__ import annotations

import unicodedata

from surveytool.bibtex.field_spans import field_location, written_field
from surveytool.model import Finding, Paper, Severity
from surveytool.text.control_chars import first_bidi_control


def bidi_findings(paper: Paper) -> list[Finding]:
    """A ``bidi-control`` warning for each field of ``paper`` whose value holds a bidi control, on its line."""
    if "".join(paper.latex_fields.values()).isascii():  # most entries: told without a search
        return []
    found = []
    for name, value in paper.latex_fields.items():
        if char := first_bidi_control(value):
            message = (
                f"field '{written_field(paper.raw, name)}' of '{paper.key}' holds U+{ord(char):04X} ({unicodedata.name(char).lower()}), "
                "which makes editors show the text around it in another order than it is read; bib -o and build "
                "write it as it is"
            )
            hint = "delete it; Arabic and Hebrew text needs none, and U+200E or U+200F marks a direction where one must"
            found.append(
                Finding("bidi-control", Severity.WARNING, message, field_location(paper, name), hint, paper.key)
            )
    return found
