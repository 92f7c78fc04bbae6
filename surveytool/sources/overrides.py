"""A tag overrides file: the author's own tags for entries they do not keep in a .bib.

# overrides.toml
[tags]
lepikhin2021gshard = ["moe", "model-parallel"]   # primary first
"""

from __future__ import annotations

import bisect
import difflib
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from surveytool.errors import InputError, toml_problem
from surveytool.model import Finding, Paper, Severity, SourceLocation
from surveytool.sources.bounded import SETTINGS_LIMIT, read_user_file

#: A DBLP key (DBLP:conf/nips/X17) is no bare TOML key: the hint of a TOML error says how to write one.
_QUOTE = 'write lines like key = ["moe"] under [tags]; quote a key of other characters: "DBLP:conf/x" = ["moe"]'


def load_overrides(path: Path) -> tuple[dict[str, tuple[str, ...]], dict[str, int]]:
    """Key -> tags, and key -> line, from an overrides file."""
    text = ""
    try:
        text = read_user_file(path, str(path), SETTINGS_LIMIT, what="overrides file").decode("utf-8-sig")
        data = tomllib.loads(text)
    except FileNotFoundError:
        raise InputError(
            "no such overrides file", path=str(path), hint="check the path given with --overrides"
        ) from None
    except tomllib.TOMLDecodeError as error:
        message, at = toml_problem(error, text)
        raise InputError(f"not valid TOML: {message}", path=str(path), line=at, hint=_QUOTE) from None
    except UnicodeDecodeError as error:  # the line of the first byte that is no UTF-8 (a Latin-1 "é", say)
        at = bytes(error.object[: error.start]).count(b"\n") + 1
        raise InputError("overrides file is not UTF-8 text", path=str(path), line=at, hint="save it as UTF-8") from None
    tags = data.get("tags", {})
    if set(data) - {"tags"} or not isinstance(tags, dict):
        _refuse_layout(data, text, path)
    lines: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = re.match(r'^\s*"?([^"=\s]+)"?\s*=', line)
        if match:
            lines.setdefault(match.group(1), number)
    result: dict[str, tuple[str, ...]] = {}
    for key, value in tags.items():
        values = [value] if isinstance(value, str) else value
        dotted = key
        while isinstance(value, dict) and value:  # smith.2020 = [...]: TOML splits a bare key at its dots
            sub, value = next(iter(value.items()))
            dotted += f".{sub}"
        if dotted != key:
            raise InputError(
                f"key '{dotted}' is read as a table: TOML splits a key at its dots",
                path=str(path),
                line=lines.get(dotted),
                hint=f'quote it: "{dotted}" = ["moe"]',
            )
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values) or not values:
            raise InputError(  # [] put the entry's own tags aside, unsaid, and left it to the tagger
                f"tags of '{key}' must be a list of section ids" + (", not empty" if values == [] else ""),
                path=str(path),
                line=lines.get(key),
                hint=f'{key} = ["moe", "model-parallel"]' + (", or leave the line out" if values == [] else ""),
            )
        result[key] = tuple(values)
    return result, lines


def _key_meant(key: str, folded: Mapping[str, str], ordered: Sequence[str]) -> str | None:
    """The entry key an unknown ``key`` likely means: the same in another case, or a close one among its
    neighbours in sorted order (an overrides file of another .bib names thousands of keys: each is compared
    with a few, not all)."""
    if key.casefold() in folded:
        return folded[key.casefold()]
    at = bisect.bisect(ordered, key)
    return next(iter(difflib.get_close_matches(key, ordered[max(0, at - 20) : at + 20], n=1, cutoff=0.8)), None)


def _refuse_layout(data: Mapping, text: str, path: Path) -> None:
    """Stop at what is not under [tags], at its line: a misspelt table ([tag]) or keys above the header."""
    name = min(set(data) - {"tags"}, default="tags")
    where = re.compile(rf"^\s*\[?\s*[\"']?{re.escape(name)}[\"']?\s*[\].=]")
    line = next((n for n, text_line in enumerate(text.splitlines(), 1) if where.match(text_line)), None)
    if name == "tags":
        message, hint = "tags must be a table", 'write [tags] on a line of its own, then key = ["section-id", ...]'
    elif isinstance(data[name], dict):
        message = f"unknown table [{name}]: an overrides file has one table, [tags]"
        hint = (
            "did you mean [tags]?" if difflib.get_close_matches(name, ["tags"]) else 'key = ["section-id"] under [tags]'
        )
    else:
        message, hint = f"'{name}' is outside the [tags] table", "write [tags] on a line above it"
    raise InputError(message, path=str(path), line=line, hint=hint)


def apply_overrides(
    papers: Sequence[Paper], overrides: Mapping[str, tuple[str, ...]], path: str, lines: Mapping[str, int]
) -> tuple[list[Paper], list[Finding]]:
    """Papers whose key (or an alias) is in ``overrides`` get those tags as explicit tags."""
    by_key: dict[str, int] = {}
    for index, paper in enumerate(papers):
        for key in (paper.key, *paper.aliases):
            by_key.setdefault(key, index)
    folded: dict[str, str] = {}
    for known in by_key:
        folded.setdefault(known.casefold(), known)
    ordered = sorted(by_key)
    result = list(papers)
    findings = []
    taken: dict[int, str] = {}  # an entry -> the key whose tags it was given
    # An entry named by its key and by a key merged into it (--merge-duplicates): its own key's line is taken.
    own = {paper.key for paper in papers}
    for key, tags in sorted(overrides.items(), key=lambda item: (item[0] not in own, lines.get(item[0], 0), item[0])):
        if key in by_key and by_key[key] in taken:
            first = taken[by_key[key]]
            if overrides[first] != tags:
                findings.append(
                    Finding(
                        "override-twice",
                        Severity.WARNING,
                        f"overrides name '{first}' again as '{key}', with other tags: those of '{first}' are taken",
                        SourceLocation(path, lines.get(key, 1)),
                        f"keep one line for the entry, under '{first}'",
                    )
                )
            continue
        if key not in by_key:
            close = _key_meant(key, folded, ordered)
            findings.append(
                Finding(
                    "unknown-key",
                    Severity.WARNING,
                    f"overrides name '{key}', which is not an entry",
                    SourceLocation(path, lines.get(key, 1)),
                    f"did you mean '{close}'?" if close else "name an entry by the key `surveytool tag` lists for it",
                )
            )
            continue
        taken[by_key[key]] = key
        result[by_key[key]] = replace(
            result[by_key[key]], explicit_tags=tags, tags_at=SourceLocation(path, lines.get(key, 1))
        )
    return result, findings
