"""What many tests share: the project's folders, running the CLI and latexmk as a user would, and sample inputs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data"
GOLDEN = Path(__file__).resolve().parent / "golden"
BENCHMARKS = Path(__file__).resolve().parent / "benchmarks"
#: The large real .bib files beside the checkout (../shared/bench); CI has them.
BENCH = ROOT.parent / "shared" / "bench"
SEEDS_TAXONOMY = ROOT / "seeds" / "taxonomy.toml"
CORPUS = sorted((DATA / "corpus" / "biber").glob("*.bib"))
IN_CI = os.environ.get("CI", "").lower() == "true"
HAVE_LATEX = shutil.which("latexmk") is not None and shutil.which("pdflatex") is not None

# In CI a missing TeX installation is a failure, never a silent skip.
requires_latex = pytest.mark.skipif(not HAVE_LATEX and not IN_CI, reason="latexmk/pdflatex not installed")


def run_cli(
    *args: str, cwd: Path | None = None, check: bool = False, stdin: str | None = None
) -> subprocess.CompletedProcess:
    """Run ``python -m surveytool`` as a user would, in a separate process (``stdin``: text piped in)."""
    result = subprocess.run(
        [sys.executable, "-m", "surveytool", *args], cwd=cwd, capture_output=True, text=True, input=stdin
    )
    if check and result.returncode != 0:
        raise AssertionError(f"surveytool {' '.join(args)} failed ({result.returncode}):\n{result.stderr}")
    return result


def compile_latex(folder: Path, *extra: str) -> subprocess.CompletedProcess:
    if not HAVE_LATEX:
        pytest.fail("latexmk and pdflatex are required (install TeX Live: see .ci/run)")
    return subprocess.run(
        ["latexmk", "-pdf", "-interaction=nonstopmode", "-halt-on-error", *extra, "main.tex"],
        cwd=folder,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
    )


def bibtex_balanced(value: str) -> bool:
    """Whether BibTeX, which counts every brace (escaped too), reads ``value`` as one balanced group."""
    depth = 0
    for char in value:
        depth += (char == "{") - (char == "}")
        if depth < 0:
            return False
    return depth == 0


def run_bibtex(folder: Path, preamble: str = "", style: str = "plain") -> tuple[subprocess.CompletedProcess, str]:
    """pdflatex, then BibTeX, on a document citing every entry of ``folder/references.bib``: (BibTeX's run, the .bbl)."""
    (folder / "all.tex").write_text(
        f"\\documentclass{{article}}{preamble}\n"
        f"\\begin{{document}}\\nocite{{*}}\\bibliographystyle{{{style}}}\\bibliography{{references}}\\end{{document}}\n"
    )
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "all.tex"], cwd=folder, capture_output=True)
    result = subprocess.run(["bibtex", "all"], cwd=folder, capture_output=True, text=True, errors="replace")
    bbl = folder / "all.bbl"
    return result, bbl.read_text(encoding="utf-8") if bbl.exists() else ""


def bibtex_as_written_and_rewritten(folder: Path, bib: str) -> tuple[tuple, tuple]:
    """``run_bibtex`` on ``bib`` as written, then on the .bib ``surveytool bib`` writes of it."""
    (folder / "references.bib").write_text(bib, encoding="utf-8")
    as_written = run_bibtex(folder)
    (folder / "coauthor.bib").write_text(bib, encoding="utf-8")
    run_cli("bib", "coauthor.bib", "-o", "references.bib", cwd=folder)
    return as_written, run_bibtex(folder)


# Every way a block can end: closed, unclosed before the next block, at the end of the file;
# macros used before and after their definition, keys used twice, comments between blocks.
TRICKY = (
    "Free text before any block.\n"
    "@string{ acm = {ACM Press} }\n"
    "@article{closed, title = {Closed \\\\\n  with a line ending in a backslash}, publisher = acm # { NY}}\n"
    "% a comment line\n"
    "@book{unclosed, title = {Never closed,\n"
    "  year = 2001\n"
    '@misc(paren, title = "In (parentheses)", note = {mid-line @misc{x, y} text})\n'
    "@STRING{acm = {Second definition}}\n"
    "@article{closed, title = {Same key again}}\n"
    "  @inproceedings{indented, title = {Indented start}, booktitle = later}\r\n"
    "@string{later = {Defined after use}}\n"
    "@comment{an explicit comment}\n"
    "@article{last, title = {Cut off at the end of the file"
)

ENTRY = """@inproceedings{{{key},
  title = {{{title}}},
  author = {{{author}}},
  booktitle = venue,
  year = {{{year}}},
  abstract = {{{abstract}}},
}}
"""

TOPICS = [
    ("Pipeline parallelism for training giant models", "micro-batch pipeline stages across devices"),
    ("Mixture of experts with sparse routing", "a gating network routes tokens to experts"),
    ("Zero redundancy optimizer states", "partition optimizer states and gradients across data-parallel ranks"),
    ("Scaling laws for language models", "loss falls as a power law in compute and data"),
    ("Activation recomputation to save memory", "recompute activations in the backward pass"),
]


def library(count: int) -> str:
    entries = []
    for i in range(count):
        title, abstract = TOPICS[i % len(TOPICS)]
        entries.append(
            ENTRY.format(
                key=f"paper{i}",
                title=f"{title}, part {i}",
                author=f"Author{i}, Ada and Other, Bo",
                year=2015 + i % 9,
                abstract=f"We study {abstract}. Variant {i}.",
            )
        )
    return "@string{venue = {Proceedings of Things}}\n\n" + "\n".join(entries)


def outputs(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# A Zotero export and a .bib written the way the wild writes them (the CSL-JSON and stdin tests).
ZOTERO_ITEMS = [
    {
        "id": "http://zotero.org/users/4711/items/Q8ZP3D2K",
        "citation-key": "fedus2022switch",
        "type": "article-journal",
        "title": "Switch Transformers: scaling to trillion parameter models with <i>simple</i> and "
        'efficient sparsity in CO<sub>2</sub> and x<sup>2</sup> of <span class="nocase">iPhone</span>s',
        "container-title": "Journal of Machine Learning Research",
        "author": [
            {"literal": "Google Research"},
            {"family": "Fedus", "given": "William"},
            {"family": "Smith", "given": "John", "suffix": "Jr."},
        ],
        "issued": {"date-parts": [["2022", "6", "1"]]},
        "URL": "http://arxiv.org/abs/2101.03961",
    },
    {
        "id": "http://zotero.org/users/4711/items/ZZ9QW8E1",
        "type": "report",
        "title": "A tech report with <b>bold</b> claims",
        "author": [{"family": "Le Cun"}],
        "issued": {"raw": "2019-11"},
        "number": "arXiv:1911.00001v2",
    },
    {
        "id": "vaswani2017attention",
        "type": "paper-conference",
        "title": "Attention is all you need",
        "container-title": "Advances in Neural Information Processing Systems",
        "author": [{"family": "Vaswani", "given": "Ashish"}],
        "issued": {"date-parts": [[2017]]},
        "archive_location": "arXiv:1706.03762",
    },
]

MESSY_BIB = r"""@article{fontaine2020alpha,
  author = {{Microsoft Research} and Smith, Jr., John and de la Fontaine, Jean and J{\"o}rg M{\"u}ller},
  title = {The $\alpha$-{VAE} at $\mathcal{O}(n)$ cost, for \$5},
  journal = {Journal of {$\beta$} Things},
  year = {2020},
  month = may,
  url = {https://example.org/fontaine2020},
  eprint = {2104.14830},
  doi = {10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O},
  sections = {surveys,moe},
}
"""


def titled_entry(title: str, key: str = "k", tags: tuple[str, ...] | list[str] = ()):
    """A .bib entry known by its title alone, with the tags its user gave it."""
    from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping

    return Paper(
        Origin.BIBTEX,
        (SourceLocation("mine.bib", 1),),
        frozen_mapping({"title": title}),
        key=key,
        explicit_tags=tuple(tags),
    )


#: One entry no section is known for, so a build files it under the unplaced papers' notes.
LOREM = "@misc{lorem2020, title = {Lorem Ipsum Dolor Sit Amet}, author = {Ann Lee}, year = 2020}\n"
#: Where the notes of those papers begin in the chapter.
UNPLACED_NOTES = "% surveytool: begin notes unclassified\n"


def built_with_notes(tmp_path: Path, notes: str) -> tuple[Path, Path, Path]:
    """A build of LOREM (the source, the out folder and the chapter) with ``notes`` written by the author."""
    source = tmp_path / "refs.bib"
    source.write_text(LOREM, encoding="utf-8")
    out = tmp_path / "out"
    run_cli("build", str(source), "--out", str(out), check=True)
    chapter = out / "related_work.tex"
    text = chapter.read_text(encoding="utf-8")
    chapter.write_text(text.replace(UNPLACED_NOTES, UNPLACED_NOTES + notes), encoding="utf-8")
    return source, out, chapter


def field_in_each_dialect(folder: Path, bib: str, field: str) -> dict[str, str]:
    """The raw value ``bib -o`` writes for ``field`` of the one entry of ``bib``, with each dialect."""
    (folder / "refs.bib").write_text(bib, encoding="utf-8")
    written = {}
    for dialect in ("bibtex", "biblatex"):
        run_cli("bib", "refs.bib", "-o", f"{dialect}.bib", "--dialect", dialect, cwd=folder, check=True)
        [written[dialect]] = re.findall(rf"{field} = (.*),", (folder / f"{dialect}.bib").read_text(encoding="utf-8"))
    return written


def compiled_with_biber(folder: Path) -> Path:
    """The out folder of a biblatex build of ``folder``/refs.bib, compiled by latexmk with biber: it must compile."""
    out = folder / "out"
    run_cli("build", "refs.bib", "--out", "out", "--dialect", "biblatex", "--no-figure", "--no-plot", cwd=folder)
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    return out
