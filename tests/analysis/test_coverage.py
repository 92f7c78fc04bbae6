"""Prose coverage: which papers the author's notes discuss, and in which section (check --tex on a built chapter)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from helpers import run_cli

from surveytool.analysis.coverage import discussed, read_prose

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
