"""Source files -> papers, kept BibTeX blocks and findings. Chooses a reader per file."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from surveytool.bibtex.reader import BibDocument, read_bibtex
from surveytool.errors import InputError
from surveytool.model import Finding, Origin, Paper, RawBlock, Severity, SourceLocation, frozen_mapping
from surveytool.sources.bounded import DOCUMENT_LIMIT, read_user_file
from surveytool.sources.list_lines import split_lines
from surveytool.sources.list_reading import read_paper_list
from surveytool.sources.paper_list import looks_like_paper_list
from surveytool.sources.stdin import is_stdin, sniff_kind, stdin_bytes
from surveytool.text.file_encoding import LEGACY_ENCODINGS, TextFile, decode_bytes, encoding_name
from surveytool.text.identifiers import parse_identifier

SOURCE_KINDS = ("list", "bib", "ids", "csl-json")
KIND_ALIASES = {"csl": "csl-json", "json": "csl-json", "bibtex": "bib", "txt": "list"}
_BY_SUFFIX = {".txt": "list", ".bib": "bib", ".bibtex": "bib", ".ids": "ids", ".json": "csl-json"}
#: Files that are surely no source (what they are, a hint): read as a list, they would give a placeholder entry
#: and no error. ``--kind`` still reads them.
_NOT_SOURCES = {
    ".tex": ("a LaTeX document", "did you mean --tex {}?"),
    ".toml": ("a settings or taxonomy file", "did you mean --taxonomy {0}, or --config {0}?"),
    ".sty": ("a LaTeX package", "give a .txt, .bib, .ids or CSL-JSON file"),
    ".cls": ("a LaTeX class", "give a .txt, .bib, .ids or CSL-JSON file"),
}


@dataclass(frozen=True)
class ReadResult:
    papers: tuple[Paper, ...]
    blocks: tuple[RawBlock, ...]
    findings: tuple[Finding, ...]


#: Reads the BibTeX text of one source: (text, path shown, tags field) -> document. A build passes
#: one that reuses the last build's work (``rebuild/bib_reading.py``).
BibReader = Callable[[str, str, str], BibDocument]


@dataclass(frozen=True)
class FileHints:
    """What to do about a file that is missing, not text or empty: a source's hints name the source
    formats and the bundled seeds, which mean nothing for a file given to an option such as --tex."""

    missing: str
    not_text: str
    empty: str


SOURCE_HINTS = FileHints(
    "check the path, or run without sources to use the bundled seeds",
    "give a .txt, .bib, .ids or CSL-JSON file",
    "remove it from the sources or add papers to it",
)


def option_hints(option: str, takes: str) -> FileHints:
    """The hints for the file given to ``option`` (``--tex``), which takes ``takes`` (``a LaTeX file``)."""
    takes = f"{option} takes {takes}"
    return FileHints(f"check the path given with {option}", takes, f"is this the right file? {takes}")


def read_text(
    path: Path, display: str, allow_empty: bool = False, hints: FileHints = SOURCE_HINTS
) -> tuple[str, list[Finding]]:
    """The text of a source file, decoded as ``text/file_encoding.py`` says, with a warning when it is not UTF-8."""
    decoded, findings = read_text_file(path, display, allow_empty, hints)
    return decoded.text, findings


def read_text_file(
    path: Path, display: str, allow_empty: bool = False, hints: FileHints = SOURCE_HINTS
) -> tuple[TextFile, list[Finding]]:
    """A source file's text and how it was encoded; an empty file is an error unless ``allow_empty``."""
    try:
        data = stdin_bytes() if is_stdin(path) else read_user_file(path, display, DOCUMENT_LIMIT)
    except FileNotFoundError:
        raise InputError("no such file", path=display, hint=hints.missing) from None
    decoded = decode_bytes(data)
    if "\x00" in decoded.text:
        raise _not_text(decoded.text, display, hints)
    if not decoded.text.strip() and not allow_empty:
        raise InputError("is empty", path=display, hint=hints.empty)
    return decoded, _encoding_findings(decoded, display)


def _not_text(text: str, display: str, hints: FileHints) -> InputError:
    """The error for a file with a NUL: a binary file, or a text file with a stray NUL, named where it is."""
    controls = sum(char < " " and char not in "\t\n\r\f" for char in text)
    if controls * 20 > len(text):  # a binary file has control bytes everywhere
        return InputError("is not a text file", path=display, hint=hints.not_text)
    nuls = text.count("\x00")
    line = text.count("\n", 0, text.index("\x00")) + 1
    where = "a NUL byte" if nuls == 1 else f"{nuls} NUL bytes, the first"
    return InputError(
        f"holds {where} on this line, which no text file has: nothing of the file was read",
        path=display,
        line=line,
        hint="delete it: an editor or a copy from a PDF can leave one",
    )


def _encoding_findings(decoded: TextFile, display: str) -> list[Finding]:
    if decoded.stray_bytes:
        count = f"{decoded.stray_bytes} bytes that are" if decoded.stray_bytes > 1 else "a byte that is"
        return [
            Finding(
                "mixed-encoding",
                Severity.WARNING,
                f"UTF-8 file with {count} not UTF-8 (the first here); read as Windows-1252, kept as they are by in-place edits",
                SourceLocation(display, decoded.odd_line),
                "retype the character on this line, or save the file as UTF-8",
            )
        ]
    if decoded.encoding in LEGACY_ENCODINGS:
        name = encoding_name(decoded.encoding)
        return [
            Finding(
                "encoding",
                Severity.WARNING,
                f"file is not valid UTF-8; read as {name} (in-place edits keep it {name})",
                SourceLocation(display, decoded.odd_line),
                "save the file as UTF-8",
            )
        ]
    return []


def _keys_spelled_otherwise(papers: Iterable[Paper], decoded: TextFile) -> list[Finding]:
    """An error per non-ASCII key of a file that is not UTF-8: the outputs (UTF-8) spell it with other bytes."""
    if decoded.encoding == "utf-8" and not decoded.stray_bytes:
        return []
    found = []
    lines = decoded.exact_text.splitlines() if decoded.encoding == "utf-8" else []
    for paper in papers:
        if paper.key and not paper.key.isascii():
            line = paper.sources[0].line
            if 0 < line <= len(lines) and paper.key in lines[line - 1]:
                continue  # its bytes are UTF-8; the file's stray bytes are elsewhere
            # A stray byte of a UTF-8 file is read as its Windows-1252 character.
            codec = "cp1252" if decoded.encoding == "utf-8" else decoded.encoding
            as_bytes = b"".join(_bytes_of(c, codec) for c in paper.key)
            seen_as = as_bytes.decode("utf-8", "replace")
            # An error, shown even with --quiet: \cite{key} in a .tex of the file's encoding no longer matches.
            found.append(
                Finding(
                    "key-encoding",
                    Severity.ERROR,
                    f"entry key '{paper.key}' is read from bytes that are not UTF-8 (a UTF-8 tool sees '{seen_as}'); "
                    f"outputs, which are UTF-8, write it as '{paper.key}'",
                    paper.sources[0],
                    "cite it as the outputs spell it, or make the key ASCII",
                )
            )
    return found


def _bytes_of(char: str, codec: str) -> bytes:
    try:
        return char.encode(codec, "surveytool-windows-1252")
    except UnicodeEncodeError:
        return char.encode("utf-8")


def detect_kind(path: Path, text: str) -> str:
    suffix = path.suffix.lower()
    if is_stdin(path) or (suffix not in _BY_SUFFIX and suffix != ".txt"):
        # No telling name: BibTeX and CSL-JSON say what they are; a list and ids are told apart below.
        kind = sniff_kind(text) or "list"
    else:
        kind = _BY_SUFFIX.get(suffix, "list")
    if kind == "list" and _is_identifier_list(text):
        return "ids"
    return kind


def _strip_comment(line: str) -> str:
    """A line of an id list without its comment; "#" starts one at a line start or after a space (DOIs may contain "#")."""
    return "" if line.lstrip().startswith("#") else re.split(r"\s#", line, maxsplit=1)[0].strip()


def _is_identifier_list(text: str) -> bool:
    """Mostly DOIs and arXiv ids and no list header: the odd bad line is reported, not read as a snippet. A header
    in another wording ("# Papers related to X") is a comment or a bad line of the id list, as before it was one."""
    if looks_like_paper_list(text, plain_only=True):
        return False
    lines = [c for c in map(_strip_comment, split_lines(text)) if c]
    return bool(lines) and sum(parse_identifier(l) is not None for l in lines) * 2 >= len(lines)


def read_source(
    path: Path,
    display: str | None = None,
    kind: str | None = None,
    tags_field: str = "sections",
    read_bib: BibReader = read_bibtex,
    hints: FileHints = SOURCE_HINTS,
) -> ReadResult:
    display = display or str(path)
    kind = KIND_ALIASES.get(kind, kind) if kind else kind
    if kind is None and (refused := _NOT_SOURCES.get(path.suffix.lower())):
        what, hint = refused
        raise InputError(f"is {what}, not a source", path=display, hint=hint.format(display))
    bib_suffix = _BY_SUFFIX.get(path.suffix.lower()) == "bib"
    allow_empty = kind == "bib" or (kind is None and bib_suffix)
    decoded, findings = read_text_file(path, display, allow_empty, hints)
    text = decoded.text
    kind = kind or detect_kind(path, text)
    if kind == "bib":
        document = read_bib(text, display, tags_field)
        findings.extend(_keys_spelled_otherwise(document.papers, decoded))
        return ReadResult(document.papers, document.blocks, tuple(findings) + document.findings)
    if kind == "ids":
        papers, more = read_identifier_list(text, display)
    elif kind == "csl-json":
        papers, more = read_csl_json(text, display)
    elif kind == "list":
        papers, more = read_paper_list(text, display)
    else:
        raise InputError(f"unknown source kind {kind!r}", path=display, hint=f"use one of {', '.join(SOURCE_KINDS)}")
    return ReadResult(tuple(papers), (), tuple(findings + more))


def read_sources(
    paths: Iterable[tuple[Path, str]],
    kind: str | None = None,
    tags_field: str = "sections",
    read_bib: BibReader = read_bibtex,
) -> ReadResult:
    """The sources read in order; a file named again (``refs.bib ./refs.bib``, a link to it, a hard link) is read
    once, under its first name: read twice, each entry was reported as a copy of itself ("delete the copy")."""
    papers: list[Paper] = []
    blocks: list[RawBlock] = []
    findings: list[Finding] = []
    seen: set[tuple[int, int]] = set()
    for path, display in paths:
        identity = None if is_stdin(path) else _identity(path)
        if identity is not None and identity in seen:
            continue
        seen.update([identity] if identity is not None else [])
        result = read_source(path, display, kind, tags_field, read_bib)
        papers.extend(result.papers)
        blocks.extend(result.blocks)
        findings.extend(result.findings)
    return ReadResult(tuple(papers), tuple(blocks), tuple(findings))


def _identity(path: Path) -> tuple[int, int] | None:
    """The file ``path`` names (device, inode), through links; None where it cannot be told (read_source says why)."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return (found.st_dev, found.st_ino) if found.st_ino else None


def read_identifier_list(text: str, display: str) -> tuple[list[Paper], list[Finding]]:
    papers: list[Paper] = []
    findings: list[Finding] = []
    for number, line in enumerate(split_lines(text), start=1):
        content = _strip_comment(line)
        if not content:
            continue
        where = SourceLocation(display, number)
        identifier = parse_identifier(content)
        if identifier is None:
            findings.append(
                Finding(
                    "bad-identifier",
                    Severity.ERROR,
                    f"not a DOI or arXiv id: {content!r}",
                    where,
                    "write one DOI (10.xxxx/...) or arXiv id (2104.14830, hep-th/9901001) per line",
                )
            )
            continue
        papers.append(Paper(origin=Origin.IDENTIFIER, sources=(where,), fields=frozen_mapping(identifier.fields())))
    return papers, findings


def read_csl_json(text: str, display: str) -> tuple[list[Paper], list[Finding]]:
    from surveytool.sources.csl_json import csl_to_papers

    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            f"is not valid JSON ({error.msg})",
            path=display,
            line=error.lineno,
            hint="export CSL-JSON from Zotero or pandoc",
        ) from None
    except ValueError:  # a number of more than 4300 digits, which Python refuses to convert to an int
        digits = re.search(r"\d{4301,}", text)
        raise InputError(
            "holds a number of more than 4300 digits, which no CSL-JSON item has",
            path=display,
            line=text.count("\n", 0, digits.start()) + 1 if digits else None,
            hint="export CSL-JSON from Zotero or pandoc",
        ) from None
    except RecursionError:  # the json module reads nested arrays and objects recursively
        raise InputError(
            "nests JSON arrays or objects too deeply to be CSL-JSON",
            path=display,
            hint="export CSL-JSON from Zotero or pandoc",
        ) from None
    return csl_to_papers(data, display, text)
