"""Which entries of the other sources `bib --in-place` adds to the user's file, and why it leaves one out."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Sequence

from surveytool.analysis.first_author import first_author, same_authors
from surveytool.analysis.merge import identities
from surveytool.analysis.merge_evidence import Facts, disagreement, shared_evidence
from surveytool.analysis.preprints import preprint_marker
from surveytool.bibtex.crossref import names_of, parent_names
from surveytool.bibtex.field_spans import written_key
from surveytool.model import Finding, Paper, Severity, year_of
from surveytool.output.legacy_encoding import held_by
from surveytool.text.file_encoding import LEGACY_ENCODINGS, encoding_name

Render = Callable[[Sequence[Paper]], str]


def entries_to_add(
    new: Sequence[Paper],
    own: Sequence[Paper],
    display: str,
    encoding: str,
    rendered: Render,
    left: list[Finding],
    order: Sequence[str] = (),
) -> list[Paper]:
    """The papers of ``new`` to add to the file ``display`` whose entries are ``own``; a finding in ``left`` for
    each left out. ``order``: the sources as given, which decides between two entries of one work.

    Left out: an entry under a key the file has, for the same work. It is the entry a run added before, since
    edited in its source: added again (under a new key) by every run, the file filled with copies. An entry
    for a work the file has under another key (DBLP's key in the file, Google Scholar's in a co-author's, with
    one DOI; see ``_filing_identities``): a second copy, and the next run would warn that the file has the work
    twice. An entry for a work another
    source has under another key, added from there: of two sources' entries of one work, the one read first
    (by ``order``, then line) is added, as the first entry of a work keeps its key when merging. (Not one an
    added entry names in its crossref or xdata: see ``_parents_named``.) And an entry the file's encoding cannot
    hold (see ``legacy_encoding``).
    """
    by_key = {paper.key.lower(): paper for paper in own}
    by_identity: dict[str, list[Paper]] = {}
    for paper in own if new else ():
        for identity in _filing_identities(paper):
            by_identity.setdefault(identity, []).append(paper)
    rank = {path: i for i, path in enumerate(order)}
    added: list[Paper] = []
    adding: dict[str, list[Paper]] = {}  # the identities of the entries added
    elsewhere: list[tuple[Paper, Finding]] = []  # left out for an entry under another key
    for paper in sorted(new, key=lambda p: min(((rank.get(s.path, len(rank)), s) for s in p.sources), default=())):
        mine = by_key.get((written_key(paper.raw) or paper.key).lower())
        if mine is not None and _same_work(mine, paper):
            left.append(_already_there(paper, mine, display))
            continue
        found = _filed_as(paper, by_identity)
        if found is None:
            found = _filed_as(paper, adding)
            if found is not None:
                elsewhere.append((paper, _under_another_key(paper, *found, display, added_now=True)))
        else:
            elsewhere.append((paper, _under_another_key(paper, *found, display)))
        if found is None and _held(paper, encoding, rendered, display, left):
            added.append(paper)
            for identity in _filing_identities(paper):
                adding.setdefault(identity, []).append(paper)
    added.extend(_parents_named(added, own, elsewhere, encoding, rendered, display, left))
    left.extend(finding for _, finding in elsewhere)
    return added


def without_superseded(findings: Iterable[Finding], left: Sequence[Finding]) -> list[Finding]:
    """``findings`` without the ``duplicate-entry`` warnings naming an entry ``left`` says is in the file under
    another key (or added under it): the file has the work once, and the finding in ``left`` says which key to
    cite. The warning may name another copy of the file's entry (a co-author's file sharing it) than ``left``."""
    told = {f.location for f in left if f.check == "already-in-file" and f.places}
    return [f for f in findings if f.check != "duplicate-entry" or not told & {f.location, *(f.places or ())}]


def _parents_named(
    added: list[Paper],
    own: Sequence[Paper],
    elsewhere: list[tuple[Paper, Finding]],
    encoding: str,
    rendered: Render,
    display: str,
    left: list[Finding],
) -> list[Paper]:
    """The entries of ``elsewhere`` (taken out of it) that an added entry, or one of them, names in its crossref or
    xdata and the file has under no name: left out, the child would name a key the file lacks and lose what it
    inherits. Added, the file has the work twice, as the duplicate-entry warning then says; the other way, giving
    the child the file's key, would change the co-author's entry, and every later run would find it edited."""
    parents: list[Paper] = []
    known = {name for paper in (*own, *added) for name in names_of(paper)}
    wanted = {name for paper in added for name in parent_names(paper)} - known
    while wanted:
        found = [pair for pair in elsewhere if wanted & set(names_of(pair[0]))]
        elsewhere[:] = [pair for pair in elsewhere if pair not in found]
        held = [paper for paper, _ in found if _held(paper, encoding, rendered, display, left)]
        parents.extend(held)
        known.update(name for paper in held for name in names_of(paper))
        wanted = {name for paper in held for name in parent_names(paper)} - known
    return parents


def _filing_identities(paper: Paper) -> list[str]:
    """The identities under which an entry of another source is the work of an entry of the file: its DOI and arXiv
    id, its type and fields as written (a copy under another key), and its title with its year and kind of entry
    (see ``_work``). A shared title alone is not enough: a thesis and the journal article of its title are two
    publications, as are a preprint and its published version, and merging joins those only when asked
    (--merge-duplicates); both are added, and duplicate-entry says so."""
    ids = [identity for identity in identities(paper) if identity.startswith(("doi:", "arxiv:"))]
    if paper.latex_fields:
        fields = sorted((name.lower(), " ".join(value.split())) for name, value in paper.latex_fields.items())
        ids.append(f"entry:{paper.entry_type.lower()}:{fields!r}")
    return ids + _work(paper)


#: Entry types one publication is exported as by different sources: Google Scholar gives a NeurIPS paper as an
#: @article that DBLP gives as an @inproceedings. Any other type is a kind of its own.
_KINDS = {
    **dict.fromkeys(("article", "inproceedings", "conference"), "paper"),
    **dict.fromkeys(("phdthesis", "mastersthesis", "thesis"), "thesis"),
    **dict.fromkeys(("techreport", "report"), "report"),
}


# Google Scholar's journal for a paper of a conference ("Advances in neural information processing systems").
_PROCEEDINGS = re.compile(r"\b(?:proceedings|conference|advances in|workshop|symposium)\b", re.IGNORECASE)


def _work(paper: Paper) -> list[str]:
    """The identity of an entry's publication without an id, as DBLP's and Scholar's entries of it share it: the
    title, with the year and kind of entry (paper, thesis, ...) both state; ``_filed_as`` asks for the same
    authors too. None for a preprint (its published version is another publication) or an entry lacking one."""
    title = next((i for i in identities(paper) if i.startswith("title:")), "")
    year = year_of(paper.year)
    if not title or not year or not first_author(paper) or preprint_marker(paper):
        return []
    kind = paper.entry_type.lower()
    if kind == "article" and not _PROCEEDINGS.search(paper.fields.get("journal", "")):
        kind = "journal article"  # a journal's: the extended version of a conference paper of the same title
    return [f"work:{_KINDS.get(kind, kind)}:{year}:{title}"]


def _filed_as(paper: Paper, by_identity: dict[str, list[Paper]]) -> tuple[Paper, str] | None:
    """The entry of ``by_identity`` that is ``paper``'s work, with nothing they state disagreeing, and the evidence."""
    for identity in _filing_identities(paper):
        for mine in by_identity.get(identity, ()):
            if identity.startswith("work:") and not same_authors(mine, paper):
                continue
            if not disagreement(Facts.of(mine), Facts.of(paper)):
                return mine, identity
    return None


def _same_work(mine: Paper, theirs: Paper) -> bool:
    return any(
        identity.startswith(("title:", "short:", "doi:", "arxiv:"))
        for identity in set(identities(mine)) & set(identities(theirs))
    )


def _already_there(paper: Paper, mine: Paper, display: str) -> Finding:
    differs = sorted(
        name
        for name in {*paper.latex_fields, *mine.latex_fields}
        if paper.latex_fields.get(name) != mine.latex_fields.get(name)
    )
    at = f"{display}:{mine.sources[0].line}" if mine.sources else display
    return Finding(
        "already-in-file",
        Severity.WARNING,
        f"entry '{written_key(paper.raw) or paper.key}' is not added to {display}: {at} has that key for the same work"
        + (f" (they differ in {', '.join(differs)})" if differs else ""),
        paper.sources[0] if paper.sources else None,
        f"copy what you want of it into {display} by hand: bib --in-place never changes an entry of yours",
    )


def _under_another_key(paper: Paper, mine: Paper, identity: str, display: str, added_now: bool = False) -> Finding:
    """``paper`` left out for ``mine``, an entry of the file or, ``added_now``, one this run adds to it."""
    theirs, kept = written_key(paper.raw) or paper.key, written_key(mine.raw) or mine.key
    # The file's entry as it stands there: it may also be read from a copy in another source.
    where = min(paper.sources) if paper.sources else None
    at = min(mine.sources) if added_now else min(s for s in mine.sources if s.path == display)
    has = f"this run adds that work from {at} as" if added_now else f"{at} has that work as"
    # An info: the user's file is as it should be, and the other source is not theirs to mend.
    rekey = shlex.join(["surveytool", "rekey", display, *([where.path] if where else []), "--tex", "FILE"])
    return Finding(
        "already-in-file",
        Severity.INFO,
        f"entry '{theirs}' is not added to {display}: {has} '{kept}' ({_evidence(identity)}); cite '{kept}'",
        where,
        f"`{rekey}` rewrites \\cite{{{theirs}}} in your documents to \\cite{{{kept}}}",
        theirs,
        (at,),
    )


def _evidence(identity: str) -> str:
    if identity.startswith("work:"):
        return "the same title, authors, year and kind of entry"
    return "the same entry type and fields" if identity.startswith("entry:") else shared_evidence(identity)


def _held(paper: Paper, encoding: str, rendered: Render, display: str, left: list[Finding]) -> bool:
    """Whether ``paper``, written as a new entry, fits a file of ``encoding`` (a UTF-8 one holds any: not rendered)."""
    if encoding not in LEGACY_ENCODINGS:
        return True
    unheld = held_by(encoding, rendered([paper]))[1]
    if unheld:
        left.append(
            Finding(
                "not-in-file-encoding",
                Severity.ERROR,
                f"entry '{paper.key}' is not added to {display}: that file is {encoding_name(encoding)}, which cannot "
                f"hold '{unheld}' (U+{ord(unheld):04X}), and LaTeX has no ASCII spelling for it there",
                paper.sources[0] if paper.sources else None,
                f"save {display} as UTF-8 and run again, or add the entry by hand",
            )
        )
    return not unheld
