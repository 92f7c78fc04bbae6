"""Key formulas: a small Better BibTeX-like language that makes a citation key from a paper's fields.

    auth.lower + year + shorttitle(1).lower         terms joined by ``+``
    auth.lower + year | title.condense.truncate(20) ``|``: the first alternative that gives a key

A term is a field or a quoted text, then any number of ``.filter`` or ``.filter(arguments)``.
Fields give transliterated ASCII words (``Øster`` -> ``Oster``, ``张伟`` -> ``ZhangWei``); the key
keeps letters, digits and ``_:.-`` of what the terms give.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from surveytool.analysis.key_authors import author_names, surname
from surveytool.errors import InputError
from surveytool.model import Paper, year_of
from surveytool.text.transliterate import STOPWORDS, significant_words, to_ascii, words

#: The formula keys were always given by: surname, year, first significant title word.
DEFAULT_FORMULA = 'auth.lower.or("anon") + year.or("nd") + shorttitle(1).lower.truncate(20)'

KEY_UNSAFE = re.compile(r"[^A-Za-z0-9_:.\-]")


class KeyFormulaError(ValueError):
    """A formula that cannot be read: the message says what and at which column."""


# The language -------------------------------------------------------------------------------------------

#: A call's arguments: (name, int or str, default or None when required).
#: A number above this is no count of letters, words or authors a key could use (and a longer one is no int).
_MAX_NUMBER = 10_000
_Params = tuple[tuple[str, type, int | str | None], ...]


@dataclass(frozen=True)
class _Call:
    name: str
    args: tuple[int | str, ...]


@dataclass(frozen=True)
class _Term:
    source: _Call | str  # a field, or quoted text
    filters: tuple[_Call, ...]


@dataclass(frozen=True)
class KeyFormula:
    """A compiled formula: ``key(paper)`` is the key it gives (empty if no alternative gives one)."""

    text: str
    alternatives: tuple[tuple[_Term, ...], ...]

    def key(self, paper: Paper) -> str:
        for terms in self.alternatives:
            key = KEY_UNSAFE.sub("", to_ascii("".join(_evaluate(term, paper) for term in terms)))
            if key:
                return key
        return ""


def _field_auth(paper: Paper, n: int, m: int) -> str:
    names, _ = author_names(paper)
    family = surname(*names[m - 1]) if len(names) >= m else ""
    return family[:n] if n else family


def _field_authors(paper: Paper, n: int) -> str:
    names, etal = author_names(paper)
    shown = names[:n] if n else names
    more = etal or len(names) > len(shown)
    return " ".join([surname(*name) for name in shown] + (["EtAl"] if more and shown else []))


def _field_auth_etal(paper: Paper) -> str:
    names, etal = author_names(paper)
    if len(names) > 2 or (etal and names):
        return f"{surname(*names[0])} EtAl"
    return " ".join(surname(*name) for name in names)


def _field_shorttitle(paper: Paper, n: int, m: int) -> str:
    chosen = significant_words(paper.title or "", n)
    return " ".join(w[:1].upper() + w[1:] if i < m else w for i, w in enumerate(chosen))


def _field_venue(paper: Paper) -> str:
    venue = next((paper.fields[f] for f in ("booktitle", "journal", "howpublished") if paper.fields.get(f)), "")
    # Its name: after a comma or parenthesis come a year, an edition or a place ("... Representations (ICLR 2021)").
    return " ".join(words(re.split(r"[,(]", venue, maxsplit=1)[0] or venue))


_FIELDS: dict[str, tuple[_Params, Callable[..., str]]] = {
    "auth": ((("n", int, 0), ("m", int, 1)), _field_auth),
    "authors": ((("n", int, 0),), _field_authors),
    "authEtAl": ((), _field_auth_etal),
    "year": ((), lambda paper: year_of(paper.year)),
    "title": ((), lambda paper: " ".join(words(paper.title or ""))),
    "shorttitle": ((("n", int, 3), ("m", int, 0)), _field_shorttitle),
    "venue": ((), _field_venue),
}


def _truncate(value: str, n: int) -> str:
    """The first ``n`` letters and digits; the spaces between words are not counted."""
    if len(value) <= n:
        return value
    kept, count = [], 0
    for char in value:
        if count == n:
            break
        kept.append(char)
        count += not char.isspace()
    return "".join(kept).rstrip()


def _abbreviation(value: str) -> str:
    """The first letter of each word, stopwords and numbers ("2022", "32nd") left out."""
    return "".join(w[:1] for w in value.split() if w.lower() not in STOPWORDS and not w[:1].isdigit())


_FILTERS: dict[str, tuple[_Params, Callable[..., str]]] = {
    "lower": ((), str.lower),
    "upper": ((), str.upper),
    "abbr": ((), lambda value: _abbreviation(value)),
    "truncate": ((("n", int, None),), _truncate),
    "condense": ((("sep", str, ""),), lambda value, sep: sep.join(value.split())),
    # Better BibTeX's; every key is spelled in ASCII in the end, so they only matter before truncate or abbr.
    "ascii": ((), to_ascii),
    "fold": ((), to_ascii),
    "or": ((("text", str, None),), lambda value, text: value if value.strip() else to_ascii(text)),
}


def _evaluate(term: _Term, paper: Paper) -> str:
    if isinstance(term.source, str):
        value = to_ascii(term.source)
    else:
        value = _FIELDS[term.source.name][1](paper, *term.source.args)
    for call in term.filters:
        value = _FILTERS[call.name][1](value, *call.args)
    return value


_TOKEN = re.compile(
    r"\s*(?:(?P<name>[A-Za-z][A-Za-z0-9_]*)|(?P<int>\d+)|(?P<str>\"[^\"]*\"|'[^']*')|(?P<punct>[.+|(),]))"
)


class _Parser:
    """Recursive descent over the tokens of a formula; every error names its column."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        position = 0
        while position < len(text):
            if not text[position:].strip():
                break
            match = _TOKEN.match(text, position)
            if not match:
                column = len(text) - len(text[position:].lstrip()) + 1
                quote = text[column - 1] in "\"'"
                raise KeyFormulaError(
                    f"{'unclosed quote' if quote else f'unexpected {text[column - 1]!r}'} at column {column}"
                )
            kind = match.lastgroup or ""
            self.tokens.append((kind, match.group(kind), match.start(kind) + 1))
            position = match.end()
        self.index = 0

    def peek(self) -> tuple[str, str, int]:
        return self.tokens[self.index] if self.index < len(self.tokens) else ("end", "", len(self.text) + 1)

    def take(self, value: str | None = None, kind: str | None = None) -> tuple[str, str, int]:
        token = self.peek()
        if (value is not None and token[1] != value) or (kind is not None and token[0] != kind):
            wanted = repr(value) if value else {"name": "a field name", "end": "the end"}.get(kind or "", kind)
            found = "the end" if token[0] == "end" else repr(token[1])
            raise KeyFormulaError(f"expected {wanted} at column {token[2]}, found {found}")
        self.index += 1
        return token

    def formula(self) -> tuple[tuple[_Term, ...], ...]:
        alternatives = [self.alternative()]
        while self.peek()[1] == "|":
            self.take("|")
            alternatives.append(self.alternative())
        self.take(kind="end")
        return tuple(alternatives)

    def alternative(self) -> tuple[_Term, ...]:
        terms = [self.term()]
        while self.peek()[1] == "+":
            self.take("+")
            terms.append(self.term())
        return tuple(terms)

    def term(self) -> _Term:
        kind, value, _ = self.peek()
        source: _Call | str
        if kind == "str":
            self.take()
            source = value[1:-1]
        else:
            source = self.call(_FIELDS, "field")
        filters = []
        while self.peek()[1] == ".":
            self.take(".")
            filters.append(self.call(_FILTERS, "filter"))
        return _Term(source, tuple(filters))

    def call(self, known: dict[str, tuple[_Params, Callable[..., str]]], what: str) -> _Call:
        kind, name, column = self.peek()
        if kind != "name" or name not in known:
            found = "the end" if kind == "end" else repr(name)
            raise KeyFormulaError(f"expected a {what} at column {column}, found {found} (known: {', '.join(known)})")
        self.take()
        params = known[name][0]
        given: list[tuple[str, str, int]] = []
        if self.peek()[1] == "(":
            self.take("(")
            while self.peek()[1] != ")":
                if given:
                    self.take(",")
                token = self.peek()
                if token[0] not in ("int", "str"):
                    found = "the end" if token[0] == "end" else repr(token[1])
                    raise KeyFormulaError(f"expected a number or a quoted text at column {token[2]}, found {found}")
                given.append(self.take())
            self.take(")")
        return _Call(name, _arguments(name, params, given, column))


def _arguments(name: str, params: _Params, given: Sequence[tuple[str, str, int]], column: int) -> tuple[int | str, ...]:
    usage = f"{name}({', '.join(p for p, _, _ in params)})" if params else name
    if len(given) > len(params):
        raise KeyFormulaError(f"{name} at column {column} takes {len(params) or 'no'} argument(s): {usage}")
    args: list[int | str] = []
    for index, (param, kind, default) in enumerate(params):
        if index >= len(given):
            if default is None:
                raise KeyFormulaError(f"{name} at column {column} needs its {param}: {usage}")
            args.append(default)
            continue
        token_kind, text, where = given[index]
        if kind is int and token_kind != "int" or kind is str and token_kind != "str":
            wanted = "a whole number" if kind is int else "a quoted text"
            raise KeyFormulaError(f"{name}'s {param} at column {where} must be {wanted}: {usage}")
        # Leading zeros are no size ("000001" is 1); a long number is refused before int() reads it all.
        digits = text.lstrip("0") or "0"
        if kind is int and (len(digits) > 5 or int(digits) > _MAX_NUMBER):
            raise KeyFormulaError(f"{name}'s {param} at column {where} is over {_MAX_NUMBER}: {usage}")
        args.append(int(digits) if kind is int else text[1:-1])
    if name == "auth" and args[1] == 0:
        raise KeyFormulaError(f"auth's m at column {column} counts authors from 1: auth(0, 2) is the second's surname")
    return tuple(args)


def formula_option(text: str) -> KeyFormula:
    """The formula given with --key-formula; an InputError says what is wrong in it."""
    try:
        return compile_formula(text)
    except KeyFormulaError as error:
        raise InputError(f"--key-formula: {error}", hint="see Keys in the README") from None


@lru_cache(maxsize=64)
def compile_formula(text: str) -> KeyFormula:
    """The formula ``text``, read once; KeyFormulaError says what is wrong and where."""
    if not text.strip():
        raise KeyFormulaError("the formula is empty")
    if text.lstrip().startswith("["):
        # The pattern syntax of JabRef and of Better BibTeX before version 6: say what to write instead.
        raise KeyFormulaError(
            "[field:filter] patterns are not read here: write auth.lower + year for [auth:lower][year]"
        )
    return KeyFormula(text, _Parser(text).formula())


DEFAULT = compile_formula(DEFAULT_FORMULA)
