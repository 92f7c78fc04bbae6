"""The shapes of what allowed commands read after them: keys, character codes, delimiters, optional arguments.

A command can be allowed and still stop the document when what follows it is not what it reads:
``\\cite{\\relax}`` ("Missing \\endcsname"), ``\\char"ff`` (BibTeX lowercased ``"FF``: "Missing number"),
``\\left\\relax`` ("Missing delimiter"), ``\\sqrt[3]`` with no argument after it. ``latex_context.py``
asks here, and the whole construct (the command with what it reads) is then written literally: writing
only a piece of it literally would leave a construct TeX still cannot read (``\\char`\\textbackslash{}a``).
"""

from __future__ import annotations

import re

#: A key BibTeX and LaTeX both read as written: what ``\\cite`` puts in ``\\csname b@key\\endcsname``.
_KEY = r"[A-Za-z0-9_\-:./+]+"
#: Keys as LaTeX and BibTeX read a list: a space may follow a comma, never precede one ("White space in argument").
CITE_KEYS = re.compile(rf"\s*{_KEY}(?:,\s*{_KEY})*")
#: Commands whose braced argument is a list of keys (or, for \bibstring, one key), and how many optional
#: arguments (natbib's and biblatex's [pre][post] notes) may come before it.
KEYED = {"cite": 2, "citet": 2, "citep": 2, "bibstring": 0}
_ONE_KEY = re.compile(r"[A-Za-z]+")
#: Commands taking optional arguments in brackets before their required ones (at most this many).
OPTIONAL = {"sqrt": 1, **KEYED}
#: Commands that read a delimiter after them: anything else stops the document ("Missing delimiter").
DELIMITED = frozenset("left right big Big bigg Bigg bigl bigr Bigl Bigr".split())
# The delimiters (after BibTeX lowered a title: \Vert became \vert, still a delimiter).
_DELIMITER = re.compile(
    r"\s*(?:[()\[\]|/.<>]|\\[{}|]|\\(?:langle|rangle|lfloor|rfloor|lceil|rceil|vert|Vert|uparrow|downarrow"
    r"|Uparrow|Downarrow|updownarrow|backslash|lbrace|rbrace)(?![A-Za-z]))"
)
#: A character code as TeX reads it. Hexadecimal only with the digits 0-9: BibTeX lowercases a title
#: (``"FF`` became ``"ff``) and TeX reads no lowercase hex digit. After a backquote: a character, or a
#: control sequence of one character (``\\a`` but not ``\\ab``: "Improper alphabetic constant").
NUMBER = re.compile(
    r"\s*(?:(\d+)|'([0-7]+)|\"([0-9A-F]+)"
    r"|`(\\[A-Za-z](?![A-Za-z])|\\[!-@\[\\\]_`|~]|[A-Za-z0-9!\"'()*+,\-./:;<=>?@\[\]`|~]))"
)
_PIECE = re.compile(r"\^\^(?:[0-9a-f]{2}|.)|\\(?:[^\W\d_]|@)+|\\.|.", re.S)
_BRACKET_TOKEN = re.compile(r"\\(?:[^\W\d_]|@)+|\\.|[{}\[\]$]", re.S)
_SPACES = " \t\r\n"
#: The characters TeX or LaTeX read as markup where they stand (and \\char of them would be, once decoded).
_MARKUP = frozenset("\\{}$&#^_%~")


def skip_spaces(value: str, position: int) -> int:
    while position < len(value) and value[position] in _SPACES:
        position += 1
    return position


def group_end(value: str, start: int) -> int:
    """The index after the group whose ``{`` is at ``start`` (the value's end if it never closes)."""
    depth = 0
    for match in re.compile(r"\\.|[{}]", re.S).finditer(value, start):
        if match.group() == "{":
            depth += 1
        elif match.group() == "}":
            depth -= 1
            if depth == 0:
                return match.end()
    return len(value)


def piece_end(value: str, position: int) -> int:
    """The end of what a command reads at ``position`` (after spaces): a group, or one token; never a ``}`` or ``$``."""
    position = skip_spaces(value, position)
    if position >= len(value) or value[position] in "}$":
        return position
    if value[position] == "{":
        return group_end(value, position)
    piece = _PIECE.match(value, position)
    return piece.end() if piece else position + 1


def optional_arguments(value: str, position: int, most: int) -> tuple[int, str]:
    """(the index after up to ``most`` bracketed arguments from ``position``, why one stops the document or "").

    LaTeX reads an optional argument to the first ``]`` in its group: a ``[`` or ``$`` before it, a
    ``\\par`` in it or a group that closes first make it read something else, or never end.
    """
    for _ in range(most):
        start = skip_spaces(value, position)
        if not value.startswith("[", start):
            break
        depth = 0
        for token in _BRACKET_TOKEN.finditer(value, start + 1):
            text = token.group()
            if text == "]" and depth == 0:
                position = token.end()
                break
            depth += (text == "{") - (text == "}")
            if depth < 0 or (depth == 0 and text in "[$") or text == "\\par":
                return position, "its optional argument [...] does not close where LaTeX looks for it"
        else:
            return position, "its optional argument [...] does not close where LaTeX looks for it"
    return position, ""


def keys_offence(value: str, name: str, position: int) -> tuple[str, int]:
    """(why the keys after ``\\name`` stop the document or "", the end of the construct)."""
    position, reason = optional_arguments(value, position, KEYED[name])
    if reason:
        return reason, position
    start = skip_spaces(value, position)
    end = piece_end(value, start)
    if value.startswith("{", start) and end > start + 1 and value[end - 1] == "}":
        keys = CITE_KEYS if name != "bibstring" else _ONE_KEY
        if keys.fullmatch(value, start + 1, end - 1):
            return "", end
    if name == "bibstring":
        return "takes one key in braces: letters only (\\bibstring{andothers})", end
    return "takes keys in braces: letters, digits and -_:./+, comma-separated (a space only after a comma)", end


def delimiter_offence(value: str, position: int) -> tuple[str, int]:
    """(why what follows ``\\left`` and the like is no delimiter or "", the end of the construct)."""
    delimiter = _DELIMITER.match(value, position)
    if delimiter:
        return "", delimiter.end()
    return "takes a delimiter: ( ) [ ] | / . < > \\{ \\} \\| \\langle \\rangle... (Missing delimiter)", piece_end(
        value, position
    )


def code(number: re.Match) -> int:
    """The character code a :data:`NUMBER` match stands for."""
    decimal, octal, hexadecimal, char = number.groups()
    if char is not None:
        return ord(char[-1])
    return int(decimal) if decimal else int(octal, 8) if octal else int(hexadecimal, 16)


def _prints_as_itself(code: int) -> bool:
    """Whether ``\\char`` may give this code as a number: biber writes a number's character into the .bbl
    (``\\char"5C`` as a backslash, which runs what follows), though not a backquoted one (``\\char`\\\\``)."""
    return (32 <= code < 127 and chr(code) not in _MARKUP) or code >= 160


def number_offence(value: str, position: int, largest: int, skip: set[int]) -> tuple[str, int]:
    """(why the character code after ``\\char`` or ``\\mathchar`` stops the document or "", the construct's end)."""
    number = NUMBER.match(value, position)
    if not number:
        return f"takes a character code from 0 to {largest} (decimal, 'octal, \"hex without A-F or `c)", position
    if number.group(3) and not number.group(3).isdigit():
        return "a hexadecimal code with A-F: BibTeX lowercases it, and TeX reads no lowercase hex digit", number.end()
    if code(number) > largest:
        return f"takes a character code from 0 to {largest}", number.end()
    if largest == 255 and number.group(4) is None and not _prints_as_itself(code(number)):
        return (
            "biber writes its character into the .bbl, where TeX reads it as markup or a control character; "
            "write the character's command (\\textbackslash, \\{)",
            number.end(),
        )
    if any(position <= at < number.end() for at in skip):
        return "its character code holds LaTeX outside the allowlist: the whole is written literally", number.end()
    return "", number.end()
