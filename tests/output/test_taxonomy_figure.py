"""The taxonomy figure stays on one page, legible, at 10, 100 and 1,000 papers (compiled with real latexmk)."""

import re
import subprocess

import pytest
from helpers import compile_latex, run_cli

from surveytool.analysis.taxonomy import load_taxonomy
from surveytool.resources import default_taxonomy

TAXONOMY = load_taxonomy(default_taxonomy())
SECTIONS = [s.id for s in TAXONOMY.sections]


def library(papers: int, crowded: bool) -> str:
    """``papers`` entries spread over the sections; ``crowded``: most of them in one section."""
    entries = []
    for i in range(papers):
        section = SECTIONS[0 if crowded and i % 10 else i % len(SECTIONS)]
        entries.append(
            f"@inproceedings{{paper{i:04d},\n  title = {{A study of training at scale, part {i}}},\n"
            f"  author = {{Writer{i % 97}, Ann and Other, Bo}},\n  booktitle = {{Proc. Conference}},\n"
            f"  year = {{{2010 + i % 15}}},\n  sections = {{{section}}}\n}}\n"
        )
    return "\n".join(entries)


@pytest.mark.parametrize(("papers", "crowded"), [(10, False), (100, False), (1000, False), (1000, True)])
def test_the_taxonomy_figure_fits_one_page(tmp_path, papers, crowded):
    bib = tmp_path / "mine.bib"
    bib.write_text(library(papers, crowded), encoding="utf-8")
    out = tmp_path / "out"
    run_cli("build", "--out", str(out), "--no-table", "--no-plot", "--no-themes", str(bib), check=True)
    chapter = (out / "related_work.tex").read_text(encoding="utf-8")
    figure = chapter[chapter.index(r"\begin{figure}") : chapter.index(r"\end{figure}")]
    assert len(re.findall(r"\\citealp\{", figure)) <= len(SECTIONS)
    assert len(re.findall(r"paper\d{4}", figure)) <= 8 * len(SECTIONS)
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    log = (out / "main.log").read_text(encoding="latin-1")
    assert "Float too large" not in log and "undefined" not in log.lower().replace("undefined references", "")
    pages = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", "main.pdf", "-"], cwd=out, capture_output=True, text=True, check=True
    ).stdout.split("\f")
    with_caption = [n for n, page in enumerate(pages) if "Figure 1: Taxonomy of the related work" in page]
    assert len(with_caption) == 1
    page = pages[with_caption[0]]
    # The whole tree is on the caption's page: every group of the taxonomy is named there.
    for group in TAXONOMY.groups:
        assert " ".join(group.title.split()[:2]) in " ".join(page.split()), group.title
