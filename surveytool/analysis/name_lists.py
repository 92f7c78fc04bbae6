"""The 'and's of a BibTeX name list: which are stray (doubled, leading, trailing) and the text that removes them.

BibTeX splits author and editor lists at each 'and' (in any case) with white space on both sides, outside
braces; one with no name on one side makes an empty name.
"""

from __future__ import annotations

import re

# An 'and' first, last, or with only space (and braces) before the next one.
_STRAY_AND_HINT = re.compile(
    r"^[\s{}\"]*and(?![^\s{}\"])|(?<![^\s{}\"])and[\s{}\"]*$|(?<!\S)and[\s{}]+and(?!\S)", re.IGNORECASE
)
_AND = re.compile(r"[{}]|(?<!\S)and(?!\S)", re.IGNORECASE)


def might_have_stray_and(inner: str) -> bool:
    """A quick test that passes every name list ``stray_and_removals`` finds fault with (and few others).

    ``inner`` may still have its delimiters.
    """
    return _STRAY_AND_HINT.search(inner) is not None


def stray_and_removals(inner: str) -> tuple[list[str], list[tuple[int, int]]]:
    """What is wrong with the 'and's of a name list (text inside its delimiters), and the spans that remove them.

    An 'and' with no name before it (leading, or doubled) or after it (trailing) is removed with the
    white space on its outer side. No spans when there is no name at all: that is not ours to guess.
    """
    depth, ands = 0, []
    for match in _AND.finditer(inner):
        if match.group() in "{}":
            depth += 1 if match.group() == "{" else -1
        elif depth == 0:
            ands.append((match.start(), match.end()))
    bounds = [0, *(i for span in ands for i in span), len(inner)]
    segments = [inner[bounds[2 * i] : bounds[2 * i + 1]] for i in range(len(ands) + 1)]
    filled = [bool(s.strip()) for s in segments]
    problems: list[str] = []
    cuts: list[tuple[int, int]] = []
    for index, (start, end) in enumerate(ands):
        if filled[index] and any(filled[index + 1 :]):
            continue
        if not any(filled[: index + 1]):
            problems.append("a leading 'and'")
        elif not filled[index]:
            problems.append("'and and'")
        else:
            problems.append("a trailing 'and'")
        cuts.append((start - (len(segments[index]) - len(segments[index].rstrip())), end))
    if not any(filled):
        return list(dict.fromkeys(problems)), []
    return list(dict.fromkeys(problems)), _merged_cuts(inner, cuts)


def _merged_cuts(inner: str, cuts: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in cuts:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    if merged and merged[0][0] == 0:  # a leading 'and' goes with the space after it
        merged[0] = (0, merged[0][1] + len(inner[merged[0][1] :]) - len(inner[merged[0][1] :].lstrip()))
    return merged
