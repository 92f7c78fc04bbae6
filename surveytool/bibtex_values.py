"""Raw BibTeX values -> plain text: enclosing braces or quotes, ``#`` concatenations, macros, LaTeX."""

from __future__ import annotations

from collections.abc import Mapping

from .latex import latex_to_text
from .latex_decode import quick_latex_to_text
from .models import frozen_mapping

#: Months as BibTeX's predefined macros expand them, for plain-text values.
MONTH_MACROS = {
    name[:3].lower(): name
    for name in "January February March April May June July August September October November December".split()
}


def split_tags(value: str) -> tuple[str, ...]:
    """Tags as users write them in a field: comma- or semicolon-separated."""
    return tuple(t.strip() for t in value.replace(";", ",").split(",") if t.strip())


def _strip_enclosing(value: str) -> str:
    """``{text}`` or ``"text"`` -> ``text``, inner spaces kept (they matter in concatenations)."""
    value = value.strip()
    if len(value) >= 2 and (value[0], value[-1]) in (("{", "}"), ('"', '"')):
        return value[1:-1]
    return value


def _split_concatenation(value: str) -> list[str]:
    """The parts of ``a # "b" # {c}``; ``#`` inside braces or quotes is text."""
    parts, depth, in_quotes, start = [], 0, False, 0
    for i, char in enumerate(value):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth == 0:
            in_quotes = not in_quotes
        elif char == "#" and depth == 0 and not in_quotes:
            parts.append(value[start:i].strip())
            start = i + 1
    parts.append(value[start:].strip())
    return parts


#: Fields shown to readers, decoded exactly (pylatexenc where the quick decoder is unsure).
#: Other fields (abstracts, notes, ...) are only matched or written back as they were.
EXACTLY_DECODED = frozenset({"title", "author", "editor", "booktitle", "journal", "series", "publisher",
                             "institution", "school", "organization", "howpublished"})


def value_to_text(value: str, strings: Mapping[str, str] = frozen_mapping(), exact: bool = True) -> str:
    """Plain text of a raw BibTeX value, with macros and concatenations expanded."""
    decode = _exactly_decoded if exact else quick_latex_to_text
    stripped = value.strip()
    if "#" not in stripped:  # one part: the common case
        return decode(_part_text(stripped, strings))
    return decode("".join(_part_text(part, strings) for part in _split_concatenation(value)))


def _exactly_decoded(text: str) -> str:
    try:
        return latex_to_text(text)
    except RecursionError:
        # pylatexenc parses groups and environments recursively: nested a few hundred deep, a value
        # gets the table-driven decoder, which reads it in one flat pass.
        return quick_latex_to_text(text)


def _part_text(part: str, strings: Mapping[str, str]) -> str:
    """One part of a value: enclosed text, a macro, a month, or a bare number."""
    if part[:1] in ("{", '"'):
        return _strip_enclosing(part)
    name = part.lower()
    if name in strings:
        return _strip_enclosing(strings[name])
    return MONTH_MACROS.get(name, part)
