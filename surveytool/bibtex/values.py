"""Raw BibTeX values -> plain text: enclosing braces or quotes, ``#`` concatenations, macros, LaTeX."""

from __future__ import annotations

import re
from collections.abc import Container, Mapping

from surveytool.bibtex.value_braces import balanced_value, braced_quotes, has_quoted_braces
from surveytool.model import RawBlock, frozen_mapping
from surveytool.text.addresses import www_links_to_the_web
from surveytool.text.latex import Offence, inert_latex, latex_offences, latex_to_text
from surveytool.text.latex_allowlist import CONTROL_CHARS_SET, LatexPolicy, active_policy
from surveytool.text.latex_context import may_nest_too_deep
from surveytool.text.latex_decode import NEEDS_DECODING, quick_latex_to_text
from surveytool.text.latex_inert import balanced_for_bibtex

#: Months as BibTeX's predefined macros expand them, for plain-text values.
MONTH_MACROS = {
    name[:3].lower(): name
    for name in "January February March April May June July August September October November December".split()
}
#: Values copied verbatim: identifiers whose characters mean nothing to BibTeX styles.
VERBATIM_FIELDS = frozenset({"doi", "url", "eprint", "archiveprefix", "eprinttype", "primaryclass", "urldate", "ids"})
#: The fields reference managers file entries by (JabRef's groups, Mendeley's folders, Zotero's keywords): their
#: names are the user's, shared with that tool, and no style prints them.
FILING_FIELDS = frozenset({"groups", "keywords", "mendeley-groups", "mendeley-tags"})
_MONTH_NUMBERS = {str(i): macro for i, macro in enumerate(MONTH_MACROS, start=1)}
_MONTH_NAMES = {name.lower(): macro for macro, name in MONTH_MACROS.items()}


def month_macro(text: str) -> str | None:
    """The month macro (``mar``) for a plain month: ``3``, ``March``, ``Mar.``, ``mar``; None if it is none."""
    key = text.strip().lower().rstrip(".")
    macro = _MONTH_NUMBERS.get(key) or _MONTH_NAMES.get(key) or (key if key in MONTH_MACROS else None)
    if macro is None:
        for name, candidate in _MONTH_NAMES.items():
            if len(key) >= 3 and name.startswith(key):
                macro = candidate
    return macro


def split_tags(value: str) -> tuple[str, ...]:
    """Tags as users write them in a field: comma- or semicolon-separated."""
    return tuple(t.strip() for t in value.replace(";", ",").split(",") if t.strip())


def _strip_enclosing(value: str) -> str:
    """``{text}`` or ``"text"`` -> ``text``, inner spaces kept (they matter in concatenations)."""
    value = value.strip()
    if len(value) >= 2 and (value[0], value[-1]) in (("{", "}"), ('"', '"')):
        return value[1:-1]
    return value


_DELIMITER = re.compile(r'[{}"#]')


def split_concatenation(value: str) -> list[str]:
    """The parts of ``a # "b" # {c}``; ``#`` inside braces or quotes is text."""
    parts, depth, in_quotes, start = [], 0, False, 0
    for match in _DELIMITER.finditer(value):  # only the characters that matter, not every one of a long abstract
        i, char = match.start(), match.group()
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth == 0:
            in_quotes = not in_quotes
        elif char == "#" and depth == 0 and not in_quotes:
            parts.append(value[start:i].strip())
            start = i + 1
    parts.append(value[start:].strip())
    return parts


def joined_latex(value: str, macros: Mapping[str, str] | None = None) -> str | None:
    """The LaTeX a raw value holds when every ``#`` piece of it is braced or quoted, or a macro of ``macros``
    (name -> raw value) whose value is, joined as BibTeX joins them; None for anything else (a bare number,
    an unknown macro): its text is then the decoded value's."""
    inner = []
    for piece in split_concatenation(value.strip()):
        if len(piece) >= 2 and piece[0] + piece[-1] in ("{}", '""'):
            inner.append(piece[1:-1])
            continue
        # A definition that uses another macro is left to the decoded text: no chain to follow, no cycle.
        expanded = joined_latex(macros[piece.lower()]) if macros and piece.lower() in macros else None
        if expanded is None:
            return None
        inner.append(expanded)
    return "".join(inner)


#: Fields shown to readers, decoded exactly (pylatexenc where the quick decoder is unsure).
#: Other fields (abstracts, notes, ...) are only matched or written back as they were.
EXACTLY_DECODED = frozenset(
    "title author editor booktitle journal series publisher institution school organization howpublished".split()
)
#: ``\noopsort{key}`` (and its ``\noop`` spelling) only steers BibTeX's sorting: it prints nothing.
_SORT_ONLY = re.compile(r"\\noop(?:sort)?\s*\{[^{}]*\}")


def marked_up_year(value: str) -> bool:
    """Whether a raw year holds a command besides the sorting tricks (``\\noopsort{a}``): natbib puts the year in
    its labels, and a robust one (``\\emph``) stops LaTeX where they are expanded ("Improper alphabetic constant")."""
    return "\\" in value and "\\" in _SORT_ONLY.sub("", value)


def value_to_text(value: str, strings: Mapping[str, str] = frozen_mapping(), exact: bool = True) -> str:
    """Plain text of a raw BibTeX value, with macros and concatenations expanded."""
    if len(value) > 1 and value[0] + value[-1] in ("{}", '""') and not NEEDS_DECODING.search(value, 1, len(value) - 1):
        return " ".join(value[1:-1].split())  # one braced or quoted piece of plain text, at once: most values
    decode = _exactly_decoded if exact else quick_latex_to_text
    if "\\noop" in value:
        value = _SORT_ONLY.sub("", value)
    stripped = value.strip()
    if "#" not in stripped:  # one part: the common case
        return decode(_part_text(stripped, strings))
    return decode("".join(_part_text(part, strings) for part in split_concatenation(value)))


def _exactly_decoded(text: str) -> str:
    try:
        return latex_to_text(text)
    except RecursionError:
        # pylatexenc parses groups and environments recursively: nested a few hundred deep, a value
        # gets the table-driven decoder, which reads it in one flat pass.
        return quick_latex_to_text(text)


def _part_text(part: str, strings: Mapping[str, str]) -> str:
    """One part of a value: enclosed text, a macro, a month, or a bare number."""
    if part[:1] in ("{", '"'):
        return _strip_enclosing(part)
    name = part.lower()
    if name in strings:
        return _strip_enclosing(strings[name])
    return MONTH_MACROS.get(name, part)


class ExpansionTooLarge(ValueError):
    """@string macros that expand a value past ``MAX_EXPANDED`` characters, through more than
    ``MAX_MACRO_DEPTH`` macros, or through one that uses itself: such a value is reported, never guessed."""


#: More than any real value; a chain of macros that each use the previous one twice gets there fast.
MAX_EXPANDED = 1 << 20
MAX_MACRO_DEPTH = 100


def value_as_tex(value: str, strings: Mapping[str, str] = frozen_mapping()) -> str:
    """The LaTeX that BibTeX passes on for a raw value: delimiters off, macros expanded, ``#`` parts joined.

    A macro that ``strings`` does not define (a month, a style's journal name) stays as its name: letters, so that
    a command before it still reads as a longer, unknown command rather than as a shorter allowed one.
    """
    return _expand(value, strings, {}, ())


def _expand(value: str, strings: Mapping[str, str], expanded: dict[str, str], using: tuple[str, ...]) -> str:
    stripped = value.strip()
    pieces = []
    for part in split_concatenation(value) if "#" in stripped else [stripped]:
        name = part.lower()
        if part[:1] in ("{", '"'):
            pieces.append(_strip_enclosing(part))
        elif name in strings:
            if name not in expanded:  # a macro used many times is expanded once
                if name in using or len(using) >= MAX_MACRO_DEPTH:
                    raise ExpansionTooLarge(value)
                expanded[name] = _expand(strings[name], strings, expanded, (*using, name))
            pieces.append(expanded[name])
        else:
            pieces.append(part)
    joined = "".join(pieces)
    if len(joined) > MAX_EXPANDED:
        raise ExpansionTooLarge(value)
    return joined


def macro_names(value: str) -> list[str]:
    """The macros (lower case) a raw value uses: its bare parts that are not numbers."""
    stripped = value.strip()
    if stripped[:1] in ("{", '"') and "#" not in stripped:
        return []
    parts = split_concatenation(value) if "#" in stripped else [stripped]
    return [part.lower() for part in parts if part[:1] not in ("{", '"') and not part.isdigit()]


def bibtex_value_offences(
    value: str, strings: Mapping[str, str] = frozen_mapping(), preamble: bool = False
) -> tuple[str, list[Offence]]:
    """(the value as TeX reads it, its tokens outside the LaTeX allowlist); ("", []) for most values, at once.

    ``preamble``: the value of a @preamble, which may define the commands the allowlist lets it define.
    """
    # Groups TeX cannot nest (latex_context.too_deep); a @preamble (a few per file) is always read: a raw & in it,
    # or in a macro it uses, stops LaTeX (preamble_text).
    deep = preamble or may_nest_too_deep(value)
    if (
        "\\" not in value
        and "^^" not in value
        and "#" not in value
        and (value[:1] in '{"' or value.strip().lower() not in strings)
        and not deep
    ):
        return "", _NONE  # one piece, with no command in it and no macro of the file: most values
    with_commands, memo = _table_state(strings)
    if (
        "\\" not in value
        and "^" not in value
        and not deep
        and not any(name in with_commands for name in macro_names(value))
    ):
        return "", _NONE  # pieces and macros without a backslash or a caret: nothing for TeX to run
    key = (value, preamble, active_policy())
    memo = _shared if value[:1] in '{"' and "#" not in value else memo  # one piece reads alike with any table
    found = memo.get(key)
    if found is None:
        try:
            tex = value_as_tex(value, strings)
            found = tex, latex_offences(tex, preamble=preamble)
        except ExpansionTooLarge:
            found = (
                value,
                [Offence(0, len(value), value, "its @string macros expand too far (in size, depth, or circles)")],
            )
        if len(memo) < _MEMO_SIZE:
            memo[key] = found
    return found


_NONE: list[Offence] = []
_MEMO_SIZE = 1 << 16
# The values read whatever the table: a .bib written is checked against another table than the one it was read with.
_shared: dict[tuple[str, bool, LatexPolicy], tuple[str, list[Offence]]] = {}
# Per @string table (a run uses a few): the names whose expansion may hold a command, and the values read.
_tables: dict[int, tuple[Mapping[str, str], frozenset[str], dict]] = {}


def macros_with_commands(strings: Mapping[str, str]) -> frozenset[str]:
    """The macros of ``strings`` whose expansion may hold a backslash or a caret."""
    return _table_state(strings)[0]


def uses_any(value: str, names: Container[str]) -> bool:
    """Whether a raw value uses one of the macros ``names`` (lower case)."""
    return (value[:1] not in '{"' or "#" in value) and any(name in names for name in macro_names(value))


def _table_state(strings: Mapping[str, str]) -> tuple[frozenset[str], dict]:
    state = _tables.get(id(strings))
    if state is None:
        if len(_tables) >= 4:
            _tables.clear()
        state = _tables[id(strings)] = (strings, _names_with_commands(strings), {})  # holds the table: ids stay unique
    return state[1], state[2]


def _names_with_commands(strings: Mapping[str, str]) -> frozenset[str]:
    """Macros whose expansion may hold a backslash or a caret: their own value, or a macro they use, has one."""
    found = {name for name, value in strings.items() if "\\" in value or "^" in value}
    uses = {name: macro_names(value) for name, value in strings.items() if name not in found}
    grew = True
    while grew:
        grew = False
        for name, used in uses.items():
            if name not in found and any(u in found for u in used):
                found.add(name)
                grew = True
    return frozenset(found)


_REWRITTEN = re.compile("[" + re.escape("\\^#&%_$]" + "".join(sorted(CONTROL_CHARS_SET))) + "]")


def written_as_read(value: str) -> bool:
    """Whether a value read from a .bib is written as it is in any field (``fields._value``): one braced piece, or one
    quoted without braces, with no command, caret, join, special (``raw_specials``), control character or ]."""
    enclosed = value[:1] == "{" or (value[:1] == '"' and "{" not in value and "}" not in value)
    return enclosed and not _REWRITTEN.search(value) and not may_nest_too_deep(value)


def safe_bibtex_value(value: str, strings: Mapping[str, str] = frozen_mapping(), preamble: bool = False) -> str:
    """``value`` as written if TeX reads only allowed LaTeX in it; else one braced value that prints it literally.

    Either way balanced as BibTeX counts braces: a lone ``\\}`` or ``\\{`` is written ``\\textbraceright{}``
    or ``\\textbraceleft{}`` (``lone-escaped-brace``), and so is a plain brace a quoted piece does not
    pair (``unbalanced-brace``), so that BibTeX reads every field of the entry; a quoted piece with a ``\\"``
    is written in braces (``inner-quote``). A ``\\url`` or ``\\href`` address written ``www.…`` gets ``https://``.
    """
    if (
        "\\" not in value
        and "^^" not in value
        and "#" not in value
        and value[:1] in '{"'
        and not may_nest_too_deep(value)
        and not preamble
    ):
        # bibtex_value_offences's first test, for the common case without a call: no command, one piece.
        if value[:1] == "{" or ("{" not in value and "}" not in value):
            return value
        return balanced_value(value)  # a quoted value with braces ("{GPU}s"): only they may need mending
    quoted = '"' in value and has_quoted_braces(value)
    if quoted:  # its quoted pieces balanced, BibTeX reads them as bibtexparser did: that is what is checked
        value = balanced_value(value)
    value = braced_quotes(value)  # a piece with a \" that would end it for BibTeX, in braces
    tex, offences = bibtex_value_offences(value, strings, preamble)
    if offences:
        value = "{" + balanced_for_bibtex(inert_latex(tex, offences, preamble)) + "}"
    elif not quoted and ("\\{" in value or "\\}" in value):  # the braces BibTeX pairs with others than TeX does
        value = balanced_for_bibtex(value)
    return www_links_to_the_web(value)  # hyperref links \href{www.x} to a local file, \url{www.x} to one beside it


def written_value_offences(
    value: str, strings: Mapping[str, str] = frozen_mapping(), preamble: bool = False
) -> tuple[str, list[Offence]]:
    """``bibtex_value_offences`` of ``value``, and where it has none, of ``value`` balanced: BibTeX reads the
    quoted pieces of that one as they were written, and joined they may hold what it did not (``"^" # "^5c"``)."""
    found = bibtex_value_offences(value, strings, preamble)
    if not found[1] and '"' in value and has_quoted_braces(value) and (balanced := balanced_value(value)) is not value:
        return bibtex_value_offences(balanced, strings, preamble)
    return found


def string_block_value(block: RawBlock) -> str:
    """The raw value of an @string block as ``reader.py`` keeps it (``@string{name = value}``)."""
    return block.text[len("@string{") + len(block.key) + len(" = ") : -1]
