"""What a BibTeX style's ``change.case$`` would lower in a title, and the braces that keep it.

The standard styles (plain, plainnat, abbrv, alpha, unsrt, ...) pass a title through ``change.case$``,
which lowers every character outside braces: capitals inside a word ("GShard" -> "gshard"), the names of
commands ("\\LaTeX" -> "\\latex", which no package defines, so the document stops) and math (BibTeX knows no
math: "$O(N \\log N)$" -> "$o(n \\log n)$"). Text in a group keeps its case, and so does the name of a command
that opens a group (``{\\LaTeX}``). ``title-case-unprotected`` names each such stretch, and ``check --fix``
(and, for the ones that stop the document, the ``.bib`` surveytool writes) braces it, math as a whole.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\\(?:[A-Za-z@]+|.?)|\$\$?|[{}]", re.S)
#: A word's punctuation before, its core (up to its last letter or digit), and punctuation after.
WORD_CORE = re.compile(r"^(?P<lead>[^\w]*)(?P<core>.*?\w)(?P<trail>[^\w]*)$", re.S)
_ACCENT_ARGUMENT = re.compile(r"[ \t]*\w")


#: A stretch of a title's inside that ``change.case$`` would lower: (start, end, the text shown for it).
Unprotected = tuple[int, int, str]
_CAPITAL_COMMAND = re.compile(r"\\[A-Za-z@]*[A-Z]")


def breaks_once_lowered(text: str) -> bool:
    """Whether lowered, a stretch names another command (``\\latex``): the document stops, or prints another
    letter (``\\AA`` is Å, ``\\aa`` å). A command with capitals in its name, or a formula holding one."""
    return _CAPITAL_COMMAND.search(text) is not None


def needs_protection(word: str) -> bool:
    """Whether a plain word has a capital after the first letter of a hyphen part ("GShard", "GPUs", "GPT-2")."""
    return any(any(c.isupper() for c in part[1:]) for part in word.split("-"))


def _group_end(text: str, start: int) -> int:
    """The index after the brace that closes the group opened at ``start`` (the text's end if none does)."""
    depth = 0
    for match in _TOKEN.finditer(text, start):
        token = match.group()
        depth += (token == "{") - (token == "}")
        if depth == 0:
            return match.end()
    return len(text)


def _command_end(text: str, match: re.Match) -> int:
    """The end of a command and what it takes: the groups right after it, or an accent's letter (``\\H o``)."""
    end = match.end()
    if end < len(text) and text[end] == "{":
        while end < len(text) and text[end] == "{":
            end = _group_end(text, end)
    elif len(match.group()) == 2 and (argument := _ACCENT_ARGUMENT.match(text, end)):
        end = argument.end()
    return end


def _math(text: str, opening: re.Match) -> tuple[int, Unprotected | None] | None:
    """(where the formula opened by ``opening`` ends, itself if a capital in it is outside braces); None if it
    is not closed (a lone dollar is text to BibTeX and to this check)."""
    depth, upper = 0, False
    last = opening.end()
    for match in _TOKEN.finditer(text, opening.end()):
        token = match.group()
        if depth == 0:
            upper = upper or any(c.isupper() for c in text[last : match.start()])
        last = match.end()
        if token == opening.group() and depth == 0:
            formula = text[opening.start() : match.end()]
            return match.end(), (opening.start(), match.end(), formula) if upper else None
        if token in ("{", "}"):
            depth += 1 if token == "{" else -1
            if depth < 0:
                return None
        elif depth == 0 and token[0] == "\\" and any(c.isupper() for c in token):
            upper = True
    return None


def unprotected(inner: str) -> list[Unprotected]:
    """What ``change.case$`` would lower in ``inner`` (a title's inside): words, commands and formulas, in order."""
    spots: list[Unprotected] = []
    skipped: list[tuple[int, int]] = []  # formulas and commands: no words are looked for inside them
    depth, position = 0, 0
    for match in _TOKEN.finditer(inner):
        if match.start() < position:
            continue
        token = match.group()
        if token in ("{", "}"):
            depth += 1 if token == "{" else -1
        elif depth == 0 and token[0] == "$" and (formula := _math(inner, match)) is not None:
            position, spot = formula
            skipped.append((match.start(), position))
            spots.extend([spot] if spot else [])
        elif depth == 0 and token[0] == "\\" and any(c.isupper() for c in token):
            position = _command_end(inner, match)
            spots.append((match.start(), position, token))
            skipped.append((match.start(), position))
    spots.extend(_words(_masked(inner, skipped)))
    return sorted(spots)


def _masked(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with each span blanked: words end at a formula or a command, and none is found inside one."""
    if not spans:
        return text
    pieces, last = [], 0
    for start, end in spans:
        pieces += [text[last:start], " " * (end - start)]
        last = end
    return "".join(pieces) + text[last:]


def _words(inner: str) -> list[Unprotected]:
    """Each word outside braces, without braces or commands, with a capital a style would lower."""
    found, depth, last = [], 0, 0
    for match in re.finditer(r"\S+", inner):
        depth += inner[last : match.start()].count("{") - inner[last : match.start()].count("}")
        word = match.group()
        # A word with an HTML tag in it (<i>GShard</i>) is html-in-field's: braces would not mend it.
        if depth == 0 and not any(c in word for c in "{}\\<>$"):
            core = WORD_CORE.match(word)
            if core and needs_protection(core.group("core")):
                start = match.start() + core.start("core")
                found.append((start, start + len(core.group("core")), core.group("core")))
        depth += word.count("{") - word.count("}")
        last = match.end()
    return found


def split_enclosing(raw: str) -> tuple[str, str, str]:
    """A raw value's opening delimiter, inside and closing delimiter (both "" for a bare value)."""
    value = raw.strip()
    if len(value) >= 2 and (value[0], value[-1]) in (("{", "}"), ('"', '"')):
        return value[0], value[1:-1], value[-1]
    return "", value, ""


def is_one_literal(value: str) -> bool:
    """Whether a raw field value is one braced or quoted string (not a macro, number or concatenation)."""
    if value.startswith('"'):
        return value.endswith('"') and '"' not in value[1:-1]
    if not value.startswith("{") or not value.endswith("}"):
        return False
    depth = 0
    for index, char in enumerate(value):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0 and index < len(value) - 1:
            return False
    return True


def needs_title_protection(raw: str) -> list[str]:
    """What a style would lower in a BibTeX title value (LaTeX), as written: words, commands, formulas."""
    return [text for _start, _end, text in unprotected(split_enclosing(raw)[1])]


_ENDS_IN_CONTROL_WORD = re.compile(r"\\[A-Za-z]+$")


def protect_title_words(raw: str, only_breaking: bool = False) -> str:
    """``raw`` (a BibTeX title value) with braces around what ``needs_title_protection`` finds.

    ``only_breaking``: only around what would stop the document or change a letter once lowered (commands with
    capitals in their names, alone or in a formula); ``raw`` itself when there is none.
    """
    opening, inner, closing = split_enclosing(raw)
    spots = [s for s in unprotected(inner) if not only_breaking or breaks_once_lowered(s[2])]
    if not spots:
        return raw
    pieces, last = [], 0
    for start, end, _text in spots:
        if _ENDS_IN_CONTROL_WORD.search(inner, start, end):  # TeX skips the spaces after it: "\\TeX book" is TeXbook
            end += len(inner[end:]) - len(inner[end:].lstrip(" \t\r\n"))
        pieces += [inner[last:start], "{", inner[start:end], "}"]
        last = end
    pieces.append(inner[last:])
    return opening + "".join(pieces) + closing
