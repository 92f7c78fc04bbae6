"""Citation keys: a formula for new entries, pins so that keys never change afterwards.

A key, once given, is pinned under the entry's identity (DOI, arXiv id,
normalized title or snippet fingerprint) in a lock file; later runs reuse it
even when other entries are added, removed or re-resolved.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from surveytool.analysis.key_formula import DEFAULT, KeyFormula
from surveytool.analysis.merge import identities, snippet_fingerprint
from surveytool.model import Origin, Paper
from surveytool.text.control_chars import first_control
from surveytool.text.normalize import drops_letters, normalize, strip_truncation
from surveytool.text.transliterate import significant_words

_MAX_WORD = 20
_UNREADABLE_IN_KEY = re.compile(r"[\s,{}=\"%]")


def key_base(paper: Paper, formula: KeyFormula = DEFAULT) -> str:
    """The key ``formula`` gives (``lepikhin2021gshard`` by default); a user's own key as it is."""
    if paper.key and paper.origin in (Origin.BIBTEX, Origin.CSL_JSON) and not unwritable_key(paper.key):
        return paper.key
    if paper.resolved and paper.title:
        return formula.key(paper) or DEFAULT.key(paper)
    # An unresolved snippet or id: nothing but its text to go on, so a fingerprint (of its title, where there is one).
    text = paper.title or paper.abstract or ""
    word = next(iter(significant_words(strip_truncation(text), 1)), "entry").lower()[:_MAX_WORD]
    # A hash of the identity: its text opens with the same few letters for every DOI ("doi:10."). A text's is
    # of its ASCII words where they hold all its letters, as keys were always made (a new hash would give new
    # keys), else of its words in any script: two snippets in Chinese have no ASCII words to tell them apart.
    digest = (snippet_fingerprint(paper) or hashlib.sha1(identity_of(paper).encode()).hexdigest())[:4]
    return f"anon-{word}-{digest}"


_TEXT_FIELDS = ("title", "abstract", "author", "year")


def _ascii_text_identity(paper: Paper) -> str:
    """The pin identity of a paper known only by its text, as its ASCII words: the same for any two texts in
    Chinese or Greek, which have none."""
    text = "|".join(normalize(paper.fields.get(f, "")) for f in _TEXT_FIELDS)
    return "text:" + hashlib.sha1(text.encode()).hexdigest()[:16]


def _text_identity(paper: Paper) -> str:
    """The pin identity of a paper known only by its text: its ASCII words (``_ascii_text_identity``) when they
    hold all its letters, else its words in any script, which tell apart two snippets in Chinese."""
    values = [paper.fields.get(f, "") for f in _TEXT_FIELDS]
    if not drops_letters("|".join(values)):
        return _ascii_text_identity(paper)
    text = "|".join(" ".join(unicodedata.normalize("NFKC", v).casefold().split()) for v in values)
    return "words:" + hashlib.sha1(text.encode()).hexdigest()[:16]


def identity_of(paper: Paper, found: Sequence[str] | None = None) -> str:
    """The identity under which a paper's key is pinned (the most specific one)."""
    found = identities(paper) if found is None else found
    if found:
        return found[0]
    if paper.key:
        return "key:" + paper.key
    # Too little text for a merge identity (a one-word title): pin by all we know of it.
    return _text_identity(paper)


def _distinct_identities(papers: Sequence[Paper], found: Sequence[Sequence[str]]) -> list[str]:
    """Each paper's pin identity (``identity_of``), told apart from the other papers of the run.

    Two works can share their most specific identity (book chapters that share an abstract); a pin
    under it would hand one paper's key to the other once either leaves the bibliography.
    """
    identity = [identity_of(p, f) for p, f in zip(papers, found, strict=True)]
    shared = {i for i, n in Counter(identity).items() if n > 1}
    if not shared:
        return identity
    counts = Counter(i for identities_found in found for i in set(identities_found))
    distinct = []
    for paper, identities_found, own in zip(papers, found, identity, strict=True):
        if own not in shared:
            distinct.append(own)
            continue
        unique = next((i for i in identities_found if counts[i] == 1), None)
        distinct.append(unique or f"{own}|{identity_of(replace(paper, key=''), [])}")
    return distinct


def _suffix(n: int) -> str:
    """0 -> "", 1 -> "b", ..., 25 -> "z", 26 -> "ba": "a" would read as a first of a series."""
    letters = ""
    while n:
        n, rest = divmod(n, 26)
        letters = "abcdefghijklmnopqrstuvwxyz"[rest] + letters
    return letters


def _suffixed(own: str, key: str) -> bool:
    """Whether ``key`` is ``own`` with a suffix of ``_suffix`` (``smith2020b`` of ``smith2020``)."""
    rest = key[len(own) :]
    return key[: len(own)].lower() == own.lower() and rest.isascii() and rest.isalpha() and rest.islower()


def citable_keys(papers: Sequence[Paper], dialect: str) -> set[str]:
    """The keys a document may cite: every entry's, and with biblatex the keys merged entries absorbed (ids)."""
    keys = {p.key for p in papers}
    return keys | {a for p in papers for a in p.aliases} if dialect == "biblatex" else keys


def merged_into(papers: Sequence[Paper]) -> dict[str, str]:
    """Each key merged into another entry (its ``aliases``) -> that entry's key."""
    return {alias: paper.key for paper in papers for alias in paper.aliases}


def runs_in_tex(key: str) -> bool:
    """Whether TeX could read a command in ``key`` (a backslash, or ^^ notation for one)."""
    return "\\" in key or "^^" in key


def unreadable_in_key(key: str) -> str:
    """The first character of ``key`` that a reader of .bib files does not read in a key, or that no one should
    see raw: a control or bidi control ("" for none)."""
    found = _UNREADABLE_IN_KEY.search(key)
    return found.group() if found else first_control(key)


def lookalike_key(key: str) -> str:
    """``key`` as a reader sees it: lowered, as BibTeX compares keys, and in NFC, as biber reads every key, so
    that ``ü`` typed as one character and as ``u`` with a combining diaeresis give one key."""
    return unicodedata.normalize("NFC", key).lower()


def unwritable_key(key: str) -> bool:
    """Whether ``key`` cannot be written back as it is: it ``runs_in_tex``, or BibTeX reads no key with a space,
    comma or brace in it, and biber and bibtexparser (surveytool's own reader) none with ``=`` or ``"`` (a CSL-JSON
    citation-key may hold any of them). A ``%`` starts a comment to biber and to LaTeX, in ``\\cite`` and the .bbl.
    A control character or bidi control would reach the terminal and the editor raw wherever the key is written (an
    escape sequence, text shown reordered)."""
    return runs_in_tex(key) or bool(_UNREADABLE_IN_KEY.search(key)) or bool(first_control(key))


def run_order(sources: Sequence[str]) -> Callable[[Paper], tuple[int, int]]:
    """Sorts papers by where they were first read: the sources in the order of the run, then the line.

    The order decides which entry keeps a key two files share. BibTeX keeps the one it reads first, from the
    first file named in ``\\bibliography``; ``bib --in-place`` names its target first.
    """
    rank = {path: position for position, path in enumerate(sources)}

    def position(paper: Paper) -> tuple[int, int]:
        return min(((rank.get(s.path, len(rank)), s.line) for s in paper.sources), default=(len(rank), 0))

    return position


def _pinned(
    papers: Sequence[Paper], found: Sequence[Sequence[str]], identity: Sequence[str], pins: Mapping[str, str]
) -> list[str | None]:
    """The key the lock file pins for each paper (``found``: its identities; ``identity``: its distinct one)."""
    counts = Counter(i for identities_found in found for i in set(identities_found))
    # A paper in Chinese or Greek, or with an α or ß in its title, was pinned by its ASCII words before its
    # other letters counted: that pin is its key still, when no other paper of the run has such words.
    triples = zip(papers, identity, found, strict=True)
    older = [[o for o in _older_identities(paper, own) if o not in now] for paper, own, now in triples]
    shared = {o for o, n in Counter(o for some in older for o in set(some)).items() if n > 1}
    pinned = []
    for index, (own, identities_found) in enumerate(zip(identity, found, strict=True)):
        # An identity another paper of this run shares (two chapters with one abstract) is tried last:
        # the first of them in source order keeps what a lock file written before pinned under it.
        candidates = [own, *sorted(identities_found, key=lambda i: counts[i] > 1)]
        candidates.extend(o for o in older[index] if o not in shared)
        pinned.append(next((pins[i] for i in candidates if i in pins), None))
    return pinned


def _older_identities(paper: Paper, own: str) -> list[str]:
    """The identities, by ASCII words alone, a lock file may pin ``paper`` under where its letters are others too."""
    older = [_ascii_text_identity(paper)] if own.startswith("words:") else []
    if not (paper.fields.get("title") or "").isascii():
        older.extend(i for i in identities(paper, normalize) if i.startswith(("title:", "short:")))
    return older


def pinned_keys(
    papers: Sequence[Paper], pins: Mapping[str, str], identities_of: Callable[[Paper], list[str]] = identities
) -> list[str | None]:
    """The key ``pins`` (the lock file) holds for each paper, as ``assign_keys`` looks it up; None for none."""
    found = [identities_of(p) for p in papers]
    return _pinned(papers, found, _distinct_identities(papers, found), pins)


def assign_keys(
    papers: Sequence[Paper],
    pins: Mapping[str, str] | None = None,
    identities_of: Callable[[Paper], list[str]] = identities,
    formula: KeyFormula = DEFAULT,
    sources: Sequence[str] = (),
) -> tuple[list[Paper], dict[str, str]]:
    """Give every paper a unique key; keys in ``pins`` and user keys are kept as they are, new keys by ``formula``.

    ``sources``: the run's source names in order (``run_order``); the earlier of two entries keeps a shared key.
    Returns the papers with keys and the pins to save (old pins plus new keys).
    """
    pins = dict(pins or {})
    found = [identities_of(p) for p in papers]
    identity = _distinct_identities(papers, found)
    pinned = _pinned(papers, found, identity, pins)
    # Keys absorbed by a merge stay citable (biblatex ids): no other entry may take them. Keys are compared
    # lower-cased, as BibTeX compares them: it drops an entry keyed "smith2020" after one keyed "Smith2020".
    taken: set[str] = {alias.lower() for paper in papers for alias in paper.aliases}
    keyed: dict[int, str] = {}
    # Pinned and user-given keys first, in the run's order, so they win every collision.
    position = run_order(sources)
    for index in sorted(range(len(papers)), key=lambda i: position(papers[i])):
        paper = papers[index]
        own = paper.key if paper.origin in (Origin.BIBTEX, Origin.CSL_JSON) and paper.key else None
        # An entry's own key decides, unless BibTeX cannot hold it; its pin comes after it only when it is the own
        # key renamed for a collision (sharedb for shared), not a key the user has since changed.
        pin = pinned[index] if not own or unwritable_key(own) or _suffixed(own, pinned[index] or "") else None
        # BibTeX copies a key into the .bbl as it is: one that holds a command would run there.
        key = next((k for k in (own, pin) if k and not unwritable_key(k) and k.lower() not in taken), None)
        if key:
            keyed[index] = key
            taken.add(key.lower())
    # New keys by the formula; a collision gets the first free suffix, in identity order. A key pinned for a paper
    # not in this run is passed over too: it is that paper's when it comes back (a line commented out for a while).
    reserved = {pin.lower() for pin in pins.values()}
    bases = {i: key_base(papers[i], formula) for i in range(len(papers)) if i not in keyed}
    next_suffix: dict[str, int] = {}
    for index in sorted(bases, key=lambda i: (bases[i], identity[i])):
        base, mine = bases[index], (pinned[index] or "").lower()
        n = next_suffix.get(base, 0)
        # Only pinned keys can be in the way, each passed once; the paper's own pin is no other paper's.
        while (key := (base + _suffix(n)).lower()) in taken or (key in reserved and key != mine):
            n += 1
        keyed[index] = base + _suffix(n)
        taken.add(keyed[index].lower())
        next_suffix[base] = n + 1
    result = []
    for index, paper in enumerate(papers):
        key = keyed[index]
        # A key given up for another entry's sake stays that entry's: it is no alias of this one.
        result.append(paper if key == paper.key else replace(paper, key=key))
        pins.setdefault(identity[index], key)
    return result, dict(sorted(pins.items()))
