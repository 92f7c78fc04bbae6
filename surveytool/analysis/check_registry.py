"""The registry of named consistency checks: each check a function from a run's results to findings.

Some checks report what earlier stages found (unknown tags, duplicate keys,
unresolved entries); the rest look at the whole bibliography here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from surveytool.analysis.tagging.tagger import TAGGING_FINDINGS
from surveytool.bibtex.crossref import cited_through_children
from surveytool.model import Finding, Paper, RawBlock, Severity, Taxonomy
from surveytool.text.tex_inputs import AuxCitation

CheckFunction = Callable[["CheckContext"], Iterable[Finding]]


@dataclass(frozen=True)
class Check:
    name: str
    severity: Severity
    summary: str
    explanation: str
    fixable: bool
    run: CheckFunction | None  # None: reported by an earlier stage under this name


@dataclass(frozen=True)
class CheckContext:
    papers: Sequence[Paper]
    taxonomy: Taxonomy | None
    tex_files: Sequence[tuple[str, str]] = ()  # (path, text): the --tex files and the files they input
    dialect: str = "bibtex"
    thin: int = 2
    aux_citations: Sequence[AuxCitation] = ()  # what the --tex documents' .aux files record
    blocks: Sequence[RawBlock] = ()  # the sources' @string, @preamble and comment blocks
    tags_field: str = "sections"  # the field explicit tags were read from


REGISTRY: dict[str, Check] = {}


def register(name: str, severity: Severity, summary: str, explanation: str, fixable: bool = False):
    def decorate(function: CheckFunction | None) -> CheckFunction | None:
        REGISTRY[name] = Check(name, severity, summary, explanation, fixable, function)
        return function

    return decorate


def _staged(name: str, severity: Severity, summary: str, explanation: str, fixable: bool = False) -> None:
    register(name, severity, summary, explanation, fixable)(None)


_staged(
    "unknown-tag",
    Severity.ERROR,
    "a tag that is not a section of the taxonomy",
    "A tag in the tags field (or an overrides file) names no section id, title or alias. The message gives the "
    "closest section id. Tags are never dropped: fix the tag or add an alias to the taxonomy.",
)
_staged(
    "tag-variant",
    Severity.WARNING,
    "a tag written differently from its section id",
    "'MoE', 'Mixture of Experts' or 'data_parallel' mean a section but are not its id; 'moe, moe' names one twice. "
    "--fix rewrites them to the id, once, "
    "but in a tags field that uses an @string (the macro may hold other entries' tags): there the hint says where "
    "the tag is written.",
    fixable=True,
)
_staged(
    "no-section",
    Severity.WARNING,
    "the tagger found no section for an entry",
    "Nothing in the entry's title, abstract, venue or keywords matched the taxonomy, and no similar section was "
    "found. Give it a tag yourself. An unresolved id, with no text to tag, is reported as unresolved-entry only.",
)
_staged(
    "ambiguous-match",
    Severity.WARNING,
    "several papers matched equally well",
    "No metadata was taken because two or more candidates scored the same. The message lists them.",
)
_staged(
    "duplicate-key",
    Severity.WARNING,
    "an entry key used twice in a .bib",
    "BibTeX uses the first of them, and so does surveytool: bib -o and build write a later entry under the same "
    "key under a new key, which the message names, or leave it out when it is an identical copy (the message "
    "says so; a copy in another file is an info); bib --in-place leaves your entries as they are. "
    "An @string defined twice keeps its first definition. Rename one of them.",
)
_staged("duplicate-field", Severity.ERROR, "an entry with the same field twice", "BibTeX keeps only one value.")
_staged(
    "unusable-key",
    Severity.ERROR,
    "an entry key LaTeX cannot cite",
    "BibTeX accepts keys with &, $, ^, ~, # or %, but \\cite breaks on them. The chapter shows such an entry "
    "as a note instead of a citation. Rename the key. A key written with a character no one sees (a zero-width or "
    "no-break space, a soft hyphen, pasted from a web page) is reported too: BibTeX keeps it, and \\cite as typed "
    "finds no entry. A ZWNJ or ZWJ between two letters is not: Persian, Arabic and Indic words are spelled, and "
    "typed in \\cite, with it.",
)
_staged(
    "bibtex-syntax",
    Severity.ERROR,
    "a block that could not be parsed",
    "The .bib surveytool writes keeps its text as comment lines, each @ written (at): BibTeX starts a command at "
    "any @, and would read on from an unclosed brace into the entries after it. bib --in-place leaves it as it "
    "is. The message gives the parser's reason.",
)
_staged(
    "bidi-control",
    Severity.WARNING,
    "a .bib value, @string or @preamble, or a list's header or snippet, holding a bidi embedding, override or "
    "isolate (U+202A-U+202E, U+2066-U+2069)",
    "An editor shows the text around it in another order than TeX and BibTeX read it (Trojan Source). The value "
    "is written as it is; Arabic and Hebrew text needs none, and the marks U+200E and U+200F are not reported.",
)
_staged(
    "commented-entry",
    Severity.WARNING,
    "an entry inside @comment{...}",
    "biber and JabRef skip an @comment's braces, but BibTeX's @comment is its name alone: it reads the entry "
    "inside, and before an entry of the same key cites it instead. The .bib surveytool writes has each @ in "
    "the comment written (at); check and bib --in-place leave your file as it is.",
)
_staged(
    "encoding",
    Severity.WARNING,
    "a source file that is not UTF-8",
    "It was read as GBK or Latin-1 (the message says which). In-place edits keep that encoding; other outputs are UTF-8.",
)
_staged(
    "key-encoding",
    Severity.ERROR,
    "a non-ASCII key read from a file that is not UTF-8",
    "The outputs are UTF-8, so the key is written with other bytes than it was read with: a \\cite of it in a "
    ".tex file of the old encoding no longer matches. The message gives both spellings.",
)
_staged(
    "already-in-file",
    Severity.WARNING,
    "an entry bib --in-place does not add: your file has its work, under its key or another",
    "Under its key, most often the entry an earlier run added, since edited in its source. Added again under a new "
    "key, every run would add one more copy. The message names the fields that differ; copy what you want by hand. "
    "Under another key with the same DOI or arXiv id, as a copy of your entry, or with the same title, "
    "authors, year and kind of entry (a conference paper, a journal article, a thesis; no preprint) (a shared title alone is not "
    "enough: that entry is added, and duplicate-entry warns), an info: the message names the key "
    "to cite, yours, and the hint the rekey command that rewrites citations of the other.",
)
_staged(
    "not-in-file-encoding",
    Severity.ERROR,
    "a new entry that bib --in-place cannot write in the file's encoding",
    "Your file is Latin-1, Windows-1252 or GBK, and the entry has a character that encoding cannot hold and "
    "LaTeX has no ASCII spelling for (Chinese, or any in its key or an address). Written as UTF-8 it would be read "
    "back as other characters, and added again by the next run. Save the file as UTF-8, or add the entry by hand.",
)
_staged(
    "mixed-encoding",
    Severity.WARNING,
    "a UTF-8 file with bytes that are not UTF-8",
    "Each such byte was read as its Windows-1252 character (a curly quote, a dash, a Latin-1 letter); in-place "
    "edits write it back as the same byte. The message "
    "names the line of the first one: retype that character or save the file as UTF-8.",
)
_staged(
    "taxonomy-invalid",
    Severity.ERROR,
    "the taxonomy file is malformed",
    "Duplicate ids, unknown parents, cycles, aliases claimed twice, unknown keys or TOML syntax: the message "
    "names the line. Tag checks need a valid taxonomy and are skipped until it is fixed.",
)


_staged(
    "needs-review",
    Severity.WARNING,
    "an entry the tagger was not sure enough to place",
    "The tagger's best section had a confidence below the threshold ([tag] threshold in surveytool.toml, "
    "default 0.5), so the entry was given no section: the chapter lists it under 'To place' and `bib --in-place` "
    "writes no tag for it. The message names the two best candidates. Give it a tags field yourself (when another "
    "field of the entry holds mostly section names, the hint names the --tags-field that reads them).",
)


_staged(
    "dangerous-macro",
    Severity.ERROR,
    "LaTeX outside the allowlist in a .bib value, @preamble or @string",
    "Bibliographies get shared, and TeX can read files or run programs from a field. Values are read as TeX "
    "reads them (after @string expansion, # concatenation and ^^ decoding) and may hold only text, braces, "
    "accents and special characters, text formatting (\\emph, \\textbf, ...), \\url and \\href to http(s) "
    "addresses, and math with a math allowlist (README: 'LaTeX in .bib values'). Anything else (\\input, "
    "\\write18, ^^5c, \\csname, a macro a @preamble defines, ...) is reported when the .bib is read; a .bib "
    "surveytool writes (build, bib -o) prints it literally, and check and bib --in-place leave your file as it is; "
    "complete takes no such field from a catalog record. "
    'Allow a command you trust in surveytool.toml: [latex] allow = ["\\\\mycmd"].',
)
_staged(
    "lone-escaped-brace",
    Severity.ERROR,
    "a \\{ or \\} in a .bib field, @string or @preamble that BibTeX pairs with a plain brace, or with none",
    "BibTeX counts every brace, escaped or not: title = {A \\} b} ends at the \\}, so BibTeX reports an error "
    "and loses the fields after it, and a lone \\{ runs the value on into what follows (after a @string, into "
    'the entries below it). Each quoted piece counts alone: in title = "\\{" # "\\}" BibTeX pairs the two '
    'across the quotes and reads one piece, \\{" # "\\}. The .bib surveytool writes has \\textbraceright{} or '
    "\\textbraceleft{} there, which prints the brace; bib --in-place leaves your text as it is. Pair each \\{ "
    "with a \\} in the same piece, or write \\textbraceleft{} or \\textbraceright{}.",
)
_staged(
    "unbalanced-brace",
    Severity.ERROR,
    "a plain brace in a quoted .bib value that no brace between the same quotes pairs",
    "bibtexparser ends a quoted value at its next quote, but BibTeX counts the braces between quotes and ends "
    'it only at a quote outside all braces: title = "x { y" runs on past its quote into the fields and entries '
    'after it (they are lost), and title = "x } y" stops BibTeX with "Unbalanced braces" (the rest of the entry '
    "is lost). Fields, @string and @preamble values are checked. The .bib surveytool writes has \\textbraceleft{} "
    "or \\textbraceright{} there, which prints the brace; bib --in-place leaves your text as it is. Pair each "
    "brace within its quotes, or write \\textbraceleft{} or \\textbraceright{}.",
)
_staged(
    "inner-quote",
    Severity.ERROR,
    'a \\" outside braces in a quoted .bib value',
    'bibtexparser reads \\" between quotes as an umlaut, but BibTeX ends a quoted value at any quote outside '
    'braces: author = "M\\"uller, Hans" is "M\\" to BibTeX, and the rest of the entry is lost. Fields, @string '
    "and @preamble values are checked. The .bib surveytool writes has that piece in braces, where a quote is "
    'only text; bib --in-place leaves your text as it is. Write the accent in braces, {\\"u}, or the value '
    "in braces.",
)
_staged(
    "duplicate-entry",
    Severity.WARNING,
    "two entries of your .bib for the same work",
    "Two keyed entries share a DOI, an arXiv id, a title (with compatible first author and year), a short title "
    "with the same authors and year, or an abstract, and nothing they both state disagrees. Both are written: "
    "your keys may be cited. The message names both keys, where each is and what they share. Delete one, or "
    "merge them with --merge-duplicates (bib, build): the first entry keeps its key and every absorbed key is "
    "named in a message and stays citable (biblatex ids; `surveytool rekey SOURCES --tex FILE`, with the run's "
    "sources, rewrites \\cite keys).",
)
_staged(
    "suspicious-duplicate-id",
    Severity.WARNING,
    "records sharing an id or abstract but not one work",
    "Two records share a DOI, an arXiv id or the opening of their abstract, but their (non-arXiv) DOIs, titles, "
    "or volume, issue, pages or year in the same venue differ: book chapters carrying the book's blurb, "
    "publisher boilerplate, an eprint copied by mistake. They are kept apart; one of them probably has a wrong id. "
    "A record that matches two such works (a snippet cut before their abstracts differ) is merged into neither.",
)


#: A finding of the key's check says nothing new about an entry that one of the value's checks already
#: reports: an entry the tagger could not place has no tags, and that finding's hint says how to add one.
SUBSUMED_BY = {"untagged-entry": ("no-section", "needs-review")}


def _once_per_entry(findings: list[Finding]) -> list[Finding]:
    """``findings`` without those another finding about the same entry already covers (``SUBSUMED_BY``)."""
    reported = {(f.check, f.key) for f in findings if f.key}
    return [
        f for f in findings if not (f.key and any((other, f.key) in reported for other in SUBSUMED_BY.get(f.check, ())))
    ]


#: The checks that ask for an entry to be placed in a section: those tagging gives, and the check of .bib entries.
PLACING_CHECKS = frozenset({"untagged-entry", *TAGGING_FINDINGS})


def _not_asking_volumes_to_be_placed(context: CheckContext, findings: list[Finding]) -> list[Finding]:
    """``findings`` without those asking to place a volume that entries name as their crossref or xdata parent,
    or an @xdata entry: they are cited through their children (``crossref.cited_through_children``)."""
    if not any(f.check in PLACING_CHECKS for f in findings):
        return findings
    parents = cited_through_children(context.papers)
    return [f for f in findings if not (f.check in PLACING_CHECKS and f.key and f.key.lower() in parents)]


def run_checks(context: CheckContext, staged: Sequence[Finding], selected: Iterable[str]) -> list[Finding]:
    """Findings of the selected checks: those earlier stages made, and those computed here, once per entry."""
    chosen = set(selected)
    findings = [f for f in staged if f.check in chosen or f.check not in REGISTRY]
    for name in sorted(chosen):
        check = REGISTRY[name]
        if check.run is not None:
            findings.extend(check.run(context))
    findings = _once_per_entry(_not_asking_volumes_to_be_placed(context, findings))
    return sorted(
        findings,
        key=lambda f: (f.location.path if f.location else "", f.location.line if f.location else 0, f.check, f.message),
    )
