"""CSL-JSON rich text (the HTML-like tags citeproc reads in titles, and in every variable but PLAIN_VARIABLES)
-> plain text and BibTeX LaTeX.

Only the tags the CSL specification lists are markup: ``<i>``, ``<b>``, ``<sub>``, ``<sup>``,
``<span class="nocase">`` and ``<span style="font-variant:small-caps;">``. Any other
text, an unknown or unbalanced tag included, stays text and is escaped like any value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from surveytool.text.latex import encode_bibtex_value
from surveytool.text.title_case import protect_title_words

# The CSL variables citeproc reads as plain strings (pandoc's citeproc: DOI, ISBN, ISSN, URL), where a tag or a nocase
# span is printed as written. Every other text variable is rich text to citeproc-js and pandoc alike (a number too,
# when it is not one): export -f csl-json sends a .bib's text there inert, and a reader takes its text.
PLAIN_VARIABLES = frozenset({"DOI", "URL", "ISBN", "ISSN"})
_TAG = re.compile(r"<(/?)(i|b|sub|sup|span|sc)((?:\s+[^<>]*)?)>", re.IGNORECASE)
_COMMANDS = {
    "i": r"\textit",
    "b": r"\textbf",
    "sub": r"\textsubscript",
    "sup": r"\textsuperscript",
    "sc": r"\textsc",
    "small-caps": r"\textsc",
}


@dataclass(frozen=True)
class RichText:
    text: str  # what a reader sees, tags removed
    latex: str  # a BibTeX value body (no enclosing braces) with the markup as allowed LaTeX commands


def _opening(name: str, attributes: str) -> str | None:
    """The LaTeX that opens this tag ("{" alone protects case), or None when it is not CSL markup."""
    if name != "span":
        return _COMMANDS[name] + "{" if not attributes.strip() else None
    attributes = attributes.lower().replace(" ", "")
    if attributes in ('class="nocase"', "class='nocase'"):
        return "{"
    if "font-variant:small-caps" in attributes:
        return _COMMANDS["small-caps"] + "{"
    return None


def _balanced_tags(value: str) -> list[tuple[re.Match, str | None]]:
    """Each tag match with its LaTeX opening (None for a closing tag); tags without a partner are left out."""
    stack: list[tuple[int, str]] = []  # (index in found, tag name)
    found: list[tuple[re.Match, str | None]] = []
    paired: set[int] = set()
    for match in _TAG.finditer(value):
        closing, name = match.group(1), match.group(2).lower()
        if not closing:
            opening = _opening(name, match.group(3))
            if opening is not None:
                stack.append((len(found), name))
                found.append((match, opening))
            continue
        if stack and stack[-1][1] == name:
            start, _ = stack.pop()
            paired.update((start, len(found)))
            found.append((match, None))
    return [tag for index, tag in enumerate(found) if index in paired]


def rich_text(value: str, title: bool = False) -> RichText:
    """``value`` as plain text and as LaTeX; with ``title``, capitals a style would lowercase are protected."""
    text_parts: list[str] = []
    latex_parts: list[str] = []
    last = 0
    opened: list[str] = []
    for match, opening in _balanced_tags(value):
        run = value[last : match.start()]
        text_parts.append(run)
        latex_parts.append(_encoded(run, title and "{" not in opened))  # a nocase span is protected whole
        last = match.end()
        if opening is not None:
            opened.append(opening)
            latex_parts.append(opening)
        elif opened.pop() == "{" and latex_parts[-2] == "{" and not any(c.isalpha() for c in run):
            # A nocase span of no letters (how export -f csl-json sends a "<" that would read as a tag) has no case
            # to protect: no braces around it.
            latex_parts.pop(-2)
        else:
            latex_parts.append("}")
    text_parts.append(value[last:])
    latex_parts.append(_encoded(value[last:], title))
    return RichText("".join(text_parts), "".join(latex_parts))


def _encoded(run: str, protect: bool) -> str:
    encoded = encode_bibtex_value(run)
    if not protect or not encoded.strip():
        return encoded
    core = encoded.strip()
    start = encoded.index(core)
    return encoded[:start] + protect_title_words(core) + encoded[start + len(core) :]
