"""Crossref and xdata parents: cited through their children, lending them what readers see of them."""

import json

from helpers import run_cli

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
