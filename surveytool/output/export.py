"""Exports for other tools: an awesome-list README (Markdown), CSL-JSON (Zotero, pandoc), and the facts of
the comparison tables as CSV or JSON (comparison.py)."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from urllib.parse import quote

from surveytool.analysis.preprints import arxiv_id, preprint_marker
from surveytool.bibtex.crossref import LENDERS_ONLY, with_lent_fields
from surveytool.bibtex.linked_fields import written_address
from surveytool.bibtex.names import split_names
from surveytool.bibtex.reader import macro_table
from surveytool.bibtex.values import joined_latex, string_block_value
from surveytool.model import Paper, RawBlock, Taxonomy
from surveytool.output.chapter_view import chapter_groups, venue_of
from surveytool.output.csl_dates import date_parts, issued, status
from surveytool.output.csl_markup import csl_rich_title, inert_csl_name, inert_csl_note, inert_csl_text
from surveytool.sources.csl_rich_text import PLAIN_VARIABLES
from surveytool.text.addresses import ADDRESS_IN_TEXT, web_address
from surveytool.text.control_chars import json_shown, shown
from surveytool.text.identifiers import bare_doi, normalize_arxiv
from surveytool.text.latex import latex_to_text, math_to_text

FORMATS = ("markdown", "csl-json", "facts-csv", "facts-json")
# Markup characters, and GitHub's too: ~ strikes through, $ opens math; & only where it begins an entity (&lt;).
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~$]|&(?=#?\w+;))")
# What GitHub links in plain text (GFM's extended autolinks): "www.", a scheme's "://" and a mail address (mailto:
# and xmpp: ones too), matched in the text as written; the ".", ":" or "@" as a character reference breaks the
# match and shows the same character.
_AUTOLINK = re.compile(r"(www)\.|(https?|ftp):(?=//)|@", re.IGNORECASE)
_INERT = {".": "&#46;", ":": "&#58;", "@": "&#64;"}
_CSL_TYPES = {
    "article": "article-journal",
    "inproceedings": "paper-conference",
    "conference": "paper-conference",
    "incollection": "chapter",
    "inbook": "chapter",
    "book": "book",
    "proceedings": "book",
    "mvproceedings": "book",
    "collection": "book",
    "mvcollection": "book",
    "mvbook": "book",
    "reference": "book",
    "mvreference": "book",
    "inreference": "entry",
    "bookinbook": "chapter",
    "suppbook": "chapter",
    "suppcollection": "chapter",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "thesis": "thesis",
    "techreport": "report",
    "report": "report",
    "manual": "report",
    "online": "webpage",
    "software": "software",
    "dataset": "dataset",
    "misc": "article",
}
# The genre CSL gives a thesis (its kind, which its type "thesis" does not say), by BibTeX type or biblatex type key.
_GENRES = {"mastersthesis": "Master's thesis", "mathesis": "Master's thesis", "phdthesis": "PhD thesis"}
# Fields CSL names otherwise, after those the export reads itself; the first of a CSL name present wins.
_CSL_FIELDS = (
    ("volume", "volume"),
    ("pages", "page"),
    ("publisher", "publisher"),
    ("school", "publisher"),
    ("institution", "publisher"),
    ("organization", "publisher"),
    ("address", "publisher-place"),
    ("location", "publisher-place"),
    ("edition", "edition"),
    ("version", "version"),
    ("series", "collection-title"),
    ("isbn", "ISBN"),
    ("issn", "ISSN"),
    ("note", "note"),
    ("abstract", "abstract"),
)
_AND_OTHERS = re.compile(r"\sand\s+others\s*$", re.IGNORECASE)


def _md(text: str) -> str:
    """Untrusted text as inert Markdown: one line, every markup character escaped, no address a link, control
    characters shown."""
    escaped = _MD_SPECIAL.sub(r"\\\1", " ".join(shown(str(text)).split()))
    return _AUTOLINK.sub(lambda found: found[0][:-1] + _INERT[found[0][-1]], escaped)


def _anchors(titles: Sequence[str]) -> list[str]:
    """The anchors GitHub gives the headings ``titles`` in order: lower case, letters of any script, digits,
    "-" and "_" kept, spaces as "-", and "-1", "-2"... after a repeated one."""
    anchors, seen = [], Counter[str]()
    for title in titles:
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        anchors.append(f"{slug}-{seen[slug]}" if seen[slug] else slug)
        seen[slug] += 1
    return anchors


def _links(paper: Paper, macros: Mapping[str, str] | None) -> str:
    links = []
    if paper.fields.get("doi"):
        # Percent-encoded: a DOI may hold parentheses, brackets or "<" (10.1002/(SICI)1097-...), which end a link.
        doi = quote("".join(bare_doi(paper.fields["doi"]).split()), safe="/:;.-_")
        links.append(f"[DOI](https://doi.org/{doi})")
    arxiv = arxiv_id(paper)
    if arxiv:
        links.append(f"[arXiv](https://arxiv.org/abs/{arxiv})")
    url = web_address(next(iter(_addresses(paper, macros)), "")) or ""
    if not links and url and not any(c.isspace() for c in url):
        # A web page where there is no DOI or arXiv id (a NeurIPS or JMLR page); a table's | and a link's ( ) encoded.
        links.append(f"[Link]({quote(url, safe=_URL_SAFE)})")
    return " · ".join(links)


_URL_SAFE = ":/?#@!$&'*+,;=%-._~"


def _label(paper: Paper) -> str:
    if not paper.resolved:
        words = (paper.abstract or paper.title or "").split()
        return f"*Unresolved:* {_md(' '.join(words[:12]))}…"
    names = _csl_names(paper, "author")
    others = len(names) > 1 and names[-1] == {"literal": "others"}
    surnames = [name.get("family") or name.get("literal", "") for name in names[: -1 if others else None]]
    who = ""
    if surnames:
        more = " et al." if len(surnames) > 2 or others else f" and {_md(surnames[1])}" if len(surnames) == 2 else ""
        who = f" ({_md(surnames[0])}{more})"
    return f"**{_md(_text(paper, 'title'))}**{who}"


def to_markdown(papers: Sequence[Paper], taxonomy: Taxonomy, blocks: Sequence[RawBlock] = ()) -> str:
    """The papers as an awesome-list README; ``blocks``: the sources' kept blocks, whose @string macros a url uses."""
    by_key = {p.key: p for p in with_lent_fields(papers)}
    macros = _macros_by_file(blocks)
    groups = chapter_groups(papers, taxonomy)
    listed = sum(len(s.papers) for g in groups for s in g.sections)
    lines = [
        f"# {_md(taxonomy.title)}",
        "",
        f"{listed} papers in {sum(len(g.sections) for g in groups)} sections, generated by surveytool.",
        "",
        "## Contents",
        "",
    ]
    # Headings in document order; sections outside any group (a flat taxonomy) stand without one.
    headings = [h for g in groups for h in ([g.title] if g.title else []) + [s.title for s in g.sections]]
    anchor = iter(_anchors([taxonomy.title, "Contents", *headings])[2:])  # anchors count every heading above
    contents, body = [], []
    for group in groups:  # a group nested in another (its depth) is listed and headed under it
        depth = group.depth + bool(group.title)
        if group.title:
            contents.append(f"{'  ' * group.depth}- [{_md(group.title)}](#{next(anchor)})")
            body += ["", f"{'#' * min(2 + group.depth, 6)} {_md(group.title)}"]
        for section in group.sections:
            contents.append(f"{'  ' * depth}- [{_md(section.title)}](#{next(anchor)}) ({len(section.papers)})")
            body += ["", f"{'#' * min(2 + depth, 6)} {_md(section.title)}", ""]
            body += [f"_{_md(section.scope)}_", ""] if section.scope.strip() else []
            if not section.papers:
                body.append("No papers yet.")
                continue
            body += ["| Paper | Venue | Year | Links |", "| --- | --- | --- | --- |"]
            for view in section.papers:
                paper = by_key[view.key]
                venue = venue_of(paper)
                venue = (
                    math_to_text(venue)
                    if paper.latex_fields.keys() & {"journal", "journaltitle", "booktitle"}
                    else venue
                )
                body.append(
                    f"| {_label(paper)} | {_md(venue)} | {_md(paper.year or '')} | {_links(paper, macros.get(paper.sources[0].path) if paper.sources else None)} |"
                )
    return "\n".join(lines + contents + body) + "\n"


def _text(paper: Paper, name: str) -> str:
    """A field as text for tools that print it: math of a value written in LaTeX as its characters."""
    text = paper.fields.get(name, "")
    return math_to_text(text) if name in paper.latex_fields else text


def _inert(paper: Paper, name: str) -> str:
    """A field as CSL rich text that shows its text as it is: a tag written in it (``<b>``) stays text."""
    return inert_csl_text(_text(paper, name))


def _rich(paper: Paper, name: str, macros: Mapping[str, str] | None) -> str:
    """A title as CSL rich text: its italics, bold, small caps and scripts as CSL's tags, the rest inert text."""
    written = paper.latex_fields.get(name)
    latex = joined_latex(written, macros) if written else None
    return csl_rich_title(latex or "", _text(paper, name))


def _csl_names(paper: Paper, field: str, macros: Mapping[str, str] | None = None) -> list[dict[str, str]]:
    """The people of ``field`` as CSL names, split by BibTeX's rules on the value as written (braces and all),
    the @string ``macros`` of its file spelled out (``team = "{Google Research}"`` stays one name)."""
    written = paper.latex_fields.get(field)
    value = joined_latex(written, macros) if written else None
    if value is None:  # no LaTeX original (a service, a list) or a macro: the plain text, which has no braces to keep
        value = paper.fields.get(field, "")
    names = []
    for person in split_names(value):
        if person.corporate:
            names.append({"literal": math_to_text(latex_to_text(person.last))})
            continue
        name = {"family": latex_to_text(person.last)}
        for part, key in ((person.first, "given"), (person.von, "non-dropping-particle"), (person.jr, "suffix")):
            if part:
                name[key] = latex_to_text(part)
        names.append(name)
    if names and _AND_OTHERS.search(value):  # BibTeX's et al., as pandoc writes it (citeproc prints "et al.")
        names.append({"literal": "others"})
    return names


def _addresses(paper: Paper, macros: Mapping[str, str] | None = None) -> list[str]:
    """The web addresses of the url field as written, [] for none. Some Zotero and hand-written .bib files list
    several there, apart by spaces (a comma or semicolon after one too); a value that is no such list is one."""
    url = written_address(paper, macros).strip()
    parts = [part.rstrip(",;") for part in url.split()]
    return parts if len(parts) > 1 and all(ADDRESS_IN_TEXT.fullmatch(part) for part in parts) else [url] if url else []


def _howpublished_url(paper: Paper) -> str:
    """The link a @misc gives in howpublished (the whole value, or a ``\\url``), "" for other text."""
    text = paper.fields.get("howpublished", "").strip()
    if "\\url" not in paper.latex_fields.get("howpublished", "") and not ADDRESS_IN_TEXT.fullmatch(text):
        return ""
    link = ADDRESS_IN_TEXT.search(text)
    return link.group().rstrip(".,;:)") if link else ""


def _howpublished_words(paper: Paper) -> str:
    """A howpublished that holds no link (a ``\\url`` or an address): its text, else ""."""
    text = _text(paper, "howpublished").strip()
    return "" if ADDRESS_IN_TEXT.search(text) or "\\url" in paper.latex_fields.get("howpublished", "") else text


def _macros_by_file(blocks: Sequence[RawBlock]) -> dict[str, dict[str, str]]:
    """Each file's @string table (name in lower case -> raw value), as its entries were read with it."""
    definitions: dict[str, list[tuple[str, str]]] = {}
    for block in blocks:
        if block.kind == "string" and block.key:
            definitions.setdefault(block.location.path, []).append((block.key, string_block_value(block)))
    return {path: macro_table(pairs) for path, pairs in definitions.items()}


def to_csl_json(papers: Sequence[Paper], blocks: Sequence[RawBlock] = ()) -> str:
    """The papers as CSL-JSON items; ``blocks``: the sources' kept blocks, whose @string macros names may use."""
    items = []
    macros = _macros_by_file(blocks)
    for paper in with_lent_fields(papers):
        if paper.entry_type in LENDERS_ONLY:  # no work: its fields are in the entries that name it
            continue
        # citation-key (CSL 1.0.2) too: a reader takes an id for a key only where it reads as one (not "a/b").
        item: dict = {"id": paper.key, "citation-key": paper.key, "type": _CSL_TYPES.get(paper.entry_type, "article")}
        own_macros = macros.get(paper.sources[0].path) if paper.sources else None
        if paper.resolved and paper.title:
            item["title"] = _rich(paper, "title", own_macros)
        else:
            item["note"] = "unresolved snippet: identify the paper"
        for field in ("author", "editor", "translator"):
            if paper.fields.get(field):
                item[field] = [inert_csl_name(name) for name in _csl_names(paper, field, own_macros)]
        published = issued(paper)
        if published:
            item["issued"] = published
        if state := status(paper):
            item["status"] = inert_csl_text(state)
        accessed = date_parts(paper.fields.get("urldate", ""))
        if accessed:
            item["accessed"] = {"date-parts": accessed}
        venue = next((v for v in ("booktitle", "journal", "journaltitle") if paper.fields.get(v)), "")
        # A preprint's server in howpublished (arXiv preprint arXiv:...) is its venue, as in the Markdown list; other
        # howpublished text is often a link or a remark, no container.
        venue = venue or ("howpublished" if preprint_marker(paper) == "howpublished" else "")
        if venue:
            item["container-title"] = _rich(paper, venue, own_macros)
        if paper.fields.get("doi"):
            item["DOI"] = bare_doi(_text(paper, "doi"))
        if item["type"] == "thesis":
            kind = paper.fields.get("type", "").strip()
            genre = _GENRES.get(kind.lower(), kind) if kind else _GENRES.get(paper.entry_type)
            if genre:
                item["genre"] = inert_csl_text(genre)
        if paper.fields.get("number"):  # a report's or a standard's number is its own, not an issue of a journal
            item["number" if item["type"] in ("report", "book") else "issue"] = _inert(paper, "number")
        for ours, theirs in _CSL_FIELDS:
            if paper.fields.get(ours) and theirs not in item:
                text = _text(paper, ours)
                inert = inert_csl_note if theirs == "note" else inert_csl_text  # a note's lines read as variables
                item[theirs] = text if theirs in PLAIN_VARIABLES else inert(text)
        # How a @misc came out ("Blog post") is its publisher, as pandoc writes it; a link or a preprint's server not.
        if venue != "howpublished" and "publisher" not in item and (words := _howpublished_words(paper)):
            item["publisher"] = inert_csl_text(words)
        arxiv = arxiv_id(paper)
        addresses = _addresses(paper, own_macros)  # verbatim: the decoded text made a--b an en dash
        # Only a web page: pandoc makes a javascript: or data: URL a link a click runs.
        first = web_address(next(iter(addresses), "")) or ""
        url = first or _howpublished_url(paper) or (f"https://arxiv.org/abs/{arxiv}" if arxiv else "")
        if url:
            item["URL"] = url
        if others := addresses[1:]:  # CSL has one URL: the others in the note, a line each, where a reader sees them
            item["note"] = "\n".join([*([item["note"]] if "note" in item else []), *map(inert_csl_note, others)])
        if arxiv and not normalize_arxiv(url):  # the arXiv id where CSL readers (and surveytool) look for it
            item["archive_location" if "number" in item else "number"] = f"arXiv:{arxiv}"  # a report's own kept
        if paper.section_ids:
            item["keyword"] = ", ".join(paper.section_ids)
        items.append(item)
    return json_shown(json.dumps(items, indent=2, ensure_ascii=False)) + "\n"  # inert in a terminal or pager
