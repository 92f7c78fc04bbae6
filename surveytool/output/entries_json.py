"""entries.json: one JSON object per entry (schema in the README), also what every ``--json`` output prints.

Its own module so that the commands printing it (parse, tag, resolve) do not import jinja2.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import partial

from surveytool.analysis.facts import fact_record, paper_facts
from surveytool.bibtex.crossref import with_lent_fields
from surveytool.model import MapEach, Paper
from surveytool.text.control_chars import json_shown


def entry_record(paper: Paper) -> dict:
    """One object of entries.json (schema in the README)."""
    record = {
        "key": paper.key,
        "title": paper.title if paper.resolved else None,
        "year": paper.year,
        "authors": list(paper.authors),
        "entry_type": paper.entry_type,
        "abstract": paper.abstract,
        "tags": list(paper.section_ids),
        "resolved": paper.resolved,
        "sources": [str(s) for s in paper.sources],
        "origin": paper.origin.value,
        "truncated": paper.truncated,
        "doi": paper.fields.get("doi"),
        "eprint": paper.fields.get("eprint"),
        "aliases": list(paper.aliases),
        "tag_evidence": [
            {
                "section": t.section,
                "role": t.role.value,
                "score": t.score,
                "evidence": list(t.evidence),
                "explicit": t.explicit,
                "suggested": t.suggested,
            }
            for t in paper.tags
        ],
        "facts": [fact_record(fact) for fact in paper_facts(paper)],
        "resolution": None
        if paper.resolution is None
        else {
            "source": paper.resolution.source,
            "matched": paper.resolution.matched_key,
            "method": paper.resolution.method,
            "score": paper.resolution.score,
            "fields": list(paper.resolution.fields),
            "retrieved": paper.resolution.retrieved or None,
        },
    }
    return record


#: By an entry's key, fields a command adds after the schema's (``tag --explain``: why an entry has no tag).
Added = Mapping[str, Mapping[str, object]]


def entry_json(paper: Paper, added: Added | None = None) -> str:
    """One entry's object in entries.json, on one line."""
    record = entry_record(paper)
    record.update(added.get(paper.key, {}) if added else {})
    return json_shown(json.dumps(record, ensure_ascii=False))


def entries_json(papers: Sequence[Paper], added: Added | None = None) -> str:
    """The JSON array, one entry per line: a diff shows which entries changed."""
    return "".join(entries_json_pieces(papers, added=added))


def entries_json_pieces(
    papers: Sequence[Paper], map_each: MapEach | None = None, added: Added | None = None
) -> list[str]:
    """entries.json as pieces to write one after the other, an entry each (their join is ``entries_json``).

    One character beyond U+FFFF in a joined text makes Python store all of it
    at four bytes a character; pieces keep that to the entries that have one.
    json's C encoder does the work: asking for indentation switches to its pure-Python one, 3x slower.
    """
    if not papers:
        return ["[]\n"]
    papers = with_lent_fields(papers)  # a child's year is its crossref parent's when it has none
    # ``map_each``: a build shares the work with a forked child (``parallel.map_each``).
    each = partial(entry_json, added=added) if added else entry_json
    records = map_each(each, papers) if map_each else [each(p) for p in papers]
    records = [record + ",\n" for record in records]
    records[-1] = records[-1][:-2] + "\n"
    return ["[\n", *records, "]\n"]


#: An entry of entries.json that absorbed another's key (a key in a title is escaped there: \"aliases\").
_SOME_ALIAS = re.compile(rb'"aliases": \[(?!\])')


def merged_keys(written: bytes) -> dict[str, str]:
    """Each key merged into another entry -> that entry's key, read from an entries.json as written."""
    if not _SOME_ALIAS.search(written):  # most libraries merge nothing: the file is not parsed
        return {}
    return {alias: entry["key"] for entry in json.loads(written) for alias in entry["aliases"]}
