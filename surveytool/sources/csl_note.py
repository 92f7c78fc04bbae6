"""The note of a CSL-JSON item: its text, and the variables Zotero, Better BibTeX and citeproc-js keep in it.

Zotero's Extra field (exported as the note) holds variables an item type has no field for, a line each
(``DOI: 10.1000/abc``, ``original-date: 1900``), or inline (``{:issued: 2020}``); Better BibTeX adds its own
(``Citation Key: x``, ``tex.ids: y``). A reader takes only names it knows as variables: every other line
(``TODO: check pages``, ``see: appendix B``) is the user's text and stays in the note.
"""

from __future__ import annotations

import re

from surveytool.sources.csl_rich_text import rich_text

# The CSL 1.0.2 variables (standard, number, date and name), and "type", which citeproc-js also reads from a note.
_VARIABLES = frozenset(
    """abstract annote archive archive_collection archive_location archive-place authority call-number chapter-number
    citation-key citation-label citation-number collection-number collection-title container-title
    container-title-short dimensions division DOI edition event event-place event-title first-reference-note-number
    genre ISBN ISSN issue jurisdiction keyword language license locator medium note number number-of-pages
    number-of-volumes original-publisher original-publisher-place original-title page page-first part-number
    part-title PMCID PMID printing-number publisher publisher-place references reviewed-genre reviewed-title scale
    section source status supplement-number title title-short URL version volume volume-title volume-title-short
    year-suffix accessed available-date event-date issued original-date submitted author chair collection-editor
    compiler composer container-author contributor curator director editor editorial-director editor-translator
    executive-producer guest host illustrator interviewer narrator organizer original-author performer producer
    recipient reviewed-author script-writer series-creator translator type""".split()
)
# The variables a .bib keeps as fields of the same meaning: taken from the note when the item lacks them.
_FIELDS = {"DOI": "doi", "URL": "url", "ISBN": "isbn", "ISSN": "issn"}
# A line "name: value" (a URL's "https://" is none) and an inline "{:name: value}"; Better BibTeX's own names too.
_LINE = re.compile(r"^(tex\.[-\w.]+|Citation Key|[-_A-Za-z]+):(?!//)[ \t]*(.*)\n?", re.MULTILINE)
_INLINE = re.compile(r"\{:([-_A-Za-z]+):[ \t]*([^}]*)\}")


def read_note(note: str) -> tuple[str, dict[str, str]]:
    """The note's text as a reader sees it, the variables in it left out, and the .bib fields they give."""
    fields: dict[str, str] = {}

    def variable(match: re.Match[str]) -> str:
        name, value = match.group(1), match.group(2).strip()
        if name.startswith("tex.") or name == "Citation Key":
            return ""
        if name not in _VARIABLES:
            return match.group()  # the user's own words: "TODO: check pages"
        if name in _FIELDS and value:
            fields.setdefault(_FIELDS[name], value)
        return ""

    text = _INLINE.sub(variable, _LINE.sub(variable, note))
    return rich_text(text).text.strip(), fields
