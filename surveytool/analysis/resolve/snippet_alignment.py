"""Where in an abstract a snippet starts: a related-papers page may show it from a later sentence on.

Scholar and publishers' pages often leave out an abstract's first sentence ("Background: ...", a
motivating line) and show the next ones. Compared from the abstract's opening, such a snippet shares
nothing word for word; compared from the sentence it starts at, it is the same text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from surveytool.analysis.resolve.abstract_words import abstract_words
from surveytool.text.normalize import abstract_similarity

# The end of a sentence: a full stop, maybe a closing bracket or quote, a space, then a capital or a digit, maybe
# after an opening bracket ("... (MDP). In this setting", "at 4.2 K. The", "10^19 cm^-3. Stationary"). An
# abbreviation ("e.g. Smith") may end one too: a start too many is only one more place compared.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]\u2019\u201d]?\s+(?=[\"'(\[\u2018\u201c]?[A-Z0-9\u00c0-\u00de])")


def sentence_starts(text: str) -> list[int]:
    """The word offsets, in ``abstract_words(text)``, at which the sentences after the first start."""
    starts, count = [], 0
    for sentence in _SENTENCE_END.split(text)[:-1]:
        count += len(abstract_words(sentence))
        starts.append(count)
    return starts


def aligned_similarity(asked: Sequence[str], known: Sequence[str], known_text: str) -> tuple[float, int]:
    """``abstract_similarity`` of ``asked`` against ``known`` from its opening or from the start of one of its
    later sentences (``known_text``, the text of ``known``), whichever is best; and the word offset it was from.

    Only a sentence that starts with the snippet's first word is tried: a snippet cut from a page starts
    where a sentence does, and most of a text's sentences need no comparing.
    """
    best, offset = abstract_similarity(asked, known), 0
    if not asked:
        return best, offset
    for start in sentence_starts(known_text):
        if start < len(known) and known[start] == asked[0]:
            score = abstract_similarity(asked, known[start:])
            if score > best:
                best, offset = score, start
    return best, offset
