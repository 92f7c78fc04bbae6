"""How a written .bib is laid out: bibtex-tidy's formatting options where they overlap, and what each does.

The defaults are the standard layout, and each option changes only what it names.
Every change keeps a value valid BibTeX that TeX reads the same way, unless the option is about what
it reads (omitted fields, truncated authors, title case, month macros).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields

from surveytool.bibtex.values import EXACTLY_DECODED, VERBATIM_FIELDS, month_macro, split_concatenation

#: bibtex-tidy's own field order: ``--sort-fields bibtex-tidy``, ``sort_fields = true``.
TIDY_FIELD_ORDER = tuple(
    "title shorttitle author year month day journal booktitle location on publisher address series volume number "
    "pages doi isbn issn url urldate copyright category note metadata".split()
)
#: Words a title-cased value keeps in lower case (not the first): "and" also parts names.
_SMALL_WORDS = frozenset("a an and as at but by for from in nor of on or the to with".split())
#: Fields whose all-capital text ``drop_all_caps`` title-cases: the ones readers see as text.
_PROSE_FIELDS = EXACTLY_DECODED | {"journaltitle", "address"}


@dataclass(frozen=True)
class BibFormat:
    """Formatting of a written .bib; ``BibFormat()`` is the standard layout."""

    omit: tuple[str, ...] = ()  # fields left out (lower case)
    sort_fields: tuple[str, ...] = ()  # these first, in this order; the others in the standard order
    space: int = 2  # spaces before each field
    tab: bool = False  # a tab before each field instead
    align: int = 0  # "=" in this column after the indent when the name is shorter
    curly: bool | None = None  # True: values in braces; False: in quotes where they can be; None: as written
    numeric: bool = False  # bare numbers: {2019} -> 2019
    months: bool = False  # every month as its macro: {March} -> mar
    remove_empty_fields: bool = False
    max_authors: int = 0  # more authors than this: the first ones "and others"; 0 keeps all
    wrap: int = 0  # lines longer than this broken at spaces; 0 never
    drop_all_caps: bool = False  # ALL-CAPITAL text in title case
    # --space, --tab or [bib] set the indent, maybe to the standard one: it is not the file's indent under
    # `bib --in-place`. Not compared: the layout is the standard one all the same.
    indent_given: bool = field(default=False, compare=False)

    @property
    def indent(self) -> str:
        return "\t" if self.tab else " " * self.space


STANDARD = BibFormat()


def _is_int_in(low: int, high: int) -> Callable[[object], bool]:
    return lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


def _is_names(value: object) -> bool:
    return isinstance(value, list | tuple) and all(isinstance(n, str) and _FIELD_NAME.fullmatch(n) for n in value)


_FIELD_NAME = re.compile(r"[A-Za-z][\w:.+-]*")
_is_bool = (lambda v: isinstance(v, bool), "true or false")
#: Setting -> (is the value acceptable, what it must be, an example): the [bib] table and the flags.
SETTING_RULES: dict[str, tuple[Callable[[object], bool], str, str]] = {
    "omit": (_is_names, "a list of field names", 'omit = ["abstract", "file"]'),
    "sort_fields": (
        lambda v: v is True or _is_names(v),
        "true (bibtex-tidy's order) or a list of field names",
        'sort_fields = ["title", "author", "year"]',
    ),
    "space": (_is_int_in(0, 16), "a whole number of spaces from 0 to 16", "space = 4"),
    "align": (_is_int_in(0, 40), "a column from 0 to 40 (0: no column)", "align = 14"),
    "max_authors": (_is_int_in(0, 10_000), "a whole number, 0 (all) or more", "max_authors = 10"),
    "wrap": (lambda v: v == 0 or _is_int_in(20, 10_000)(v), "0 (never) or a column of 20 or more", "wrap = 80"),
    **{
        name: (_is_bool[0], _is_bool[1], f"{name} = true")
        for name in ("tab", "curly", "numeric", "months", "remove_empty_fields", "drop_all_caps")
    },
}


def bib_format(settings: Mapping[str, object], base: BibFormat = STANDARD) -> BibFormat:
    """``base`` with the checked ``settings`` (names as in [bib]) in force."""
    known = {f.name for f in fields(BibFormat)}
    values: dict = {}
    for name, value in settings.items():
        if name not in known:
            raise KeyError(name)
        if name == "sort_fields" and value is True:
            value = TIDY_FIELD_ORDER
        elif name in ("omit", "sort_fields"):
            value = tuple(str(v).lower() for v in value)  # type: ignore[attr-defined]
        values[name] = value
    if "space" in values or "tab" in values:  # from the flags or [bib]
        values["indent_given"] = True
    chosen = BibFormat(**{**{f.name: getattr(base, f.name) for f in fields(BibFormat)}, **values})
    if chosen.indent_given:
        return chosen
    return STANDARD if chosen == STANDARD else chosen  # the writers test for STANDARD by identity


def format_fields(rendered: list[tuple[str, str]], fmt: BibFormat) -> list[tuple[str, str]]:
    """An entry's ``(name, raw value)`` pairs with ``fmt``'s omissions, value changes and field order."""
    out = []
    for name, raw in rendered:
        if name in fmt.omit or (fmt.remove_empty_fields and _is_empty(raw)):
            continue
        if fmt.months and name == "month":
            raw = _as_month(raw)
        if fmt.max_authors and name == "author":
            raw = _truncated_names(raw, fmt.max_authors)
        if fmt.drop_all_caps and name in _PROSE_FIELDS:
            raw = _title_cased(raw, name in ("author", "editor"))
        if fmt.curly is not None or fmt.numeric:
            text = _enclosed(raw)
            if text is not None:
                raw = _delimited(raw, text, fmt)
            else:
                raw = " # ".join(_delimited(part, _enclosed(part), fmt) for part in split_concatenation(raw))
        out.append((name, raw))
    if fmt.sort_fields:
        rank = {name: i for i, name in enumerate(fmt.sort_fields)}
        out.sort(key=lambda pair: rank.get(pair[0], len(rank)))  # stable: the others keep the standard order
    return out


def _is_empty(raw: str) -> bool:
    text = _enclosed(raw.strip())
    return text is not None and not text.strip()


def _enclosed(raw: str) -> str | None:
    """The text inside a value that is one braced or quoted group; None for a number, macro, concatenation
    or a value with text after its group (as some files have)."""
    if len(raw) < 2 or raw[0] not in '{"':
        return None
    quoted = raw[0] == '"'
    depth = 0
    # Only the delimiters, not every character of a long abstract.
    for match in (_DELIMITERS if quoted else _BRACES).finditer(raw, 1 if quoted else 0):
        char = match.group()
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        if depth == 0 and (char == '"' or not quoted):  # the group closes here
            return raw[1:-1] if match.start() == len(raw) - 1 else None
    return None


_BRACES = re.compile(r"[{}]")
_DELIMITERS = re.compile(r'[{}"]')


def _as_month(raw: str) -> str:
    text = _enclosed(raw)
    macro = month_macro(text if text is not None else raw)
    return macro if macro and (text is None or "{" not in text) else raw


_NAME_SEPARATOR = re.compile(r"\s+and\s+", re.IGNORECASE)


def _truncated_names(raw: str, keep: int) -> str:
    text = _enclosed(raw)
    if text is None or len(_NAME_SEPARATOR.findall(text)) < keep:
        return raw  # at most ``keep`` names, braced ones or not
    names = _split_at_depth_zero(text, _NAME_SEPARATOR)
    if names and names[-1].strip().lower() == "others":
        names.pop()
    if len(names) <= keep:
        return raw
    return raw[0] + " and ".join([*names[:keep], "others"]) + raw[-1]


def _split_at_depth_zero(text: str, separator: re.Pattern[str]) -> list[str]:
    """``text`` split where ``separator`` matches outside braces (``{Smith and Sons}`` is one name)."""
    depths = _depths(text)
    parts, start = [], 0
    for match in separator.finditer(text):
        if depths[match.start()] == 0:
            parts.append(text[start : match.start()])
            start = match.end()
    parts.append(text[start:])
    return parts


def _depths(text: str) -> list[int]:
    """The brace depth at each character of ``text``."""
    depth, out = 0, []
    for char in text:
        if char == "}":
            depth -= 1
        out.append(depth)
        if char == "{":
            depth += 1
    return out


_CONTROL_SEQUENCE = re.compile(r"\\(?:[A-Za-z]+|.)")


def _title_cased(raw: str, names: bool = False) -> str:
    """An ALL-CAPITAL value in title case; braced groups inside it (protected words, command arguments) as they are.

    In a list of ``names``, "and" stays lower case also after an initial's full stop.
    """
    text = _enclosed(raw)
    if text is None or (not text.isupper() and "\\" not in text and "{" not in text):
        return raw  # only a command or a braced group can hide lower case from isupper()
    depths = _depths(text)
    commands = {i for m in _CONTROL_SEQUENCE.finditer(text) for i in range(m.start(), m.end())}
    plain = [i for i, c in enumerate(text) if depths[i] == 0 and i not in commands and c.isalpha()]
    if len(plain) < 2 or any(text[i].islower() for i in plain) or not any(text[i].isupper() for i in plain):
        return raw
    chars = list(text)
    for n, (capital, letters) in enumerate(_words(text, depths, commands)):
        if not letters:
            continue
        after_stop = not names and text[: letters[0]].rstrip()[-1:] in (":", ".", "?", "!")  # "Panic: A Guide"
        small = n > 0 and not after_stop and "".join(text[i] for i in letters).lower() in _SMALL_WORDS
        for k, i in enumerate(letters):
            chars[i] = text[i].upper() if capital and not small and k == 0 else text[i].lower()
    return raw[0] + "".join(chars) + raw[-1]


def _words(text: str, depths: list[int], commands: set[int]) -> list[tuple[bool, list[int]]]:
    """Each word of ``text`` as (whether it starts with a letter of its own, the indexes of those letters).

    An accent (``SCHR\\"ODINGER``), a group's braces or an apostrophe does not end a word; a word that
    starts in a braced group (``{\\"O}STERREICH``) has no capital of its own.
    """
    words: list[tuple[bool, list[int]]] = []
    in_word = False
    for i, char in enumerate(text):
        if char in "{}" or (i in commands and depths[i] == 0):
            continue
        if depths[i] > 0:
            if char.isspace():
                in_word = False
            elif not in_word:
                words.append((False, []))
                in_word = True
        elif char.isalpha():
            if not in_word:
                words.append((True, []))
                in_word = True
            words[-1][1].append(i)
        else:
            in_word = in_word and char in "'\u2019"
    return words


def _delimited(part: str, text: str | None, fmt: BibFormat) -> str:
    """One part of a value (``text`` inside its delimiters, if any) in the delimiters ``fmt`` asks for: braces,
    quotes, or bare for a number."""
    if fmt.numeric and (text if text is not None else part).isdigit():
        return text if text is not None else part
    if text is None:
        return "{" + part + "}" if fmt.curly and part.isdigit() else part  # macros stay names
    if fmt.curly is True and part[0] == '"':
        return "{" + text + "}"
    # A quote inside, even in braces, is left in braces: bibtexparser would end the value there.
    if fmt.curly is False and part[0] == "{" and '"' not in text:
        return '"' + text + '"'
    return part


def field_lines(fields_: Iterable[tuple[str, str]], fmt: BibFormat) -> str:
    """The field lines of an entry in ``fmt``'s indent, column and width (``writer.entry_text``'s body)."""
    lines = []
    for name, value in fields_:
        head = f"{fmt.indent}{name.ljust(fmt.align - 1)} = "
        if (
            fmt.wrap
            and name not in VERBATIM_FIELDS
            and len(head) + len(value) + 1 > fmt.wrap
            and _enclosed(value) is not None
        ):
            value = _wrapped(value, len(head.expandtabs()), fmt.wrap)
        lines.append(f"{head}{value},\n")
    return "".join(lines)


_SPACES = re.compile(r" +")


def _wrapped(value: str, column: int, width: int) -> str:
    """``value`` broken at runs of spaces so that lines end by ``width`` where the words allow.

    BibTeX and TeX read a line break as the space it replaces; continuation lines start one past the
    value's opening delimiter. A control space (``\\ ``) is never broken: TeX would read the next line's
    indent after it; nor a space before ``@``: a line starting with ``@word{`` reads as a new entry.
    """
    pad = " " * (column + 1)
    pieces, at, last = [], column, 0  # at: the column the next character is written in
    for match in _SPACES.finditer(value):
        word = value[last : match.start()]
        pieces.append(word)
        at = at + len(word) if "\n" not in word else len(word) - word.rfind("\n") - 1
        following = value.find(" ", match.end())
        following_length = (len(value) if following < 0 else following) - match.end()
        if (
            at + 1 + following_length > width
            and at > len(pad)
            and not word.endswith("\\")
            and value[match.end() : match.end() + 1] != "@"
        ):
            pieces.append("\n" + pad)
            at = len(pad)
        else:
            pieces.append(match.group())
            at += len(match.group())
        last = match.end()
    pieces.append(value[last:])
    return "".join(pieces)
