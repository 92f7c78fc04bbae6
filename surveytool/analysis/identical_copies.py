"""When two records of one key are the same entry written twice, so keeping one loses nothing."""

from __future__ import annotations

import unicodedata

from surveytool.model import Paper
from surveytool.text.latex import bibtex_char


def identical_copies(a: Paper, b: Paper) -> bool:
    """The same entry written twice under one key: keeping one loses nothing.

    The entry `bib --in-place` added to the user's file from another source is such a copy: it has the tags
    the source's lacks (merging joins them), and in a Latin-1 file LaTeX spellings of what it cannot hold.
    Not seen as one, it was added again, under a new key, by every later run.
    """
    return (
        a.key == b.key
        and a.entry_type == b.entry_type
        and ((a.fields == b.fields and a.latex_fields == b.latex_fields) or spelled_alike(a, b))
        and (a.explicit_tags == b.explicit_tags or not a.explicit_tags or not b.explicit_tags)
        and not a.aliases
        and not b.aliases
    )


def spelled_alike(a: Paper, b: Paper) -> bool:
    """Values the same once every non-ASCII character is spelled in LaTeX (``α``, ``{\\ensuremath{\\alpha}}``);
    their ``fields`` may differ (an abstract's quick decoding drops what it does not know). Never records
    without LaTeX values (CSL-JSON items): all() of nothing is true."""
    if not a.latex_fields or a.fields.keys() != b.fields.keys() or a.latex_fields.keys() != b.latex_fields.keys():
        return False
    theirs = b.latex_fields
    return all(
        value == theirs[name] or _spelled(value) == _spelled(theirs[name]) for name, value in a.latex_fields.items()
    )


def _spelled(value: str) -> str:
    return "".join(char if char.isascii() else bibtex_char(char) for char in unicodedata.normalize("NFC", value))
