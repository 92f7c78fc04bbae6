"""The field fixes of `check --fix`: each an edit of the few characters at fault in an entry's text.

Which fixes are unambiguous is decided with the checks (``analysis/field_checks.py``): the link before
a DOI, ``&amp;`` (LaTeX's ``\\&``), a raw ``&`` or ``%`` (a backslash before it), an empty field, an 'and'
with no name on one side, a LaTeX escape in an address (``{\\_}``: ``analysis/url_checks.py``). Everything else
in the entry, its layout and line endings included, stays as it was.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Mapping

from surveytool.analysis.field_checks import (
    AMP_ENTITY,
    EMPTY_VALUE,
    NAME_FIELDS,
    VERBATIM_FIELDS,
    doi_prefix,
    unescaped_specials,
)
from surveytool.analysis.name_lists import might_have_stray_and, stray_and_removals
from surveytool.analysis.url_checks import URL_FIELDS, may_have_url_escapes, url_escapes
from surveytool.bibtex.field_spans import FieldSpan, field_spans, literal_inner
from surveytool.bibtex.raw_specials import escaped_in, spelled
from surveytool.text.line_ends import line_start, next_line_break

Cut = tuple[int, int, str]  # replace raw[start:end] with the text


def may_need_fixing(fields: Mapping[str, str]) -> bool:
    """A quick test on an entry's values (``Paper.latex_fields``) that passes every entry ``fix_fields`` changes."""
    for name, value in fields.items():
        if (len(value) < 8 and EMPTY_VALUE.fullmatch(value)) or "&" in value or "%" in value:
            return True
        if any(c in value for c in "#_^$") and escaped_in(name, value):  # snake_case, C#, x^2: unescaped-special
            return True
        if name == "doi" and doi_prefix(value[1:-1]):
            return True
        if name in URL_FIELDS and may_have_url_escapes(value):
            return True
        if name in NAME_FIELDS and might_have_stray_and(value):
            return True
    return False


def reads_alike(raw: str, fields: Mapping[str, str], ignore: Container[str] = ()) -> bool:
    """Whether the fields found in ``raw`` are those the reader read (``fields``): only then is an edit of one
    sure to touch the value a check judged. They differ where a value runs on (a comma forgotten after it). A field
    named twice is read at its first value, as BibTeX reads it."""
    found: dict[str, str] = {}
    for span in field_spans(raw):
        if span.name not in ignore:
            found.setdefault(span.name, span.value(raw))
    return found == dict(fields)


def fix_fields(raw: str, selected: Container[str], ignore: Container[str] = ()) -> tuple[str, list[str]]:
    """``raw`` (an entry's text) with the selected checks' field fixes made, and what each one did.

    ``ignore``: fields (lower case) left alone, such as the tags field, which the checks do not look at. So is a
    field named twice (duplicate-field): removing its empty first value would have BibTeX read the next one.
    """
    spans = field_spans(raw)
    named = Counter(span.name for span in spans)
    cuts: list[Cut] = []
    done: list[str] = []
    for span in spans:
        if span.name in ignore or named[span.name] > 1:
            continue
        value = span.value(raw)
        written = span.written_name(raw)  # the report names it so: ISSN, not issn
        literal = literal_inner(value)
        inner_start = span.value_start + (literal[0] if literal else 0)
        if EMPTY_VALUE.fullmatch(value):
            if "empty-field" in selected:
                cuts.append((*_field_extent(raw, span), ""))
                done.append(f"empty {written} removed")
            continue
        if span.name == "doi" and "doi-malformed" in selected and literal:
            prefix = doi_prefix(literal[1])
            if prefix:
                start = inner_start + literal[1].index(prefix)
                cuts.append((start, start + len(prefix), ""))
                done.append(f"{written} without {prefix.strip()}")
        if span.name not in VERBATIM_FIELDS and "html-in-field" in selected:
            found = list(AMP_ENTITY.finditer(value))
            cuts.extend((span.value_start + m.start(), span.value_start + m.end(), "\\&") for m in found)
            if found:
                done.append(f"{written}: &amp; -> \\&")
        if escaped_in(span.name, value) and "unescaped-special" in selected and (raw_at := unescaped_specials(value)):
            cuts.extend((span.value_start + i, span.value_start + i + 1, spelled(value[i])) for i in raw_at)
            done.append(f"{written}: " + ", ".join(f"{c} -> {spelled(c)}" for c in sorted({value[i] for i in raw_at})))
        if span.name in URL_FIELDS and "url-malformed" in selected and literal:
            escapes = url_escapes(literal[1])
            cuts.extend((inner_start + start, inner_start + end, text) for start, end, text in escapes)
            if escapes:
                unescaped = ", ".join(
                    dict.fromkeys(f"{literal[1][start:end]} -> {text}" for start, end, text in escapes)
                )
                done.append(f"{written}: {unescaped}")
        if span.name in NAME_FIELDS and "stray-and" in selected and literal:
            problems, removals = stray_and_removals(literal[1])
            cuts.extend((inner_start + start, inner_start + end, "") for start, end in removals)
            if removals:
                done.append(f"{written}: {' and '.join(problems)} removed")
    merged: list[Cut] = []
    for start, end, text in sorted(cuts):
        if merged and start < merged[-1][1]:  # two empty fields side by side: their removals meet at a comma
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]), merged[-1][2] + text)
        else:
            merged.append((start, end, text))
    for start, end, text in reversed(merged):
        raw = raw[:start] + text + raw[end:]
    return raw, done


def _field_extent(raw: str, span: FieldSpan) -> tuple[int, int]:
    """The text to delete with a field: its line if it has one to itself, else the field and one comma."""
    after = span.value_end
    while after < len(raw) and raw[after] in " \t":
        after += 1
    comma = raw[after : after + 1] == ","
    if comma:
        after += 1
    start = line_start(raw, span.start)
    line_end = next_line_break(raw, after)
    rest = raw[after : line_end.start() if line_end else len(raw)].strip()
    own_line = start > 0 and not raw[start : span.start].strip()
    if own_line and line_end and not rest:
        return start, line_end.end()
    if comma:
        while after < len(raw) and raw[after] in " \t":
            after += 1
        # The entry's closing brace on the field's line (IEEE's month={},}) takes the line's start, not its indent.
        return (start if own_line and rest in ("}", ")") else span.start), after
    # The last field, on a shared line: the comma before it goes with it.
    before = span.start
    while before > 0 and raw[before - 1] in " \t\r\n":
        before -= 1
    return (before - 1 if raw[before - 1 : before] == "," else span.start), span.value_end
