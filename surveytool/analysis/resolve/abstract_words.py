"""The words of an abstract as matching compares them: what a reader sees, whether it is written in LaTeX or not.

A catalog's abstract keeps its math as LaTeX (``$\\lambda$``, ``$\\mathbb{R}^d$``, ``mor{\\-}phology``), while a
related-papers page shows it rendered (``λ``, ``ℝ^d``, ``morphology``). Normalized as they are, the two differ in
a word wherever there is math: Greek letters are spelled out on both sides here, and other commands, which
render as symbols or fonts and not as words, are left out.
"""

from __future__ import annotations

import re
from functools import lru_cache

from surveytool.text.normalize import normalize, strip_truncation

_GREEK_NAMES = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi "
    "chi psi omega"
).split()
# The letters in both cases, the final sigma, the symbol variants (ϵ, ϑ, ϕ, ϱ, ϖ) and the micro sign.
_GREEK = {
    **{chr(0x3B1 + i + (i > 16)): name for i, name in enumerate(_GREEK_NAMES)},
    **{chr(0x391 + i + (i > 16)): name for i, name in enumerate(_GREEK_NAMES)},
    "ς": "sigma",
    "ϵ": "epsilon",
    "ϑ": "theta",
    "ϕ": "phi",
    "ϱ": "rho",
    "ϖ": "pi",
    "µ": "mu",
}
_SPELLED = str.maketrans({letter: f" {name} " for letter, name in _GREEK.items()})
_LATEX_GREEK = frozenset(_GREEK_NAMES) | {"varepsilon", "vartheta", "varphi", "varrho", "varpi", "varsigma"}
# A command (``\lambda``, ``\mathbb``, ``\cdot``) or a discretionary hyphen (``\-``).
_COMMAND = re.compile(r"\\([A-Za-z]+)|\\-")


def _command_text(match: re.Match[str]) -> str:
    name = (match.group(1) or "").lower()
    if name in _LATEX_GREEK:
        return f" {name.removeprefix('var')} "
    return ""


@lru_cache(maxsize=1 << 14)
def _words(text: str) -> tuple[str, ...]:
    if "\\" in text:
        text = _COMMAND.sub(_command_text, text)
    if "{" in text or "}" in text:
        text = text.replace("{", "").replace("}", "")  # "mor{}phology" is one word; \mathbb{R} shows R
    if not text.isascii():
        text = text.translate(_SPELLED)
    return tuple(normalize(text).split())


def abstract_words(text: str) -> list[str]:
    """The words of ``text`` as a reader sees them, normalized, without a last word cut by an ellipsis."""
    return list(_words(strip_truncation(text)))
