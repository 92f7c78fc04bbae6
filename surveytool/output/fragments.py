"""Cached template fragments: ``%% fragment KEY`` ... ``%% endfragment`` renders its body once per key.

A chapter is two small fragments per paper (a paragraph and a table row), and
a rebuild after one edit changes two of them. With the fragments
of the last build (a ``FragmentStore``: the build's memo), a body is rendered only for a key it has
not seen. The key must hold everything the body prints (the bundled templates
give a paper's ``paragraph_key`` and a table row); the template texts stamp
the memo, so editing a template renders everything anew.
"""

from __future__ import annotations

from typing import Any, Protocol, cast

from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.parser import Parser

from surveytool.digest import digest_text
from surveytool.text.latex import LatexMarkup

# Template variables and filters of the extension's own, named so that no template would use them.
_FOUND, _TEXT = "fragment_found__", "fragment_text__"
_LOOKUP, _KEEP = "fragment_lookup__", "fragment_keep__"


class FragmentStore(Protocol):
    """Where rendered fragments are kept between builds (a build's memo): text by (place, key)."""

    def get(self, key: tuple) -> str | None: ...

    def put(self, key: tuple, value: str) -> None: ...


class FragmentExtension(Extension):
    tags = {"fragment"}

    def __init__(self, environment: Any):
        super().__init__(environment)
        environment.extend(fragment_memo=None)
        # Filters, not calls: jinja2 calls a filter directly, a function through its context (most of a lookup's time).
        environment.filters[_LOOKUP] = self._lookup
        environment.filters[_KEEP] = self._keep

    def parse(self, parser: Parser) -> list[nodes.Node]:
        lineno = next(parser.stream).lineno
        key = parser.parse_expression()
        body = parser.parse_statements(("name:endfragment",), drop_needle=True)
        place = nodes.Const(f"{parser.name}:{lineno}")
        # {% set found = key|lookup(place) %}{% if found is none %}{% set text %}body{% endset %}
        # {{ text|keep(place, key) }}{% else %}{{ found }}{% endif %}
        lookup = nodes.Filter(key, _LOOKUP, [place], [], None, None)
        keep = nodes.Filter(nodes.Name(_TEXT, "load"), _KEEP, [place, key], [], None, None)
        is_missing = nodes.Test(nodes.Name(_FOUND, "load"), "none", [], [], None, None)
        render = [nodes.AssignBlock(nodes.Name(_TEXT, "store"), None, body), nodes.Output([keep])]
        return [
            nodes.Assign(nodes.Name(_FOUND, "store"), lookup).set_lineno(lineno),
            nodes.If(is_missing, render, [], [nodes.Output([nodes.Name(_FOUND, "load")])]).set_lineno(lineno),
        ]

    def _store(self) -> FragmentStore | None:
        return cast(Any, self.environment).fragment_memo  # set by environment.extend() above

    def _lookup(self, key: Any, place: str) -> LatexMarkup | None:
        memo: FragmentStore | None = self._store()
        if memo is None:
            return None
        found = memo.get((place, _plain(key)))  # the memo keeps the keys it gives out: plain, to be saved
        return None if found is None else LatexMarkup(found)

    def _keep(self, text: str, place: str, key: Any) -> LatexMarkup:
        memo: FragmentStore | None = self._store()
        if memo is not None:
            memo.put((place, _plain(key)), str(text))
        return LatexMarkup(text)


def _plain(key: Any) -> Any:
    """The key as plain data (marshal stores no named tuples); a named tuple is equal to it as a dict key."""
    return tuple(key) if isinstance(key, tuple) else key


def templates_digest(environment: Any) -> str:
    """A digest of every template the environment can load: what fragments depend on besides their keys.

    A file of the folder that is no text (a .bib, an image beside the templates) counts by its name only:
    no template can include it, and rendering one that tries says so with the file's path.
    """
    loader = environment.loader
    parts: list[str] = []
    for name in sorted(loader.list_templates()):
        try:
            parts.extend((name, loader.get_source(environment, name)[0]))
        except (OSError, UnicodeDecodeError):
            parts.extend((name, "\0unreadable"))
    return digest_text(*parts)
