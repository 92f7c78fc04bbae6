"""Checks of the citations of a LaTeX document (``--tex``): the keys its files cite and its .aux files record."""

from __future__ import annotations

from collections.abc import Iterable

from surveytool.analysis.check_registry import CheckContext, register
from surveytool.bibtex.crossref import cited_through_children
from surveytool.model import Finding, Severity, SourceLocation
from surveytool.text.citations import citations
from surveytool.text.tex_inputs import TEX_INPUT_CHECK

register(
    TEX_INPUT_CHECK,
    Severity.WARNING,
    "a file a --tex document inputs that could not be followed",
    "check --tex reads the files a document names with \\input, \\include, \\subfile and the import package's "
    "\\import and \\subimport (relative to the main file's folder, .tex appended as TeX does), and the main "
    "file's .aux (and those of included files) for citations that macros make. An \\include that the preamble's "
    "\\includeonly leaves out is not read, as LaTeX does not read it; only what the .aux files recorded counts. "
    "A file that is missing, "
    "unreadable, named with a macro, part of an input cycle or outside the main file's folder (TeX's paranoid "
    "rule: no ../ or absolute paths) is reported on the line that names it and skipped; give such a file with "
    "its own --tex to check it.",
)(None)


@register(
    "cite-undefined",
    Severity.ERROR,
    "a \\cite of a key that is not in the bibliography",
    "Keys cited in the --tex files and the files they input (every \\cite variant of LaTeX, natbib and "
    "biblatex, several keys, optional arguments) must be entries or aliases of entries. A key that only the "
    "document's .aux records (cited through a macro of your own) is reported at its .aux line.",
)
def _cite_undefined(context: CheckContext) -> Iterable[Finding]:
    # A key merged into another entry is one of its aliases, and known: a cite of it is no error.
    known = {p.key for p in context.papers} | {a for p in context.papers for a in p.aliases}
    in_tex: set[str] = set()
    for path, text in context.tex_files:
        for citation in citations(text)[0]:
            in_tex.add(citation.key)
            if citation.key not in known:
                yield Finding(
                    "cite-undefined",
                    Severity.ERROR,
                    f"\\cite of '{citation.key}', which is not in the bibliography",
                    SourceLocation(path, citation.line),
                    "check the key, or add the entry",
                )
    reported: set[str] = set()
    for recorded in context.aux_citations:
        key = recorded.citation.key
        if key == "*" or key in known or key in in_tex or key in reported:
            continue
        reported.add(key)  # an .aux records a key once per citation: one finding says it
        yield Finding(
            "cite-undefined",
            Severity.ERROR,
            f"'{key}' is cited (the last LaTeX run recorded it) but is not in the bibliography",
            SourceLocation(recorded.path, recorded.citation.line),
            "check the key, or add the entry; compile again if the .aux is older than the document",
        )


@register(
    "cite-unused",
    Severity.INFO,
    "an entry that no --tex file cites",
    "Only reported when --tex files are given and neither they, the files they input nor their .aux files "
    "have \\nocite{*}. A key the .aux records counts as cited. A volume that entries name as their crossref "
    "parent, and an @xdata entry, are cited through their children and never reported.",
)
def _cite_unused(context: CheckContext) -> Iterable[Finding]:
    if not context.tex_files:
        return
    cited = {recorded.citation.key for recorded in context.aux_citations}
    if "*" in cited:
        return
    for _path, text in context.tex_files:
        found, cites_all = citations(text)
        if cites_all:
            return
        cited.update(c.key for c in found)
    lenders = cited_through_children(context.papers)  # removing one would take from the children that cite it
    for paper in context.papers:
        if paper.key not in cited and not cited.intersection(paper.aliases) and paper.key.lower() not in lenders:
            yield Finding(
                "cite-unused",
                Severity.INFO,
                f"'{paper.key}' is never cited",
                min(paper.sources),
                "cite it or remove it",
                paper.key,
            )
