"""The files a LaTeX document is made of: ``\\input``, ``\\include``, ``\\subfile`` and ``\\import`` followed from its
main file, and the citations its ``.aux`` files recorded on the last LaTeX run.

``\\includeonly`` in the preamble is honoured as LaTeX honours it: an ``\\include`` it does not list is not read,
and only what the ``.aux`` files recorded speaks for it (BibTeX's ``\\citation`` in the chapter's own ``.aux``,
which LaTeX keeps; biblatex writes to the main ``.aux``, which the next run rewrites without them).

Only files inside the main file's folder are read, as TeX itself reads them under TeX Live's paranoid
setting (``openin_any = p``): a document from elsewhere must not make a check read ``/etc`` or a
neighbour's folder. A file outside it is reported and can be named with its own ``--tex``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from surveytool.model import Finding, Severity, SourceLocation
from surveytool.text.citations import Citation, blank_comments
from surveytool.text.tex_aux import aux_citations

# \input{a} \include{a} \subfile{a}, \input a (TeX's own form), the import package's two-argument
# commands and \InputIfFileExists{a}{then}{else}; the name ends where a longer command name would go on
# (\inputencoding, \includegraphics). A second argument is looked at, not taken: what "then" does is read too.
_INPUT = re.compile(
    r"\\(?P<command>input|include|subfile|(?:sub)?(?:import|inputfrom|includefrom)|InputIfFileExists)(?![A-Za-z@])"
    r"\*?\s*"
    r"(?:\{(?P<first>[^{}]*)\}\s*(?:(?=\{(?P<second>[^{}]*)\}))?|(?P<bare>[^\s{}\\%]+))"
)
_TWO_ARGUMENTS = ("import", "subimport", "inputfrom", "subinputfrom", "includefrom", "subincludefrom")
_RELATIVE_TO_CURRENT = ("subimport", "subinputfrom", "subincludefrom")
_INCLUDE_ONLY = re.compile(r"\\includeonly(?![A-Za-z@])\s*\{(?P<names>[^{}]*)\}")
_BEGIN_DOCUMENT = re.compile(r"\\begin\s*\{document\}")
# \IfFileExists{name}{\input{name}}{}: LaTeX opens the file only when it exists, so its absence is no problem.
_IF_EXISTS = re.compile(r"\\IfFileExists\s*\{(?P<name>[^{}]*)\}")
_INCLUDES = ("include", "includefrom", "subincludefrom")

TEX_INPUT_CHECK = "tex-input"


class Unreadable(Exception):
    """A file the document names could not be read; the message says why (``no such file``, ...)."""


#: Reads one file: (path, path shown) -> its text, or Unreadable.
Reader = Callable[[Path, str], str]


@dataclass(frozen=True)
class TexInput:
    command: str
    name: str  # the file as written, "" when it could not be read from the source
    directory: str  # the import package's folder argument, "" for the others
    line: int
    optional: bool = False  # guarded by \IfFileExists: a missing file is no warning


@dataclass(frozen=True)
class AuxCitation:
    path: str
    citation: Citation  # the key "*" for \nocite{*}


@dataclass(frozen=True)
class TexDocument:
    """The files of a document in reading order (the main file first), what its .aux files cite, and what
    could not be followed."""

    files: tuple[tuple[str, str], ...]  # (path shown, text)
    aux: tuple[AuxCitation, ...]
    findings: tuple[Finding, ...]
    paths: tuple[Path, ...]  # where each of ``files`` is, links resolved: inside the main file's folder


def _input_item(match: re.Match[str]) -> TexInput | None:
    command = match.group("command")
    first, second, bare = match.group("first"), match.group("second"), match.group("bare")
    if command in _TWO_ARGUMENTS:
        if first is None or second is None:
            return None  # \import with one argument is not a file
        directory, name = first.strip(), second.strip()
    elif bare is not None:
        if command != "input":
            return None
        directory, name = "", bare
    else:
        directory, name = "", (first or "").strip()
    # "\_" is an underscore in a file name to LaTeX too (build's own main.tex writes \input{related\_work}).
    name, directory = name.strip('"').replace("\\_", "_"), directory.replace("\\_", "_")
    if not name or "#" in name or "#" in directory:
        return None  # a macro's parameter: the file is named where the macro is used
    # LaTeX reads it only if it exists: its absence is no problem.
    return TexInput(command, name, directory, 0, optional=command == "InputIfFileExists")


def _body(text: str) -> str:
    """``text`` with what comes before its ``\\begin{document}`` (if any) blanked: lines and offsets stay."""
    begin = _BEGIN_DOCUMENT.search(blank_comments(text))
    return text if begin is None else re.sub(r"[^\n]", " ", text[: begin.start()]) + text[begin.start() :]


def _scan(text: str) -> list[TexInput]:
    """The inputs of ``text`` outside comments, and its ``\\includeonly`` lists and ``\\begin{document}`` (as
    commands ``includeonly`` and ``document``), in the order TeX meets them."""
    text = blank_comments(text)
    found = [(m.start(), item) for m in _INPUT.finditer(text) if (item := _input_item(m)) is not None]
    found += [(m.start(), TexInput("includeonly", m.group("names"), "", 0)) for m in _INCLUDE_ONLY.finditer(text)]
    found += [(m.start(), TexInput("document", "", "", 0)) for m in _BEGIN_DOCUMENT.finditer(text)]
    guarded = {_part_name(m.group("name")) for m in _IF_EXISTS.finditer(text)}
    found = [(at, replace(item, optional=item.optional or _part_name(item.name) in guarded)) for at, item in found]
    found.sort(key=lambda pair: pair[0])
    items = []
    line, counted_to = 1, 0
    for start, item in found:
        line += text.count("\n", counted_to, start)
        counted_to = start
        items.append(replace(item, line=line))
    return items


def tex_inputs(text: str) -> list[TexInput]:
    """The files ``text`` inputs, in order, outside comments."""
    return [item for item in _scan(text) if item.command not in ("includeonly", "document")]


def _part_name(name: str) -> str:
    """A chapter's name as LaTeX compares \\include with \\includeonly: spaces and quotes trimmed, no ``.tex``."""
    name = name.strip().strip('"')
    return name[: -len(".tex")] if name.endswith(".tex") else name


def include_only_names(argument: str) -> frozenset[str]:
    """The chapters ``\\includeonly{argument}`` lets LaTeX read (an empty list: none)."""
    return frozenset(_part_name(name) for name in argument.split(",") if name.strip())


def _shown(main_shown: str, folder: Path, path: Path) -> str:
    """How ``path`` (inside ``folder``) is named in messages: beside the main file as the user named it."""
    return os.path.normpath(os.path.join(os.path.dirname(main_shown), os.path.relpath(path, folder)))


def _candidates(bases: list[Path], item: TexInput) -> list[Path]:
    """The files TeX would try for ``item``, in order: in each folder of ``bases``, ``.tex`` appended first."""
    name = item.name
    if item.command in ("include", "includefrom", "subincludefrom"):
        tries = [name + ".tex", name] if name.endswith(".tex") else [name + ".tex"]
    else:
        tries = [name] if name.endswith(".tex") else [name + ".tex", name]
    return [base / tried for base in dict.fromkeys(bases) for tried in tries]


def _warning(message: str, where: SourceLocation, hint: str) -> Finding:
    return Finding(TEX_INPUT_CHECK, Severity.WARNING, message, where, hint)


class _Walk:
    """One document's files, read depth first in the order TeX reads them."""

    def __init__(self, main: Path, main_shown: str, read: Reader, every_file: bool):
        self.folder = main.parent.resolve()
        self.main_shown = main_shown
        self.read = read
        self.files: list[tuple[str, str]] = []
        self.paths: list[Path] = []
        self.every_file = every_file
        self.include_only: frozenset[str] | None = None  # None: every \include is read
        self.in_body = False  # after \begin{document}, where \includeonly is an error LaTeX ignores
        self.findings: list[Finding] = []
        self.seen: set[Path] = set()

    def inside(self, path: Path) -> Path | None:
        resolved = path.resolve()
        return resolved if resolved.is_relative_to(self.folder) else None

    def target(self, bases: list[Path], item: TexInput, where: SourceLocation) -> Path | None:
        """The file ``item`` reads, or None (with a finding when the document has a problem)."""
        if ("\\" in item.name or "\\" in item.directory) and item.optional:
            return None  # \InputIfFileExists{\jobname.cfg}: LaTeX reads it if it exists, a missing one is no problem
        if "\\" in item.name or "\\" in item.directory:
            self.findings.append(
                _warning(
                    f"\\{item.command}{{{item.name}}} names its file with a macro; it was not followed",
                    where,
                    "give the file with its own --tex to check its citations",
                )
            )
            return None
        candidates = _candidates(bases, item)
        written = f"\\{item.command}{{{item.directory + '}{' if item.directory else ''}{item.name}}}"
        for candidate in candidates:
            resolved = self.inside(candidate)
            if resolved is None:  # said before looking: whether a file exists outside is not this check's business
                self.findings.append(
                    _warning(
                        f"{written} names a file outside the folder of {self.main_shown}; it was not followed",
                        where,
                        "give the file with its own --tex to check its citations",
                    )
                )
                return None
            if os.path.lexists(candidate):
                return resolved
        if item.optional:
            return None
        self.findings.append(
            _warning(
                f"{written}: no such file ({', '.join(_shown(self.main_shown, self.folder, c.resolve()) for c in candidates)})",
                where,
                "check the name; the path is relative to the folder of the main file",
            )
        )
        return None

    def walk(self, main: Path, main_text: str) -> None:
        start = main.resolve()
        self.seen.add(start)
        self.files.append((self.main_shown, main_text))
        self.paths.append(start)
        # Each frame: (file, its shown name, the folder its inputs are relative to, its inputs not yet read)
        stack: list[tuple[Path, str, Path, Iterator[TexInput]]] = [
            (start, self.main_shown, self.folder, iter(_scan(self.files[0][1])))
        ]
        while stack:
            path, shown, base, pending = stack[-1]
            item = next(pending, None)
            if item is None:
                stack.pop()
                continue
            if item.command in ("includeonly", "document"):
                self.note(item)
                continue
            where = SourceLocation(shown, item.line)
            if item.command in _TWO_ARGUMENTS:
                bases = [(base if item.command in _RELATIVE_TO_CURRENT else self.folder) / item.directory]
            else:  # inside an imported file the import's folder comes first, then TeX's own (the main file's)
                bases = [base, self.folder]
            if self.excluded(item, bases[0]):
                continue  # LaTeX does not open it: not even a missing file is a problem
            target = self.target(bases, item, where)
            if target is None:
                continue
            # The import package, and subfiles through it, read a file's own inputs relative to its folder.
            inner_base = target.parent if item.command == "subfile" else bases[0]
            if any(target == frame[0] for frame in stack):
                chain = " -> ".join([*(frame[1] for frame in stack), _shown(self.main_shown, self.folder, target)])
                self.findings.append(_warning(f"\\{item.command} cycle: {chain}", where, "remove one of the inputs"))
                continue
            if target in self.seen:
                continue  # read once: its citations are the same the second time
            self.seen.add(target)
            target_shown = _shown(self.main_shown, self.folder, target)
            try:
                text = self.read(target, target_shown)
            except Unreadable as problem:
                self.findings.append(_warning(f"{target_shown} {problem}", where, "check the file"))
                continue
            if item.command == "subfile" and not self.every_file:
                text = _body(text)  # the subfiles package skips a subfile's own preamble
            self.files.append((target_shown, text))
            self.paths.append(target)
            stack.append((target, target_shown, inner_base, iter(_scan(text))))

    def note(self, item: TexInput) -> None:
        """An ``\\includeonly`` in the preamble (the last one wins, as each replaces LaTeX's list) or the body's start."""
        if item.command == "document":
            self.in_body = True
        elif not self.every_file and not self.in_body:
            self.include_only = include_only_names(item.name)

    def excluded(self, item: TexInput, base: Path) -> bool:
        """Whether ``\\includeonly`` keeps LaTeX from reading the chapter ``item`` names."""
        if self.include_only is None or item.command not in _INCLUDES:
            return False
        if item.command == "include":
            name = item.name
        elif item.command == "includefrom":  # the import package passes \include its folder and the name
            name = item.directory.rstrip("/") + "/" + item.name if item.directory else item.name
        else:  # \subincludefrom: the folders of the enclosing imports too
            name = os.path.relpath(base / item.name, self.folder).replace(os.sep, "/")
        return _part_name(name) not in self.include_only

    def aux(self, main: Path) -> list[AuxCitation]:
        """The citations of the main file's .aux and of the .aux files it reads, when they exist."""
        found: list[AuxCitation] = []
        pending = [self.folder / (main.stem + ".aux")]
        read: set[Path] = set()
        while pending:
            path = self.inside(pending.pop(0))
            if path is None or path in read or not path.is_file():
                continue  # no .aux yet (never compiled), or one TeX would not have written
            read.add(path)
            shown = _shown(self.main_shown, self.folder, path)
            try:
                text = self.read(path, shown)
            except Unreadable:
                continue
            citations, inputs = aux_citations(text)
            found.extend(AuxCitation(shown, c) for c in citations)
            pending.extend(self.folder / name for name, _ in inputs)
        return found


def read_document(
    main: Path, main_shown: str, main_text: str, read: Reader, *, every_file: bool = False
) -> TexDocument:
    """``main`` (its text read by the caller) and every file it inputs inside its folder, as LaTeX reads them to
    compile it, and its .aux citations. With ``every_file``, every file of the document: each ``\\include``,
    whatever ``\\includeonly`` says, and a subfile's own preamble (read when the subfile is compiled alone)."""
    walk = _Walk(main, main_shown, read, every_file)
    walk.walk(main, main_text)
    return TexDocument(tuple(walk.files), tuple(walk.aux(main)), tuple(walk.findings), tuple(walk.paths))
