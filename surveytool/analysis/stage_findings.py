"""Findings made by the stages that read, resolve, complete, draft or write, not by a check: always reported.

They cannot be chosen with ``--checks`` or left out with ``--disable`` (a source that could not be read is
never a matter of choice), but ``check --explain`` explains them like the checks.
"""

from __future__ import annotations

from dataclasses import dataclass

from surveytool.model import Severity


@dataclass(frozen=True)
class StageFinding:
    name: str
    severity: str  # the usual one; some are raised or lowered where the case is clearer
    summary: str
    explanation: str


_LISTS = "Related-paper lists"

STAGE_FINDINGS: dict[str, StageFinding] = {
    finding.name: finding
    for finding in (
        StageFinding(
            "list-header",
            Severity.INFO.value,
            "a related-paper list whose first line names no anchor paper",
            f"{_LISTS} start with a header naming the paper they are related to ('Related papers: <title>', "
            "'Papers related to <title>', '相关论文: <title>'). Without one, every paragraph is read as a snippet and "
            "no anchor paper is added. A header whose title reads like an abstract's sentences (a full stop and more after "
            "it, 'we' or 'this paper', many words or lower case) is the first words of a snippet; one that may be "
            "either is read as a header and reported as a warning at its line.",
        ),
        StageFinding(
            "glued-snippets",
            Severity.WARNING.value,
            "a paragraph that runs two cut-off snippets together",
            "A snippet ends where it was cut off ('…'); one in the middle of a paragraph means two papers lost the "
            "blank line between them. Put a blank line after the first '…'. A numbered line out of sequence read as "
            "text ('2.' twice) is reported too, at its line, and so is a paragraph of whole abstracts one a line (long "
            "lines that each end a sentence, with no blank line between them).",
        ),
        StageFinding(
            "empty-item",
            Severity.INFO.value,
            "a numbered or bulleted item with no text",
            "'3.' alone on its line starts no paper and is never read as text of the item before it.",
        ),
        StageFinding(
            "empty-list",
            Severity.WARNING.value,
            "a list file with no paper in it",
            "The file has a header, or nothing, but no snippet, title or id under it.",
        ),
        StageFinding(
            "page-furniture",
            Severity.INFO.value,
            "a page number or running header left out of a list",
            "A line that is only a page number ('12', 'Page 3 of 10') or a running header ending in one, as a copy "
            "from a PDF brings, is left out. A bare number inside a paragraph may be the text's own ('a batch size "
            "of' / '1024' / 'sequences'): then it is a warning, and joining it to the line before keeps it.",
        ),
        StageFinding(
            "joined-paragraphs",
            Severity.INFO.value,
            "a paragraph read as the rest of the item before it",
            "In a list, a paragraph with no marker that goes on in lower case after an item that stops mid-sentence "
            "(in a list of paragraphs, after a page number or running header) was cut by a page break: it joins that "
            "item (one paragraph per item).",
        ),
        StageFinding(
            "repeated-snippet",
            Severity.WARNING.value,
            "a snippet given twice in one list, read as one paper",
            "Two items of a list with the same words are one paper: right for a copy, wrong for two works that share "
            "an abstract (a book chapter and its book). Delete the copy, or give each work its DOI or arXiv id.",
        ),
        StageFinding(
            "link-item",
            Severity.WARNING.value,
            "a list item that is a link but no DOI or arXiv id",
            "An item that is only a DOI or arXiv id (bare, prefixed or as a link) names its paper; another link "
            "names none, and is kept as a placeholder. Replace it with the paper's DOI or arXiv id.",
        ),
        StageFinding(
            "bad-identifier",
            Severity.ERROR.value,
            "a line of an id list that is no DOI or arXiv id",
            "Id lists hold one DOI or arXiv id per line (bare, prefixed with doi: or arXiv:, or as a link). The "
            "line is skipped; correct it or move it to a list of its own kind.",
        ),
        StageFinding(
            "csl-item",
            Severity.WARNING.value,
            "a CSL-JSON item that could not be read",
            "A CSL-JSON file is an array of items; an item with no title and no DOI, or a file that is no such "
            "array, gives nothing. Export CSL-JSON from Zotero, Better BibTeX or pandoc.",
        ),
        StageFinding(
            "unknown-key",
            Severity.WARNING.value,
            "an overrides file names a key no source has",
            "An overrides file ([tags] key = [ids]) tags entries by key; a key no source has tags nothing. The message "
            "gives the closest key.",
        ),
        StageFinding(
            "override-twice",
            Severity.WARNING.value,
            "an overrides file names one entry twice, with other tags",
            "A key merged into another entry (--merge-duplicates) still names that entry in an overrides file; when "
            "its line and the line of the entry's own key give other tags, those of the entry's own key are taken.",
        ),
        StageFinding(
            "resolver-error",
            Severity.WARNING.value,
            "an online service failed or answered something unusable",
            "With --online, a service that times out, refuses or answers what cannot be read is skipped (for the rest "
            "of the run when it is down); the entry keeps what the sources gave, and nothing bad is cached.",
        ),
        StageFinding(
            "online-cache",
            Severity.INFO.value,
            "cached online answers not trusted",
            "Answers cached by an earlier run that do not read as the service's are asked again; a cache file "
            "SQLite cannot read is set aside and started anew.",
        ),
        StageFinding(
            "build-cache",
            Severity.INFO.value,
            "the build cache was discarded",
            "The cache that lets a rebuild reuse what did not change was unreadable or written by another version: "
            "it is rebuilt, and the outputs are the same as without it.",
        ),
        StageFinding(
            "not-completed",
            Severity.INFO.value,
            "complete found a record it did not take fields from",
            "A catalog or online record that is close to an entry but not surely the same work (another title, or "
            "another version: a conference paper for an @article) gives it nothing; the note names the record.",
        ),
        StageFinding(
            "tags-not-written",
            Severity.WARNING.value,
            "a tags field bib --in-place or check --fix did not rewrite",
            "A tags field that uses an @string macro, which other entries may share, or that cannot be found in the "
            "entry's text, is left as it is; the hint says what to write.",
        ),
        StageFinding(
            "llm-failed",
            Severity.WARNING.value,
            "draft --llm got no suggestion for a theme",
            "The model's server failed, timed out or answered what cannot be read; after a few failures the run stops "
            "asking. The notes and the rest of the chapter are unchanged.",
        ),
        StageFinding(
            "llm-cache",
            Severity.INFO.value,
            "draft --llm's cache of answers could not be used or kept",
            "The answers of earlier runs are kept beside the chapter; a file that cannot be read is set aside and the "
            "themes are asked again.",
        ),
        StageFinding(
            "hallucinated-citation",
            Severity.WARNING.value,
            "a suggested sentence cited a key outside its theme",
            "draft --llm writes only sentences whose citations are papers of the theme being drafted; a sentence "
            "citing another key, or one not in the bibliography at all, is dropped and quoted here.",
        ),
        StageFinding(
            "malformed-citation",
            Severity.WARNING.value,
            "a suggested sentence with a citation that is not well formed",
            "A \\cite the model wrote that cannot be read (no key, an unclosed brace, an option) drops its sentence.",
        ),
    )
}
