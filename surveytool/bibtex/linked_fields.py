"""The fields a style puts in ``\\url`` itself (plainnat: ``URL \\url{<url>}``, and ``\\doi{<doi>}``, a ``\\Url``).

A command there is read by ``\\url``, not typeset: ``url = {\\url{https://x.org}}`` becomes
``\\url{\\url{https://x.org}}``, which TeX expands for ever ("TeX capacity exceeded"), and ``\\textbf`` stops
the document too. The .bib surveytool writes has an address wrapped in ``\\url`` or ``\\href`` alone, and
any other command printed literally; the check names each (``dangerous-macro``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from surveytool.bibtex.field_spans import field_location, literal_inner, written_field
from surveytool.bibtex.values import joined_latex
from surveytool.model import Finding, Paper, Severity
from surveytool.text.addresses import LOCAL_SCHEMES, URL_FIELDS, address_scheme, web_address
from surveytool.text.latex import Offence, encode_bibtex_value, inert_latex
from surveytool.text.latex_allowlist import Misplaced

LINKED_FIELDS = frozenset({"url", "doi"})
# A braced or quoted value that is one \url{...} or \href{...}{...} of a plain address.
_WRAPPED = re.compile(r"([{\"])\s*\\(?:url|href)\s*\{([^{}\\%#\"]*)\}(?:\s*\{[^{}\"]*\})?\s*[}\"]")
_COMMAND = re.compile(r"\\(?:[^\W\d_]|@)+")
_REASON = "the style puts this field in \\url itself, which stops at a command: write the address alone"


def linked_offences(name: str, tex: str, offences: list[Offence]) -> tuple[str, list[Offence]]:
    """(``tex``, ``offences``) of field ``name``, with every command of a field the style links (``\\_`` is none)."""
    if name not in LINKED_FIELDS or "\\" not in tex:
        return tex, offences
    starts = {o.start for o in offences}
    more: list[Offence] = [
        Misplaced(m.start(), m.end(), m.group(), _REASON) for m in _COMMAND.finditer(tex) if m.start() not in starts
    ]
    return tex, sorted([*offences, *more], key=lambda o: o.start) if more else offences


def linked_value(name: str, value: str) -> str:
    """``value`` (raw, as written) of field ``name`` as the .bib surveytool writes it: see the module's text."""
    if name not in LINKED_FIELDS or not _COMMAND.search(value):
        return value
    wrapped = _WRAPPED.fullmatch(value)
    if wrapped:
        return "{" + wrapped.group(2).strip() + "}"
    literal = literal_inner(value)
    if literal is None:
        return value  # a macro or a join: its commands are read, and written inert, as in any field
    inner = literal[1]
    offences: list[Offence] = [Misplaced(m.start(), m.end(), m.group(), _REASON) for m in _COMMAND.finditer(inner)]
    return "{" + inert_latex(inner, offences, specials=False) + "}"


def address_value(written: str, text: str) -> str | None:
    """A url field's value as written (``written``; ``text`` as read) as a link to the web: a host or DOI without its
    scheme gets one (hyperref links ``www.x.org`` as a file beside the PDF); None for no web page (``file:``)."""
    literal = literal_inner(written)
    inner = literal[1] if literal else text  # the address as hyperref reads it: a ~ is no space there
    address = web_address(inner)
    if address is None or address == inner.strip():
        return None if address is None else written
    return written[0] + address + written[-1] if literal else "{" + encode_bibtex_value(address) + "}"


# What reference managers escape in a url (Mendeley `{\_}`, `{\&}`, JabRef `\%`): hyperref links the
# character, so an exported link does too.
_ESCAPED_IN_ADDRESS = re.compile(r"\{\\([%&#_$])\}|\\([%&#_$])")


def written_address(paper: Paper, macros: Mapping[str, str] | None = None) -> str:
    """``paper``'s url field as styles and biblatex read it: verbatim (``a--b`` stays two hyphens, ``~`` a tilde),
    each run of spaces and line ends one space, without a ``\\url`` or ``\\href`` around it, as the .bib surveytool
    writes it, and an escaped ``%&#_$`` as the character; the text read for a value not from a .bib (CSL-JSON, a
    service) or with a macro not in ``macros``."""
    written = paper.latex_fields.get("url")
    joined = joined_latex(linked_value("url", written), macros) if written else None
    if joined is None:
        return paper.fields.get("url", "")
    return _ESCAPED_IN_ADDRESS.sub(lambda m: m.group(1) or m.group(2), " ".join(joined.split()))


#: The check ``address_findings`` makes, as ``check --list`` and ``--explain`` tell it: name, severity, summary,
#: explanation (``analysis/url_checks.py`` registers it with the other checks of the url field).
URL_SCHEME_CHECK = (
    "url-scheme",
    Severity.ERROR,
    "a url field that links to no web page: a file, a program, a script",
    "hyperref makes the url field a link in the PDF as written: file://host/share opens a Windows share (and "
    "sends the reader's login to it), run: starts a program, javascript: and data: run a script in a viewer, "
    "an address with no scheme (../a, //host, smith2020.pdf) opens a file on the reader's machine. A url field "
    "may hold an http, https, ftp or mailto address, a host written without its scheme (x.org/a, www.x.org) or a "
    "DOI or arXiv id, which the .bib surveytool writes makes https:// links. Any other is reported when the .bib "
    "is read (an error for a link to the reader's machine, a warning for another scheme such as ssh:) and left "
    "out of the .bib surveytool writes (bib -o, build) and of the exports; check and bib --in-place leave your "
    "file as it is.",
)


def address_findings(paper: Paper) -> list[Finding]:
    """A ``url-scheme`` finding for each url field of ``paper`` that links to no web page (``text/addresses.py``):
    an error for a link to the reader's machine (a path, ``file:``, ``run:``, ``javascript:``), a warning for
    another scheme (``ssh:``), which a viewer hands to some program."""
    found = []
    for name in URL_FIELDS:
        address = paper.fields.get(name, "").strip()
        if not address or web_address(address) is not None:
            continue
        scheme = address_scheme(address)
        local = len(scheme) < 2 or scheme in LOCAL_SCHEMES  # C:\\ is a drive
        what = "a path on the reader's machine" if len(scheme) < 2 else f"a link with the scheme {scheme}:"
        shown = address if len(address) <= 80 else address[:80] + "…"
        found.append(
            Finding(
                URL_SCHEME_CHECK[0],
                Severity.ERROR if local else Severity.WARNING,
                f"{written_field(paper.raw, name)} of '{paper.key}' is {what}, not a web page: {shown}",
                field_location(paper, name),
                "write the page's http(s) address; the .bib surveytool writes (bib -o, build) leaves this one out, "
                "your file keeps it",
                paper.key,
            )
        )
    return found
