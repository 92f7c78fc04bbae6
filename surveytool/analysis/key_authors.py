"""The authors a key is made from: family names, corporate names kept whole, ``and others``."""

from __future__ import annotations

import re

from surveytool.model import Paper
from surveytool.text.latex_decode import quick_latex_to_text
from surveytool.text.transliterate import words

# East Asian names put the family name first (张伟, 김민수); written with a comma they say which it is.
_EAST_ASIAN = re.compile(r"[\u1100-\u11ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
# Where a corporate name can start: the value's first name, or a name after "and".
_GROUP_START = re.compile(r"^[{\"]\s*\{|\sand\s+\{", re.IGNORECASE)
_BRACE = re.compile(r"[{}]")


def _split_top_level(value: str) -> list[str]:
    """A BibTeX name list split at each ``and`` outside braces."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(value):
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        elif depth == 0 and char.isspace():
            match = _AND.match(value, index)
            if match and index >= start:
                parts.append(value[start:index])
                start = match.end()
    parts.append(value[start:])
    return [p.strip() for p in parts if p.strip()]


def _one_group(value: str) -> bool:
    """Whether ``value`` is one brace group from its first character to its last."""
    if not (value.startswith("{") and value.endswith("}")):
        return False
    depth = 0
    for brace in _BRACE.finditer(value):
        depth += 1 if brace.group() == "{" else -1
        if depth == 0:
            return brace.end() == len(value)
    return False


def names_with_corporate(latex: str) -> list[str]:
    """The names of a raw BibTeX author value if one of them is a corporate name (one brace group), else none."""
    latex = latex.strip()
    if not _GROUP_START.search(latex) or not (latex[:1] == '"' and latex[-1:] == '"' or _one_group(latex)):
        return []  # a macro or a concatenation: the decoded text says as much as can be said
    parts = _split_top_level(latex[1:-1]) if "{" in latex[1:-1] else []
    return parts if any(_one_group(part) for part in parts) else []


def author_names(paper: Paper) -> tuple[list[tuple[str, bool]], bool]:
    """(name, is it a corporate name) of each author, and whether the list ends in ``others``.

    A name written as one brace group (``{Microsoft Research}``) is a corporate name, kept whole;
    only the LaTeX as read tells it apart, the decoded text has lost the braces.
    """
    return names_of(paper.fields.get("author", ""), paper.latex_fields.get("author", ""))


def names_of(author: str, latex: str) -> tuple[list[tuple[str, bool]], bool]:
    """``author_names`` of an ``author`` value, given as text and as the LaTeX it was read from."""
    names = [(name.strip(), False) for name in author.split(" and ") if name.strip()]  # as ``Paper.authors``
    parts = names_with_corporate(latex)
    if parts:
        names = [(quick_latex_to_text(p[1:-1] if _one_group(p) else p), _one_group(p)) for p in parts]
    etal = bool(names) and not names[-1][1] and names[-1][0].strip().lower() == "others"
    return (names[:-1] if etal else names), etal


def surname(name: str, corporate: bool = False) -> str:
    """The family name as one word: ``van der Berg, Jan`` -> ``vanderBerg``, ``{Microsoft Research}`` whole."""
    if corporate:
        return "".join(words(name))
    if "," in name:
        family = "".join(words(name.split(",")[0]))
        if family:
            return family
    # A word without letters is no name ("Wei Zhang 0001", DBLP's way to tell two people apart).
    named = [w for w in name.replace(",", " ").split() if any(c.isalpha() for c in w)]
    if _EAST_ASIAN.search(name):
        named.reverse()
    for word in reversed(named):
        family = "".join(words(word))
        if family:
            return family
    return "".join(words(name))
