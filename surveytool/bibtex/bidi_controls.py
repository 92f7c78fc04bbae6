"""Bidi controls in a field's value, a @string or a @preamble: the embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) make
an editor show the text around them in another order than TeX, BibTeX and a reviewer's diff read it ("Trojan
Source": ``abc<U+202E>fdp.exe`` shows as ``abcexe.pdf``).

Bibliographic data has no use for them: an Arabic or Hebrew title is ordered by the Unicode bidi algorithm on
its own, and where it needs help it holds the marks U+200E and U+200F, which are not reported. The value is
kept as written: it may be a title quoted from a source that holds one, and the user decides.
"""

from __future__ import annotations

import unicodedata

from surveytool.bibtex.field_spans import field_location, written_field
from surveytool.bibtex.values import string_block_value
from surveytool.model import Finding, Paper, RawBlock, Severity
from surveytool.text.control_chars import first_bidi_control

_HINT = "delete it; Arabic and Hebrew text needs none, and U+200E or U+200F marks a direction where one must"


def _holds(char: str) -> str:
    return (
        f"holds U+{ord(char):04X} ({unicodedata.name(char).lower()}), which makes editors show the text around it "
        "in another order than it is read; bib -o and build write it as it is"
    )


def block_bidi_findings(block: RawBlock) -> list[Finding]:
    """A ``bidi-control`` warning for a @string (its name or value) or a @preamble holding a bidi control, on its
    line: the fields that use the @string print it, and the @preamble is read by TeX."""
    if block.text.isascii() or block.kind not in ("string", "preamble") or not (char := first_bidi_control(block.text)):
        return []
    if block.kind == "preamble":
        what = "@preamble"
    else:
        part = "value" if first_bidi_control(string_block_value(block)) else "name"
        what = f"the {part} of @string '{block.key}'"
    return [Finding("bidi-control", Severity.WARNING, f"{what} {_holds(char)}", block.location, _HINT, block.key)]


def bidi_findings(paper: Paper) -> list[Finding]:
    """A ``bidi-control`` warning for each field of ``paper`` whose value holds a bidi control, on its line."""
    if "".join(paper.latex_fields.values()).isascii():  # most entries: told without a search
        return []
    found = []
    for name, value in paper.latex_fields.items():
        if char := first_bidi_control(value):
            message = f"field '{written_field(paper.raw, name)}' of '{paper.key}' {_holds(char)}"
            found.append(
                Finding("bidi-control", Severity.WARNING, message, field_location(paper, name), _HINT, paper.key)
            )
    return found
