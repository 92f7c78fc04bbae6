"""Checks of the fields of a user's .bib entries: DOIs, years, months, @string macros, HTML, raw & and %,
empty fields, names.

They read the values as written (``Paper.latex_fields``), and each finding names the
line of the field it is about. What ``check --fix`` may repair is decided here
(``doi_prefix``, ``name_lists.stray_and_removals``, ...) and done by ``output/field_fixes.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from surveytool.analysis.check_registry import CheckContext, register
from surveytool.analysis.name_lists import might_have_stray_and, stray_and_removals
from surveytool.bibtex.field_spans import field_location, field_spans, literal_inner, written_field
from surveytool.bibtex.placeholders import is_placeholder_title
from surveytool.bibtex.raw_specials import escaped_in, raw_specials, spelled
from surveytool.bibtex.values import MONTH_MACROS, macro_names, marked_up_year, string_block_value
from surveytool.model import Finding, Origin, Paper, Severity, SourceLocation
from surveytool.text.identifiers import DOI_PREFIX

_DOI = re.compile(r"10\.\d{4,9}(?:\.\d+)*/\S+")
_MEANT = "delete the value you do not mean"
EMPTY_VALUE = re.compile(r"\{\s*\}|\"\s*\"")
# Quick tests of an entry's whole text, passed by every entry with an empty value, or with a bare value
# other than a number (a macro, or a "#" join); they save a loop over the fields of the rest.
_EMPTY_IN_TEXT = re.compile(r"=\s*(?:\{\s*\}|\"\s*\")")
_BARE_VALUE = re.compile(r"=\s*(?:[^\s{\"\d]|\d+[^\d\s,})])|#")
# An entity outside LaTeX (``\&`` is LaTeX's ampersand), or a tag of the markup that reaches titles
# from web pages and Zotero; a "<" in math (``$a<b$``) is no tag.
_ENTITY = re.compile(r"(?<!\\)&(?:[a-z][a-z0-9]{1,7}|#\d{1,7}|#x[0-9a-f]{1,6});", re.IGNORECASE)
_TAG = re.compile(
    r"</?(?:i|b|u|em|strong|sub|sup|span|p|br|div|a|sc|tt|code|small|font)"
    r"(?:\s+[a-z-]+=(?:\"[^\"]*\"|'[^']*'))*\s*/?>",
    re.IGNORECASE,
)
AMP_ENTITY = re.compile(r"(?<!\\)&amp;", re.IGNORECASE)
#: Fields whose text is an address or a path: an ``&amp;`` there may be meant.
VERBATIM_FIELDS = frozenset({"url", "doi", "file", "pdf", "eprint", "urldate", "ids", "crossref", "xdata"})
NAME_FIELDS = ("author", "editor", "bookauthor", "translator")
_MONTH_WORDS = frozenset([*MONTH_MACROS, *(m.lower() for m in MONTH_MACROS.values()), "sept"])
#: Macros the standard BibTeX styles (plain, abbrv, alpha, unsrt) define besides the months.
_STYLE_MACROS = frozenset(
    "acmcs acta cacm ibmjrd ibmsj ieeese ieeetc ieeetcad ipl jacm jcss scp sicomp tcs tocs tods tog toms toois "
    "toplas".split()
)


def _entries(context: CheckContext) -> Iterator[Paper]:
    return (p for p in context.papers if p.origin is Origin.BIBTEX and p.raw)


def field_finding(check: str, severity: Severity, message: str, paper: Paper, field: str, hint: str) -> Finding:
    """A finding on the line of ``field``, whose message names it as the entry writes it (``written_field``); a hint
    promising --fix says --fix leaves a field named twice alone (output/field_fixes.py): the value BibTeX reads
    could change."""
    if "--fix" in hint and sum(span.name == field for span in field_spans(paper.raw)) > 1:
        named = written_field(paper.raw, field)
        hint = f"surveytool check --fix leaves {named} alone, named twice (duplicate-field): {_MEANT}"
    return Finding(check, severity, message, field_location(paper, field), hint, paper.key)


def doi_prefix(inner: str) -> str | None:
    """The link or ``doi:`` before a DOI in a doi value, when what follows it is a DOI."""
    prefix = DOI_PREFIX.match(inner.strip())
    return prefix.group() if prefix and _DOI.fullmatch(inner.strip()[prefix.end() :]) else None


@register(
    "doi-malformed",
    Severity.WARNING,
    "a doi field that is not a DOI",
    "A DOI is 10.NNNN/suffix, alone: styles and biblatex add the https://doi.org/ link themselves, so a link "
    "in the field prints twice and breaks. --fix removes an https://doi.org/ (dx.doi.org, doi.acm.org) or doi: "
    "before a DOI.",
    fixable=True,
)
def _doi(context: CheckContext) -> Iterable[Finding]:
    for paper in _entries(context):
        value = paper.latex_fields.get("doi", "")
        literal = literal_inner(value)
        doi = (literal[1] if literal else value).strip()
        if doi and not _DOI.fullmatch(doi):
            fixable = doi_prefix(doi) is not None
            hint = (
                "surveytool check --fix removes the link before it" if fixable else "write the DOI alone: 10.NNNN/..."
            )
            message = f"{written_field(paper.raw, 'doi')} of '{paper.key}' is not a DOI: '{doi}'"
            yield field_finding("doi-malformed", Severity.WARNING, message, paper, "doi", hint)


@register(
    "year-malformed",
    Severity.WARNING,
    "a year that is not four digits",
    "Styles sort and label by the year; '20x9', '2020a', '2019-2020' or '(2020)' sort wrongly or break the label, "
    "and LaTeX in it (\\emph{2020}) stops natbib's labels: the .bib surveytool writes has its text alone. "
    "Write the four digits; say 'in press' in a note (biblatex: pubstate).",
)
def _year(context: CheckContext) -> Iterable[Finding]:
    for paper in _entries(context):
        year = paper.fields.get("year", "").strip()
        placeholder = year == "n.d." and is_placeholder_title(paper.title or "")  # unresolved-entry tells it
        raw = paper.latex_fields.get("year", "")
        if raw and marked_up_year(raw):  # natbib's labels stop LaTeX on \emph{2020}
            shown = " ".join(raw.split())  # a finding is one line
            said = f"holds LaTeX: {shown}; the .bib bib -o and build write has its text alone"
        elif raw and year and not placeholder and not re.fullmatch(r"\d{4}", year):
            said = f"is not a four-digit year: '{year}'"
        else:
            continue
        message = f"{written_field(paper.raw, 'year')} of '{paper.key}' {said}"
        yield field_finding("year-malformed", Severity.WARNING, message, paper, "year", "write the year as four digits")


@register(
    "month-malformed",
    Severity.WARNING,
    "a month that is not a month",
    "A month is a macro (jan ... dec, unbraced), a number 1-12, or a month's name; 'jun # \"~15\"' is fine. "
    "Anything else ('Juny', '13', '2020-05') is printed as it is and sorts nowhere. With --dialect biblatex a "
    "name in braces ({June}) is reported too: biber reads only a number or a macro.",
)
def _month(context: CheckContext) -> Iterable[Finding]:
    for paper in _entries(context):
        raw = paper.latex_fields.get("month", "")
        month = paper.fields.get("month", "").strip()
        if not month or any(name in MONTH_MACROS for name in macro_names(raw)):
            continue
        word = month.lower().rstrip(".")
        number = word.isdigit() and 1 <= int(word) <= 12
        if not number and (word not in _MONTH_WORDS or context.dialect == "biblatex"):
            what = "a month" if word not in _MONTH_WORDS else "a month biber reads"
            yield field_finding(
                "month-malformed",
                Severity.WARNING,
                f"{written_field(paper.raw, 'month')} of '{paper.key}' is not {what}: '{month}'",
                paper,
                "month",
                "write a macro (month = may) or a number 1-12",
            )


@register(
    "undefined-string",
    Severity.ERROR,
    "a field that uses an @string macro no source defines, or one its file defines only further down",
    "A bare word in a value (publisher = acmpress) is an @string macro. BibTeX prints an undefined one, or one "
    "defined only below the entry in its file (BibTeX reads in order), as nothing, so the field's text is lost. Months (jan ... dec) are predefined, and so are the journal macros "
    "of the standard BibTeX styles (with --dialect bibtex). Define the macro, or brace the text.",
)
def _undefined_strings(context: CheckContext) -> Iterable[Finding]:
    known = {b.key.lower() for b in context.blocks if b.key} | set(MONTH_MACROS)
    if context.dialect == "bibtex":
        known |= _STYLE_MACROS
    # BibTeX reads a file in order: a macro that only that file defines, below the entry, is undefined there.
    defined: dict[str, list[SourceLocation]] = {}
    for block in context.blocks:
        if block.kind == "string" and block.key:
            defined.setdefault(block.key.lower(), []).append(block.location)
    for paper in _entries(context):
        if not _BARE_VALUE.search(paper.raw):
            continue
        start = min(paper.sources)
        for field, value in paper.latex_fields.items():
            if value[:1] in '{"' and "#" not in value:
                continue  # one literal: no macro (the common case, without splitting)
            for name in macro_names(value):
                later = defined.get(name, [])
                if later and all(at.path == start.path and at.line > start.line for at in later):
                    said = f"uses @string '{name}' above its definition"
                    hint = f"BibTeX reads the file in order and prints it as nothing: move the @string (line {later[0].line}) above"
                elif name in known:
                    continue
                elif name[:1].isdigit():
                    said = f"is the bare '{name}': BibTeX reads a number or a macro"
                    hint = "define it, or brace the text: {...}"
                else:
                    said = f"uses @string '{name}', which no source defines"
                    hint = "define it, or brace the text: {...}"
                message = f"field '{written_field(paper.raw, field)}' of '{paper.key}' {said}"
                yield field_finding("undefined-string", Severity.ERROR, message, paper, field, hint)


@register(
    "html-in-field",
    Severity.WARNING,
    "HTML entities or tags in a field",
    "Titles copied from web pages or exported by Zotero carry '&amp;', '&#39;', '<i>...</i>' or '<sub>': LaTeX "
    "prints them literally (or stops at the '&'). Write LaTeX instead (\\&, \\emph{...}, $_{...}$). --fix writes "
    "'&amp;' as '\\&'; the rest needs your judgement. URLs, DOIs and file paths are not checked.",
    fixable=True,
)
def _html(context: CheckContext) -> Iterable[Finding]:
    for paper, field, value in _fields_with(context, "&<"):
        if field in VERBATIM_FIELDS:
            continue
        found = list(dict.fromkeys(m.group() for m in (*_ENTITY.finditer(value), *_TAG.finditer(value))))
        if found:
            only_amp = all(AMP_ENTITY.fullmatch(f) for f in found)
            yield field_finding(
                "html-in-field",
                Severity.WARNING,
                f"field '{written_field(paper.raw, field)}' of '{paper.key}' has HTML: {' '.join(found[:4])}",
                paper,
                field,
                "surveytool check --fix writes &amp; as \\&"
                if only_amp
                else "write it as LaTeX: \\& for &amp;, \\emph{...} for <i>...</i>",
            )


def _fields_with(context: CheckContext, chars: str) -> Iterator[tuple[Paper, str, str]]:
    """(entry, field, value) of each field of the user's entries whose value holds one of ``chars``."""
    for paper in _entries(context):
        if any(char in paper.raw for char in chars):
            for field, value in paper.latex_fields.items():
                if any(char in value for char in chars):
                    yield paper, field, value


def unescaped_specials(value: str) -> list[int]:
    """Where a raw value holds an ``&``, ``%``, ``#`` or ``_`` LaTeX would not print (``raw_specials``), but in an
    HTML entity (``&amp;``, ``&#39;``), which html-in-field reports."""
    entities = {i for m in _ENTITY.finditer(value) for i in range(m.start(), m.end())} if "&" in value else ()
    return [i for i in raw_specials(value) if i not in entities]


_SPECIAL_EFFECTS = {
    "&": "LaTeX stops at the '&' (an alignment tab outside a table)",
    "%": "LaTeX reads the '%' as a comment and drops the rest of the line",
    "#": "LaTeX stops at the '#' (a macro's parameter)",
    "_": "LaTeX stops at the '_' outside math (a subscript)",
    "^": "LaTeX stops at the '^' outside math (a superscript)",
    "$": "LaTeX stops at a '$' whose math does not close in its group",
}


def _specials_said(what: str, value: str, found: list[int], fix: bool) -> tuple[str, str]:
    """The message and the hint of an unescaped-special finding about ``what``."""
    chars = sorted({value[i] for i in found})
    effects = "; ".join(_SPECIAL_EFFECTS[c] for c in chars)
    fixed = " instead; surveytool check --fix does this" if fix else " instead"
    hint = "write " + " and ".join(spelled(c) for c in chars) + fixed
    return f"{what} has a raw {' and '.join(repr(c) for c in chars)}: {effects}", hint


_UNPRINTED = frozenset({"abstract"})  # by plain, plainnat, abbrv, alpha or unsrt: only other styles stop there


@register(
    "unescaped-special",
    Severity.ERROR,
    "a raw &, %, #, _, ^ or $ in a field or @string",
    "BibTeX copies a value to the bibliography as it is, and LaTeX reads a raw & as an alignment tab (outside a "
    "table the document stops: 'Misplaced alignment tab character &'), a raw % as a comment that hides the "
    "rest of the line (title = {50% faster training} prints '50'), a raw # as a macro's parameter (C# stops the "
    "document), a raw _ or ^ outside math as a script ('Missing $ inserted') and a $ whose math does not close in "
    "its group as math to the end. Write \\&, \\%, \\#, \\_, \\^{} and \\$. Fields that hold addresses or "
    "identifiers (url, doi, eprint, file, ...), math, and the # joining a value's pieces are not checked: there the "
    "characters are meant; in the argument of \\url, \\href (its address), \\doi and \\cite only a % or # is (it "
    "ends or breaks the argument). The .bib surveytool writes (build, bib -o) has the backslashes; check and bib "
    "--in-place leave your file as it is; --fix writes them. In an abstract, which no standard style prints, it "
    "is a warning.",
    fixable=True,
)
def _unescaped(context: CheckContext) -> Iterable[Finding]:
    for paper, field, value in _fields_with(context, "&%#_^$"):
        found = unescaped_specials(value) if escaped_in(field, value) else []
        if found:
            written = written_field(paper.raw, field)
            message, hint = _specials_said(f"field '{written}' of '{paper.key}'", value, found, True)
            severity = Severity.WARNING if field in _UNPRINTED else Severity.ERROR  # an ACM abstract's 50% and &
            yield field_finding("unescaped-special", severity, message, paper, field, hint)
    for block in context.blocks:
        if block.kind == "string" and (found := unescaped_specials(value := string_block_value(block))):
            message, hint = _specials_said(f"@string '{block.key}'", value, found, False)
            yield Finding("unescaped-special", Severity.ERROR, message, block.location, hint)


@register(
    "empty-field",
    Severity.WARNING,
    "a field with an empty value",
    "'note = {}' says nothing, and an empty required field hides that it is missing. --fix removes the field "
    "(its whole line when it has one to itself), but not one the entry names twice (duplicate-field).",
    fixable=True,
)
def _empty(context: CheckContext) -> Iterable[Finding]:
    for paper in _entries(context):
        if not _EMPTY_IN_TEXT.search(paper.raw):
            continue
        for field, value in paper.latex_fields.items():
            if EMPTY_VALUE.fullmatch(value):
                message = f"field '{written_field(paper.raw, field)}' of '{paper.key}' is empty"
                hint = "surveytool check --fix removes it"
                yield field_finding("empty-field", Severity.WARNING, message, paper, field, hint)


@register(
    "stray-and",
    Severity.WARNING,
    "'and and', or an 'and' at the start or end of a name list",
    "BibTeX splits author and editor lists at each 'and'; a doubled, leading or trailing one makes an empty "
    "name, printed as a stray comma or 'and'. --fix removes the extra 'and'.",
    fixable=True,
)
def _stray_and(context: CheckContext) -> Iterable[Finding]:
    for paper in _entries(context):
        for field in NAME_FIELDS:
            value = paper.latex_fields.get(field, "")
            literal = literal_inner(value) if might_have_stray_and(value) else None
            if literal is None:
                continue
            problems, _cuts = stray_and_removals(literal[1])
            if problems:
                yield field_finding(
                    "stray-and",
                    Severity.WARNING,
                    f"{written_field(paper.raw, field)} of '{paper.key}' has {' and '.join(problems)}",
                    paper,
                    field,
                    "surveytool check --fix removes it",
                )
