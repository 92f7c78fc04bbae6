"""Where BibTeX reads an ``@`` as opening a block (an entry, ``@string``, ``@preamble``, ``@comment``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

#: An ``@`` that BibTeX reads as opening a block: white space, a name (no digit first, none of the characters
#: bibtex.web's id_class refuses: ``@-{key,`` is an entry too), white space, ``{`` or ``(``; groups: name, delimiter.
#: White space is ASCII, as BibTeX's: then no character of a name is also white space (``block_opens`` needs it).
BIBTEX_BLOCK_OPENS = re.compile(r"@\s*+([^\x00-\x200-9\"#%'(),={}][^\x00-\x20\"#%'(),={}]*+)\s*+([{(])", re.ASCII)

#: What ``BIBTEX_BLOCK_OPENS`` reads after an ``@`` before it asks for ``{`` or ``(``; group: a name's first character.
_NAME_RUN = re.compile(r"\s*+([^\x00-\x200-9\"#%'(),={}])?[^\x00-\x20\"#%'(),={}]*+", re.ASCII)


def block_opens(text: str, start: int = 0) -> Iterator[re.Match[str]]:
    """``BIBTEX_BLOCK_OPENS``'s matches in ``text`` from ``start``, in time linear in its length.

    ``@`` is a character of a name, so a search retried at each ``@`` of a long run (``a@a@a@...`` in a comment)
    reads the rest of the run each time. When the name after an ``@`` opens nothing, no later ``@`` inside that name
    opens anything either: its name ends where the first's does, before the same text. An ``@`` that ends the name
    is read again.
    """
    position = start
    while (at := text.find("@", position)) != -1:
        opened = BIBTEX_BLOCK_OPENS.match(text, at)
        if opened is not None:
            yield opened
            position = opened.end()
            continue
        name = _NAME_RUN.match(text, at + 1)
        # A digit first: a later @ of the run may start a name of its own. An @ that ends the name is followed by
        # what follows the name, so it may open a block ("@@ @(").
        position = name.end() - (text[name.end() - 1] == "@") if name and name.group(1) else at + 1
