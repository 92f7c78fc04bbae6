"""Checks of the ``url`` field: an address written with LaTeX escapes, or more than one address.

BibTeX styles print the url field inside ``\\url{...}`` and biblatex reads it verbatim, so the address is
taken character for character: Mendeley's ``{\\_}`` for ``_`` (and ``{\\%}``, ``{\\&}``, ``{\\#}``, ``{~}``)
leaves a backslash and braces in the printed address and in the link, which then leads nowhere. What
``check --fix`` may repair is decided here (``url_escapes``) and done by ``output/field_fixes.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from surveytool.analysis.check_registry import CheckContext, register
from surveytool.analysis.field_checks import field_finding
from surveytool.bibtex.field_spans import field_location, literal_inner, written_field
from surveytool.bibtex.linked_fields import URL_SCHEME_CHECK
from surveytool.model import Finding, Origin, Severity
from surveytool.text.addresses import URL_FIELDS

# A character an address holds as itself, spelled for LaTeX text: \_ or {\_} (Mendeley), {~}, $\sim$, \~{}.
_ESCAPE = re.compile(r"\{\\([_%#&$])\}|(?<!\\)\\([_%#&$])|\{~\}|\$\\sim\$|\\~\{\}|\{\\textasciitilde\}")


def url_escapes(inner: str) -> list[tuple[int, int, str]]:
    """Each LaTeX spelling in the address ``inner`` (a url value without its delimiters) as (start, end, the
    character it stands for)."""
    return [(m.start(), m.end(), m.group(1) or m.group(2) or "~") for m in _ESCAPE.finditer(inner)]


def may_have_url_escapes(value: str) -> bool:
    """A quick test passed by every url value ``url_escapes`` finds something in."""
    return "\\" in value or "{~}" in value


register(*URL_SCHEME_CHECK)(None)  # its findings are made where the .bib is read (bibtex/linked_fields.py)


@register(
    "url-malformed",
    Severity.WARNING,
    "an address written with LaTeX escapes, or several addresses in one url field",
    "BibTeX styles print the url field inside \\url{...}, and biblatex reads it verbatim: the address is taken "
    "as written, so a LaTeX escape such as Mendeley's {\\_} for _ (or {\\%}, {\\&}, {\\#}, {~}, $\\sim$) is "
    "printed, backslash and braces, and the link leads nowhere. --fix writes the characters themselves. A url "
    "field with a space in it (Mendeley joins an entry's addresses with spaces) is one broken link: keep one "
    "address there (another can go in a note); --fix leaves it to you.",
    fixable=True,
)
def _url_malformed(context: CheckContext) -> Iterable[Finding]:
    for paper in context.papers:
        if paper.origin is not Origin.BIBTEX or not paper.raw:
            continue
        for field in URL_FIELDS:
            literal = literal_inner(paper.latex_fields.get(field, ""))
            if literal is None:
                continue
            inner = literal[1]
            found = url_escapes(inner) if may_have_url_escapes(inner) else []
            if found:
                spelled = ", ".join(dict.fromkeys(inner[start:end] for start, end, _ in found))
                yield field_finding(
                    "url-malformed",
                    Severity.WARNING,
                    f"{written_field(paper.raw, field)} of '{paper.key}' has LaTeX escapes in its address: {spelled}",
                    paper,
                    field,
                    "write the characters themselves (_ for {\\_}); surveytool check --fix does this",
                )
            if len(inner.split()) > 1:
                yield Finding(
                    "url-malformed",
                    Severity.WARNING,
                    f"{written_field(paper.raw, field)} of '{paper.key}' holds {len(inner.split())} addresses or a "
                    "space: it prints as one link that leads nowhere",
                    field_location(paper, field),
                    "keep one address in the url field (write a space in an address as %20)",
                    paper.key,
                )
