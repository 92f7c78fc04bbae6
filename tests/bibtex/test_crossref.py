"""Crossref and xdata parents: cited through their children, lending them what readers see of them."""

import json
import subprocess
import sys

import pytest
from helpers import requires_latex, run_cli

from surveytool.bibtex.crossref import inheritance_loops
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping

XREF = r"""@xdata{pmlr, publisher = {PMLR}, series = {Proceedings of Machine Learning Research}}
@inproceedings{child2020, author = {Doe, J}, title = {Pipeline parallel training of giant models},
  crossref = {icml2020}, xdata = {pmlr}, pages = {1--10}, sections = {pipeline-parallel}}
@inproceedings{child2b, author = {Roe, J}, title = {Mixture of experts routing}, crossref = {icml2020}, sections = {moe}}
@proceedings{icml2020, title = {Proceedings of the 37th International Conference on Machine Learning}, year = {2020},
  editor = {Daum\'e, Hal}}
"""
VENUE = "Proceedings of the 37th International Conference on Machine Learning"


def test_a_volume_and_an_xdata_entry_are_not_placed_and_lend_their_children_year_and_venue(tmp_path):
    (tmp_path / "xref.bib").write_text(XREF, encoding="utf-8")
    built = run_cli("build", "xref.bib", "--out", "out", cwd=tmp_path, check=True)
    assert "no-section" not in built.stderr and "needs-review" not in built.stderr
    chapter = (tmp_path / "out" / "related_work.tex").read_text(encoding="utf-8")
    assert "{child2020}" in chapter and "{child2b}" in chapter
    assert "{pmlr}" not in chapter and "{icml2020}" not in chapter and "To Place" not in chapter
    assert f"\\citet{{child2b}} & 2020 & {VENUE}" in chapter  # the summary table
    bib = (tmp_path / "out" / "references.bib").read_text(encoding="utf-8")
    assert "@xdata{pmlr," in bib and "@proceedings{icml2020," in bib  # BibTeX and biber still inherit from them
    years = {e["key"]: e["year"] for e in json.loads((tmp_path / "out" / "entries.json").read_text(encoding="utf-8"))}
    assert years == {"child2020": "2020", "child2b": "2020", "icml2020": "2020", "pmlr": None}
    markdown = run_cli("export", "xref.bib", cwd=tmp_path, check=True).stdout
    assert f"| **Mixture of experts routing** (Roe) | {VENUE} | 2020 |" in markdown and "****" not in markdown
    items = json.loads(run_cli("export", "xref.bib", "-f", "csl-json", cwd=tmp_path, check=True).stdout)
    child = next(i for i in items if i["id"] == "child2020")
    assert [i["id"] for i in items if i["id"] == "pmlr"] == []
    assert (child["container-title"], child["issued"], child["publisher"]) == (VENUE, {"date-parts": [[2020]]}, "PMLR")


def test_a_chapter_citing_the_children_is_not_told_to_remove_their_volume(tmp_path):
    (tmp_path / "xref.bib").write_text(XREF, encoding="utf-8")
    (tmp_path / "paper.tex").write_text("\\citet{child2020} and \\citet{child2b}\n", encoding="utf-8")
    checked = run_cli("check", "xref.bib", "--tex", "paper.tex", "--checks", "cite-unused", cwd=tmp_path)
    assert checked.returncode == 0 and "cite-unused" not in checked.stderr, checked.stderr
    markdown = run_cli("export", "xref.bib", cwd=tmp_path, check=True).stdout
    assert "\n2 papers in " in markdown  # the two it lists, not the volume and the xdata entry
    (tmp_path / "book.bib").write_text("@collection{c, editor = {E, F}, title = {Edited}, year = 2020}\n", "utf-8")
    [item] = json.loads(run_cli("export", "book.bib", "-f", "csl-json", cwd=tmp_path, check=True).stdout)
    assert item["type"] == "book"


# A DBLP export whose volume was given the paper's key as its crossref by mistake (and in another case), an entry
# naming itself, a chain of three that comes back, and an xdata entry that names its own user.
LOOPS = r"""@inproceedings{DBLP:conf/sc/RajbhandariRRH20,
  author    = {Samyam Rajbhandari and Jeff Rasley and Olatunji Ruwase and Yuxiong He},
  title     = {ZeRO: Memory Optimizations Toward Training Trillion Parameter Models},
  crossref  = {DBLP:conf/sc/2020},
  pages     = {20},
  year      = {2020},
}

@proceedings{DBLP:conf/sc/2020,
  title     = {Proceedings of the International Conference for High Performance Computing, Networking, Storage and Analysis, {SC} 2020},
  publisher = {{IEEE/ACM}},
  year      = {2020},
  crossref  = {dblp:conf/sc/rajbhandarirrh20},
}

@article{huang2019gpipe,
  author   = {Huang, Yanping and Cheng, Youlong},
  title    = {GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism},
  journal  = {NeurIPS},
  year     = {2019},
  crossref = {Huang2019GPipe},
}

@inproceedings{a,
  author = {Doe, Jane},
  title = {Alpha},
  crossref = {b},
}

@inproceedings{b,
  title = {Beta},
  crossref = {c},
}

@proceedings{c,
  title = {Gamma},
  year = {2021},
  crossref = {a},
}

@inproceedings{x,
  author = {Roe, Richard},
  title = {Delta},
  booktitle = {Epsilon},
  year = {2022},
  xdata = {lender},
}

@xdata{lender,
  publisher = {PMLR},
  xdata = {x},
}
"""


def test_a_crossref_or_xdata_loop_is_one_finding_at_its_first_entry_naming_the_loop(tmp_path):
    (tmp_path / "loops.bib").write_text(LOOPS, encoding="utf-8")
    checked = run_cli("check", "loops.bib", "--checks", "crossref-loop", "--json", cwd=tmp_path)
    assert checked.returncode == 1, checked.stderr
    found = [(f["line"], f["message"]) for f in json.loads(checked.stdout) if f["check"] == "crossref-loop"]
    assert found == [
        (
            4,
            "crossref loop of 2 entries: 'DBLP:conf/sc/RajbhandariRRH20' -> 'DBLP:conf/sc/2020' -> "
            "'DBLP:conf/sc/RajbhandariRRH20', each naming the next in its crossref",
        ),
        (21, "crossref of 'huang2019gpipe' names the entry itself ('Huang2019GPipe')"),
        (27, "crossref loop of 3 entries: 'a' -> 'b' -> 'c' -> 'a', each naming the next in its crossref"),
        (46, "xdata loop of 2 entries: 'x' -> 'lender' -> 'x', each naming the next in its xdata"),
    ]


def test_a_long_loop_is_named_by_its_first_entries_and_its_length():
    papers = [
        Paper(
            Origin.BIBTEX,
            (SourceLocation("big.bib", 1 + 5 * i),),
            frozen_mapping({"crossref": f"e{(i + 1) % 5000}"}),
            key=f"e{i}",
        )
        for i in range(5000)
    ]
    [(entries, size)] = inheritance_loops(papers)
    assert ([p.key for p, _ in entries], size) == (["e0", "e1", "e2", "e3", "e4", "e5"], 5000)


@pytest.mark.parametrize(
    "command",
    [
        ("check", "loops.bib"),
        ("check", "loops.bib", "--fix"),
        ("bib", "loops.bib", "-o", "out.bib"),
        ("bib", "--in-place", "loops.bib"),
        ("build", "loops.bib", "--out", "out"),
        ("export", "loops.bib"),
        ("export", "loops.bib", "-f", "csl-json"),
    ],
)
def test_no_command_loops_on_entries_that_inherit_from_one_another(tmp_path, command):
    # And a loop of 600 entries, each a level deeper than the last to a walk of its crossrefs.
    long = "".join(
        f"@inproceedings{{e{i},\n  title = {{Part {i}}},\n  crossref = {{e{(i + 1) % 600}}},\n}}\n" for i in range(600)
    )
    (tmp_path / "loops.bib").write_text(LOOPS + long, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "surveytool", *command], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr


# A paper and its volume naming each other (the volume's entry copied from the paper's, crossref and all); the
# paper's key sorts after the volume's, as a DBLP-style key of a paper does not.
PAIR_LOOP = """@inproceedings{zhang2020,
  title = {Pipeline Training of Deep Networks},
  author = {Zhang, Wei},
  pages = {1--10},
  crossref = {conf2020},
}

@proceedings{conf2020,
  title = {Proceedings of the Conference on Systems},
  booktitle = {Proceedings of the Conference on Systems},
  year = {2020},
  publisher = {ACM},
  crossref = {zhang2020},
}
"""


@requires_latex
@pytest.mark.parametrize("paper, volume", [("zhang2020", "conf2020"), ("a2020", "zconf")])
def test_a_crossref_loop_is_written_with_its_volume_last_so_that_bibtex_gives_the_paper_its_fields(
    tmp_path, paper, volume
):
    (tmp_path / "loop.bib").write_text(PAIR_LOOP.replace("zhang2020", paper).replace("conf2020", volume))
    checked = run_cli("check", "loop.bib", "--checks", "crossref-loop", cwd=tmp_path)
    assert checked.returncode == 1 and "loop.bib:5: error [crossref-loop] crossref loop of 2 entries" in checked.stderr
    run_cli("bib", "loop.bib", "-o", "references.bib", cwd=tmp_path, check=True)
    written = (tmp_path / "references.bib").read_text()
    assert written.count("crossref = {") == 2  # nothing dropped
    assert written.index(f"{{{paper},") < written.index(f"{{{volume},")
    # Only the paper is cited: BibTeX finds the volume only when it comes after it.
    (tmp_path / "main.tex").write_text(
        f"\\documentclass{{article}}\\begin{{document}}\\cite{{{paper}}}"
        "\\bibliographystyle{plain}\\bibliography{references}\\end{document}\n"
    )
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "main.tex"], cwd=tmp_path, capture_output=True)
    bibtex = subprocess.run(["bibtex", "main"], cwd=tmp_path, capture_output=True, text=True, errors="replace")
    bbl = (tmp_path / "main.bbl").read_text()
    assert "bad cross reference" not in bibtex.stdout, bibtex.stdout
    assert "Proceedings of the Conference on Systems" in bbl and "2020" in bbl
