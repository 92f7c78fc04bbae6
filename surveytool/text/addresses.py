"""Which addresses a link may lead to: web pages only, never a local file or a program.

hyperref turns a url field (a style prints it in ``\\url``) into a PDF link as written: ``file://host/share``
opens a Windows share (which sends the reader's NTLM credentials), ``run:`` starts a program, and an
address with no scheme is a link relative to the PDF's folder, which viewers open as a local file (pdf.js
and evince read one that starts with ``www.`` as a web address). ``ftp`` stays: old .bib files link
technical reports on FTP servers, and such a link leads to a server, not to anything on the reader's machine.
"""

from __future__ import annotations

import re

from surveytool.text.identifiers import parse_identifier

#: The fields that hold one address, taken verbatim: styles print them in ``\\url``, biblatex too.
URL_FIELDS = ("url",)
#: Schemes whose links lead to a server, never to the reader's machine (``mailto`` opens a message).
WEB_SCHEMES = frozenset({"http", "https", "ftp", "mailto"})
#: Schemes that open a file or run something on the reader's machine: an error, not only a link left out.
LOCAL_SCHEMES = frozenset({"file", "run", "launch", "javascript", "vbscript", "data", "smb"})
#: A web address written out in text, a scheme of a server and "//" first (https://x.org/a, ftp://host/a), up to the
#: next space: a value or a sentence of several holds its addresses so.
ADDRESS_IN_TEXT = re.compile(rf"(?:{'|'.join(sorted(WEB_SCHEMES - {'mailto'}, reverse=True))})://\S+", re.IGNORECASE)
_SCHEME = re.compile(r"([a-z][a-z0-9+.-]*):", re.IGNORECASE)
# What a file's name ends with, which a host's last label never is in a .bib (smith2020.pdf, report.html).
_FILE_ENDING = r"(?:pdf|html?|ps|gz|z|txt|docx?|zip|tex|bib|djvu|xml|json|pptx?|xlsx?|png|jpe?g|gif|svg)"
# A host name with no scheme before it (x.org/a, www.x.org, x.org:8080, 192.0.2.1/a): a web address with its
# scheme left out.
_HOST = re.compile(
    rf"www\.|(?!(?:[^/?#:]*\.)?{_FILE_ENDING}\.?(?:[?#]|\Z))"
    r"(?:(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:[a-z]{2,}|xn--[a-z0-9-]+)|\d{1,3}(?:\.\d{1,3}){3})"
    r"\.?(?::\d*)?(?:[/?#]|\Z)",
    re.IGNORECASE,
)


def address_scheme(address: str) -> str:
    """The scheme of ``address`` in lower case ("https", "file", "javascript"), "" for none (x.org/a, ../a)."""
    address = address.strip()
    scheme = _SCHEME.match(address)
    return scheme.group(1).lower() if scheme and not _HOST.match(address) else ""


def web_address(address: str) -> str | None:
    """``address`` as a link to the web: as written with a web scheme; a host written without one, a DOI or an
    arXiv id as the address it stands for (``https://x.org/a``, ``https://doi.org/10.1000/x``); without the angle
    brackets prose puts around it. None for an address with another scheme or a path (``file:``, ``../a``)."""
    address = address.strip()
    if address.startswith("<") and address.endswith(">"):
        address = address[1:-1].strip()
    identifier = parse_identifier(address) if _IDENTIFIER_START.match(address) else None
    if identifier is not None:
        kind, value = identifier.kind, identifier.value + identifier.version
        return f"https://doi.org/{value}" if kind == "doi" else f"https://arxiv.org/abs/{value}"
    scheme = address_scheme(address)
    if scheme:
        return address if scheme in WEB_SCHEMES else None
    if not address or _HOST.match(address):
        return f"https://{address}" if address else ""
    return None


# A DOI or an arXiv id written alone or with its prefix (10.1000/x, doi:10.1000/x, arXiv:2101.00001): not an
# address with a scheme a link could use.
_IDENTIFIER_START = re.compile(r"(?:doi:|arxiv:|10\.\d)", re.IGNORECASE)


# The address of a \url or \href in LaTeX that starts with www.: hyperref links \href{www.x}{...} to a local
# file (www.x.pdf), and \url{www.x} relative to the PDF's folder.
_LINK_TO_WWW = re.compile(r"(\\(?:url|href)\s*\{\s*)(?=www\.)", re.IGNORECASE)


def www_links_to_the_web(latex: str) -> str:
    """``latex`` with ``https://`` before each ``\\url`` or ``\\href`` address written as ``www.…``."""
    return _LINK_TO_WWW.sub(r"\1https://", latex) if "www" in latex.lower() else latex
