"""Plain-text views of results for the terminal: tables, evidence, the taxonomy tree."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from surveytool.model import Paper, Tag, Taxonomy

if TYPE_CHECKING:  # the tagger is not loaded to print --help
    from surveytool.analysis.tagging.review import Explained

_TITLE_WIDTH = 60


def _short(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def counted(number: int, noun: str, plural: str) -> str:
    """'1 entry', '2 entries': the noun agrees with the number."""
    return f"{number} {noun if number == 1 else plural}"


def _identifier(paper: Paper) -> str:
    """The id an entry of an id list was read from: all it has to show until it is resolved."""
    doi, eprint = paper.fields.get("doi"), paper.fields.get("eprint")
    return f"doi:{doi}" if doi else f"arXiv:{eprint}" if eprint else ""


def entries_table(papers: Sequence[Paper]) -> str:
    """One row per entry; a child's year is the one its crossref parent lends it, as in --json."""
    from surveytool.bibtex.crossref import with_lent_fields

    rows = [("key", "year", "tags", "title / snippet", "sources")]
    for paper in with_lent_fields(papers):
        if paper.resolved:
            label = paper.title or "(no title)"
        else:
            label = "[unresolved] " + (paper.abstract or paper.title or _identifier(paper))
        rows.append(
            (
                paper.key,
                paper.year or "",
                ",".join(paper.section_ids),
                _short(label, _TITLE_WIDTH),
                " ".join(str(s) for s in paper.sources),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join("  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4] for r in rows).rstrip() + "\n"


def key_map(papers: Sequence[Paper]) -> str:
    """Old keys -> the key they were merged into, so that existing \\cite commands can be fixed."""
    rows = sorted((alias, paper.key) for paper in papers for alias in paper.aliases)
    if not rows:
        return ""
    width = max(len(old) for old, _ in rows)
    lines = [f"merged keys ({len(rows)}): cite the new key, or keep the old one as a biblatex ids alias"]
    lines.extend(f"  {old:<{width}}  ->  {new}" for old, new in rows)
    return "\n".join(lines) + "\n"


def _why_no_tag(paper: Paper, candidate: Tag | None, lender: bool) -> str:
    """Why ``tag --explain`` shows an entry with no tag (both the text and the JSON say it)."""
    if lender:
        return "it is cited through the entries that name it (crossref or xdata), not placed itself"
    if candidate is not None:
        return f"the likeliest section, {candidate.section}, is only {candidate.score:.2f} sure"
    if paper.explicit_tags or paper.unknown_tags:
        return "the tags you gave name no section (see its unknown-tag finding)"
    if not paper.resolved and not (paper.abstract or paper.title):
        return "an unresolved id has no text to tag (see its unresolved-entry finding)"
    return "nothing in its text is known to the tagger (see its no-section finding)"


def explain_tags(explained: Sequence[Explained]) -> str:
    lines = []
    for paper, candidate, lender in explained:
        lines.append(f"{paper.key}  ({', '.join(str(s) for s in paper.sources)})")
        if not paper.tags:
            lines.append(f"  no tag: {_why_no_tag(paper, candidate, lender)}")
            lines.extend(f"      {evidence}" for evidence in (candidate.evidence if candidate and not lender else ()))
        for tag in paper.tags:
            kind = "given by you" if tag.explicit else "suggestion" if tag.suggested else "rules"
            lines.append(f"  {tag.role.value:<9} {tag.section:<18} score {tag.score:g} ({kind})")
            for evidence in tag.evidence:
                lines.append(f"      {evidence}")
    return "\n".join(lines) + "\n"


def explain_tags_json(explained: Sequence[Explained]) -> str:
    """entries.json with, for an entry given no tag, ``no_tag``: why, and the section the tagger was not sure
    enough of with its evidence (``likeliest``, null when it had none), as ``tag --explain`` prints them."""
    from surveytool.output.entries_json import entries_json

    added = {
        paper.key: {
            "no_tag": {
                "why": _why_no_tag(paper, candidate, lender),
                "likeliest": None
                if candidate is None or lender
                else {"section": candidate.section, "score": candidate.score, "evidence": list(candidate.evidence)},
            }
        }
        for paper, candidate, lender in explained
        if not paper.tags
    }
    return entries_json([e.paper for e in explained], added)


def taxonomy_tree(taxonomy: Taxonomy, counts: Mapping[str, int] | None = None) -> str:
    """The taxonomy drawn as a tree: a group's sections, then the groups nested in it, under it."""

    def section_line(section_id: str) -> str:
        section = taxonomy.section(section_id)
        count = f"  ({counts.get(section_id, 0)})" if counts is not None else ""
        return f"{section.id}: {_one_line(section.title)}{count}"

    nodes: list[tuple[int, str]] = []  # (depth, label), each node before those under it
    for group, depth in taxonomy.nested_groups():
        if group.title:
            nodes.append((depth, f"{_one_line(group.title)} [{group.id}]"))
        # Sections of an untitled group (a flat taxonomy) hang from the root directly.
        inner = depth + 1 if group.title else depth
        nodes.extend((inner, section_line(section_id)) for section_id in group.sections)
    # Entries no section was given (left for the user to place): the counts add up to every entry.
    unplaced = counts.get("unclassified", 0) if counts is not None else 0
    if unplaced:
        nodes.append((0, f"to place: no section given  ({unplaced})"))
    return "\n".join([_one_line(taxonomy.title), *_drawn(nodes)]) + "\n"


def _one_line(title: str) -> str:
    """A title as one line of the tree: a TOML title may span lines (the chapter joins them with spaces too)."""
    return " ".join(title.split())


def _drawn(nodes: Sequence[tuple[int, str]]) -> list[str]:
    """Tree lines for nodes given parent first: read from the end, so that a node knows whether a sibling
    follows it (├── or └──) and whether each node it hangs from has one still to come (│ or blank)."""
    lines: list[str] = []
    followed: set[int] = set()  # the depths at which a later sibling of this node or of a node above it stands
    for depth, label in reversed(nodes):
        followed = {d for d in followed if d <= depth}
        rails = "".join("│   " if d in followed else "    " for d in range(depth))
        lines.append(f"{rails}{'├──' if depth in followed else '└──'} {label}")
        followed.add(depth)
    return lines[::-1]


def resolution_report(papers: Sequence[Paper], explain: bool = False) -> str:
    lines = []
    resolved = [p for p in papers if p.resolution is not None]
    own = [p for p in papers if p.resolution is None and p.resolved]
    missing = [p for p in papers if not p.resolved]
    lines.append(f"{len(resolved)} resolved, {len(own)} with their own metadata, {len(missing)} unresolved")
    for paper in resolved:
        r = paper.resolution
        assert r is not None  # the resolved papers
        lines.append(f"  {paper.key:<28} {r.source} ({r.method}, score {r.score:g})")
        if explain:
            lines.append(
                f"      fields taken: {', '.join(r.fields) or '-'}; matched {r.matched_key}"
                + (f"; retrieved {r.retrieved}" if r.retrieved else "")
            )
            lines.append(f"      from {', '.join(str(s) for s in paper.sources)}")
    for paper in missing:
        text = paper.abstract or paper.title or ""
        lines.append(f"  {paper.key:<28} UNRESOLVED {_short(text, _TITLE_WIDTH)} ({min(paper.sources)})")
    return "\n".join(lines) + "\n"
