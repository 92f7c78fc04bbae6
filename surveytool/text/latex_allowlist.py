"""Which LaTeX a .bib value may hold: a tokenizer that reads values as TeX does, and an allowlist.

A blocklist cannot win against TeX (``^^5c`` is a backslash, ``\\csname`` builds any
name, a ``#`` concatenation joins two harmless halves), so values are read token by
token and every control sequence must be on a list of commands that only print
text. Anything else is an :class:`Offence`, and :func:`render_inert` writes it so
that it prints literally. Values made only of allowed tokens are never changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from surveytool.text.block_opens import block_opens
from surveytool.text.control_chars import CONTROL_CHARS
from surveytool.text.latex_commands import (
    CONTROL_SYMBOLS,
    LINK_COMMANDS,
    MATH_COMMANDS,
    NEVER_ALLOWED,
    PREAMBLE_COMMANDS,
    TEXT_COMMANDS,
)
from surveytool.text.latex_context import context_offences, too_deep
from surveytool.text.pdflatex_glyphs import typesets

_DEFINING = frozenset({"newcommand", "providecommand", "def"})

# One token of TeX input that matters here. Letters of a control word include @ and
# non-ASCII letters (a package or engine may read them so): more is checked, never less.
# A backslash before ^^ stands alone: TeX decodes the ^^ first (\^^69nput is \input).
# A caret pair takes what TeX decodes with it (two lowercase hex digits, or one ASCII character);
# never a brace, which BibTeX counted as one.
# Those of control_chars.py but tab and line ends, which TeX reads as spaces.
CONTROL_CHARS_SET = CONTROL_CHARS - frozenset("\t\n\r")
_CONTROL_CHARS = re.escape("".join(sorted(CONTROL_CHARS_SET)))
TOKEN = re.compile(
    r"\^\^(?:[0-9a-f]{2}|[^{}\x80-\U0010ffff])?|\^|\\(?:[^\W\d_]|@)+|\\(?=\^\^)|\\.|\\\Z|\$\$?|[{}]"
    f"|[{_CONTROL_CHARS}]",
    re.S,
)
# The tokens that checking needs (braces, dollars, single carets and control characters only matter when rendering).
_CHECKEDTOKEN = re.compile(r"\^\^(?:[0-9a-f]{2}|[^{}\x80-\U0010ffff])?|\\(?:[^\W\d_]|@)+|\\(?=\^\^)|\\.|\\\Z", re.S)
_WEB_ADDRESS = re.compile(r"\s*\{\s*(?:https?://|www\.[\w-])", re.I)
_DEFINED_NAME = re.compile(r"\*?\s*(?:\{\s*\\((?:[^\W\d_]|@)+)\s*\}|\\((?:[^\W\d_]|@)+))")
_HEX_PAIR = re.compile(r"[0-9a-f]{2}")


@dataclass(frozen=True)
class Offence:
    """A token outside the allowlist: where it is in the value, as written, and why."""

    start: int
    end: int
    text: str
    reason: str


class Misplaced(Offence):
    """An allowed token where it stops the document (a math symbol in text): allowing it again cannot help."""


@dataclass(frozen=True)
class LatexPolicy:
    """The allowlist in force: the built-in commands and the names a user's settings add."""

    extra: frozenset[str] = frozenset()

    def allows(self, name: str) -> bool:
        if len(name) == 1 and not name.isalpha():
            return name in CONTROL_SYMBOLS or name in self.extra
        # A math symbol outside math only stops the document (it runs nothing), and the symbols
        # surveytool's own encoder writes (pylatexenc's table) must read back as allowed.
        return name in TEXT_COMMANDS or name in MATH_COMMANDS or name in self.extra or name in encoder_commands()

    def may_define(self, name: str) -> bool:
        return name in PREAMBLE_COMMANDS or name in self.extra


@cache
def encoder_commands() -> frozenset[str]:
    """The symbol commands pylatexenc's encoder writes for non-ASCII characters (surveytool writes them too)."""
    from pylatexenc.latexencode import get_builtin_conversion_rules

    names: set[str] = set()
    for rule in get_builtin_conversion_rules("defaults"):  # not of characters it writes as \stchar: undefined
        for code, replacement in rule.rule.items():
            names.update(re.findall(r"\\([A-Za-z]+)", replacement) if typesets(chr(code)) else ())
    return frozenset(names - NEVER_ALLOWED)


DEFAULT_POLICY = LatexPolicy()
_active = DEFAULT_POLICY


def use_policy(extra_names: Iterable[str]) -> LatexPolicy:
    """Make ``extra_names`` (``\\mycmd`` or ``mycmd``) allowed from now on, in this process; returns the policy."""
    global _active
    names = frozenset(name.removeprefix("\\") for name in extra_names if name.removeprefix("\\"))
    if names & NEVER_ALLOWED:
        raise ValueError(f"these commands cannot be allowed: {', '.join(sorted(names & NEVER_ALLOWED))}")
    _active = LatexPolicy(names)
    return _active


def active_policy() -> LatexPolicy:
    return _active


def allowlist_digest() -> str:
    """What a cached reading depends on: the names the user allowed."""
    return ",".join(sorted(_active.extra))


def may_hold_commands(value: str) -> bool:
    """Cheap test: False means the value has no backslash and no ``^^`` (nothing for TeX to run)."""
    return "\\" in value or "^^" in value


def find_offences(value: str, policy: LatexPolicy | None = None, preamble: bool = False) -> list[Offence]:
    """Every token of ``value`` outside the allowlist, in order.

    ``preamble`` also accepts definitions (``\\newcommand``, ``\\providecommand``,
    ``\\def``) of the names the policy lets a @preamble define.
    """
    deep: list[Offence] = [Misplaced(*item) for item in too_deep(value)]
    if not may_hold_commands(value):
        return deep
    policy = policy or _active
    found: list[Offence] = []
    defined: set[int] = set()  # where the names a preamble's definitions define start
    for match in _CHECKEDTOKEN.finditer(value):
        token = match.group()
        if token.startswith("^^"):
            meaning = decode_carets(value[match.start() : match.start() + 4])[:1]
            found.append(Offence(match.start(), match.end(), token, f"TeX reads it as {_shown(meaning)}"))
        elif token[0] == "\\" and match.start() not in defined:
            offence = _command_offence(value, match, policy, preamble, defined)
            if offence:
                found.append(offence)
    # Allowed commands can still stop the document where they stand (a math symbol in text, \char without a number);
    # in a @preamble too: BibTeX writes it at the top of the .bbl, in text, and definitions' bodies are used in text.
    misplaced = [*(Misplaced(*item) for item in context_offences(value, {o.start for o in found})), *deep]
    return sorted([*found, *misplaced], key=lambda o: o.start) if misplaced else found


# BibTeX still reads the inside of a @comment and of a block bibtexparser could not parse: there a
# token that could grow (a control word, a backslash, a caret) and ends a quoted or braced piece
# may be joined to the next piece by a ``#``.
_PIECE_ENDS = re.compile(r"\s*(?:\"|\}\s*[#)}]|\}?\s*\Z)")
_CONCATENATION_FOLLOWS = re.compile(r"\s*#")


def _may_grow(token: str) -> bool:
    return (
        token in ("\\", "^", "\\^")
        or token.startswith("^^")
        or (token[0] == "\\" and len(token) > 1 and (token[1].isalpha() or token[1] == "@"))
    )


def find_block_offences(text: str, policy: LatexPolicy | None = None) -> list[Offence]:
    """Offences in a block BibTeX may read in ways bibtexparser did not: tokens, and pieces a ``#`` could join.

    BibTeX reads only what an ``@`` opens, up to its closing brace, and skips any other text: in a
    ``comment`` (``@comment{...}`` or text between entries) what an ``@`` inside it opens
    (``@preamble{...}``), not JabRef's settings or Windows paths; in a failed block, the entry
    and not the text after it.
    """
    if not may_hold_commands(text) and "^" not in text:
        return []
    regions = _regions_bibtex_reads(text)
    if not regions:
        return []
    found = {o.start: o for o in find_offences(text, policy, preamble=True)}
    for match in TOKEN.finditer(text):
        token = match.group()
        cut = (_may_grow(token) and _PIECE_ENDS.match(text, match.end())) or (
            token in ('\\"', "\\}") and _CONCATENATION_FOLLOWS.match(text, match.end())
        )
        if cut and match.start() not in found:
            found[match.start()] = Offence(
                match.start(), match.end(), token, "ends a piece that a # concatenation could join to the next"
            )
    return sorted((o for o in found.values() if any(a <= o.start < b for a, b in regions)), key=lambda o: o.start)


def _regions_bibtex_reads(text: str) -> list[tuple[int, int]]:
    """(start, end) of each ``@type{...}`` or ``@type(...)``, as BibTeX reads them: of ``@comment`` only its name."""
    regions: list[tuple[int, int]] = []
    position = 0
    for opened in block_opens(text):
        if opened.start() < position:
            continue  # inside the block before
        if opened.group(1).lower() == "comment":
            position = opened.end()
            continue
        depth, end, closing = 0, len(text), "}" if opened.group(2) == "{" else ")"
        for index in range(opened.end(), len(text)):
            char = text[index]
            if char == closing and depth == 0:
                end = index + 1
                break
            depth += (char == "{") - (char == "}")
        regions.append((opened.start(), end))
        position = end
    return regions


def math_after(math: str, token: str) -> str:
    """The math mode ("", "inline" or "display") after a ``$`` or ``$$`` token, as TeX reads them."""
    if not math:
        return "display" if token == "$$" else "inline"
    if math == "inline" and token == "$$":
        return "inline"  # one dollar ends the formula, the next starts another
    return ""


def _command_offence(
    value: str, match: re.Match, policy: LatexPolicy, preamble: bool, defined: set[int]
) -> Offence | None:
    token = match.group()
    name = token[1:]
    if not name:
        if value.startswith("^^", match.end()):
            return Offence(match.start(), match.end(), token, "TeX decodes the ^^ after it into the command's name")
        return Offence(match.start(), match.end(), token, "a backslash at the end joins what follows it")
    if preamble and name in _DEFINING:
        definition = _DEFINED_NAME.match(value, match.end())
        target = definition and (definition.group(1) or definition.group(2))
        if definition and target and policy.may_define(target):
            defined.add(definition.start(1 if definition.group(1) else 2) - 1)  # its backslash
            return None
        shown = f"\\{target}" if target else "a command"
        return Offence(match.start(), match.end(), token, f"defines {shown}, which is not allowed")
    if preamble and policy.may_define(name):
        # A definition that calls a name a @preamble defines may call itself, and TeX would loop for ever.
        return Offence(match.start(), match.end(), token, "a @preamble may define it but not use it")
    if not policy.allows(name):
        return Offence(match.start(), match.end(), token, "not in the LaTeX allowlist")
    if name in LINK_COMMANDS and not _WEB_ADDRESS.match(value, match.end()):
        return Offence(match.start(), match.end(), token, "links only to http(s) addresses")
    return None


def caret_notation(char: str) -> str:
    """A control character as TeX's ``^^`` notation spells it: ``^^[`` (ESC), ``^^?`` (DEL), ``^^9b`` (CSI)."""
    return f"^^{chr(ord(char) ^ 64)}" if char < "\x80" else f"^^{ord(char):02x}"


def _printable(text: str) -> str:
    return "".join(caret_notation(c) if c in CONTROL_CHARS_SET else c for c in text)


def _shown(char: str) -> str:
    return char if char.isprintable() and not char.isspace() else f"U+{ord(char):04X}"


def decode_carets(text: str) -> str:
    """``text`` with TeX's ``^^`` notation decoded as TeX reads it (``^^5c`` -> ``\\``, ``^^M`` -> CR).

    A decoded character can start another ``^^`` sequence, as in TeX; each step
    shortens the text, so this stays linear.
    """
    if "^^" not in text:
        return text
    pending = list(reversed(text))
    out: list[str] = []
    while pending:
        char = pending.pop()
        if char == "^" and len(pending) >= 2 and pending[-1] == "^" and ord(pending[-2]) < 128:
            pending.pop()
            following = pending.pop()
            if pending and _HEX_PAIR.fullmatch(following + pending[-1]):
                pending.append(chr(int(following + pending.pop(), 16)))
            else:
                code = ord(following)
                pending.append(chr(code + 64 if code < 64 else code - 64))
            continue
        out.append(char)
    return "".join(out)


BRACE_TOKEN = re.compile(r"\\.|[{}]", re.S)  # \\ is a token of its own: the brace after it is a plain one


def lone_escaped_braces(raw: str) -> list[Offence]:
    """The ``\\{`` and ``\\}`` of a raw .bib value that BibTeX pairs with a plain brace, or with none.

    BibTeX counts every brace, escaped or not: such a brace ends or stretches a piece where TeX
    would not, so what TeX then reads is not what was written (``{\\} \\# 0}`` joins ``\\`` and ``0``).
    """
    lone: list[re.Match[str]] = []
    opened: list[re.Match[str]] = []
    for match in BRACE_TOKEN.finditer(raw):
        token = match.group()
        if token[-1] == "{":
            opened.append(match)
        elif token[-1] == "}":
            partner = opened.pop() if opened else None
            if partner is None or len(partner.group()) != len(token):
                lone.extend(m for m in (partner, match) if m is not None and len(m.group()) == 2)
    lone.extend(m for m in opened if len(m.group()) == 2)
    reason = "an unbalanced brace: BibTeX counts an escaped brace too, so the value is not read as written"
    return sorted((Offence(m.start(), m.end(), m.group(), reason) for m in lone), key=lambda o: o.start)


def describe(offences: list[Offence], value: str, limit: int = 4, braces: list[Offence] | None = None) -> str:
    """The offences for a message: each as written (and how TeX reads it), then what TeX reads the value as.

    ``braces`` (:func:`lone_escaped_braces` of the value as written) come first: the offences are then
    what TeX meets in the value read so.
    """
    if braces:
        return describe(braces, "", limit) + "; read so, TeX meets " + describe(offences, value, limit)
    shown: list[str] = []
    for offence in offences:
        item = f"{_printable(offence.text)} ({offence.reason})"
        if item not in shown:
            shown.append(item)
    listed = ", ".join(shown[:limit]) + (f" and {len(shown) - limit} more" if len(shown) > limit else "")
    if "^^" in value:
        decoded = _printable(" ".join(decode_carets(value).split()))
        listed += f"; TeX reads the value as {decoded[:120]}{'…' if len(decoded) > 120 else ''}"
    return listed
