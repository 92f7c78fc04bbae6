"""`complete`: a user's .bib with missing fields filled and preprints upgraded, edited field by field.

The entries are read as they are (no merging, no keys, no tags), each is completed on its own
(``analysis/complete.py``), and only the fields added or changed are written into the file's text:
every other byte stays as it was.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from surveytool.analysis.complete import Completion, FieldChange, Refusal, complete_entry
from surveytool.analysis.resolve.resolver import Candidate, Resolver
from surveytool.bibtex.field_spans import written_field
from surveytool.bibtex.fields import encode_field
from surveytool.bibtex.reader import macro_table
from surveytool.bibtex.value_braces import value_lone_braces
from surveytool.bibtex.values import string_block_value, written_value_offences
from surveytool.model import Finding, Paper, Severity
from surveytool.options import Options
from surveytool.output.bib_entry_edits import edit_fields
from surveytool.output.bib_in_place import rewrite_entries
from surveytool.pipeline import _resolver_findings, load_resolvers, read_catalogs
from surveytool.sources.read import FileHints, read_source, read_text_file
from surveytool.text.file_encoding import TextFile
from surveytool.text.latex import describe_offences

#: complete's own argument is not a source: only a .bib is completed, and there are no seeds to fall back on.
TARGET_HINTS = FileHints("name the .bib file to complete", "complete takes a .bib file", "")


@dataclass(frozen=True)
class EntryChange:
    line: int
    key: str
    change: FieldChange


@dataclass(frozen=True)
class CompletedBib:
    original: TextFile
    text: str  # the completed text, as ``original.exact_text`` is (``original.encode`` gives the bytes)
    readable_text: str  # the same, as ``original.text`` is: for showing a diff
    changes: tuple[EntryChange, ...]
    notes: tuple[tuple[int, str, str], ...]  # (line, key, note): found but not written
    findings: tuple[Finding, ...]

    @property
    def entries(self) -> int:
        return len({(c.line, c.key) for c in self.changes})

    def diff(self, display: str) -> str:
        """A unified diff from the file to its completed text."""
        lines = difflib.unified_diff(
            self.original.text.splitlines(keepends=True),
            self.readable_text.splitlines(keepends=True),
            f"a/{display}",
            f"b/{display}",
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _edited(completion: Completion) -> str | None:
    values = [(name, encode_field(name, value)) for name, value in completion.values]
    return edit_fields(completion.paper.raw, values, completion.renamed, completion.entry_type)


def _resolvers(options: Options, services: Sequence[str] | None) -> tuple[list[Resolver], Refusal]:
    """The catalogs, then the services, as ``load_resolvers`` gives them, and the refusal of a catalog record's
    field: the catalogs are read here to keep their @string tables, by which TeX would read their values."""
    catalogs: list[Resolver] = []
    strings: dict[str, Mapping[str, str]] = {}
    for catalog, read in read_catalogs(options):
        catalogs.append(catalog)
        definitions = ((b.key, string_block_value(b)) for b in read.blocks if b.kind == "string")
        strings[catalog.name] = macro_table(definitions)
    services_only = replace(options, catalogs=(), bundled_catalog=False)
    return catalogs + load_resolvers(services_only, services), partial(_unsafe_field, strings)


def _unsafe_field(
    strings: Mapping[str, Mapping[str, str]], paper: Paper, record: Candidate, name: str
) -> Finding | None:
    """A catalog record's field whose LaTeX leaves the allowlist (the dangerous-macro check of the user's own
    files): not taken, and said, since a catalog is as untrusted as any shared .bib."""
    table = strings.get(record.source)
    latex = record.paper.latex_fields.get(name, "")
    if table is None or not latex:
        return None  # a service's answer is plain text, escaped when written
    tex, offences = written_value_offences(latex, table)
    if not offences:
        return None
    listed = describe_offences(offences, tex, value_lone_braces(latex))
    field = f"field '{written_field(record.paper.raw, name)}' of '{record.paper.key}'"  # as the catalog writes it
    return Finding(
        "dangerous-macro",
        Severity.ERROR,
        f"{field} was not taken for '{paper.key}' ({min(paper.sources)}): it has LaTeX outside the allowlist: {listed}",
        min(record.paper.sources),
        "a catalog's commands are never copied; fix the record, or write the field into your entry yourself",
        paper.key,
    )


def complete_bib(options: Options, target: Path, overwrite: Collection[str] = ()) -> CompletedBib:
    """``target`` completed from the catalogs of ``options`` and, with ``options.online``, the services
    named by ``complete_services`` in its settings."""
    display = str(target)
    read = read_source(target, display, "bib", options.tags_field, hints=TARGET_HINTS)
    services = None
    if options.online:
        from surveytool.online_settings import load_online_settings

        services = load_online_settings(options.config).complete_services
    resolvers, refuse = _resolvers(options, services)
    findings = list(read.findings)
    completions: dict[int, Completion] = {}
    for paper in read.papers:
        completion, more = complete_entry(paper, resolvers, overwrite, refuse)
        findings += more
        if completion is not None:
            completions[id(paper)] = completion
    findings += _resolver_findings(resolvers)

    def edit(paper: Paper) -> tuple[str, str] | None:
        completion = completions.get(id(paper))
        edited = _edited(completion) if completion else None
        if completion and edited is None:
            findings.append(
                Finding(
                    "not-completed",
                    Severity.WARNING,
                    "the entry's text could not be read field by field, so nothing was written into it",
                    min(paper.sources),
                    "write it as @type{key, name = {value}, ...}",
                    paper.key,
                )
            )
        return (edited, str(id(paper))) if edited is not None else None

    original, _ = read_text_file(target, display, allow_empty=True)
    text, edits = rewrite_entries(original.text, display, read.papers, edit, original.exact_text)
    readable, _ = rewrite_entries(original.text, display, read.papers, edit)
    changes = tuple(EntryChange(e.line, e.key, change) for e in edits for change in completions[int(e.what)].changes)
    notes = tuple((e.line, e.key, note) for e in edits for note in completions[int(e.what)].notes)
    return CompletedBib(original, text, readable, changes, notes, tuple(dict.fromkeys(findings)))
