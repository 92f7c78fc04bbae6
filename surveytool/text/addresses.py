"""Which addresses a link may lead to: web pages only, never a local file or a program.

hyperref turns a url field (a style prints it in ``\\url``) into a PDF link as written: ``file://host/share``
opens a Windows share (which sends the reader's NTLM credentials), ``run:`` starts a program, and an
address with no scheme is a link relative to the PDF's folder, which viewers open as a local file (pdf.js
and evince read one that starts with ``www.`` as a web address). ``ftp`` stays: old .bib files link
technical reports on FTP servers, and such a link leads to a server, not to anything on the reader's machine.
"""

from __future__ import annotations

import re

#: The fields that hold one address, taken verbatim: styles print them in ``\\url``, biblatex too.
URL_FIELDS = ("url",)
WEB_SCHEMES = frozenset({"http", "https", "ftp"})
_SCHEME = re.compile(r"([a-z][a-z0-9+.-]*):", re.IGNORECASE)
# A host name with no scheme before it (x.org/a, www.x.org, x.org:8080): a web address with its scheme left out.
_HOST = re.compile(
    r"www\.|(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:[a-z]{2,}|xn--[a-z0-9-]+)\.?(?::\d*)?(?:[/?#]|\Z)", re.IGNORECASE
)


def address_scheme(address: str) -> str:
    """The scheme of ``address`` in lower case ("https", "file", "javascript"), "" for none (x.org/a, ../a)."""
    address = address.strip()
    scheme = _SCHEME.match(address)
    return scheme.group(1).lower() if scheme and not _HOST.match(address) else ""


def web_address(address: str) -> str | None:
    """``address`` as a link to the web: as written with a web scheme, with ``https://`` before a host written
    without one; None for an address with another scheme or a path (``file:``, ``javascript:``, ``../a``, ``//host``).
    """
    address = address.strip()
    scheme = address_scheme(address)
    if scheme:
        return address if scheme in WEB_SCHEMES else None
    if not address or _HOST.match(address):
        return f"https://{address}" if address else ""
    return None


# The address of a \url or \href in LaTeX that starts with www.: hyperref links \href{www.x}{...} to a local
# file (www.x.pdf), and \url{www.x} relative to the PDF's folder.
_LINK_TO_WWW = re.compile(r"(\\(?:url|href)\s*\{\s*)(?=www\.)", re.IGNORECASE)


def www_links_to_the_web(latex: str) -> str:
    """``latex`` with ``https://`` before each ``\\url`` or ``\\href`` address written as ``www.…``."""
    return _LINK_TO_WWW.sub(r"\1https://", latex) if "www" in latex.lower() else latex
