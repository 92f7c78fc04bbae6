"""BibTeX name lists -> name parts, by bibtexparser's splitter (BibTeX's own rules, braces respected)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bibtexparser.middlewares.names import InvalidNameError, parse_single_name_into_parts

from surveytool.bibtex.values import VERBATIM_FIELDS
from surveytool.text.latex_allowlist import TOKEN
from surveytool.text.latex_commands import LETTER_COMMANDS
from surveytool.text.latex_decode import quick_decode

_AND = re.compile(r"\s+and\s+", re.IGNORECASE)


@dataclass(frozen=True)
class PersonName:
    """One name as BibTeX reads it; each part still LaTeX. ``corporate``: one brace group, never split."""

    first: str = ""
    von: str = ""
    last: str = ""
    jr: str = ""
    corporate: bool = False


def _is_one_group(name: str) -> bool:
    """True when ``name`` is a single brace group from its first character to its last."""
    if not (name.startswith("{") and name.endswith("}")):
        return False
    depth = 0
    for index, char in enumerate(name):
        depth += (char == "{") - (char == "}")
        if depth == 0 and index < len(name) - 1:
            return False
    return True


def split_names(value: str) -> list[PersonName]:
    """The people of an ``author`` or ``editor`` value (LaTeX, without enclosing braces); "others" is left out."""
    people: list[PersonName] = []
    for name in _persons(value):
        name = " ".join(name.split())
        if not name or name.lower() == "others":
            continue
        if _is_one_group(name):
            people.append(PersonName(last=name[1:-1], corporate=True))
            continue
        try:
            parts = parse_single_name_into_parts(name, strict=False)
        except InvalidNameError:  # too many commas: keep it whole rather than guess
            people.append(PersonName(last=name, corporate=True))
            continue
        people.append(PersonName(" ".join(parts.first), " ".join(parts.von), " ".join(parts.last), " ".join(parts.jr)))
    return people


def _persons(value: str) -> list[str]:
    """The names of a name list, split at each "and" between spaces outside braces, as BibTeX splits them.

    bibtexparser's splitter drops a backslash and the character after it when they follow an "and":
    ``... and \\v{S}ima`` became ``{S}ima``, so every author after the first lost such an accent.
    """
    names: list[str] = []
    start = scanned = depth = 0
    for match in _AND.finditer(value):
        depth += value.count("{", scanned, match.start()) - value.count("}", scanned, match.start())
        scanned = match.start()
        if depth == 0:
            names.append(value[start : match.start()])
            start = match.end()
    names.append(value[start:])
    return names


#: The fields natbib's styles build a citation label from, which LaTeX reads as ``\\bibitem[label]``.
_LABEL_FIELDS = frozenset({"author", "editor", "key", "organization"})
_NAME_FIELDS = frozenset({"author", "editor", "translator", "bookauthor", "editora", "editorb", "editorc"})
# biber makes each word's initial itself and writes it raw into the .bbl (giveni={J\bibinitperiod}): it drops
# commands (\cmd{arg} leaves arg), strips the word's opening braces and takes the first character left. A word
# that so starts with a closing brace ({\TeX} Users Group, {}Eve, {\relax}x) wrote giveni={}\bibinitperiod} and
# LaTeX stopped ("Extra }"); one opening with another command or a special wrote a backslash or a dollar. So a
# word's head must be a letter, a digit, a letter command or an accent on a letter; other heads are left to
# biber only when they print themselves (O'Neil's apostrophe, a parenthesis).
_ACCENT_WORDS = "".join(sorted(name for name in LETTER_COMMANDS if len(name) == 1 and name not in "ijoOlL"))
_LETTER_WORDS = "|".join(sorted((name for name in LETTER_COMMANDS if name not in _ACCENT_WORDS), key=len, reverse=True))
_ACCENTED = r"\s*\{?\s*(?:[A-Za-z]|\\[ij](?![A-Za-z]))"
_LETTER_HEAD = re.compile(
    rf"\\['\"^`~=.]{_ACCENTED}|\\[{_ACCENT_WORDS}](?![A-Za-z]){_ACCENTED}|\\(?:{_LETTER_WORDS})(?![A-Za-z])"
)
_BIBER_WORDS = re.compile(r"[\s~]+(?![^{]*\})")  # biber's split of a part into words: not inside a group
# biber's split into words for the name itself: a tilde accent (Sm\~{}ith) is no tie there, as it is for initials.
_NAME_WORDS = re.compile(r"(?:\s|(?<!\\)~)+(?![^{]*\})")
_HELD_TILDE = "\\\ue000"  # \~ while the name is split as BibTeX splits it, which takes its ~ for a tie
_INITIAL_SPECIALS = frozenset("\\{}$&#%^_~")


def _initial_unsafe(part: str) -> bool:
    """Whether biber's initial of a word of ``part`` (a name part, LaTeX) may be a brace, a backslash or a special."""
    for word in _BIBER_WORDS.split(part):
        for piece in (word, *word.split("-")):  # biber takes an initial of each half of a hyphenated name too
            head = piece.lstrip("{")
            if head and head[0] in _INITIAL_SPECIALS and not _LETTER_HEAD.match(head):
                return True
    return False


def _initials(part: str) -> str:
    """Initials of ``part`` for biber's extended name format: the first ASCII letter or digit each word prints."""
    found = []
    for word in _NAME_WORDS.split(part):
        initial = next((char for char in quick_decode(word)[0] if char.isascii() and char.isalnum()), "")
        found.append(initial)
    return "".join(found) or "{}"  # one empty initial: with none given, biber would make its own


# A name in biber's extended name format already (what the biblatex dialect wrote, read again).
_EXTENDED = re.compile(r'\s*"?(?:given|family|prefix|suffix)(?:-i)?\s*=', re.IGNORECASE)


def _biber_safe(person: str) -> str:
    """``person`` (one name of a list) in biber's extended name format with its initials given, when biber's own
    would end a group of the .bbl; else as it is."""
    if _EXTENDED.match(person):
        return person
    names = split_names(person.replace("\\~", _HELD_TILDE))
    if len(names) != 1 or _HELD_TILDE in person:
        return person
    name = names[0]
    parts = {"given": name.first, "prefix": name.von, "family": name.last, "suffix": name.jr}
    parts = {part: text.replace(_HELD_TILDE, "\\~") for part, text in parts.items()}
    if name.corporate:
        parts["family"] = "{" + parts["family"] + "}"  # one word, as biber reads a name in braces
    unsafe = {part for part, text in parts.items() if _initial_unsafe(text)}
    if not unsafe:
        return person
    written = []
    for part, text in parts.items():
        if text:
            # biber splits the format at commas as CSV does, braces or not: such a part is quoted, its quotes doubled.
            item = f"{part}={{{text}}}"
            written.append(f'"{item.replace(chr(34), chr(34) * 2)}"' if "," in text or '"' in text else item)
            written += [f"{part}-i={_initials(text)}"] if part in unsafe else []
    return ", ".join(written)


# biber rewrites an accent on nothing ({\~{}}x, Sm{\"{ }}ith, a title's \~{ }) as {\~}x or \~: the accent takes the
# closing brace and LaTeX stops ("Argument of \~ has an extra }"). One more empty group it keeps, printing the same.
_EMPTY_ACCENT = re.compile(r"(\\['\"^`~=.])\{\s*\}(?!\{\})")


def _biber_names(value: str) -> str:
    """A name list's raw value with each name whose biber initials would stop LaTeX in the extended name format."""
    if not (value.startswith("{") and value.endswith("}")) or ("\\" not in value and "{" not in value[1:]):
        return value
    persons = _persons(value[1:-1])
    rewritten = [_biber_safe(person) for person in persons]
    if rewritten == persons:
        return value
    return "{" + " and ".join(rewritten) + "}"


# biber decodes \textdollar into a bare "$" in the .bbl (every other command of the allowlist it writes as a command
# or as a character that is no TeX special): math began there, and the bibliography stopped ("Missing $ inserted").
# \$ prints the same and biber keeps it; the spaces TeX skips after the control word go with it.
_TEXTDOLLAR_SPACES = re.compile(r"[ \t]*(?:\r?\n[ \t]*)?")


def _without_textdollar(value: str) -> str:
    if "\\textdollar" not in value:
        return value
    pieces, last = [], 0
    for match in TOKEN.finditer(value):
        if match.start() >= last and match.group() == "\\textdollar":
            pieces += [value[last : match.start()], "\\$"]
            spaces = _TEXTDOLLAR_SPACES.match(value, match.end())
            last = spaces.end() if spaces else match.end()
    return "".join(pieces) + value[last:]


def label_safe(field: str, value: str, dialect: str = "bibtex") -> str:
    """``value`` (a raw BibTeX value of ``field``) with each ``]`` outside its inner braces braced, in the fields a
    label is made of: in ``\\bibitem[Sm]ith(2020)]`` it would end the label, and a key after it would take over
    another entry's citation. For biber (``dialect`` biblatex), a name whose initials biber would write as a brace,
    a backslash or a special (``{\\TeX} Users Group``, ``{\\textbraceright}x``) is written in biber's extended
    name format with its initials given: ``family={...}, family-i=T``. Not for BibTeX, whose initial of
    ``{\\textbraceright}x`` is "}." already. For biber too, ``\\textdollar`` is written ``\\$`` and an accent on nothing
    (``\\~{}``) gets one more empty group."""
    if dialect == "biblatex":
        if field not in VERBATIM_FIELDS:  # biber decodes no address
            value = _EMPTY_ACCENT.sub(r"\1{}{}", _without_textdollar(value))
        value = _biber_names(value) if field in _NAME_FIELDS else value
    if field not in _LABEL_FIELDS or "]" not in value:
        return value
    out, depth = [], 0
    bare = 1 if value.startswith("{") else 0  # the depth of the value's own text: inside its braces, or its quotes
    for char in value:
        depth += (char == "{") - (char == "}")
        out.append("{]}" if char == "]" and depth <= bare else char)
    return "".join(out)
