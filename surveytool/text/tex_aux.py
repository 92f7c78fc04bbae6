"""What a LaTeX run's .aux file records: the keys cited, and the .aux files of the chapters it reads in turn."""

from __future__ import annotations

import re

from surveytool.text.citations import Citation

_AUX_CITATION = re.compile(r"\\citation\{(?P<keys>[^{}]*)\}")
# biblatex: \abx@aux@cite{<refsection>}{key} (3.x), \abx@aux@cite{key} before.
_AUX_BIBLATEX = re.compile(r"\\abx@aux@cite\{(?P<first>[^{}]*)\}(?:\{(?P<second>[^{}]*)\})?")
_AUX_INPUT = re.compile(r"\\@input\{(?P<name>[^{}]*)\}")


def aux_citations(text: str) -> tuple[list[Citation], list[tuple[str, int]]]:
    """The keys an .aux file records (BibTeX's ``\\citation`` and biblatex's ``\\abx@aux@cite``) and the
    .aux files it reads in turn (``\\@input``, one per ``\\include``), each with its line."""
    found: list[Citation] = []
    inputs: list[tuple[str, int]] = []
    for line, content in enumerate(text.splitlines(), 1):  # TeX writes one command a line
        for match in _AUX_CITATION.finditer(content):
            found.extend(Citation(key.strip(), line) for key in match.group("keys").split(",") if key.strip())
        for match in _AUX_BIBLATEX.finditer(content):
            second = match.group("second")
            key = (second if second is not None else match.group("first")).strip()
            if key:
                found.append(Citation(key, line))
        inputs.extend((m.group("name").strip(), line) for m in _AUX_INPUT.finditer(content))
    return found, inputs
