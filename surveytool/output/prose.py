"""The author's prose in the generated .tex files: carried over into each new draft, never lost or overwritten.

A build reads each generated file before it renders the new one, carries the notes regions over
(``notes_regions.py``), and refuses when text outside them was edited (``--force`` keeps a
``.bak``). An editor may save a file while the build runs: ``ProseDrafts`` reads each again
just before the outputs are moved into place.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import NamedTuple

from surveytool.errors import OutputError
from surveytool.model import Taxonomy
from surveytool.output.editor_lines import is_editor_line
from surveytool.output.files import backed_up, write_atomically
from surveytool.output.notes_citations import citations_gone
from surveytool.output.notes_regions import (
    CHECKSUM_START,
    SavedChapter,
    carry_over,
    edited_outside_regions,
    read_saved,
    region_spans,
    regions,
    repeated_regions,
    stamp,
    stamped,
    unpaired_markers,
)
from surveytool.output.parked_notes import ORPHANED, PARKED_HEADER, parked_ids, with_renamed_headers
from surveytool.output.prose_line_ends import in_saved_style
from surveytool.output.theme_regions import THEME_MARK, renamed_themes, with_renamed_regions
from surveytool.regular_files import Unusable, read_regular

# The first line of a paragraph draft --llm suggested (templates/related_work.tex.j2).
_SUGGESTED = "\n% surveytool: suggested by draft --llm from this theme's papers only"


class ProseNote(NamedTuple):
    """What became of the author's prose in one file, for the user."""

    text: str
    routine: bool = False  # nothing of the author's moved or was set aside: --quiet leaves it out


class ProseDrafts:
    """The generated .tex files as read before a build and as it will write them.

    An editor may save one while the build runs: just before the final rename, each is read again, and
    the build stops if one changed, leaving the author's save in place and the new draft beside it.
    """

    def __init__(self) -> None:
        self._read: dict[Path, tuple[str | None, str]] = {}  # path -> (digest as read or None, new text)

    def note(self, path: Path, data: bytes | None, new_text: str) -> None:
        self._read[path] = (None if data is None else hashlib.sha256(data).hexdigest(), new_text)

    def refuse_if_saved_meanwhile(self) -> None:
        for path, (digest, new_text) in self._read.items():
            data = read_generated(path)
            if (None if data is None else hashlib.sha256(data).hexdigest()) != digest:
                beside = path.with_name(path.name + ".new")
                write_atomically(beside, new_text)
                raise OutputError(
                    "was saved while the build ran; the build left your version in place and wrote nothing",
                    path=str(path),
                    hint=f"its new draft is in {beside}: rebuild to merge your notes",
                )


#: Far more than any chapter; a planted file of gigabytes is refused, not read.
_GENERATED_LIMIT = 256 << 20


def read_generated(path: Path) -> bytes | None:
    """The bytes of a generated .tex file, or None when there is none yet. An out folder can come from someone
    else: a link in it to a device (/dev/zero) is refused before a byte is read, as is a file of gigabytes."""
    try:
        return read_regular(path, _GENERATED_LIMIT, follow=True)
    except FileNotFoundError:
        return None
    except Unusable as problem:
        why = "is a directory, not a file" if path.is_dir() else str(problem)
        raise OutputError(why, path=str(path), hint="move it away to have it made anew") from None


def keep_prose(
    path: Path,
    text: str,
    force: bool,
    notes: list[ProseNote],
    drafts: ProseDrafts,
    taxonomy: Taxonomy | None = None,
    known_keys: Collection[str] = (),
    merged_into: Callable[[], Mapping[str, str]] = dict,
) -> str:
    """The new text of a generated .tex file with the author's notes carried over, with the line ends and
    byte-order mark the file was saved with.

    Refuses (unless ``force``) when generated text was edited by hand; with
    ``force`` the old file is kept as ``<name>.bak``. ``drafts`` remembers what was read. Notes of a
    section the ``taxonomy`` renamed, keeping the old id as an alias, move to the new id. A citation in the notes
    of a key not in ``known_keys`` (when given) is named: its paper left the sources, or ``merged_into`` (asked only
    then: key -> the key of the entry it was merged into) says where it went.
    """
    data = read_generated(path)
    # An empty file (emptied to have it made anew, or cut short by an editor) holds no words to keep.
    if data is not None and (saved := read_saved(data)).text.strip():
        merged = _merged_prose(path, data, saved, text, force, notes, taxonomy)
        written = in_saved_style(saved, merged)
    else:
        merged = written = stamp(text)
    # Read with "\n" line ends: in a chapter saved with old Mac ones (CR), no notes region would be found.
    if known_keys:
        notes.extend(ProseNote(said) for said in citations_gone(path, merged, known_keys, merged_into))
    drafts.note(path, data, written)
    return written


def _suggested_outside_notes(text: str) -> int:
    """The paragraphs draft --llm wrote below the notes; one the author copied into their notes is theirs."""
    return text.count(_SUGGESTED) - sum(("\n" + notes).count(_SUGGESTED) for notes in regions(text).values())


_NOTES_HINT = "move your text between the '% surveytool: begin/end notes' lines"
_EDITOR_HINT = "an editor's magic comment is kept above the '% surveytool: checksum' line: move it there"


def _merged_prose(
    path: Path,
    data: bytes,
    saved: SavedChapter,
    text: str,
    force: bool,
    notes: list[ProseNote],
    taxonomy: Taxonomy | None,
) -> str:
    """The new text with the notes of the file ``saved`` (as ``data``) carried over, with "\n" line ends."""
    old = saved.text
    if edited_outside_regions(old):
        if not force and not stamped(old):
            raise OutputError(
                "has no '% surveytool: checksum' line: surveytool did not write it, and writing the chapter "
                "would overwrite it",
                path=str(path),
                hint="write the chapter to another file, or rerun with --force (the old file is kept as .bak)",
            )
        if not force:
            _refuse_unpaired_marker(path, old)
            _refuse_repeated_region(path, old)
            line = first_edited_line(old, text)
            editor = line is not None and is_editor_line(old.splitlines()[line - 1])
            raise OutputError(
                "was edited outside its notes regions; rebuilding would overwrite those edits",
                path=str(path),
                line=line,
                hint=f"{_EDITOR_HINT if editor else _NOTES_HINT}, or rerun with --force (the old file is kept as .bak)",
            )
        # The edit is not in the rebuilt file: say where in the backup it is.
        line = first_edited_line(old, text)
        edit = "" if line is None else f", the first line that differs: {line}"
        notes.append(
            ProseNote(f"{path}: edited outside its notes regions; old version kept as {backed_up(path, data)}{edit}")
        )
    if saved.encoding != "utf-8" and not old.isascii():
        notes.append(
            ProseNote(
                f"{path}: was saved as {saved.encoding}; written in UTF-8, as main.tex reads it "
                "(\\usepackage[utf8]{inputenc}): set your editor to UTF-8 for this file"
            )
        )
    if saved.stray_bytes:
        notes.append(
            ProseNote(
                f"{path}: was saved with {saved.stray_bytes} byte(s) that are not UTF-8, the first on line "
                f"{saved.stray_line}: read as Windows-1252 characters and written in UTF-8, as main.tex reads it "
                "(check them, and set your editor to UTF-8 for this file)"
            )
        )
    written_in = {r for r, content in regions(old).items() if content.strip()}
    parked_for = set(parked_ids(regions(old).get(ORPHANED, "")))
    sections = _renamed_sections(written_in | parked_for, set(regions(text)), taxonomy)
    # A renamed section's themes are renamed with it first: their notes then follow their papers as any theme's.
    # Its notes parked at the end by an earlier build go back to it too.
    old = _with_parked_renamed(with_renamed_regions(old, sections), sections)
    written_in = {sections.get(r, r) for r in written_in}
    renames = renamed_themes(old, text, written_in)
    merged = carry_over(text, with_renamed_regions(old, renames))
    written = stamp(merged.text)

    def at(region_id: str) -> str:  # where notes that moved to a region are now: its begin line
        marker = f"% surveytool: begin notes {region_id}\n"
        return f"{path}:{_line_of(written, marker)}"

    for was, now in sorted(renames.items()):
        notes.append(ProseNote(f"{at(now)}: the theme of your notes in {was} is now {now}; they moved with its papers"))
    for was, now in sorted(sections.items()):
        if THEME_MARK in was:
            notes.append(ProseNote(f"{at(now)}: your notes in {was} moved to {now}, with their section (its alias)"))
        else:
            notes.append(ProseNote(f"{at(now)}: section {was} is now {now} (its alias); your notes in it moved there"))
    if merged.kept:
        notes.append(ProseNote(f"{path}: kept your notes in {', '.join(merged.kept)}", routine=True))
    # A build writes no suggestions: say where the ones draft --llm wrote went, as they are not the author's notes.
    suggested = _suggested_outside_notes(old) - _suggested_outside_notes(text)
    if suggested > 0:
        notes.append(
            ProseNote(
                f"{path}: {suggested} paragraph(s) suggested by draft --llm left out (they are no notes of yours); "
                "draft --llm writes them again from its cache",
                routine=True,
            )
        )
    if merged.orphaned:
        moved = ", ".join(merged.orphaned)
        # The header is looked for in the parking region: the author's notes above it may hold such a line.
        parking = written.find(f"\n% surveytool: begin notes {ORPHANED}\n")
        header = _line_of(written, PARKED_HEADER.format(merged.orphaned[0]), parking)
        notes.append(
            ProseNote(
                f"{path}:{header}: notes of sections no longer "
                f"generated ({moved}) moved to the end; they go back if the section returns "
                "(else move them into other notes, or delete them)"
            )
        )
    if merged.returned:
        back = ", ".join(merged.returned)
        notes.append(
            ProseNote(f"{at(merged.returned[0])}: your notes parked at the end went back to {back}, generated again")
        )
    return written


def _with_parked_renamed(text: str, renames: dict[str, str]) -> str:
    """``text`` with the notes its ``orphaned`` region parked for a renamed region parked for the new id."""
    pieces, last = [], 0
    for region_id, start, end in region_spans(text) if renames else ():
        if region_id == ORPHANED:
            pieces += [text[last:start], with_renamed_headers(text[start:end], renames)]
            last = end
    return "".join(pieces) + text[last:]


def _renamed_sections(written_in: set[str], generated: set[str], taxonomy: Taxonomy | None) -> dict[str, str]:
    """Regions with notes that are no longer generated, to the section that took their id as an alias."""
    if taxonomy is None:
        return {}
    aliases = {alias.lower(): s.id for s in taxonomy.sections for alias in s.aliases}
    renames = {}
    for was in written_in - generated:
        section, mark, theme = was.partition(THEME_MARK)  # a theme's notes go along with its section's
        now = aliases.get(section.lower())
        if now in generated:
            renames[was] = now + mark + theme
    return renames


def _line_of(text: str, line: str, after: int = 0) -> int:
    """The number of the first line of ``text`` that is ``line`` (from offset ``after`` on)."""
    at = text.find(line) if text.startswith(line) else text.find("\n" + line, max(after, 0)) + 1
    return text.count("\n", 0, at) + 1


def _refuse_unpaired_marker(path: Path, old: str) -> None:
    """Refuse, naming the marker line, when the edit is a region's begin or end line deleted or changed: the text
    after a begin line with no end is no longer the author's notes, and a rebuild would overwrite it."""
    unpaired = unpaired_markers(old)
    if not unpaired:
        return
    first = unpaired[0]
    begin, end = f"% surveytool: begin notes {first.id}", f"% surveytool: end notes {first.id}"
    closing = next((u for u in unpaired[1:] if u.kind == "end"), None) if first.kind == "begin" else None
    if closing is not None:
        why = f"'{begin}' is followed by the end line of '{closing.id}' (line {closing.line}), not of '{first.id}'"
        hint = "give both lines the id they had"
    elif first.kind == "begin":
        why, hint = f"'{begin}' has no '{end}' line below it", f"put '{end}' back after your notes"
    elif first.ended_on is not None:
        why = f"'{end}' comes after its region ended on line {first.ended_on} (at the first end line, in a comment too)"
        hint = f"change or remove the end line on line {first.ended_on}"
    else:
        why, hint = f"'{end}' has no '{begin}' line above it", f"put '{begin}' back before your notes"
    raise OutputError(
        f"{why}: the notes it marked are no longer kept, and rebuilding would overwrite them",
        path=str(path),
        line=first.line,
        hint=f"{hint}, then rebuild",
    )


def _refuse_repeated_region(path: Path, old: str) -> None:
    """Refuse, naming both places, when a region's marker pair was copied: a rebuild puts each region where the
    chapter has it, once, so the copy's place would be lost (its text would join the first's)."""
    repeated = repeated_regions(old)
    if repeated:
        region_id, line, again = repeated[0]
        raise OutputError(
            f"the notes markers of '{region_id}' are on line {line} and again on line {again}: a copied pair, and a "
            "rebuild keeps one place for each section's notes",
            path=str(path),
            line=again,
            hint=f"move the text of the second pair into the first (line {line}) and delete the second pair's "
            "marker lines, then rebuild",
        )


def first_edited_line(old: str, text: str) -> int | None:
    """The first line of the saved file ``old`` that differs from the new ``text`` with the author's notes put in:
    the hand edit, when the sources have not changed since (else perhaps a change of theirs). Lines are compared
    as the checksum guards them: without the white space around them, blank lines and the checksum line left out.
    None for a file with no checksum line, which surveytool did not write."""
    if not stamped(old):
        return None
    saved, expected = _guarded_lines(old), _guarded_lines(stamp(carry_over(text, old).text))
    differing = (n for (n, a), (_, b) in zip(saved, expected, strict=False) if a != b)
    if (line := next(differing, None)) is not None or len(saved) == len(expected):
        return line
    # The one has lines the other lacks, at its end: the first line added, or where the lines deleted were.
    return saved[len(expected)][0] if len(saved) > len(expected) else (saved[-1][0] if saved else 0) + 1


def _guarded_lines(text: str) -> list[tuple[int, str]]:
    """(number from 1, text) of each line of ``text`` but blank ones and checksum lines, without white space around."""
    lines = ((n, line.strip()) for n, line in enumerate(text.splitlines(), start=1))
    return [(n, line) for n, line in lines if line and not line.startswith(CHECKSUM_START)]
