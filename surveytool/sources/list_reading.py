"""A related-paper list -> papers (its anchors, snippets and the ids it gives) and what was found while reading it."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect

from surveytool.model import Finding, Origin, Paper, Severity, SourceLocation, frozen_mapping
from surveytool.sources.paper_list import PaperList, Paragraph, is_truncated, parse_paper_list, strip_ellipsis
from surveytool.text.control_chars import first_bidi_control
from surveytool.text.identifiers import parse_identifier

# A paragraph that is only a link: the page of a paper, whose text nobody can match.
_LINK = re.compile(r"^(?:https?://|www\.)\S+$", re.IGNORECASE)
_WORD = re.compile(r"\w+")


def read_paper_list(text: str, display: str) -> tuple[list[Paper], list[Finding]]:
    document = parse_paper_list(text)
    papers: list[Paper] = []
    findings: list[Finding] = []
    anchors = [(document.anchor_title, document.anchor_line)] if document.anchor_title else []
    for title, line in [*anchors, *document.later_anchors]:
        papers.append(_anchor(title, SourceLocation(display, line)))
    if not document.anchor_title and document.anchor_line:  # "Related papers:" and nothing after it
        findings.append(
            Finding(
                "list-header",
                Severity.INFO,
                "the header names no anchor paper; no anchor entry made",
                SourceLocation(display, document.anchor_line),
                "write the anchor paper's title after the colon if there is one",
            )
        )
    elif not document.anchor_title:
        findings.append(
            Finding(
                "list-header",
                Severity.INFO,
                "no 'Related papers: <title>' header; no anchor entry made",
                SourceLocation(display, 1),
                "add the anchor paper's title as the first line if there is one",
            )
        )
    # A snippet's words, and the line of the header of the list it is in (two lists in one file may share a
    # paper) -> the line it was first given at.
    seen: dict[tuple[int, str], int] = {}
    headers = [line for _, line in document.later_anchors]
    for paragraph in document.paragraphs:
        where = SourceLocation(display, paragraph.line)
        if paragraph.title:
            papers.append(_scholar_result(paragraph, where))
            continue
        identifier = parse_identifier(paragraph.text)
        if identifier is not None:  # a DOI or arXiv id names its paper exactly: no snippet to match
            papers.append(Paper(origin=Origin.IDENTIFIER, sources=(where,), fields=frozen_mapping(identifier.fields())))
            continue
        papers.append(
            Paper(
                origin=Origin.SNIPPET,
                sources=(where,),
                fields=frozen_mapping({"abstract": paragraph.text}),
                truncated=paragraph.truncated,
            )
        )
        findings.extend(_repeat(paragraph, bisect(headers, paragraph.line), seen, where))
        if _LINK.match(paragraph.text):
            findings.append(
                Finding(
                    "link-item",
                    Severity.WARNING,
                    "this item is only a link, not a DOI or arXiv id; kept as a placeholder",
                    where,
                    "write the paper's DOI or arXiv id, or paste its abstract, instead of the link",
                )
            )
    findings.extend(_layout_findings(document, display))
    findings.extend(_bidi_findings(papers))
    if not document.paragraphs:
        findings.append(
            Finding(
                "empty-list",
                Severity.WARNING,
                "the list has no paragraphs",
                SourceLocation(display, max(document.anchor_line, 1)),
                "separate paper snippets by blank lines",
            )
        )
    return papers, findings


def _repeat(
    paragraph: Paragraph, list_number: int, seen: dict[tuple[int, str], int], where: SourceLocation
) -> list[Finding]:
    """A snippet given again word for word in the same list: it merges with the first into one paper, which is
    right for a copy but loses one of two works that share an abstract (a chapter and its book)."""
    words = " ".join(_WORD.findall(strip_ellipsis(paragraph.text).casefold()))
    first = seen.setdefault((list_number, words), paragraph.line)
    if not words or first == paragraph.line:
        return []
    return [
        Finding(
            "repeated-snippet",
            Severity.WARNING,
            f"this snippet repeats the one at line {first} word for word; both are read as one paper",
            where,
            "if it is a copy, delete it; if they are two works (a chapter and its book), give each its DOI or arXiv id",
        )
    ]


# A header's Markdown link ("[Title](https://arxiv.org/abs/...)"), and a year after its title ("Title (2020)").
_MARKDOWN_LINK = re.compile(r"^\[(?P<text>[^\]]+)\]\((?P<target>[^()\s]+)\)$")
# Each alternative starts with a character, not a space: a search from every space of a long blank run is quadratic.
_TRAILING_YEAR = re.compile(r"(?:[(\[]\s*(?P<year>(?:19|20)\d\d)\s*[)\]]|,\s*(?P<bare>(?:19|20)\d\d))$")


def _anchor(title: str, where: SourceLocation) -> Paper:
    """The anchor paper a header names: by its DOI or arXiv id when it gives one (as an item that is only an id is
    read), else by its title, without the link around it or the year after it, which no catalog title holds."""
    fields: dict[str, str] = {}
    link = _MARKDOWN_LINK.match(title.strip())
    if link is not None:
        title = link.group("text")
        found = parse_identifier(link.group("target"))
        fields.update(found.fields() if found is not None else {})
    identifier = parse_identifier(title)
    if identifier is not None:
        return Paper(origin=Origin.IDENTIFIER, sources=(where,), fields=frozen_mapping(identifier.fields()))
    year = _TRAILING_YEAR.search(title)
    if year is not None and not is_truncated(title):
        title = title[: year.start()].rstrip()
        fields["year"] = year.group("year") or year.group("bare")
    fields["title"] = strip_ellipsis(title)
    return Paper(origin=Origin.ANCHOR, sources=(where,), fields=frozen_mapping(fields), truncated=is_truncated(title))


def _scholar_result(paragraph: Paragraph, where: SourceLocation) -> Paper:
    """A pasted Google Scholar result: its snippet, with the title, authors and year its byline gave."""
    fields = {"title": paragraph.title, "author": paragraph.authors, "year": paragraph.year}
    fields.update({"abstract": paragraph.text} if paragraph.text else {})
    return Paper(origin=Origin.SNIPPET, sources=(where,), fields=frozen_mapping(fields), truncated=paragraph.truncated)


def _bidi_findings(papers: list[Paper]) -> list[Finding]:
    """A ``bidi-control`` warning for each paper whose text holds a bidi embedding, override or isolate, at its line:
    copied from a web page with the list, it goes into the entry (and its title) as it is, as a .bib's value does."""
    found = []
    for paper in papers:
        if char := first_bidi_control("".join(paper.fields.values())):
            message = (
                f"this {paper.origin.value} holds U+{ord(char):04X} ({unicodedata.name(char).lower()}), which makes "
                "editors show the text around it in another order than it is read; its entry keeps it as it is"
            )
            hint = "delete it from the list; Arabic and Hebrew text needs none"
            found.append(Finding("bidi-control", Severity.WARNING, message, paper.sources[0], hint))
    return found


def _layout_findings(document: PaperList, display: str) -> list[Finding]:
    """What the reading of the list's layout could get wrong, each at its line."""
    findings = [
        Finding(
            "glued-snippets",
            Severity.WARNING,
            "this paragraph looks like several snippets run together (an ellipsis inside it, or long lines that "
            "each end a sentence); read as one paper",
            SourceLocation(display, line),
            "put a blank line between papers, or number them (1. 2. 3.)",
        )
        for line in document.suspect_lines
    ]
    findings.extend(
        Finding(
            "glued-snippets",
            Severity.WARNING,
            f"this line starts like a paper of the list, but its number is out of sequence ({expected} was next); "
            "read as text of the item before",
            SourceLocation(display, line),
            "number the list in sequence, or put a blank line before this line if it starts a paper",
        )
        for line, expected in document.unread_numbers
    )
    findings.extend(
        Finding(
            "list-header",
            Severity.WARNING,
            "this header's title reads like an abstract's sentences (a full stop and more after it, 'we' or 'this "
            "paper', or many words); read as a header naming an anchor paper",
            SourceLocation(display, line),
            "if it is a paper's snippet, take the header's words off its start; if a header, leave only the title",
        )
        for line in document.doubtful_headers
    )
    findings.extend(
        Finding(
            "empty-item",
            Severity.WARNING,
            "this item has no text after its number or bullet; skipped",
            SourceLocation(display, line),
            "write the paper's snippet after its number, or remove the number",
        )
        for line in document.empty_item_lines
    )
    inner = set(document.inner_number_lines)
    findings.extend(
        Finding(
            "page-furniture",
            Severity.INFO,
            "this line reads as a page number or a running header or footer; left out",
            SourceLocation(display, line),
            "if it is part of a snippet, join it to the line before",
        )
        if line not in inner
        # Between two lines of a paragraph a bare number may be the text's own ("a batch size of" / "1024").
        else Finding(
            "page-furniture",
            Severity.WARNING,
            "a line of only a number inside a paragraph was left out as a page number; the text may have lost it",
            SourceLocation(display, line),
            "if it is part of the snippet, join it to the line before",
        )
        for line in document.page_lines
    )
    findings.extend(
        Finding(
            "joined-paragraphs",
            Severity.INFO,
            f"this paragraph is read as the rest of the item at line {item_line}, which stops mid-sentence "
            "(a page break between them?)",
            SourceLocation(display, line),
            "if it is a paper of its own, number it or end the item before with a full stop",
        )
        for line, item_line in document.joined_lines
    )
    return findings
