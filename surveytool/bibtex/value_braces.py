"""The braces of a raw .bib value as BibTeX counts them, piece by piece: the findings, and the value balanced.

bibtexparser (and so surveytool) ends a quoted piece at its next quote and skips the braces in it.
BibTeX counts every brace in it, escaped or not, and ends it only at a quote outside all braces, so a
quoted piece whose braces do not balance is read otherwise: ``"x { y"`` runs on past its quote into
the fields and entries after it until a brace closes it (they are lost), ``"x } y"`` stops BibTeX with
"Unbalanced braces" (the rest of the entry is lost), and in ``"\\{" # "\\}"`` the escaped braces pair
across the quotes, so BibTeX reads one piece, ``\\{" # "\\}``. Inside braces bibtexparser counts the
plain braces too: only escaped ones can be lone there (``lone_escaped_braces``).

Quotes differ too: bibtexparser reads ``\\"`` between quotes as an umlaut, BibTeX ends the piece at
it (``"M\\"uller"`` is ``M\\``, and the rest of the entry is lost). Such a piece is written in braces,
where a quote is only text.
"""

from __future__ import annotations

import re
from dataclasses import replace

from surveytool.model import Finding, Severity, SourceLocation
from surveytool.text.latex import describe_offences
from surveytool.text.latex_allowlist import BRACE_TOKEN, Misplaced, Offence, lone_escaped_braces
from surveytool.text.latex_inert import LITERAL_SPELLINGS, balanced_for_bibtex

# What bibtexparser takes for a delimiter in a value: a brace or a quote that no backslash precedes, or a quote
# after \\ (a line break), which ends a quoted piece outside braces as BibTeX reads it (line_breaks.py).
_MARK = re.compile(r'(?<!\\)(?:\\\\)*"|(?<!\\)[{}]')
# What BibTeX does: any brace or quote.
_ANY_MARK = re.compile(r'["{}]')


def has_quoted_braces(value: str) -> bool:
    """Whether a raw value may have a quoted piece with a brace in it: a test in C, false for most values."""
    return '"' in value and (value.lstrip()[:1] == '"' or "#" in value) and ("{" in value or "}" in value)


def quoted_insides(value: str) -> list[tuple[int, int]]:
    """(start, end) of the inside of each quoted piece of a raw value, delimited as bibtexparser does."""
    if value.count('"') == 2 and value[:1] == '"' == value[-1:]:
        return [(1, len(value) - 1)]  # one piece, the common case
    insides: list[tuple[int, int]] = []
    depth, opened = 0, -1
    for match in _MARK.finditer(value):
        char, at = match.group()[-1], match.end() - 1
        if len(match.group()) > 1 and opened >= 0 and value.count("{", opened, at) != value.count("}", opened, at):
            continue  # {\\"} between quotes: text, the braces around it counted as BibTeX counts them
        if opened >= 0:
            # Between quotes only a quote counts, and {"} is a quote written inside them.
            if char == '"' and value[at - 1 : at + 2] != '{"}':
                insides.append((opened, at))
                opened = -1
        elif char == '"':
            opened = match.end() if depth == 0 else -1
        elif char == "{":
            depth += 1
        elif depth:
            depth -= 1
    return insides


_INNERMOST = re.compile(r"\{[^{}]*\}")


def _bibtex_balanced(text: str) -> bool:
    """Whether every brace of ``text``, escaped or not, pairs with another (in C: groups emptied from the inside)."""
    count = 1
    while count and "{" in text:
        text, count = _INNERMOST.subn("", text)
    return "{" not in text and "}" not in text


def _segments(value: str) -> list[tuple[int, int]]:
    """The value cut at the bounds of its quoted insides: each segment must balance on its own for BibTeX."""
    bounds = [0, *(bound for inside in quoted_insides(value) for bound in inside), len(value)]
    return list(zip(bounds, bounds[1:], strict=False))


def value_lone_braces(value: str) -> list[Offence]:
    """The ``\\{`` and ``\\}`` BibTeX pairs with a plain brace or none, each quoted piece counted alone."""
    if "\\{" not in value and "\\}" not in value:
        return []
    if not has_quoted_braces(value):
        return lone_escaped_braces(value)
    return [
        replace(offence, start=offence.start + start, end=offence.end + start)
        for start, end in _segments(value)
        for offence in lone_escaped_braces(value[start:end])
    ]


_OPEN_REASON = "a brace no brace in its quotes closes: BibTeX reads on past the closing quote, into what follows"
_CLOSE_REASON = (
    "a brace no brace in its quotes opened: BibTeX closes an earlier piece's brace with it, "
    'or stops there ("Unbalanced braces") and loses the rest of the entry'
)


def quoted_plain_braces(value: str) -> list[Offence]:
    """The plain braces of a value's quoted pieces that BibTeX, counting every brace, cannot pair."""
    found: list[Offence] = []
    for start, end in quoted_insides(value) if has_quoted_braces(value) else ():
        if _bibtex_balanced(value[start:end]):
            continue
        opened: list[re.Match[str]] = []
        for match in BRACE_TOKEN.finditer(value, start, end):
            if match.group()[-1] == "{":
                opened.append(match)
            elif match.group()[-1] == "}":
                if opened:
                    opened.pop()
                elif match.group() == "}":
                    found.append(Offence(match.start(), match.end(), "}", _CLOSE_REASON))
        found += (Offence(m.start(), m.end(), "{", _OPEN_REASON) for m in opened if m.group() == "{")
    return sorted(found, key=lambda offence: offence.start)


def balanced_value(value: str) -> str:
    """``value`` with each piece balanced as BibTeX counts braces (``balanced_for_bibtex``); itself if it is."""
    escaped = "\\{" in value or "\\}" in value
    if not has_quoted_braces(value):
        return balanced_for_bibtex(value) if escaped else value
    if not escaped and all(_bibtex_balanced(value[start:end]) for start, end in quoted_insides(value)):
        return value  # most quoted values with braces: "{GPU}s"
    written = "".join(balanced_for_bibtex(value[start:end]) for start, end in _segments(value))
    return value if written == value else written


PAIR_HINT = (
    "BibTeX counts \\{ and \\} as braces too: pair each with the other, "
    "or write \\textbraceleft{} or \\textbraceright{} for a lone one"
)
_QUOTED_HINT = (
    "BibTeX counts the braces between quotes: pair each brace in the same quoted piece, "
    "or write \\textbraceleft{} or \\textbraceright{} for a lone one"
)


def brace_findings(value: str, what: str, where: SourceLocation, key: str = "", escaped: bool = True) -> list[Finding]:
    """``lone-escaped-brace`` and ``unbalanced-brace`` for the raw value of ``what`` (a field, @string or @preamble).

    Not ``escaped``: the lone escaped braces are named in the value's ``dangerous-macro`` finding instead.
    """
    if "\\{" not in value and "\\}" not in value and not has_quoted_braces(value):
        return []  # most values, at once
    found = []
    for check, braces, hint in (
        ("lone-escaped-brace", value_lone_braces(value) if escaped else [], PAIR_HINT),
        ("unbalanced-brace", quoted_plain_braces(value), _QUOTED_HINT),
    ):
        if braces:
            written = " and ".join(LITERAL_SPELLINGS[brace] for brace in dict.fromkeys(o.text[-1] for o in braces))
            message = f"{what} has {describe_offences(braces, '')}; the .bib surveytool writes has "
            message += f"{written} there (check and bib --in-place leave it as you wrote it)"
            found.append(Finding(check, Severity.ERROR, message, where, hint, key))
    return found


_QUOTE_REASON = "a quote outside braces: BibTeX ends the quoted value there and loses the rest of the entry"


def _inner_quotes(value: str, start: int, end: int) -> list[Offence]:
    """The quotes of one quoted inside that BibTeX, counting every brace, finds outside all braces (``\\"``)."""
    found, depth = [], 0
    for match in _ANY_MARK.finditer(value, start, end):
        char = match.group()
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        elif depth == 0:
            found.append(Offence(match.start() - 1, match.end(), value[match.start() - 1 : match.end()], _QUOTE_REASON))
    return found


def inner_quotes(value: str) -> list[Offence]:
    """The ``\\"`` of a value's quoted pieces that end the piece for BibTeX (bibtexparser reads an umlaut)."""
    if '\\"' not in value:
        return []
    return [offence for start, end in quoted_insides(value) for offence in _inner_quotes(value, start, end)]


def braced_quotes(value: str) -> str:
    """``value`` with each quoted piece that has such a quote written in braces, if they balance; itself if none."""
    if '\\"' not in value:
        return value
    written: list[str] = []
    last = 0
    for start, end in quoted_insides(value):
        if _inner_quotes(value, start, end) and _bibtex_balanced(value[start:end]):
            written += [value[last : start - 1], "{", value[start:end], "}"]
            last = end + 1
    return "".join(written) + value[last:] if written else value


def quote_findings(value: str, what: str, where: SourceLocation, key: str = "") -> list[Finding]:
    """``inner-quote`` for the raw value of ``what`` (a field, @string or @preamble)."""
    quotes = inner_quotes(value)
    if not quotes:
        return []
    message = f"{what} has {describe_offences(quotes, '')}; the .bib surveytool writes has that piece in braces "
    message += "(check and bib --in-place leave it as you wrote it)"
    return [Finding("inner-quote", Severity.ERROR, message, where, _QUOTE_HINT, key)]


_QUOTE_HINT = 'write the accent in braces, {\\"u}, or the whole value in braces instead of quotes'


#: True under every command: ``check`` and ``bib --in-place`` write no value, ``build`` and ``bib -o`` do.
_WRITTEN = "a .bib surveytool writes (build, bib -o) prints it literally, your file keeps it"
_ALLOW_HINT = (
    _WRITTEN + '; delete it, or if you trust it allow the command in surveytool.toml: [latex] allow = ["\\\\name"]'
)
_BRACE_HINT = _WRITTEN + "; " + PAIR_HINT
# An allowed command where it stops the document (a math symbol in text, \char without a number): allowing it cannot help.
_PLACE_HINT = _WRITTEN + "; write it where LaTeX takes it (math in $...$, a command with its argument), or delete it"


def offences_and_hint(offences: list[Offence], tex: str, written: str) -> tuple[str, str]:
    """The offences for a message, led by the lone escaped braces of the value as ``written`` (what they cause)."""
    braces = value_lone_braces(written)
    misplaced = all(isinstance(o, Misplaced) for o in offences)
    return describe_offences(
        offences, tex, braces
    ), _BRACE_HINT if braces else _PLACE_HINT if misplaced else _ALLOW_HINT
