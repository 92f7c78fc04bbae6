"""Prose coverage: which papers the author's notes discuss, and in which section (check --tex on a built chapter)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from helpers import run_cli

from surveytool.analysis.checks import CheckContext, run_checks
from surveytool.analysis.coverage import discussed, read_prose
from surveytool.analysis.taxonomy import load_taxonomy
from surveytool.model import Origin, Paper, Role, SourceLocation, Tag
from surveytool.resources import default_taxonomy

SECTION_IDS = ("pipeline-parallel", "moe")
CHAPTER = """\\section{Pipeline}
% surveytool: begin notes pipeline-parallel
GPipe~\\cite{huang2019} splits a model into stages; see also \\citep[p.~3]{lepikhin2021, shazeer2017}.
% surveytool: end notes pipeline-parallel
\\paragraph{} \\citet{huang2019} present GPipe. \\citet{narayanan2019} present PipeDream.
\\section{Experts}
% surveytool: begin notes moe
% surveytool: end notes moe
\\citet{lepikhin2021} present GShard. \\citet{shazeer2017} present the sparsely-gated layer.
"""


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_the_notes_citations_are_read_with_their_section_and_line(newline):
    # A chapter saved by a Windows editor has CRLF lines: its markers were not found, so check saw no notes.
    prose = read_prose("rw.tex", CHAPTER.replace("\n", newline), SECTION_IDS)
    assert prose is not None
    assert [(c.key, c.section, c.location.line) for c in prose.cited] == [
        ("huang2019", "pipeline-parallel", 3),
        ("lepikhin2021", "pipeline-parallel", 3),
        ("shazeer2017", "pipeline-parallel", 3),
    ]
    assert prose.section_lines == {"pipeline-parallel": 2, "moe": 7}
    papers = ["huang2019", "narayanan2019", "lepikhin2021", "shazeer2017"]
    assert discussed(prose, papers) == (3, 4)  # narayanan2019 is still only a stub


def test_a_tex_file_without_notes_regions_is_not_a_chapter():
    assert read_prose("paper.tex", "\\cite{a} and \\cite{b}", SECTION_IDS) is None


def _misplaced(papers: list[Paper], tags_field: str = "sections") -> list[tuple[str, str]]:
    context = CheckContext(papers, load_taxonomy(default_taxonomy()), [("rw.tex", CHAPTER)], tags_field=tags_field)
    return [(f.message, f.hint) for f in run_checks(context, [], ["cited-in-other-section"])]


def test_a_paper_left_to_place_that_your_notes_discuss_is_told_how_to_place_it_there():
    # No section and no notes region is called 'no section': moving the text there cannot be done.
    where = (SourceLocation("refs.bib", 4),)
    placed = Paper(Origin.BIBTEX, where, key="lepikhin2021", tags=(Tag("moe", Role.PRIMARY, 0.9),))
    assert _misplaced([placed]) == [
        (
            "'lepikhin2021' is discussed in your notes of 'pipeline-parallel' but tagged 'moe'",
            "move the text to the notes of 'moe', or add 'pipeline-parallel' to its sections",
        )
    ]
    unplaced = Paper(Origin.BIBTEX, where, key="lepikhin2021")
    assert _misplaced([unplaced]) == [
        (
            "'lepikhin2021' is discussed in your notes of 'pipeline-parallel' but is in no section",
            "to place it there, add a tags field, e.g. sections = {pipeline-parallel}",
        )
    ]
    assert _misplaced([unplaced], "groups")[0][1] == "to place it there, add 'pipeline-parallel' to its groups field"
    listed = Paper(Origin.SNIPPET, where, key="lepikhin2021")
    assert _misplaced([listed])[0][1] == (
        'to place it there, name its section in an overrides file (--overrides): [tags] lepikhin2021 = ["pipeline-parallel"]'
    )


def _built(tmp_path: Path, seeds_build: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(seeds_build, out)
    return out


def _a_section_with_papers(out: Path) -> tuple[str, list[str], str]:
    """A section of the built chapter with two papers or more, its keys, and a key tagged elsewhere."""
    entries = json.loads((out / "entries.json").read_text(encoding="utf-8"))
    by_section: dict[str, list[str]] = {}
    for entry in entries:
        if entry["tags"]:
            by_section.setdefault(entry["tags"][0], []).append(entry["key"])
    section = next(s for s, keys in sorted(by_section.items()) if len(keys) >= 2)
    elsewhere = next(
        k for s, keys in sorted(by_section.items()) if s != section for k in keys if k not in by_section[section]
    )
    return section, by_section[section], elsewhere


def test_check_tex_names_the_papers_your_notes_leave_as_stubs_and_those_discussed_elsewhere(tmp_path, seeds_build):
    out = _built(tmp_path, seeds_build)
    section, keys, elsewhere = _a_section_with_papers(out)
    chapter = out / "related_work.tex"
    text = chapter.read_text(encoding="utf-8")
    marker = f"% surveytool: begin notes {section}\n"
    assert marker in text
    prose = f"Our own words on \\cite{{{keys[0]}}}, and on \\citet{{{elsewhere}}}.\n"
    chapter.write_text(text.replace(marker, marker + prose), encoding="utf-8")
    result = run_cli(
        "check", "--tex", str(chapter), "--checks", "not-discussed,cited-in-other-section", "--json", cwd=out
    )
    findings = json.loads(result.stdout)
    stubs = {f["key"] for f in findings if f["check"] == "not-discussed"}
    assert keys[0] not in stubs and set(keys[1:]) <= stubs  # discussed in the notes, or only a stub
    [misplaced] = [f for f in findings if f["check"] == "cited-in-other-section"]
    assert misplaced["key"] == elsewhere and f"notes of '{section}'" in misplaced["message"]
    line = text[: text.index(marker) + len(marker)].count("\n") + 1
    assert misplaced["line"] == line


def test_build_says_how_many_papers_the_notes_discuss(tmp_path, seeds_build):
    out = _built(tmp_path, seeds_build)
    section, keys, _ = _a_section_with_papers(out)
    first = run_cli("build", "--out", str(out), cwd=tmp_path, check=True)
    total = int(re.search(r"0 of (\d+) papers discussed in your notes", first.stdout).group(1))
    chapter = out / "related_work.tex"
    marker = f"% surveytool: begin notes {section}\n"
    chapter.write_text(
        chapter.read_text(encoding="utf-8").replace(marker, marker + f"See \\cite{{{keys[0]}}}.\n"), encoding="utf-8"
    )
    again = run_cli("build", "--out", str(out), cwd=tmp_path, check=True)
    assert f"1 of {total} papers discussed in your notes" in again.stdout
