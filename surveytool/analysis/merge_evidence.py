"""Whether two records that share an identity are one work: the facts that must not disagree.

A shared DOI, arXiv id, title or abstract only makes two records candidates.
They are one work when nothing they both state disagrees: a different
(non-arXiv) DOI or arXiv id, a different title, another volume or first page, or another
issue or year of the same venue means two works that happen to share a
blurb, a junk eprint or a recurring column title; so are a thesis and a paper
from it (in a journal or proceedings, or with co-authors). Records that state nothing
but an abstract (unresolved snippets) disagree when neither abstract is a cut
or a near copy of the other: two papers whose blurbs open alike.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from surveytool.analysis.agreement import agree
from surveytool.analysis.key_authors import names_of
from surveytool.analysis.preprints import arxiv_id, preprint_marker
from surveytool.bibtex.values import MONTH_MACROS, month_macro
from surveytool.model import Paper, month_of_date, year_of
from surveytool.text.identifiers import arxiv_id_of_doi, normalize_doi
from surveytool.text.normalize import (
    abstract_similarity,
    normalize,
    normalize_any_script,
    opening_words,
    strip_truncation,
)

_MIN_TITLE_WORDS = 3  # as merge.identities: a shorter title is no identity alone
#: Two snippets at least this similar (see text.normalize.abstract_similarity) are one paper.
NEAR_DUPLICATE = 0.9
NEAR_WORDS = 60  # the words of an abstract compared
# Enough words to tell two abstracts apart (merge.snippet_fingerprint); fewer and a shared opening could merge them.
SNIPPET_WORDS = 30
#: Words of the shorter abstract after the last run the other shares: this many or more, and they part for good
#: (its cut-off last word is already left out: a word that differs at its end is a word of another text).
_PARTED_WORDS = 1
_PARTED_SLACK = 3
_PAGE_SPLIT = re.compile(r"\s*(?:-+|–|—)\s*")
# An edition as BibTeX styles want it ("Second") or as services write it ("2nd", "2. Aufl.", "Java SE 7").
_EDITION_WORDS = {
    w: str(n) for n, w in enumerate("first second third fourth fifth sixth seventh eighth ninth".split(), 1)
}
_EDITION_NUMBER = re.compile(r"\d+")
_THESES = frozenset({"phdthesis", "mastersthesis", "thesis"})
# Two publications of one piece of research: they share its abstract by right, no sign of a wrong id.
_THESIS_AND_PAPER = "one is a thesis"
_CONFERENCE_AND_JOURNAL = "one is a conference paper"
# Journals that print conference proceedings (SIGPLAN Notices, PVLDB, PACMPL, LIPIcs): a paper there is the talk's.
_PRINTS_PROCEEDINGS = re.compile(r"\b(notices|proceedings|proc|conference|symposium|workshop|lecture notes)\b")


@dataclass(frozen=True)
class Facts:
    """What a record states about its work, normalized for comparison ("" when it does not say)."""

    doi: str  # a DOI other than the one arXiv mints for its preprints
    title: str
    title_is_prefix: bool  # a truncated title: only its opening is known
    venue: str  # "" for a preprint server: a preprint and its published version are one work
    volume: str
    number: str
    first_page: str
    year: str
    month: str  # a month macro ("mar"), from month or date
    # The opening words of the abstract of a record that states no title or id: all that says which work it is.
    opening: tuple[str, ...] = ()
    edition: str = ""
    thesis: bool = False
    arxiv: str = ""  # the arXiv id without version, wherever the record writes it
    journal: bool = False  # its venue is a journal's name, not a preprint server's nor one of proceedings
    proceedings: bool = False  # its venue is a booktitle (a conference's)
    authors: int = 0  # how many authors it names, 0 for a list cut short ("and others")

    @classmethod
    def of(cls, paper: Paper) -> Facts:
        fields = paper.fields
        doi = fields.get("doi", "")
        doi = "" if not doi or arxiv_id_of_doi(doi) else normalize_doi(doi)
        title = fields.get("title", "")
        cut = paper.truncated and paper.resolution is None
        pages = fields.get("pages", "").strip()
        abstract = fields.get("abstract", "")
        bare = bool(abstract) and not any(fields.get(f) for f in ("title", "doi", "eprint", "arxiv"))
        names, etal = names_of(fields.get("author", ""), paper.latex_fields.get("author", ""))
        venue = "" if preprint_marker(paper) else normalize(paper.venue)
        journal = normalize(fields.get("journal") or fields.get("journaltitle") or "")
        return cls(
            doi=doi,
            title=normalize_any_script(strip_truncation(title) if cut else title),
            title_is_prefix=cut,
            venue=venue,
            volume=normalize(fields.get("volume", "")),
            number=normalize(fields.get("number", "")),
            first_page=normalize(_PAGE_SPLIT.split(pages, maxsplit=1)[0]) if pages else "",
            year=year_of(paper.year),
            month=_month(fields.get("month", ""), fields.get("date", "")),
            opening=tuple(opening_words(abstract, NEAR_WORDS)) if bare else (),
            edition=_edition(fields.get("edition", "")),
            thesis=paper.entry_type.lower() in _THESES,
            authors=0 if etal else len(names),
            arxiv=arxiv_id(paper) or "",
            journal=bool(venue) and venue == journal and not _PRINTS_PROCEEDINGS.search(journal),
            proceedings=bool(venue) and venue != journal,
        )


def _month(month: str, date: str) -> str:
    if month.strip():
        return month_macro(month) or ""
    number = month_of_date(date) if date else None
    return list(MONTH_MACROS)[number - 1] if number else ""


def _edition(text: str) -> str:
    """The edition's number where it has one (written or spelled), else its words."""
    number = _EDITION_NUMBER.search(text)
    if number:
        return number.group()
    words = normalize(text).split()
    return next((_EDITION_WORDS[w] for w in words if w in _EDITION_WORDS), " ".join(words))


def compatible_for_title(a: Paper, b: Paper) -> bool:
    """Same title is the same work only if first authors and years do not disagree."""
    return agree(a, b)


def _titles_differ(a: Facts, b: Facts) -> bool:
    if not a.title or not b.title or a.title == b.title:
        return False
    if a.title_is_prefix and b.title.startswith(a.title):
        return False
    return not (b.title_is_prefix and a.title.startswith(b.title))


def abstracts_agree(a: Sequence[str], b: Sequence[str]) -> bool:
    """One abstract's opening words are the other's (a snippet cut anywhere), or nearly (small edits).

    Nearly is not enough where they part for good before the shorter one ends: a copy with a word changed goes
    on alike after it, but two papers whose blurbs open with the same sentence ("We study the problem of ...,
    and propose a schedule" / "... a compression method") do not.
    """
    if a[:SNIPPET_WORDS] == b[:SNIPPET_WORDS]:
        return True
    if abstract_similarity(a, b) < NEAR_DUPLICATE:
        return False
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    # A few words more of the longer: a word the copy has in more moves its end that far.
    window = long[: len(short) + _PARTED_SLACK]
    blocks = [
        block for block in SequenceMatcher(None, short, window, autojunk=False).get_matching_blocks() if block.size
    ]
    if not blocks:
        return False
    last = blocks[-1]
    # Parted: both go on after the last words they share, each with words of its own (where the longer ran out,
    # a cut one, it says nothing).
    return not (len(short) - (last.a + last.size) >= _PARTED_WORDS and len(window) > last.b + last.size)


def disagreement(a: Facts, b: Facts) -> str:
    """Why two records cannot be one work, or "" when nothing they both state disagrees."""
    if a.doi and b.doi and a.doi != b.doi:
        return f"their DOIs differ ({a.doi}, {b.doi})"
    # Versions of a preprint share its id: another id is another submission, whatever its title.
    if a.arxiv and b.arxiv and a.arxiv != b.arxiv:
        return f"their arXiv ids differ ({a.arxiv}, {b.arxiv})"
    if _titles_differ(a, b):
        return "their titles differ"
    if a.opening and b.opening and not abstracts_agree(a.opening, b.opening):
        return "their abstracts differ"
    if a.thesis != b.thesis:
        why = _not_the_thesis(*((a, b) if a.thesis else (b, a)))
        if why:
            return why
    # Another volume, first page or edition is another publication (a journal version of a conference paper, a
    # recurring column, a book's new edition); another issue, year or month is one only within the same venue.
    for name, x, y in (
        ("volumes", a.volume, b.volume),
        ("pages", a.first_page, b.first_page),
        ("editions", a.edition, b.edition),
    ):
        if x and y and x != y:
            return f"their {name} differ ({x}, {y})"
    # A conference paper and the journal version of another year: two publications, each cited for itself.
    if (a.journal and b.proceedings or a.proceedings and b.journal) and a.year and b.year and a.year != b.year:
        return f"{_CONFERENCE_AND_JOURNAL}, the other a journal article of another year ({a.year}, {b.year})"
    # A title of a word or two ("Preface", "Deep learning") names little: another venue is another work.
    if a.venue and b.venue and a.venue != b.venue and a.title.count(" ") < _MIN_TITLE_WORDS - 1:
        return f"their venues differ ('{a.venue}', '{b.venue}')"
    if a.venue and a.venue == b.venue:
        for name, x, y in (("issues", a.number, b.number), ("years", a.year, b.year), ("months", a.month, b.month)):
            if x and y and x != y:
                return f"their {name} in '{a.venue}' differ ({x}, {y})"
    return ""


def _not_the_thesis(thesis: Facts, other: Facts) -> str:
    """Why a record is a paper that came out of a thesis, not the thesis, or "": a thesis is its author's alone
    and appears in no journal or proceedings (the same text as a report, a book or a preprint is one work)."""
    if other.venue:
        return f"{_THESIS_AND_PAPER}, the other appeared in '{other.venue}'"
    if thesis.authors == 1 and other.authors > 1:
        return f"{_THESIS_AND_PAPER}, the other has co-authors"
    return ""


def shared_evidence(identity: str) -> str:
    """An identity as the reason two records look alike, for messages."""
    kind, _, value = identity.partition(":")
    if kind == "doi":
        return f"the same DOI {value}"
    if kind == "arxiv":
        return f"the same arXiv id {value}"
    if kind == "title":
        return "the same title with compatible first author and year"
    if kind == "short":
        return "the same short title, authors and year"
    return "the same abstract"


def names_the_work(identity: str, why_apart: str = "") -> bool:
    """An id or an abstract, which two distinct works should never share (a title may recur); a thesis and its
    paper, or a conference paper and its journal version, share an abstract by right."""
    if identity.startswith("snippet:") and why_apart.startswith((_THESIS_AND_PAPER, _CONFERENCE_AND_JOURNAL)):
        return False
    return not identity.startswith(("title:", "short:"))
