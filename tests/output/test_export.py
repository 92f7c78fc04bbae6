"""Exports, the draft command, template overrides and build --pdf."""

import json

import pytest
from helpers import HAVE_LATEX, IN_CI, ROOT, run_cli

from surveytool.analysis.taxonomy import load_taxonomy
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping
from surveytool.output.export import to_markdown
from surveytool.resources import default_taxonomy
from surveytool.sources.read import read_source


def test_markdown_lists_sections_with_links_and_stays_inert():
    result = run_cli("export", "--format", "markdown", check=True)
    text = result.stdout
    tagged = json.loads(run_cli("tag", "--json", check=True).stdout)
    moe = sum(1 for entry in tagged if entry["tags"][:1] == ["moe"])
    assert text.startswith("# Related Work on Large-Model Training\n")
    assert (
        f"- [Mixture-of-Experts and Conditional Computation](#mixture-of-experts-and-conditional-computation) ({moe})"
        in text
    )
    assert (
        "**GShard: Scaling Giant Models with Conditional Computation and Automatic Sharding** (Lepikhin et al.)" in text
    )
    assert "[arXiv](https://arxiv.org/abs/2006.16668)" in text and "[DOI](https://doi.org/10.1145/3320060)" in text
    hostile = Paper(
        Origin.SNIPPET,
        (SourceLocation("h.txt", 3),),
        frozen_mapping({"abstract": "<script>alert(1)</script> | [link](javascript:x) *bold* `code`…"}),
        key="anon-x",
    )
    md = to_markdown([hostile], load_taxonomy(default_taxonomy()))
    assert "\\<script\\>" in md and "\\[link\\]" in md and "\\|" in md and "\\*bold\\*" in md


def test_markdown_nests_a_group_under_the_group_it_is_in(tmp_path):
    nested = tmp_path / "nested.toml"
    nested.write_text(
        (ROOT / "seeds" / "taxonomy.toml")
        .read_text(encoding="utf-8")
        .replace('id = "parallelism"\n', 'id = "parallelism"\nparent = "foundations"\n')
    )
    text = run_cli("export", "--taxonomy", str(nested), "-q", check=True).stdout
    assert "\n  - [Parallelism Strategies](#parallelism-strategies)\n    - [Data Parallelism" in text
    assert "\n### Parallelism Strategies\n" in text and "\n#### Data Parallelism and State Sharding\n" in text


def test_markdown_of_a_user_s_own_taxonomy_has_no_empty_heading_link_or_line(tmp_path):
    own = tmp_path / "own.toml"
    own.write_text(
        'title = "Übersicht"\n[[groups]]\nid = "sys"\ntitle = "Systeme & Werkzeuge"\n'
        '[[sections]]\nid = "zh"\ntitle = "并行训练"\nparent = "sys"\n'
        '[[sections]]\nid = "other"\ntitle = "Systeme & Werkzeuge"\n',  # no group, no description, a repeated title
        encoding="utf-8",
    )
    text = run_cli("export", "--taxonomy", str(own), "-q", check=True).stdout
    assert "\n- [Systeme & Werkzeuge](#systeme--werkzeuge)\n  - [并行训练](#并行训练) (0)\n" in text
    assert "\n- [Systeme & Werkzeuge](#systeme--werkzeuge-1) (0)\n" in text  # GitHub numbers a repeated heading
    assert "](#)" not in text and "\n## \n" not in text and "\n__\n" not in text


def test_csl_json_reads_back_into_the_same_entries(tmp_path):
    exported = run_cli("export", "--format", "csl-json", "-o", "refs.json", cwd=tmp_path, check=True)
    assert "wrote refs.json" in exported.stdout
    items = json.loads((tmp_path / "refs.json").read_text(encoding="utf-8"))
    assert len(items) == 41
    gshard = next(i for i in items if i["id"] == "lepikhin2021gshard")
    assert gshard["author"][0] == {"family": "Lepikhin", "given": "Dmitry"} and gshard["issued"] == {
        "date-parts": [[2021]]
    }
    back = {p.key: p for p in read_source(tmp_path / "refs.json", "refs.json").papers}
    assert back["lepikhin2021gshard"].title == gshard["title"]
    assert len(back) == 38  # the three unresolved snippets have no title to read back


def test_keys_a_reader_would_not_take_from_an_id_come_back_from_csl_json_as_they_were(tmp_path):
    # A key with no ASCII letter, or a '/', is no id a reader takes for a key: it came back renamed, and two
    # entries alike in all but their keys came back as one.
    keys = ["张伟2021", "a/b/c", "doi:10.1000/abc", "Dup-A:x/1", "dup-a"]
    (tmp_path / "w.bib").write_text(
        "".join(
            f"@article{{{key}, author={{Li, Wei}}, title={{Pipeline parallel training}}, year=2020}}\n" for key in keys
        ),
        encoding="utf-8",
    )
    run_cli("export", "w.bib", "--format", "csl-json", "-o", "rt.json", cwd=tmp_path, check=True)
    assert sorted(p.key for p in read_source(tmp_path / "rt.json", "rt.json").papers) == sorted(keys)
    parsed = run_cli("parse", "rt.json", "--json", cwd=tmp_path)
    assert sorted(e["key"] for e in json.loads(parsed.stdout)) == sorted(keys)


def test_a_zotero_entry_exports_its_date_venue_and_doi_as_they_are_meant(tmp_path):
    # Zotero's biblatex export: date and journaltitle, and a DOI written as its resolver address.
    (tmp_path / "zotero.bib").write_text(
        "\ufeff@article{lepikhin_gshard_2021,\r\n\ttitle = {{GShard}: Scaling Giant Models with Conditional "
        "Computation and Automatic Sharding},\r\n\tjournaltitle = {Journal of Machine Learning Research},\r\n"
        "\tauthor = {Lepikhin, Dmitry},\r\n\tdate = {2021-03-15},\r\n"
        "\tdoi = {https://doi.org/10.48550/arXiv.2006.16668},\r\n\tsections = {moe},\r\n}\r\n",
        encoding="utf-8",
        newline="",
    )
    [item] = json.loads(run_cli("export", "zotero.bib", "-f", "csl-json", cwd=tmp_path, check=True).stdout)
    assert item["issued"] == {"date-parts": [[2021, 3, 15]]}
    assert item["container-title"] == "Journal of Machine Learning Research"
    assert item["DOI"] == "10.48550/arXiv.2006.16668"
    markdown = run_cli("export", "zotero.bib", "-f", "markdown", cwd=tmp_path, check=True).stdout
    assert (
        "| Journal of Machine Learning Research | 2021 | [DOI](https://doi.org/10.48550/arXiv.2006.16668)" in markdown
    )


WILD_EXPORT = r"""@report{r1, author = {Smith, J.} # " and " # {Doe, Q.}, title = {A report}, institution = {MIT},
  number = {TR-123}, date = {2021-03-15}, urldate = {2022-01-02}, address = {Cambridge},
  doi = {https://doi.org/10.1000%2Fpct}}
@online{o1, author = {\c{C}elik, Ali and \"Ozt\"urk, F and \v{S}ima, I and \AA{}berg, C}, title = {A page},
  date = {2021-03/2021-05}, url = {https://example.org}}
@article{gs, title = {Megatron-LM}, author = {Shoeybi, M}, journal = {arXiv preprint arXiv:1909.08053}, year = {2019},
  doi = {https://doi.acm.org/10.1145/3458817}}
"""


def test_what_reference_managers_write_is_exported_as_they_mean_it(tmp_path):
    (tmp_path / "wild.bib").write_text(WILD_EXPORT, encoding="utf-8")
    items = {i["id"]: i for i in json.loads(run_cli("export", "wild.bib", "-f", "csl-json", cwd=tmp_path).stdout)}
    report, page, scholar = items["r1"], items["o1"], items["gs"]
    assert report["author"] == [{"family": "Smith", "given": "J."}, {"family": "Doe", "given": "Q."}]  # a # join
    assert (report["type"], report["number"], report["publisher"], report["publisher-place"]) == (
        "report",
        "TR-123",
        "MIT",
        "Cambridge",
    )
    assert report["issued"] == {"date-parts": [[2021, 3, 15]]} and report["accessed"] == {"date-parts": [[2022, 1, 2]]}
    assert report["DOI"] == "10.1000/pct" and scholar["DOI"] == "10.1145/3458817"
    assert [a["family"] for a in page["author"]] == ["Çelik", "Öztürk", "Šima", "Åberg"]  # accents after "and"
    assert page["type"] == "webpage" and page["issued"] == {"date-parts": [[2021, 3], [2021, 5]]}
    assert scholar["URL"] == "https://arxiv.org/abs/1909.08053"
    markdown = run_cli("export", "wild.bib", cwd=tmp_path).stdout
    assert "[DOI](https://doi.org/10.1000/pct)" in markdown and "[DOI](https://doi.org/10.1145/3458817)" in markdown
    assert "[arXiv](https://arxiv.org/abs/1909.08053)" in markdown and "(Smith and Doe)" in markdown


def test_a_team_named_by_an_at_string_stays_one_name_in_csl_json(tmp_path):
    # A co-author's file: the team's braces live in the @string, the entry only joins macros; the second file
    # defines the same macro without braces, and its entries are read with its own definition.
    (tmp_path / "team.bib").write_text(
        '@string{team = "{Google Research}"}\n@string{me = "Doe, Jane"}\n'
        '@article{a, title = {Pipeline parallelism for giant models}, author = me # " and " # team, year = 2020}\n',
        encoding="utf-8",
    )
    (tmp_path / "other.bib").write_text(
        '@string{team = "Research, Google"}\n'
        "@article{b, title = {Gradient compression at scale}, author = team, year = 2021}\n",
        encoding="utf-8",
    )
    exported = run_cli("export", "team.bib", "other.bib", "-f", "csl-json", cwd=tmp_path, check=True).stdout
    items = {i["id"]: i for i in json.loads(exported)}
    assert items["a"]["author"] == [{"family": "Doe", "given": "Jane"}, {"literal": "Google Research"}]
    assert items["b"]["author"] == [{"family": "Research", "given": "Google"}]


def test_draft_writes_only_the_chapter_and_keeps_notes(tmp_path):
    run_cli("draft", "-o", "chapter.tex", cwd=tmp_path, check=True)
    chapter = tmp_path / "chapter.tex"
    text = chapter.read_text(encoding="utf-8").replace("notes surveys\n", "notes surveys\nMine.\n", 1)
    chapter.write_text(text, encoding="utf-8")
    again = run_cli("draft", "-o", "chapter.tex", "--no-figure", "--no-plot", cwd=tmp_path, check=True)
    assert "kept your notes in surveys" in again.stderr
    rebuilt = chapter.read_text(encoding="utf-8")
    assert "Mine.\n% surveytool: end notes surveys" in rebuilt
    assert (
        "forest" not in rebuilt
        and "pgfplots" not in rebuilt.replace("pgfplots, graphicx", "")
        and "longtable" in rebuilt
    )


def test_user_templates_override_bundled_ones(tmp_path):
    templates = tmp_path / "tpl"
    templates.mkdir()
    (templates / "summary_table.tex.j2").write_text("% my own table for \\VAR{rows|length} papers\n")
    run_cli("build", "--out", "out", "--templates", "tpl", cwd=tmp_path, check=True)
    assert "% my own table for 41 papers" in (tmp_path / "out" / "related_work.tex").read_text(encoding="utf-8")


@pytest.mark.skipif(not HAVE_LATEX and not IN_CI, reason="latexmk not installed")
def test_build_pdf_reports_latex_errors_in_plain_words(tmp_path):
    ok = run_cli("build", "--out", "out", "--pdf", cwd=tmp_path)
    assert ok.returncode == 0 and "wrote out/main.pdf" in ok.stdout
    templates = tmp_path / "tpl"
    templates.mkdir()
    (templates / "summary_table.tex.j2").write_text("\\undefinedcommandofmine\n")
    failed = run_cli("build", "--out", "broken", "--pdf", "--templates", "tpl", cwd=tmp_path)
    assert failed.returncode == 1
    [problem] = [line for line in failed.stderr.splitlines() if line.startswith("broken/")]
    assert problem.startswith("broken/related_work.tex:") and "\\undefinedcommandofmine is not defined" in problem


@pytest.mark.parametrize(
    "template, words",
    [
        ("line one\n\\VAR{nonexistent}\n", "tpl/summary_table.tex.j2:2: error: template uses an unknown variable"),
        ("\\BLOCK{for x in}\n", "tpl/summary_table.tex.j2:1: error: template syntax:"),
    ],
)
def test_a_broken_user_template_names_its_file_and_line(tmp_path, template, words):
    (tmp_path / "tpl").mkdir()
    (tmp_path / "tpl" / "summary_table.tex.j2").write_text(template)
    result = run_cli("build", "--out", "o", "--templates", "tpl", cwd=tmp_path)
    assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr


def test_missing_templates_folder_and_an_output_path_that_is_a_file(tmp_path):
    (tmp_path / "afile").write_text("x")
    for args, words in (
        (["--templates", "nodir"], "nodir: error: no such templates folder"),
        (["--out", "afile"], "afile: error: is a file, not a folder"),
    ):
        result = run_cli("build", *args, cwd=tmp_path)
        assert result.returncode == 2 and words in result.stderr


def test_a_preprint_s_server_in_howpublished_is_its_csl_container_but_a_link_there_is_not(tmp_path):
    (tmp_path / "pre.bib").write_text(
        "@misc{paine2013gpu, title = {GPU Asynchronous SGD}, author = {Paine, Thomas}, year = {2013},\n"
        "  howpublished = {arXiv preprint arXiv:1312.6186}, eprint = {1312.6186}, sections = {data-parallel}}\n"
        "@misc{page, title = {A page}, author = {Doe, Q.}, year = {2020}, howpublished = {\\url{https://example.org}},"
        " sections = {data-parallel}}\n",
        encoding="utf-8",
    )
    items = {i["id"]: i for i in json.loads(run_cli("export", "pre.bib", "-f", "csl-json", cwd=tmp_path).stdout)}
    assert items["paine2013gpu"]["container-title"] == "arXiv preprint arXiv:1312.6186"
    assert "container-title" not in items["page"]


def test_a_link_in_howpublished_is_the_csl_url(tmp_path):
    # A @misc whose only link is howpublished = {\url{...}} (what Google Scholar and many hand-kept .bib files
    # write) was exported with no URL at all.
    (tmp_path / "web.bib").write_text(
        "@misc{a, title = {A page}, author = {Doe, Q.}, year = {2020}, howpublished = {\\url{https://a.org/x\\%20y}}}\n"
        "@misc{b, title = {B page}, author = {Doe, Q.}, year = {2020}, howpublished = {https://b.org/p?q=1}}\n"
        "@misc{c, title = {C page}, author = {Doe, Q.}, year = {2020}, howpublished = {Blog post}}\n",
        encoding="utf-8",
    )
    items = {i["id"]: i for i in json.loads(run_cli("export", "web.bib", "-f", "csl-json", cwd=tmp_path).stdout)}
    assert [items[k].get("URL") for k in "abc"] == ["https://a.org/x%20y", "https://b.org/p?q=1", None]


def test_a_report_s_own_number_survives_its_arxiv_id_and_both_read_back(tmp_path):
    # The arXiv id of a report with a link elsewhere was written over CSL's number: "TR-7" was lost.
    (tmp_path / "tr.bib").write_text(
        "@techreport{tr, title = {R}, author = {A, B}, institution = {Inst}, number = {TR-7}, year = {2021},\n"
        "  eprint = {2104.14830}, archiveprefix = {arXiv}, url = {https://inst.org/tr7}}\n",
        encoding="utf-8",
    )
    run_cli("export", "tr.bib", "-f", "csl-json", "-o", "tr.json", cwd=tmp_path, check=True)
    (item,) = json.loads((tmp_path / "tr.json").read_text(encoding="utf-8"))
    assert item["number"] == "TR-7" and item["archive_location"] == "arXiv:2104.14830"
    (paper,) = read_source(tmp_path / "tr.json", "tr.json").papers
    assert paper.fields["number"] == "TR-7" and paper.fields["eprint"] == "2104.14830"


def test_markdown_shows_entities_tildes_and_dollars_of_a_title_as_written(tmp_path):
    items = tmp_path / "items.json"
    item = {
        "id": "tom2020",
        "type": "article-journal",
        "title": "Tom &amp; Jerry: ~~old~~ prices from $5 to $10 &#60;b&#62;",
        "author": [{"family": "Tom", "given": "A"}],
        "issued": {"date-parts": [[2020]]},
        "container-title": "R&D &lt;b&gt;",
    }
    items.write_text(json.dumps([item]), encoding="utf-8")
    text = run_cli("export", str(items), "-f", "markdown", "-o", "-", "-q", check=True).stdout
    # GitHub would show "&", strike "old" through and set "5 to " as math: every one is escaped, a bare & is not.
    row = r"| **Tom \&amp; Jerry: \~\~old\~\~ prices from \$5 to \$10 \&\#60;b\&\#62;** (Tom) | R&D \&lt;b\&gt; | 2020 |  |"
    assert row in text.splitlines()


def test_markdown_links_a_papers_web_page_when_it_has_no_doi_or_arxiv_id(tmp_path):
    # GPipe's NeurIPS page and a JMLR paper had an empty Links column.
    (tmp_path / "refs.bib").write_text(
        "@inproceedings{gpipe, title = {GPipe}, author = {Huang, Yanping}, year = 2019, booktitle = {NeurIPS},\n"
        "  url = {https://papers.nips.cc/paper/8305-gpipe?a=1|2&b=(3)}}\n"
        "@misc{bad, title = {Bad link}, author = {Roe, R}, year = 2020, url = {javascript:alert(1)}}\n"
        "@misc{both, title = {Both}, author = {Doe, J}, year = 2020, doi = {10.1/x}, url = {https://x.org/y}}\n",
        encoding="utf-8",
    )
    rows = run_cli("export", "refs.bib", "-f", "markdown", "-o", "-", "-q", cwd=tmp_path).stdout.splitlines()
    [gpipe] = [row for row in rows if "GPipe" in row]
    assert gpipe.endswith("| [Link](https://papers.nips.cc/paper/8305-gpipe?a=1%7C2&b=%283%29) |")
    [bad] = [row for row in rows if "Bad link" in row]
    assert bad.endswith("| 2020 |  |")  # only a web address is a link
    [both] = [row for row in rows if "Both" in row]
    assert both.endswith("| [DOI](https://doi.org/10.1/x) |")


def test_a_url_field_listing_two_addresses_exports_the_first_as_the_url_and_the_other_in_the_note(tmp_path):
    # url = {https://a.org/x https://b.org/y} went out as one URL "https://a.org/x https://b.org/y", which no
    # reader can open, and the Markdown list gave the paper no link at all.
    (tmp_path / "two.bib").write_text(
        "@misc{two, title = {Two}, author = {Doe, J}, year = 2020, url = {https://a.org/x https://b.org/y}}\n"
        "@misc{noted, title = {Noted}, author = {Doe, J}, year = 2020, note = {Slides},\n"
        "  url = {https://a.org/p, https://b.org/q; ftp://c.org/r}}\n"
        "@misc{one, title = {One}, author = {Doe, J}, year = 2020, url = {https://a.org/a b}}\n",
        encoding="utf-8",
    )
    items = {i["id"]: i for i in json.loads(run_cli("export", "two.bib", "-f", "csl-json", cwd=tmp_path).stdout)}
    assert items["two"]["URL"] == "https://a.org/x"
    colon = '<span class="nocase">:</span>'  # a line "https://..." would be read by citeproc-js as a variable
    assert items["two"]["note"] == f"https{colon}//b.org/y"
    assert items["noted"]["URL"] == "https://a.org/p"
    assert items["noted"]["note"] == f"Slides\nhttps{colon}//b.org/q\nftp{colon}//c.org/r"
    assert items["one"]["URL"] == "https://a.org/a b" and "note" not in items["one"]  # no list of addresses: as is
    rows = run_cli("export", "two.bib", "-f", "markdown", "-o", "-", "-q", cwd=tmp_path).stdout.splitlines()
    [two] = [row for row in rows if "**Two**" in row]
    assert two.endswith("| [Link](https://a.org/x) |")


def test_markdown_keeps_a_web_address_in_a_title_as_text_and_not_a_link(tmp_path):
    # GitHub links "www." and "https://" in plain text: a title naming a site became a link to it, which the
    # list never meant (and a hostile .bib could point anywhere). GitHub matches the text as written, so a
    # character reference for the "." or ":" keeps the text and makes no link.
    (tmp_path / "site.bib").write_text(
        "@misc{site, title = {Serving (www.example.com) from https://x.org/y and FTP://z.org}, author = {Doe, J},\n"
        "  year = 2020, howpublished = {Blog at www.blog.org}}\n",
        encoding="utf-8",
    )
    rows = run_cli("export", "site.bib", "-f", "markdown", "-o", "-", "-q", cwd=tmp_path).stdout.splitlines()
    [row] = [row for row in rows if "Serving" in row]
    title = "**Serving (www&#46;example.com) from https&#58;//x.org/y and FTP&#58;//z.org** (Doe)"
    assert row.startswith(f"| {title} |")
    assert "www." not in row and "://" not in row


def test_markdown_keeps_a_mail_address_in_a_title_as_text_and_not_a_link(tmp_path):
    # GitHub links a bare mail address (GFM's extended email autolink), after mailto: or xmpp: too: a title
    # giving a contact became a mailto: link. A character reference for the "@" keeps the text and makes none.
    (tmp_path / "mail.bib").write_bytes(
        "@misc{mail, title = {Corpus of B\\'{e}zier curves (ask jane.doe+data@uni-x.edu or mailto:lab@x.org)},\r\n"
        "  author = {Doe, J}, year = 2020, howpublished = {Chat: xmpp:bot@x.org}}\r\n".encode("latin-1")
    )
    rows = run_cli("export", "mail.bib", "-f", "markdown", "-o", "-", "-q", cwd=tmp_path).stdout.splitlines()
    [row] = [row for row in rows if "Corpus" in row]
    title = "**Corpus of Bézier curves (ask jane.doe+data&#64;uni-x.edu or mailto:lab&#64;x.org)** (Doe)"
    assert row.startswith(f"| {title} | Chat: xmpp:bot&#64;x.org |")
    assert "@" not in row


# A url field is verbatim to styles and biblatex: each of these is one the decoded text changed (an en dash, a
# space for ~, the \\href's text run into the address).
URLS_AS_WRITTEN = """@string{site = "https://s.org"}
@misc{dashes, title = {A}, author = {Doe, J}, year = 2020, url = {www.x.org/a--b/c}}
@misc{tilde, title = {B}, author = {Doe, J}, year = 2020, url = "http://x.org/~user/a%20b"}
@misc{wrapped, title = {C}, author = {Doe, J}, year = 2020, url = {\\href{www.x.org/p--q}{here}}}
@misc{macro, title = {D}, author = {Doe, J}, year = 2020, url = site # "/a--b"}
@misc{two, title = {E}, author = {Doe, J}, year = 2020, url = {https://a.org/x--y
  https://b.org/y--z}}
@misc{file, title = {F}, author = {Doe, J}, year = 2020, url = {file://share/x--y.pdf}}
@misc{escaped, title = {G}, author = {Doe, J}, year = 2020,
  url = {https://www.s.com/inward/record.url?eid=2-s2.0-7{\\&}partnerID=40{\\_}x\\%3Ay\\#z}}
"""


def test_csl_json_and_markdown_take_the_url_as_written_with_the_scheme_the_written_bib_gives(tmp_path):
    (tmp_path / "refs.bib").write_text(URLS_AS_WRITTEN, encoding="utf-8")
    expected = {
        "dashes": "https://www.x.org/a--b/c",
        "tilde": "http://x.org/~user/a%20b",
        "wrapped": "https://www.x.org/p--q",
        "macro": "https://s.org/a--b",
        "two": "https://a.org/x--y",
        "escaped": "https://www.s.com/inward/record.url?eid=2-s2.0-7&partnerID=40_x%3Ay#z",  # as hyperref links it
    }
    items = json.loads(run_cli("export", "refs.bib", "-f", "csl-json", cwd=tmp_path).stdout)
    assert {item["id"]: item.get("URL") for item in items} == {**expected, "file": None}
    assert [item["note"] for item in items if item["id"] == "two"] == ['https<span class="nocase">:</span>//b.org/y--z']
    rows = run_cli("export", "refs.bib", "-o", "-", "-q", cwd=tmp_path).stdout.splitlines()
    links = [row.split(" | ")[-1].rstrip(" |") for row in rows if row.startswith("| **")]
    assert sorted(links) == sorted([f"[Link]({url})" for url in expected.values()] + [""])
    run_cli("bib", "refs.bib", "-o", "out.bib", "-q", cwd=tmp_path)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert all(url in written for key, url in expected.items() if key not in ("macro", "escaped"))  # the same links


def test_export_keys_new_entries_by_the_key_formula_as_bib_does(tmp_path):
    # export had no --key-formula: a CSL-JSON export beside a .bib written with bib --key-formula X had other
    # ids than the .bib's keys, so a document citing one could not use the other.
    items = [
        {"type": "report", "title": "Pathways Systems", "author": [{"literal": "Google Research"}], "issued": {"date-parts": [[2022]]}},
        {"type": "article", "title": "Sparse Routing", "author": [{"family": "Øster", "given": "L"}], "issued": {"date-parts": [[2020]]}},
    ]  # fmt: skip
    (tmp_path / "items.json").write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    formula = ("--key-formula", 'auth.lower + "_" + year')
    bib = run_cli("bib", "items.json", "-o", "-", *formula, cwd=tmp_path, check=True).stdout
    keys = [line.split("{", 1)[1].rstrip(",") for line in bib.splitlines() if line.startswith("@")]
    exported = run_cli("export", "items.json", "-f", "csl-json", *formula, cwd=tmp_path, check=True).stdout
    assert [item["id"] for item in json.loads(exported)] == keys == ["googleresearch_2022", "oster_2020"]
    wrong = run_cli("export", "items.json", "-f", "csl-json", "-o", "x.json", "--key-formula", "yeer", cwd=tmp_path)
    assert wrong.returncode == 2 and "--key-formula" in wrong.stderr and not (tmp_path / "x.json").exists()


def test_csl_json_and_markdown_give_a_url_only_to_a_web_page(tmp_path):
    # CSL-JSON kept "URL": "javascript:alert(7)" and data: URLs, which pandoc's HTML makes links a click runs; the
    # Markdown list already linked only http(s). One rule for both: a web address, a host without scheme given https.
    (tmp_path / "links.bib").write_text(
        "@misc{script, title = {Script}, author = {Roe, R}, year = 2020, url = {javascript:alert(7)}}\n"
        "@misc{data, title = {Data}, author = {Roe, R}, year = 2020, url = {data:text/html,<script>alert(13)</script>}}\n"
        "@misc{share, title = {Share}, author = {Roe, R}, year = 2020, url = {file://host/share/x.pdf}}\n"
        "@misc{host, title = {Host}, author = {Roe, R}, year = 2020, url = {www.x.org/a}}\n"
        "@misc{ftp, title = {Ftp}, author = {Roe, R}, year = 2020, url = {ftp://ftp.x.edu/tr.ps}}\n",
        encoding="utf-8",
    )
    (tmp_path / "items.json").write_text(
        json.dumps([{"id": "csl", "type": "article", "title": "From CSL", "URL": "javascript:alert(1)"}]),
        encoding="utf-8",
    )
    for source in ("links.bib", "items.json"):
        items = json.loads(run_cli("export", source, "-f", "csl-json", cwd=tmp_path).stdout)
        urls = {item["id"]: item.get("URL") for item in items}
        assert urls == (
            {"script": None, "data": None, "share": None, "host": "https://www.x.org/a", "ftp": "ftp://ftp.x.edu/tr.ps"}
            if source == "links.bib"
            else {"csl": None}
        )
    rows = run_cli("export", "links.bib", "-f", "markdown", "-o", "-", "-q", cwd=tmp_path).stdout.splitlines()
    links = {row.split(" | ")[0]: row.split("|")[-2].strip() for row in rows if "| 2020 |" in row}
    assert links == {
        "| **Script** (Roe)": "",
        "| **Data** (Roe)": "",
        "| **Share** (Roe)": "",
        "| **Host** (Roe)": "[Link](https://www.x.org/a)",
        "| **Ftp** (Roe)": "[Link](ftp://ftp.x.edu/tr.ps)",
    }
