"""The chapter's groups follow the taxonomy's nesting: each nested group headed a level below the one it is in."""

import re

from helpers import ROOT, compile_latex, requires_latex, run_cli

from surveytool.analysis.taxonomy import parse_taxonomy
from surveytool.bibtex.reader import read_bibtex
from surveytool.output.chapter_view import PaperView, paper_view, publication_trend, view_groups

#: (group, the group it is in): root > middle > deep, root > empty, and beside at the top.
GROUPS = [("root", ""), ("middle", "root"), ("deep", "middle"), ("empty", "root"), ("beside", "")]
SECTIONS = [("in-deep", "deep"), ("in-middle", "middle"), ("in-beside", "beside")]


def nested_taxonomy() -> str:
    groups = [f'[[groups]]\nid = "{g}"\ntitle = "{g.title()}"\nparent = "{parent}"\n' for g, parent in GROUPS]
    sections = [f'[[sections]]\nid = "{s}"\ntitle = "{s.title()}"\nparent = "{group}"\n' for s, group in SECTIONS]
    return 'title = "Nested"\n' + "".join(groups + sections).replace('parent = ""\n', "")


def test_groups_come_after_the_group_they_are_in_and_one_with_no_section_below_it_is_left_out():
    paper = PaperView("k", "T", "2020", "", True, "", "in-deep", (), ())
    groups = view_groups([paper], parse_taxonomy(nested_taxonomy()))
    # "root" has no section of its own, but one nested in it: it is headed, unlike "empty".
    assert [(g.id, g.depth, [s.id for s in g.sections]) for g in groups] == [
        ("root", 0, []),
        ("middle", 1, ["in-middle"]),
        ("deep", 2, ["in-deep"]),
        ("beside", 0, ["in-beside"]),
    ]


def nested_seeds_taxonomy() -> str:
    """The bundled taxonomy with three levels of groups: foundations > parallelism > systems."""
    text = (ROOT / "seeds" / "taxonomy.toml").read_text(encoding="utf-8")
    text = text.replace('id = "parallelism"\n', 'id = "parallelism"\nparent = "foundations"\n')
    return text.replace('id = "systems"\n', 'id = "systems"\nparent = "parallelism"\n')


@requires_latex
def test_a_taxonomy_three_groups_deep_is_headed_at_each_level_and_compiles(tmp_path):
    taxonomy = tmp_path / "nested.toml"
    taxonomy.write_text(nested_seeds_taxonomy(), encoding="utf-8")
    out = tmp_path / "out"
    run_cli("build", "--taxonomy", str(taxonomy), "--out", str(out), check=True)
    chapter = (out / "related_work.tex").read_text(encoding="utf-8")
    levels = {
        name: command for command, name in re.findall(r"^\\(\w+)\{[^}]*\}\\label\{sec:rw:([\w-]+)\}", chapter, re.M)
    }
    assert [levels[n] for n in ("foundations", "parallelism", "systems", "algorithms")] == [
        "subsection",
        "subsubsection",
        "paragraph",
        "subsection",
    ]
    assert levels["surveys"] == "subsubsection"  # a section of foundations
    assert levels["pipeline-parallel"] == "paragraph"  # of parallelism
    assert levels["memory"] == "subparagraph"  # of systems, as deep as LaTeX goes
    # A section's themes one level below it: under a \paragraph, \subparagraph.
    section = chapter[chapter.index(r"\label{sec:rw:model-parallel}") :]
    assert re.search(r"^\\subparagraph\{[^}]+\}", section[: section.index(r"\label{sec:rw:", 1)], re.M)
    result = compile_latex(out)
    assert result.returncode == 0, result.stdout[-3000:]
    assert not re.search(r"^! ", (out / "main.log").read_text(encoding="latin-1"), re.M)


def test_a_title_and_venue_with_math_print_its_characters_not_its_dollars_and_backslashes():
    # The chapter escapes the plain text it is given, and a .bib title's math was kept as written: the PDF
    # showed "$\alpha$-Nets" in the chapter beside "α-Nets" in the bibliography (and the Markdown export).
    bib = (
        "@article{smith2020alpha,\n  author = {Alice Smith},\n"
        "  title = {Training {$\\alpha$}-Nets with $O(n \\log n)$ Memory},\n"
        "  journal = {Journal of $\\beta$-Systems},\n  year = {2020},\n}\n"
        "@misc{money2020,\n  title = {Saving \\$5 and \\$10},\n  year = {2020},\n}\n"
    )
    papers = {p.key: p for p in read_bibtex(bib, "refs.bib").papers}
    view = paper_view(papers["smith2020alpha"])
    assert (view.title, view.venue) == ("Training α-Nets with O(n log n) Memory", "Journal of β-Systems")
    assert paper_view(papers["money2020"]).title == "Saving $5 and $10"  # no math: as it reads


def test_a_year_of_more_than_four_digits_is_not_plotted_at_its_first_four():
    # "20211" was plotted at 2021 and a 31-digit year at 1000; "2020a" is a year with its label's letter.
    years = {"k1": "2020a", "k2": "20211", "k3": "1000000000000000000000000000000", "k4": "2021"}
    bib = "".join(
        f"@article{{{key},\n  author = {{A}},\n  title = {{Pipeline parallelism {key}}},\n  journal = {{J}},\n"
        f"  year = {{{year}}},\n  sections = {{pipeline-parallel}},\n}}\n"
        for key, year in years.items()
    )
    taxonomy = parse_taxonomy((ROOT / "seeds" / "taxonomy.toml").read_text(encoding="utf-8"), "taxonomy.toml")
    views = [paper_view(p) for p in read_bibtex(bib, "refs.bib").papers]
    trend = publication_trend(view_groups(views, taxonomy))
    assert (trend.years, trend.undated) == (("2020", "2021"), 2)
    assert [s.counts for s in trend.series] == [(1, 1)]


def test_the_sections_of_no_group_are_each_a_series_of_the_trend_plot_with_their_title_as_its_legend():
    # A flat taxonomy's sections are one untitled group: the plot's one series had the legend \addlegendentry{}.
    flat = parse_taxonomy(
        'title = "Flat"\n[[sections]]\nid = "pipes"\ntitle = "Pipelines"\n'
        '[[sections]]\nid = "rest"\ntitle = "Everything Else"\n',
        "flat.toml",
    )
    views = [
        PaperView("a", "T", "2020", "", True, "", "pipes", (), ()),
        PaperView("b", "T", "2021", "", True, "", "rest", (), ()),
        PaperView("c", "T", "2021", "", True, "", "rest", (), ()),
    ]
    trend = publication_trend(view_groups(views, flat))
    assert [(s.group, s.counts) for s in trend.series] == [("Pipelines", (1, 0)), ("Everything Else", (0, 2))]
