"""Minimal-diff edits of a user's own .bib: only tags that change and new entries are written.

Every entry whose tags stay as they are keeps its text byte for byte, so that
`git diff` shows exactly what surveytool changed.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from surveytool.analysis.entry_checks import title_is_lowered
from surveytool.analysis.section_names import canonical_section
from surveytool.analysis.tagging.user_tags import shares_names
from surveytool.bibtex.field_spans import written_key
from surveytool.bibtex.fields import WrittenMacros, render_bibliography
from surveytool.bibtex.format_options import STANDARD, BibFormat
from surveytool.bibtex.order import crossref_target
from surveytool.model import Finding, Origin, Paper, Severity, Taxonomy
from surveytool.output.added_entries import entries_to_add
from surveytool.output.field_fixes import fix_fields, may_need_fixing, reads_alike
from surveytool.output.in_place_layout import file_align, file_indent, trailing_metadata
from surveytool.output.legacy_encoding import held_by
from surveytool.output.tags_field import add_tags, set_tags_field, tags_macro
from surveytool.text.line_ends import line_breaks_at_end, newline_of
from surveytool.text.title_case import is_one_literal, needs_title_protection, protect_title_words

#: The checks whose findings `check --fix` repairs.
FIXABLE = frozenset(
    {
        "tag-variant",
        "title-case-unprotected",
        "doi-malformed",
        "html-in-field",
        "empty-field",
        "stray-and",
        "unescaped-special",
        "url-malformed",
    }
)


@dataclass(frozen=True)
class Edit:
    key: str
    line: int
    what: str  # shown to the user: "tags moe -> moe,memory", "added"


def desired_tags(paper: Paper, taxonomy: Taxonomy, tags_field: str = "sections") -> tuple[str, ...]:
    """The tags to write: the user's with variants made ids (unknown ones kept), else the tagger's.

    The names of a field shared with a reference manager (JabRef's groups) stay as written: the tagger's
    sections are added after them only when none of them names a section.
    """
    if shares_names(tags_field):
        if any(canonical_section(t, taxonomy) for t in paper.explicit_tags):
            return paper.explicit_tags
        return paper.explicit_tags + tuple(s for s in paper.section_ids if s not in paper.explicit_tags)
    if paper.explicit_tags:
        return tuple(dict.fromkeys(canonical_section(t, taxonomy) or t for t in paper.explicit_tags))
    return paper.section_ids


EntryEdit = Callable[[Paper], "tuple[str, str] | None"]  # paper -> (new entry text, what changed)


def rewrite_entries(
    text: str, display: str, papers: Sequence[Paper], edit: EntryEdit, exact: str | None = None
) -> tuple[str, list[Edit]]:
    """``text`` with each entry read from it replaced by ``edit(paper)`` where that returns something.

    ``exact`` is the same text as the file's bytes decode to exactly (``TextFile.exact_text``, stray
    bytes as surrogates; of the same length): when given, the result is spliced from it, so that
    everything outside the replaced entries encodes back to the very bytes read.
    """
    replacements: list[tuple[int, int, str]] = []
    edits: list[Edit] = []
    offsets = _line_offsets(text)
    for paper in papers:
        own = next((s for s in paper.sources if s.path == display), None)
        if own is None or paper.origin is not Origin.BIBTEX or not paper.raw:
            continue
        change = edit(paper)
        if change is None:
            continue
        start = text.find(paper.raw, offsets[min(own.line, len(offsets)) - 1])
        if start < 0:
            continue  # not found as read (never happens for a file we just read); leave it alone
        end = start + len(paper.raw)
        replacement = change[0] if exact is None else _keep_exact_ends(paper.raw, change[0], exact[start:end])
        replacements.append((start, end, replacement))
        # The line where the entry was found: a reader's line may be off after unusual blocks. The key as the
        # file writes it: a key used twice is written under another by bib -o and build, not in the user's file.
        edits.append(Edit(written_key(paper.raw) or paper.key, bisect_right(offsets, start), change[1]))
    # Joined once: splicing each replacement into the whole text would copy it once per edit,
    # quadratic when every entry of a large file gets its tags.
    source = text if exact is None else exact
    pieces: list[str] = []
    last = 0
    for start, end, replacement in sorted(replacements):
        pieces += [source[last:start], replacement]
        last = end
    pieces.append(source[last:])
    return "".join(pieces), sorted(edits, key=lambda e: e.line)


def update_bib_in_place(
    text: str,
    display: str,
    papers: Sequence[Paper],
    taxonomy: Taxonomy,
    tags_field: str = "sections",
    dialect: str = "bibtex",
    exact: str | None = None,
    fmt: BibFormat = STANDARD,
    macros: Container[str] = frozenset(),
    left: list[Finding] | None = None,
    added_with: WrittenMacros | None = None,
    encoding: str = "utf-8",
    order: Sequence[str] = (),
) -> tuple[str, list[Edit]]:
    """``text`` (the file ``display``) with changed tags rewritten and new entries added at its end, before the
    metadata JabRef keeps last, in ``fmt``'s layout with the file's indent and ``=`` column (see ``in_place_layout``), their lines
    ended as most of the file's lines are (see ``rewrite_entries``).

    ``macros``: the @string names the sources define (lower case); a tags field that uses one is left as it
    is, with a finding appended to ``left`` (see ``tags_field.tags_macro``). ``added_with``: the @string table
    new entries are written against (``fields.macros_added_to``); a macro the file lacks is spelled out.
    ``encoding``: the file's; a new entry it cannot hold even in LaTeX spellings is left out, with a finding.
    ``order``: the sources as given; of two new entries of one work, the first source's is added.
    """

    newline = newline_of(text if exact is None else exact)
    fmt = file_align(text, file_indent(text, fmt))  # new entries indented and aligned as the file's

    def retag(paper: Paper) -> tuple[str, str] | None:
        tags = desired_tags(paper, taxonomy, tags_field)
        if tags == paper.explicit_tags or not tags or paper.tags_at:  # tags an overrides file gives stay there
            return None
        raw = _retagged(paper, paper.raw, tags_field, tags, macros, newline, left)
        before = ",".join(paper.explicit_tags) or "(none)"
        return (raw, f"tags {before} -> {','.join(tags)}") if raw is not None else None

    text, edits = rewrite_entries(text, display, papers, retag, exact)
    new = [p for p in papers if all(s.path != display for s in p.sources)]
    if new:

        def rendered(group: Sequence[Paper]) -> str:
            text = render_bibliography(group, (), tags_field=tags_field, dialect=dialect, fmt=fmt, macros=added_with)
            return (held_by(encoding, text)[0] or text).replace("\n", newline)

        own = [p for p in papers if any(s.path == display for s in p.sources)]
        new = entries_to_add(new, own, display, encoding, rendered, left if left is not None else [], order)
        added = sorted(new, key=lambda p: p.key)

        # BibTeX inherits only from a parent written after the child: a new child of an entry already in the
        # file goes just before that entry; the others are appended.
        kept = {p.key.lower() for p in own}
        before: dict[str, list[Paper]] = {}
        for paper in new:
            if crossref_target(paper) in kept:
                before.setdefault(crossref_target(paper), []).append(paper)
        for parent, children in before.items():
            # At a line's start, after any of the three line endings.
            found = re.search(rf"(?:\A|(?<=[\r\n]))[ \t]*@\w+[ \t]*[{{(][ \t]*{re.escape(parent)}[ \t]*,", text, re.I)
            if found is None:
                continue
            text = text[: found.start()] + rendered(children) + newline + text[found.start() :]
            placed = {id(child) for child in children}
            new = [p for p in new if id(p) not in placed]
        if new:
            # At the end, before any metadata JabRef keeps last, a blank line either side; the bytes around stay.
            at = trailing_metadata(text)
            head, tail = (text, "") if at is None else (text[:at], newline + text[at:])
            ending = newline * (2 - line_breaks_at_end(head)) if head else ""
            text = head + ending + rendered(new) + tail
        edits.extend(Edit(p.key, 0, "added") for p in added)
    return text, edits


def fix_entries(
    text: str,
    display: str,
    papers: Sequence[Paper],
    taxonomy: Taxonomy,
    tags_field: str = "sections",
    exact: str | None = None,
    selected: Container[str] = FIXABLE,
    macros: Container[str] = frozenset(),
    left: list[Finding] | None = None,
    added_with: WrittenMacros | None = None,
) -> tuple[str, list[Edit]]:
    """The unambiguous fixes of the ``selected`` checks (`check --fix`): tag variants to ids, braces for title
    capitals, and the field fixes (``field_fixes.py``); ``macros`` and ``left`` as for ``update_bib_in_place``."""
    newline = newline_of(text if exact is None else exact)

    def fix(paper: Paper) -> tuple[str, str] | None:
        raw, done = paper.raw, []
        # The names of a shared field are no variants to mend (see ``desired_tags``).
        given = paper.explicit_tags and not paper.tags_at and not shares_names(tags_field)
        tags = desired_tags(paper, taxonomy) if given else paper.explicit_tags
        if tags != paper.explicit_tags and "tag-variant" in selected:
            retagged = _retagged(paper, raw, tags_field, tags, macros, newline, left)
            if retagged is not None:
                raw = retagged
                done.append(f"tags {','.join(paper.explicit_tags)} -> {','.join(tags)}")
        title = paper.latex_fields.get("title", "") if title_is_lowered(paper) else ""
        # Only a literal is braced: bracing a macro (`title = IWMM`) would turn it into text.
        if "title-case-unprotected" in selected and title and is_one_literal(title) and needs_title_protection(title):
            located = re.search(r"(^|[\s,])title\s*=\s*", raw, re.IGNORECASE)
            if located and raw.startswith(title, located.end()):
                raw = raw[: located.end()] + protect_title_words(title) + raw[located.end() + len(title) :]
                done.append("braces around " + ", ".join(needs_title_protection(title)))
        ignore = (tags_field.lower(),)
        if may_need_fixing(paper.latex_fields) and reads_alike(paper.raw, paper.latex_fields, ignore):
            raw, fields_done = fix_fields(raw, selected, ignore)
            done.extend(fields_done)
        return (raw, "; ".join(done)) if done else None

    return rewrite_entries(text, display, papers, fix, exact)


def _keep_exact_ends(raw: str, changed: str, exact: str) -> str:
    """``changed`` (an edit of ``raw``) with the parts it shares with ``raw`` taken from ``exact``.

    ``exact`` is ``raw`` as the file's bytes decode exactly (stray bytes as surrogates): a stray byte
    anywhere outside the edited characters stays that byte, also between two edits of one entry.
    """
    if exact == raw:
        return changed
    if newline_of(exact) == "\r":  # an entry of old Mac line endings, which ``raw`` reads as LF
        changed = changed.replace("\n", "\r")
        raw = raw.replace("\n", "\r")
        if exact == raw:
            return changed
    limit = min(len(raw), len(changed))
    prefix = next((i for i in range(limit) if raw[i] != changed[i]), limit)
    suffix = next((i for i in range(limit - prefix) if raw[-1 - i] != changed[-1 - i]), limit - prefix)
    if exact[prefix : len(raw) - suffix] == raw[prefix : len(raw) - suffix]:  # no stray byte between two edits
        return exact[:prefix] + changed[prefix : len(changed) - suffix] + exact[len(raw) - suffix :]
    pieces = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, raw, changed, autojunk=False).get_opcodes():
        pieces.append(exact[i1:i2] if tag == "equal" else changed[j1:j2])
    return "".join(pieces)


def _retagged(
    paper: Paper,
    raw: str,
    tags_field: str,
    tags: Sequence[str],
    macros: Container[str],
    newline: str,
    left: list[Finding] | None,
) -> str | None:
    """``raw`` (``paper``'s text) with ``tags`` written, or None, with a finding in ``left`` saying why not."""
    macro = tags_macro(raw, tags_field, macros)
    # The tags are joined as the user joined them (JabRef writes "MoE, Reading list"): only the tags change.
    if macro:
        written = None
    elif shares_names(tags_field):  # the names there stay byte for byte: desired_tags only adds after them
        kept = paper.explicit_tags
        written = add_tags(raw, tags_field, kept, tags[len(kept) :], newline)
    else:
        written = set_tags_field(raw, tags_field, tags, newline)
    if written is None and left is not None:
        wanted = ",".join(tags)
        if macro:
            why = f"its {tags_field} field uses @string '{macro}', which other entries may share"
            hint = f"write {tags_field} = {{{wanted}}} in the entry, or the ids in the @string, yourself"
        else:
            why = f"its {tags_field} field stands where the entry no longer reads field by field"
            hint = "write the entry as @type{key, name = {value}, ...}"
        before = ",".join(paper.explicit_tags) or "(none)"
        message = f"the tags of '{paper.key}' were not written ({before} -> {wanted}): {why}"
        left.append(Finding("tags-not-written", Severity.WARNING, message, min(paper.sources), hint, paper.key))
    return written


def _line_offsets(text: str) -> list[int]:
    offsets = [0]
    for match in re.finditer("\n", text):
        offsets.append(match.end())
    return offsets
