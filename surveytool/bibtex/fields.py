"""Papers -> BibTeX field values: field order, escaping, title protection, dialects."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from functools import partial

from surveytool.bibtex.dialects import as_biblatex, as_bibtex, bibtex_type
from surveytool.bibtex.field_spans import field_spans
from surveytool.bibtex.filing_names import names_with
from surveytool.bibtex.format_options import STANDARD, BibFormat, format_fields
from surveytool.bibtex.linked_fields import address_value, linked_value
from surveytool.bibtex.names import label_safe
from surveytool.bibtex.order import sort_papers
from surveytool.bibtex.placeholders import PLACEHOLDER_KEY, is_placeholder_title, placeholder_title
from surveytool.bibtex.raw_specials import escaped_in, escaped_specials
from surveytool.bibtex.value_braces import balanced_value, braced_quotes
from surveytool.bibtex.values import (
    FILING_FIELDS,
    MONTH_MACROS,
    VERBATIM_FIELDS,
    marked_up_year,
    month_macro,
    safe_bibtex_value,
    string_block_value,
    uses_any,
    written_as_read,
    written_value_offences,
)
from surveytool.bibtex.writer import bibtex_pieces, entry_text
from surveytool.model import MapEach, Paper, RawBlock, frozen_mapping
from surveytool.text.addresses import URL_FIELDS, www_links_to_the_web
from surveytool.text.latex import (
    Misplaced,
    block_offences,
    encode_bibtex_title,
    encode_bibtex_value,
    inert_latex,
    without_control_chars,
)
from surveytool.text.title_case import is_one_literal, protect_title_words

DIALECTS = ("bibtex", "biblatex")

FIELD_ORDER = tuple(
    """
    author editor title booktitle journal journaltitle year date month volume number pages publisher
    address institution school organization howpublished series edition doi eprint archiveprefix
    eprinttype primaryclass url urldate ids key note abstract keywords
    """.split()
)
_ORDER_INDEX = {name: i for i, name in enumerate(FIELD_ORDER)}
#: Fields each entry type needs, per dialect ("a|b": either will do). A biblatex .bib read back
#: may still say year/journal, which biblatex accepts, so those count too.
REQUIRED_FIELDS = {
    "bibtex": {
        "article": ("author", "title", "journal", "year"),
        "inproceedings": ("author", "title", "booktitle", "year"),
        "incollection": ("author", "title", "booktitle", "publisher", "year"),
        "book": ("author|editor", "title", "publisher", "year"),
        "phdthesis": ("author", "title", "school", "year"),
        "mastersthesis": ("author", "title", "school", "year"),
        "techreport": ("author", "title", "institution", "year"),
        "misc": (),
    },
    "biblatex": {
        "article": ("author", "title", "journaltitle|journal", "date|year"),
        "inproceedings": ("author", "title", "booktitle", "date|year"),
        "incollection": ("author", "title", "booktitle", "date|year"),
        "book": ("author|editor", "title", "date|year"),
        "thesis": ("author", "title", "type", "institution|school", "date|year"),
        "phdthesis": ("author", "title", "institution|school", "date|year"),
        "report": ("author", "title", "type", "institution", "date|year"),
        "techreport": ("author", "title", "institution", "date|year"),
        "online": ("author|editor", "title", "date|year", "url"),
        "misc": ("author|editor", "title", "date|year"),
    },
}
_PAGE_RANGE = re.compile(r"^\s*([\w:.]+)\s*(?:-+|–|—)\s*([\w:.]+)\s*$")


def _month_value(text: str) -> str:
    macro = month_macro(text)
    return macro if macro else "{" + encode_bibtex_value(text) + "}"


_NOT_IN_A_YEAR = re.compile(r"[^0-9A-Za-z ./-]+")


def encode_field(name: str, text: str) -> str:
    """A plain-text value as an enclosed BibTeX value for field ``name``."""
    if name == "month":
        return _month_value(text)
    if name in VERBATIM_FIELDS:  # kept as they are, but a command from a service or a CSL-JSON file prints literally
        return safe_bibtex_value("{" + text.replace("{", "").replace("}", "") + "}")
    if name == "title" or name == "booktitle":
        return "{" + encode_bibtex_title(text) + "}"
    if name == "year":  # natbib reads it into its labels: plain words, whatever a service or a macro gave
        spelled = " ".join(text.replace("\u2013", "--").replace("\u2014", "---").split())  # 2019–2020 stays a range
        return "{" + _NOT_IN_A_YEAR.sub("", spelled) + "}"
    if name == "pages":
        match = _PAGE_RANGE.match(text)
        if match:
            return "{" + f"{match.group(1)}--{match.group(2)}" + "}"
    return "{" + encode_bibtex_value(text) + "}"


def _value(paper: Paper, name: str, text: str, macros: Mapping[str, str], original: str | None, dialect: str) -> str:
    if original is not None and written_as_read(original):  # most values: nothing in them to rewrite
        return label_safe(name, original, dialect) if dialect == "biblatex" else original  # biber's initials
    return label_safe(name, without_control_chars(_value_as_read(paper, name, text, macros, original)), dialect)


def _value_as_read(paper: Paper, name: str, text: str, macros: Mapping[str, str], original: str | None) -> str:
    # A value read from the user's .bib (``original``) is written as they wrote it, unless TeX would read
    # LaTeX outside the allowlist in it: then it prints literally. Stages that change a
    # field drop its original (see merge.merge_group, resolve.apply_candidate, dialects).
    if original is None:
        return encode_field(name, text)
    if isinstance(macros, WrittenMacros) and macros.spelled_out and uses_any(original, macros.spelled_out):
        # Its macro would read as another file's definition, or as nothing. A month as braced text: as a
        # month macro it would read as the user's redefinition again.
        return "{" + encode_bibtex_value(text) + "}" if name == "month" else encode_field(name, text)
    if name == "year" and marked_up_year(original):
        return encode_field(name, text)
    written = safe_bibtex_value(linked_value(name, original), macros)  # a style links url and doi: no command there
    if name == "title" and "\\" in written and is_one_literal(written):
        # A style lowers a title outside braces: a command with capitals (\LaTeX) would become one no package
        # defines (title-case-unprotected reports it; the user's file keeps it as written).
        written = protect_title_words(written, only_breaking=True)
    if escaped_in(name, written):
        written = escaped_specials(written)  # LaTeX stops at a raw & and hides what follows a raw % (unescaped-special)
    return written


def bibtex_fields(
    paper: Paper,
    tags_field: str = "sections",
    dialect: str = "bibtex",
    macros: Mapping[str, str] = frozen_mapping(),
    fmt: BibFormat = STANDARD,
) -> list[tuple[str, str]]:
    """The fields of ``paper`` in canonical order (or ``fmt``'s), as raw BibTeX values."""
    # Empty fields the user wrote are kept; empty ones from elsewhere are not written.
    values = {name: text for name, text in paper.fields.items() if text or name in paper.latex_fields}
    if not paper.resolved:
        values["title"] = placeholder_title(paper)
        # BibTeX labels an entry without authors by this field: placeholders that shared one label would
        # take natbib's extra letters past 'z' ({, |, }), which end the .bbl's braces.
        values.setdefault("key", f"{PLACEHOLDER_KEY} {paper.key}")
        values.setdefault("year", "n.d.")
        where = ", ".join(str(s) for s in paper.sources)
        what = "snippet" if paper.abstract else "title"
        values.setdefault(
            "note", f"surveytool: unresolved {what} from {where}; identify the paper and complete this entry"
        )
    elif values.get("key") == PLACEHOLDER_KEY and is_placeholder_title(values.get("title", "")):
        values["key"] = f"{PLACEHOLDER_KEY} {paper.key}"  # a placeholder written before labels were its own
    if paper.explicit_tags and tags_field.lower() in FILING_FIELDS and not paper.tags_at:
        # A reference manager's names (JabRef's groups) as written; the tagger's sections after them if none is one.
        placed = any(tag.explicit for tag in paper.tags)
        added = () if placed else paper.section_ids
        written = next((f.value(paper.raw) for f in field_spans(paper.raw) if f.name == tags_field.lower()), "")
        values[tags_field] = names_with(written, paper.explicit_tags, added)
    elif paper.explicit_tags:
        # The user's tags: variants written as ids, tags naming no section kept as they wrote them.
        given = [t.section for t in paper.tags if t.explicit] + list(paper.unknown_tags)
        values[tags_field] = ",".join(given or paper.explicit_tags)  # not tagged yet: as read
    elif paper.tags:
        values[tags_field] = ",".join(paper.section_ids)
    if dialect == "biblatex":
        origins = as_biblatex(values, paper.aliases)
    else:
        written_date = paper.latex_fields.get("date", "").strip()
        # date = pub: pub's text
        origins = as_bibtex(values, macros.get(written_date.lower(), written_date), paper.entry_type)
    rendered = []
    for name in sorted(values, key=lambda n: (_ORDER_INDEX.get(n, len(_ORDER_INDEX)), n)):
        origin = origins.get(name, name)
        original = paper.latex_fields.get(origin) if origin else None
        raw: str | None
        if name == tags_field:
            raw = safe_bibtex_value("{" + values[name] + "}")
        elif name in URL_FIELDS:
            raw = address_value(_value(paper, name, values[name], macros, original, dialect), values[name])
        else:
            raw = _value(paper, name, values[name], macros, original, dialect)
        if raw is not None:  # None: a link to a file or a program (url-scheme), which the user's file keeps
            rendered.append((name, raw))
    return rendered if fmt is STANDARD else format_fields(rendered, fmt)


def bibtex_entry(
    paper: Paper,
    tags_field: str = "sections",
    dialect: str = "bibtex",
    macros: Mapping[str, str] = frozen_mapping(),
    fmt: BibFormat = STANDARD,
) -> str:
    """One entry's text in the .bib (``bibliography_pieces`` adds a blank line after it).

    ``macros`` are the @string definitions written with it, as TeX will read the values that use them.
    """
    entry_type = paper.entry_type if dialect == "biblatex" else bibtex_type(paper.entry_type, paper.fields)
    return entry_text(entry_type, paper.key, bibtex_fields(paper, tags_field, dialect, macros, fmt), fmt)


def render_bibliography(
    papers: Iterable[Paper],
    blocks: Iterable[RawBlock] = (),
    *,
    tags_field: str = "sections",
    dialect: str = "bibtex",
    presorted: bool = False,
    fmt: BibFormat = STANDARD,
    macros: WrittenMacros | None = None,
) -> str:
    """The text of a .bib file: kept blocks first (macros before use), then entries (by key unless presorted).

    ``macros``: the @string table the entries are written against, when not that of ``blocks`` (entries added
    to a file that has its own, ``macros_added_to``)."""
    pieces = bibliography_pieces(
        papers, blocks, tags_field=tags_field, dialect=dialect, presorted=presorted, fmt=fmt, macros=macros
    )
    return "".join(pieces)


def bibliography_pieces(
    papers: Iterable[Paper],
    blocks: Iterable[RawBlock] = (),
    *,
    tags_field: str = "sections",
    dialect: str = "bibtex",
    presorted: bool = False,
    map_each: MapEach | None = None,
    fmt: BibFormat = STANDARD,
    macros: WrittenMacros | None = None,
) -> list[str]:
    """``render_bibliography``'s text as pieces to write one after the other (``writer.bibtex_pieces``).

    ``map_each`` formats the entries (a build shares the work with a forked child: ``parallel.map_each``).
    """
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}")
    ordered = list(papers) if presorted else sort_papers(papers)
    blocks = list(blocks)
    macros = written_macros(blocks) if macros is None else macros
    entry = partial(bibtex_entry, tags_field=tags_field, dialect=dialect, macros=macros, fmt=fmt)
    texts = map_each(entry, ordered) if map_each else [entry(p) for p in ordered]
    # Preambles, comments and broken blocks reach BibTeX too: the same allowlist applies to them.
    kept = [replace(b, text=_safe_block_text(b, entry.keywords["macros"])) for b in blocks]
    return bibtex_pieces(texts, kept)


class WrittenMacros(dict):
    """@string name -> value as BibTeX reads the written .bib (a later definition wins), and in ``spelled_out``
    the names whose definition there is not the one every entry using them was read with: defined again
    differently (by another source), or defined only by a source whose @strings are not written with the entry
    (``bib --in-place`` adds entries of other files). A value that uses one is written as its text."""

    def __init__(self) -> None:
        super().__init__()
        self.spelled_out: set[str] = set()


def written_macros(blocks: Iterable[RawBlock]) -> WrittenMacros:
    """The @string definitions of ``blocks``: values that use them are checked as TeX will read them."""
    return macros_of((block.key, string_block_value(block)) for block in blocks if block.kind == "string")


def macros_of(definitions: Iterable[tuple[str, str]]) -> WrittenMacros:
    """(name, raw value) definitions in the order the .bib holds them, as ``written_macros`` reads them."""
    macros = WrittenMacros()
    for key, value in definitions:
        name = key.lower()
        if (name in macros and macros[name] != value) or _redefines_month(name, value):
            macros.spelled_out.add(name)  # a month redefined changes every entry's month, its file's or not
        macros[name] = value
    return macros


def _redefines_month(name: str, value: str) -> bool:
    """Whether an @string gives a month macro another text than BibTeX's own (``aug = "August"`` does not)."""
    return name in MONTH_MACROS and value.strip().strip('{}"').strip().lower() != MONTH_MACROS[name].lower()


def macros_added_to(file_blocks: Iterable[RawBlock], other_blocks: Iterable[RawBlock]) -> WrittenMacros:
    """The @string table entries of other sources are written with when added to a file whose own blocks are
    ``file_blocks``: a macro the file does not define as their source does is spelled out in them."""
    macros = written_macros(file_blocks)
    theirs = written_macros(other_blocks)
    macros.spelled_out.update(name for name, value in theirs.items() if macros.get(name) != value)
    macros.spelled_out.update(theirs.spelled_out)
    return macros


_NEWCOMMAND = re.compile(r"\\newcommand(?![A-Za-z@])")


def _safe_block_text(block: RawBlock, macros: Mapping[str, str]) -> str:
    if block.kind == "preamble":
        value = block.text[len("@preamble{") : -1]
        # \providecommand for \newcommand: two sources' @preamble{"\newcommand{\noopsort}..."}, or a document that
        # defines it, stopped pdfLaTeX ("Command \noopsort already defined"); the first definition is kept.
        written = _NEWCOMMAND.sub(r"\\providecommand", safe_bibtex_value(value, macros, preamble=True))
        return block.text if written == value else "@preamble{" + written + "}"
    if block.kind in ("comment", "failed"):
        offences = block_offences(block.text)
        return block.text if not offences else inert_latex(block.text, offences, specials=False)
    if block.kind == "string":  # it prints through the values that use it, or another .bib's, and BibTeX counts braces
        value = string_block_value(block)
        if any(not isinstance(o, Misplaced) for o in written_value_offences(value, macros)[1]):
            return block.text[: -1 - len(value)] + safe_bibtex_value(value, macros) + "}"
        written = escaped_specials(braced_quotes(balanced_value(value)))  # the values that use it print it
        written = www_links_to_the_web(written)
        return block.text if written is value else block.text[: -1 - len(value)] + written + "}"
    return block.text
