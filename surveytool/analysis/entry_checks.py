"""Checks of the entries themselves: placeholders, missing fields, titles, keys."""

from __future__ import annotations

import re
from collections.abc import Container, Iterable

from surveytool.analysis.check_registry import CheckContext, register
from surveytool.analysis.preprints import arxiv_id
from surveytool.bibtex.crossref import LOOP_SHOWN, by_key, inheritance_loops, inherited_fields, named_parents
from surveytool.bibtex.field_spans import field_location, written_field
from surveytool.bibtex.field_syntax import unseen_in_key
from surveytool.bibtex.fields import REQUIRED_FIELDS
from surveytool.bibtex.placeholders import is_placeholder_key, is_placeholder_title
from surveytool.bibtex.values import MONTH_MACROS, month_macro
from surveytool.model import Finding, Origin, Paper, Severity, month_of_date, year_of_date
from surveytool.text.title_case import breaks_once_lowered, split_enclosing, unprotected


@register(
    "unresolved-entry",
    Severity.WARNING,
    "an entry without real metadata",
    "A snippet or id that no catalog or service could match to a paper stays a placeholder (title "
    "'Unresolved snippet: ...', key field 'Unresolved <its key>'), also after it was written to a .bib and read "
    "back. Add its DOI or arXiv id, or use --online.",
)
def _placeholders(context: CheckContext) -> Iterable[Finding]:
    for paper in context.papers:
        if paper.origin is Origin.BIBTEX and (
            is_placeholder_key(paper.fields.get("key", "")) or is_placeholder_title(paper.title or "")
        ):
            yield Finding(
                "unresolved-entry",
                Severity.WARNING,
                f"'{paper.key}' is a placeholder for an unidentified paper",
                min(paper.sources),
                "identify the paper and complete the entry",
                paper.key,
            )


_FOUR_DIGITS = re.compile(r"\d{4}")
_AGREE = "keep the right one, or make them agree"

#: What biblatex calls the BibTeX fields it also reads (a Zotero or JabRef biblatex export writes these).
_BIBLATEX_NAMES = {"journal": ("journaltitle",), "year": ("date",), "school": ("institution",)}


@register(
    "missing-field",
    Severity.WARNING,
    "an entry without a field its type requires",
    "Required fields per entry type, for BibTeX (article: author, title, journal, year; inproceedings: "
    "author, title, booktitle, year; ...) or biblatex with --dialect biblatex (journaltitle, date). "
    "Unresolved placeholders are reported as unresolved-entry instead. A field an entry gets from its crossref "
    "or xdata parent counts as its own (and a book or proceedings parent's title as its booktitle).",
)
def _missing(context: CheckContext) -> Iterable[Finding]:
    required = REQUIRED_FIELDS[context.dialect]
    index = None
    for paper in context.papers:
        if not paper.resolved:
            continue
        needed = required.get(paper.entry_type, ())
        lent: Container[str] = ()
        if "crossref" in paper.fields or "xdata" in paper.fields:
            index = index if index is not None else by_key(context.papers)
            lent = inherited_fields(paper, index)
        absent = [
            n.replace("|", " or ") for n in needed if not any(paper.fields.get(a) or a in lent for a in n.split("|"))
        ]
        if absent:
            biblatex = [b for a in absent for b in _BIBLATEX_NAMES.get(a, ()) if paper.fields.get(b)]
            yield Finding(
                "missing-field",
                Severity.WARNING,
                f"@{paper.entry_type} '{paper.key}' has no {', '.join(absent)}"
                + (f" (it has biblatex's {', '.join(biblatex)}, which BibTeX styles do not read)" if biblatex else ""),
                min(paper.sources),
                _biblatex_hint(paper, biblatex) if biblatex else _type_hint(paper, absent),
                paper.key,
            )


def _type_hint(paper: Paper, absent: list[str]) -> str:
    """What to do about the ``absent`` fields: the type the entry's other fields say it is, where they say one."""
    if "journal" in absent and paper.fields.get("booktitle"):  # Google Scholar's @article for a conference paper
        return "it has a booktitle: make it @inproceedings, or @incollection for a chapter of a book"
    if "booktitle" in absent and paper.fields.get("journal"):
        return "it has a journal: make it @article"
    if "journal" in absent and arxiv_id(paper):  # Zotero's @article for an arXiv preprint
        return "an arXiv preprint: make it @misc, or let surveytool complete find its published version"
    return "complete the entry, or change its type"


def _biblatex_hint(paper: Paper, biblatex: list[str]) -> str:
    if "date" in biblatex and paper.year is None:  # "-0044", "19XX", "../2021": no year bib -o could write
        return f"check with --dialect biblatex if you use biblatex; else add the year its date '{paper.fields['date']}' means"
    return "check with --dialect biblatex if you use biblatex; surveytool bib -o writes them as BibTeX's fields"


@register(
    "date-conflict",
    Severity.WARNING,
    "a year or month that says another date than the entry's date",
    "An entry with biblatex's date beside BibTeX's year and month (a Zotero export merged with a co-author's copy) "
    "is dated by its date in biblatex and by its year and month in BibTeX and here: when they disagree, the two "
    "print different dates. Keep the right one, or make them agree.",
)
def _date_conflict(context: CheckContext) -> Iterable[Finding]:
    for paper in context.papers:
        date = paper.fields.get("date", "").strip() if paper.origin is Origin.BIBTEX else ""
        year = paper.fields.get("year", "").strip()
        said_year, said_month = (year_of_date(date), month_of_date(date)) if date and year else (None, None)
        month = month_macro(paper.fields.get("month", "")) if said_month else None
        if said_year and _FOUR_DIGITS.fullmatch(year) and said_year != year:
            field, said = "year", year
        elif month and list(MONTH_MACROS).index(month) + 1 != said_month:
            field, said = "month", month
        else:
            continue
        said = f"{written_field(paper.raw, field)} {said}"
        printed = f"BibTeX prints the {field}, biblatex the date"
        message = f"{said} of '{paper.key}' disagrees with its date {date}: {printed}"
        yield Finding("date-conflict", Severity.WARNING, message, field_location(paper, field), _AGREE, paper.key)


@register(
    "crossref-undefined",
    Severity.WARNING,
    "a crossref or xdata that names no entry",
    "BibTeX ('a bad cross reference') and biber take nothing from a parent that is not in the bibliography, "
    "so the entry lacks what it was to inherit (and missing-field says so). Check the key, or add the parent "
    "to your sources. Keys are matched as BibTeX matches them, in any case. A biblatex ids alias counts with "
    "--dialect biblatex; BibTeX knows no ids, so there a crossref must name the parent's key.",
)
def _crossref_undefined(context: CheckContext) -> Iterable[Finding]:
    index = None
    for paper in context.papers:
        named = named_parents(paper) if paper.origin is Origin.BIBTEX else []
        if named:
            index = index if index is not None else by_key(context.papers)
        for field, key in named:
            parent = index.get(key.lower()) if index is not None else None
            if parent is None:
                said, hint = "which is not in the bibliography", "check the key, or add the entry it names"
            elif context.dialect == "bibtex" and field == "crossref" and parent.key.lower() != key.lower():
                said = f"an ids alias of '{parent.key}', which BibTeX does not read (biber does)"
                hint = f"write crossref = {{{parent.key}}}, or use --dialect biblatex with biber"
            else:
                continue
            yield Finding(
                "crossref-undefined",
                Severity.WARNING,
                f"{written_field(paper.raw, field)} of '{paper.key}' names '{key}', {said}",
                field_location(paper, field),
                hint,
                paper.key,
            )


@register(
    "crossref-loop",
    Severity.ERROR,
    "entries that inherit from one another in a loop",
    "A crossref or xdata that leads back to its own entry: A crossref B and B crossref A, an entry naming itself, "
    "or a longer loop (keys matched in any case, as by crossref-undefined). biber stops with 'Circular "
    "inheritance' ('Circular XDATA inheritance'); BibTeX warns that you've nested cross references and gives the "
    "entries nothing of one another. One finding per loop, at the entry of it that is read first, names the loop "
    "in order. Remove the crossref or xdata that points back: a loop has no volume for its entries to belong to.",
)
def _crossref_loop(context: CheckContext) -> Iterable[Finding]:
    for entries, size in inheritance_loops([p for p in context.papers if p.origin is Origin.BIBTEX]):
        first, field = entries[0]
        fields = {f for _, f in entries}
        if size == 1:
            written = written_field(first.raw, field)
            message = f"{written} of '{first.key}' names the entry itself ('{_written(first, field, first)}')"
        else:
            keys = [f"'{paper.key}'" for paper, _ in entries] + (["..."] if size > LOOP_SHOWN else [])
            said = " and ".join(sorted(fields))
            message = (
                f"{said} loop of {size} entries: {' -> '.join([*keys, repr(first.key)])}, each naming the next "
                f"in its {' or '.join(sorted(fields))}"
            )
        hint = "remove the crossref or xdata that points back, so that the chain ends"
        yield Finding("crossref-loop", Severity.ERROR, message, field_location(first, field), hint, first.key)


def _written(paper: Paper, field: str, parent: Paper) -> str:
    """The name ``paper``'s ``field`` gives ``parent`` by, as written."""
    names = {name.lower() for name in (parent.key, *parent.aliases, *parent.fields.get("ids", "").split(","))}
    return next((key for f, key in named_parents(paper) if f == field and key.lower() in names), parent.key)


#: Types whose title BibTeX's standard styles print as written (their format.btitle has no change.case$).
TITLE_AS_WRITTEN = frozenset({"book", "inbook", "manual", "phdthesis", "proceedings"})


def title_is_lowered(paper: Paper) -> bool:
    """Whether a style that lowercases titles lowercases ``paper``'s: not a book's, a manual's, a thesis's or
    proceedings' (a type a style does not know is printed as a @misc, whose title it lowers)."""
    return paper.entry_type.lower() not in TITLE_AS_WRITTEN


@register(
    "title-case-unprotected",
    Severity.WARNING,
    "capitals a BibTeX style would lowercase",
    "Styles that lowercase titles (BibTeX's change.case$, in plain, plainnat, abbrv, alpha, unsrt, ...) lower "
    "everything outside braces: 'GShard' becomes 'gshard', a command's name too ('\\LaTeX' becomes '\\latex', "
    "which no package defines, so the document stops), and math ('$O(N)$' becomes '$o(n)$'). Words with capitals "
    "after their first letter need braces, {GShard}, {GPUs}; a command with capitals in its name needs them around "
    "it, {\\LaTeX}, and a formula with capitals around the whole formula, {$O(N \\log N)$}. --fix adds them "
    "there only. The .bib surveytool writes (build, bib -o) braces such commands itself. Not reported for a "
    "@book, @inbook, @manual, @phdthesis or @proceedings: those styles print its title as written.",
    fixable=True,
)
def _title_case(context: CheckContext) -> Iterable[Finding]:
    for paper in context.papers:
        raw = paper.latex_fields.get("title")
        if raw and title_is_lowered(paper):
            spots = unprotected(split_enclosing(raw)[1])
            if spots:
                breaking = next((text for _start, _end, text in spots if breaks_once_lowered(text)), None)
                lowered = f"; lowered, {breaking} reads as {breaking.lower()}" if breaking else ""
                listed = ", ".join(text for _start, _end, text in spots)
                yield Finding(
                    "title-case-unprotected",
                    Severity.WARNING,
                    f"{written_field(paper.raw, 'title')} of '{paper.key}' has unprotected capitals: {listed}{lowered}",
                    field_location(paper, "title"),
                    "surveytool check --fix adds braces around them",
                    paper.key,
                )


@register(
    "key-not-ascii",
    Severity.ERROR,
    "a key BibTeX cannot match when pdfLaTeX cites it",
    "pdfLaTeX writes a key whose first character is not ASCII ('é2020') to the .aux with that character in "
    "braces and in the font's encoding, so BibTeX stops at the braces ('Stuff after \"}\"') and the citation "
    "stays undefined. A non-ASCII character later in a key is written as it is. Biblatex with biber, and "
    "XeLaTeX or LuaLaTeX, read such a key; with --dialect biblatex it is not reported. A first character no one "
    "sees (a zero-width space) is reported as unusable-key alone.",
)
def _key_not_ascii(context: CheckContext) -> Iterable[Finding]:
    if context.dialect != "bibtex":
        return
    for paper in context.papers:
        # A first character no one sees is unusable-key's (delete it), where the reader reads the key.
        if (
            paper.key
            and not paper.key[0].isascii()
            and not (paper.origin is Origin.BIBTEX and unseen_in_key(paper.key, 0))
        ):
            yield Finding(
                "key-not-ascii",
                Severity.ERROR,
                f"entry key '{paper.key}' starts with '{paper.key[0]}': a \\cite of it with pdfLaTeX and BibTeX "
                "stays undefined",
                min(paper.sources),
                "rename the key to start with an ASCII letter, in the .bib and where you cite it; "
                "or use biblatex and biber: --dialect biblatex",
                paper.key,
            )
