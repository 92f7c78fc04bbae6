"""BibTeX text <-> records. The only module that imports bibtexparser.

Reading uses an explicit, empty parse stack: values stay exactly as written
(braces, quotes, ``@string`` macros, ``#`` concatenations) so that they can be
written back unchanged; plain text for matching is derived here, on the side.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

import bibtexparser
from bibtexparser import model
from bibtexparser.writer import BibtexFormat

from .latex import dangerous_commands, latex_to_text, usable_key
from .latex_decode import quick_latex_to_text
from .models import Finding, Origin, Paper, Severity, SourceLocation, frozen_mapping

#: Months as BibTeX's predefined macros expand them, for plain-text values.
MONTH_MACROS = {
    name[:3].lower(): name
    for name in "January February March April May June July August September October November December".split()
}


@dataclass(frozen=True)
class RawBlock:
    """A non-entry block kept verbatim for output: @string, @preamble, a comment, a failed block."""

    kind: str  # "string" | "preamble" | "comment" | "failed"
    text: str
    location: SourceLocation
    key: str = ""  # the macro name of an @string


@dataclass(frozen=True)
class BibDocument:
    papers: tuple[Paper, ...]
    blocks: tuple[RawBlock, ...]
    findings: tuple[Finding, ...]


@contextmanager
def _quiet_bibtexparser():
    # bibtexparser logs failed blocks itself; we report them as findings instead.
    # Its loggers (bibtexparser.splitter, ...) inherit the level of this parent.
    logger = logging.getLogger("bibtexparser")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


def split_tags(value: str) -> tuple[str, ...]:
    """Tags as users write them in a field: comma- or semicolon-separated."""
    return tuple(t.strip() for t in value.replace(";", ",").split(",") if t.strip())


def read_bibtex(text: str, path: str, tags_field: str = "sections") -> BibDocument:
    """Read BibTeX text; every block becomes a paper, a kept raw block, or both plus a finding."""
    with _quiet_bibtexparser():
        library = bibtexparser.parse_string(text, parse_stack=[])
    strings = {s.key.lower(): s.value for s in library.strings}
    papers: list[Paper] = []
    blocks: list[RawBlock] = []
    findings: list[Finding] = []
    all_blocks = library.blocks
    lines: list[str] | None = None
    absorbed: set[int] = set()
    for index, block in enumerate(all_blocks):
        if index in absorbed:
            continue
        where = SourceLocation(path, (block.start_line or 0) + 1)
        if isinstance(block, model.ParsingFailedBlock) and not isinstance(block, model.DuplicateBlockKeyBlock):
            lines = lines if lines is not None else text.splitlines(keepends=True)
            block_text, swallowed = _failed_region(all_blocks, index, lines)
            absorbed.update(swallowed)
        if isinstance(block, model.Entry):
            papers.append(_entry_to_paper(block, where, strings, tags_field))
            findings.extend(_dangerous_fields(papers[-1], where))
            if not usable_key(block.key):
                findings.append(Finding("unusable-key", Severity.ERROR, f"key '{block.key}' cannot be used in \\cite",
                                        where, "rename it with letters, digits and - _ : . / only", block.key))
        elif isinstance(block, model.String):
            blocks.append(RawBlock("string", f"@string{{{block.key} = {block.value}}}", where, block.key))
        elif isinstance(block, model.Preamble):
            blocks.append(RawBlock("preamble", f"@preamble{{{block.value}}}", where))
        elif isinstance(block, model.ExplicitComment):
            blocks.append(RawBlock("comment", f"@comment{{{block.comment}}}", where))
        elif isinstance(block, model.ImplicitComment):
            if block.comment.strip():
                blocks.append(RawBlock("comment", _tidy(block.comment), where))
        elif isinstance(block, model.DuplicateBlockKeyBlock):
            entry = block.ignore_error_block
            findings.append(Finding(
                "duplicate-key", Severity.WARNING,
                f"entry key '{block.key}' is used again here; the entry is kept under a new key",
                where, "give each entry its own key", key=block.key,
            ))
            if isinstance(entry, model.Entry):
                papers.append(_entry_to_paper(entry, where, strings, tags_field))
            else:
                blocks.append(RawBlock("failed", block.raw, where))
        elif isinstance(block, model.DuplicateFieldKeyBlock):
            findings.append(Finding(
                "duplicate-field", Severity.ERROR,
                f"entry has the field(s) {', '.join(sorted(block.duplicate_keys))} twice; it is kept verbatim",
                where, "delete one of the repeated fields",
            ))
            blocks.append(RawBlock("failed", block_text, where))
        elif isinstance(block, model.ParsingFailedBlock):
            reason = getattr(block.error, "abort_reason", None) or str(block.error)
            findings.append(Finding(
                "bibtex-syntax", Severity.ERROR,
                f"this block could not be parsed: {reason.strip()}; it is kept verbatim in the output",
                where, "check for an unbalanced brace or a missing comma",
            ))
            blocks.append(RawBlock("failed", block_text, where))
    return BibDocument(tuple(papers), tuple(blocks), tuple(findings))


def _dangerous_fields(paper: Paper, where: SourceLocation) -> list[Finding]:
    found = []
    for name, value in sorted(paper.latex_fields.items()):
        commands = dangerous_commands(value)
        if commands:
            listed = ", ".join("\\" + command for command in commands)
            found.append(Finding("dangerous-macro", Severity.ERROR, f"field '{name}' of '{paper.key}' contains {listed}",
                                 where, "delete the command; it has no place in a bibliography", paper.key))
    return found


def _failed_region(blocks: list, index: int, lines: list[str]) -> tuple[str, list[int]]:
    """The text of a failed block up to the next block that parsed, and the comment blocks inside it.

    After an aborted block the parser reads the rest of it as free text; kept
    apart, the two would be written (and read back) differently each time.
    """
    end = index + 1
    while end < len(blocks) and isinstance(blocks[end], model.ImplicitComment):
        end += 1
    start_line = blocks[index].start_line or 0
    stop_line = blocks[end].start_line if end < len(blocks) else len(lines)
    # The reported start can be the last line of the block before; the block begins at its "@".
    while start_line < stop_line - 1 and not lines[start_line].lstrip().startswith("@"):
        start_line += 1
    region = _tidy("".join(lines[start_line:stop_line]))
    return region or (blocks[index].raw or ""), list(range(index + 1, end))


def _tidy(text: str) -> str:
    """Text as the writer will write it: no trailing spaces, no blank lines around it."""
    return "\n".join(line.rstrip() for line in text.splitlines()).strip("\n")


def _entry_to_paper(entry: model.Entry, where: SourceLocation, strings: Mapping[str, str], tags_field: str) -> Paper:
    latex: dict[str, str] = {}
    plain: dict[str, str] = {}
    tags: tuple[str, ...] = ()
    for field in entry.fields:
        name = field.key.lower()
        value = field.value if isinstance(field.value, str) else str(field.value)
        if name == tags_field.lower():
            tags = split_tags(value_to_text(value, strings))
            continue
        latex[name] = value
        plain[name] = value_to_text(value, strings, exact=name in EXACTLY_DECODED)
    return Paper(
        origin=Origin.BIBTEX,
        sources=(where,),
        fields=frozen_mapping(plain),
        latex_fields=frozen_mapping(latex),
        entry_type=entry.entry_type.lower(),
        key=entry.key,
        raw=entry.raw or "",
        explicit_tags=tags,
    )


def _strip_enclosing(value: str) -> str:
    """``{text}`` or ``"text"`` -> ``text``, inner spaces kept (they matter in concatenations)."""
    value = value.strip()
    if len(value) >= 2 and (value[0], value[-1]) in (("{", "}"), ('"', '"')):
        return value[1:-1]
    return value


def _split_concatenation(value: str) -> list[str]:
    """The parts of ``a # "b" # {c}``; ``#`` inside braces or quotes is text."""
    parts, depth, in_quotes, start = [], 0, False, 0
    for i, char in enumerate(value):
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


#: Fields shown to readers, decoded exactly (pylatexenc where the quick decoder is unsure).
#: Other fields (abstracts, notes, ...) are only matched or written back as they were.
EXACTLY_DECODED = frozenset({"title", "author", "editor", "booktitle", "journal", "series", "publisher",
                             "institution", "school", "organization", "howpublished"})


def value_to_text(value: str, strings: Mapping[str, str] = frozen_mapping(), exact: bool = True) -> str:
    """Plain text of a raw BibTeX value, with macros and concatenations expanded."""
    decode = latex_to_text if exact else quick_latex_to_text
    stripped = value.strip()
    if "#" not in stripped and stripped[:1] in ("{", '"'):
        return decode(_strip_enclosing(stripped))  # the common case: one enclosed value
    pieces = []
    for part in _split_concatenation(value):
        if part[:1] in ("{", '"'):
            pieces.append(_strip_enclosing(part))
        elif part.lower() in strings:
            pieces.append(_strip_enclosing(strings[part.lower()]))
        elif part.lower() in MONTH_MACROS:
            pieces.append(MONTH_MACROS[part.lower()])
        else:
            pieces.append(part)
    return decode("".join(pieces))


def write_bibtex(entries: Iterable[tuple[str, str, list[tuple[str, str]]]], blocks: Iterable[RawBlock] = ()) -> str:
    """BibTeX text for ``(entry_type, key, [(field, raw value), ...])`` after the kept blocks.

    Values must already be valid BibTeX (enclosed, escaped): see ``bibliography.py``.
    """
    library = bibtexparser.Library()
    library.add([_raw_block_to_model(block) for block in _coalesce_comments(blocks)], fail_on_duplicate_key=False)
    library.add([model.Entry(entry_type, key, [model.Field(k, _tidy_value(v)) for k, v in fields])
                 for entry_type, key, fields in entries])
    fmt = BibtexFormat()
    fmt.indent = "  "
    fmt.value_column = 0
    fmt.block_separator = "\n"
    fmt.trailing_comma = True
    # An empty, explicit unparse stack: values are written exactly as given.
    return bibtexparser.write_string(library, unparse_stack=[], bibtex_format=fmt).rstrip("\n") + "\n"


def _tidy_value(value: str) -> str:
    """No trailing spaces on any line of a multi-line value (the kept blocks are tidied when read)."""
    return _tidy(value) if "\n" in value else value.rstrip()


def _coalesce_comments(blocks: Iterable[RawBlock]) -> list[RawBlock]:
    """Adjacent free-text comments as one block: that is how they read back, so writing is a fixed point."""
    merged: list[RawBlock] = []
    for block in blocks:
        if merged and block.kind == "comment" == merged[-1].kind and not block.text.startswith("@") \
                and not merged[-1].text.startswith("@"):
            merged[-1] = RawBlock("comment", merged[-1].text + "\n\n" + block.text, merged[-1].location)
        else:
            merged.append(block)
    return merged


def _raw_block_to_model(block: RawBlock) -> model.Block:
    if block.kind == "string":
        _, _, body = block.text.partition("{")
        key, _, value = body[:-1].partition("=")
        return model.String(key.strip(), value.strip())
    if block.kind == "preamble":
        return model.Preamble(block.text[len("@preamble{"):-1])
    if block.kind == "failed":
        # Kept as text: written back exactly, so nothing the user wrote is lost.
        return model.ImplicitComment(block.text.rstrip("\n"))
    return model.ImplicitComment(block.text)
