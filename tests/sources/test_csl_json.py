"""CSL-JSON as Zotero, Better BibTeX and pandoc write it, read in and exported back out."""

import json
from urllib.parse import unquote

from helpers import MESSY_BIB, ZOTERO_ITEMS, run_cli

from surveytool.sources.csl_json import csl_to_papers
from surveytool.sources.read import read_source

# As Zotero's "Export Library... > CSL JSON" writes it with Better BibTeX installed.


def test_zotero_csl_json_keeps_citation_keys_names_markup_months_and_arxiv_ids(tmp_path):
    source = tmp_path / "My Library.json"
    source.write_text(json.dumps(ZOTERO_ITEMS, indent=2), encoding="utf-8")
    papers = {p.fields["title"][:8]: p for p in read_source(source, "lib.json").papers}
    switch, report, attention = papers["Switch T"], papers["A tech r"], papers["Attentio"]
    assert switch.key == "fedus2022switch" and attention.key == "vaswani2017attention"
    assert report.key == ""  # a Zotero URI is not a key: surveytool makes one
    assert switch.fields["title"].startswith(
        "Switch Transformers: scaling to trillion parameter models with simple and"
    )
    assert "CO2 and x2 of iPhones" in switch.fields["title"]
    assert switch.fields["month"] == "6" and report.fields["month"] == "11" and "month" not in attention.fields
    assert switch.fields["eprint"] == "2101.03961" and report.fields["eprint"] == "1911.00001v2"
    assert attention.fields["eprint"] == "1706.03762"

    written = run_cli("bib", "My Library.json", "-o", "refs.bib", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    bib = (tmp_path / "refs.bib").read_text(encoding="utf-8")
    assert "@article{fedus2022switch," in bib and "@inproceedings{vaswani2017attention," in bib
    assert "author = {{Google Research} and Fedus, William and Smith, Jr., John}," in bib
    assert "author = {{Le Cun}}," in bib
    assert r"with \textit{simple} and efficient" in bib
    assert r"CO}\textsubscript{2} and x\textsuperscript{2} of {iPhone}s" in bib
    assert r"with \textbf{bold} claims" in bib
    assert "<" not in bib and "textless" not in bib and "textbraceleft" not in bib
    assert "month = jun," in bib and "month = nov," in bib
    assert "eprint = {2101.03961}," in bib and "archiveprefix = {arXiv}," in bib
    assert "dangerous-macro" not in written.stderr


def test_unbalanced_or_unknown_tags_in_csl_text_stay_text(tmp_path):
    items = [{"id": "a1", "type": "article-journal", "title": "x < y </i> and <script>z</script> <i>open"}]
    source = tmp_path / "odd.json"
    source.write_text(json.dumps(items), encoding="utf-8")
    (paper,) = read_source(source, "odd.json").papers
    assert paper.fields["title"] == items[0]["title"]
    run_cli("bib", "odd.json", "-o", "refs.bib", cwd=tmp_path, check=True)
    bib = (tmp_path / "refs.bib").read_text(encoding="utf-8")
    assert r"\textless{}script\textgreater{}" in bib and r"\textit" not in bib


# A .bib as JabRef or a hand-kept file has it: a corporate author, a suffix, a particle, accents, math.


def test_csl_json_export_splits_names_as_bibtex_does_and_prints_math_as_text(tmp_path):
    (tmp_path / "mine.bib").write_text(MESSY_BIB, encoding="utf-8")
    run_cli("export", "mine.bib", "-f", "csl-json", "-o", "out.json", cwd=tmp_path, check=True)
    (item,) = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert item["author"] == [
        {"literal": "Microsoft Research"},
        {"family": "Smith", "given": "John", "suffix": "Jr."},
        {"family": "Fontaine", "given": "Jean", "non-dropping-particle": "de la"},
        {"family": "Müller", "given": "Jörg"},
    ]
    assert item["title"] == "The α-VAE at 𝒪(n) cost, for $5"
    assert item["container-title"] == "Journal of β Things"
    assert item["issued"] == {"date-parts": [[2020, 5]]}
    assert item["URL"] == "https://example.org/fontaine2020" and item["number"] == "arXiv:2104.14830"
    assert item["keyword"] == "surveys, moe"
    # Read back by surveytool itself: the same people, the corporate name still one name.
    back = read_source(tmp_path / "out.json", "out.json").papers[0]
    assert back.fields["author"].startswith("Microsoft Research and Smith, Jr., John and de la Fontaine, Jean")
    assert back.fields["eprint"] == "2104.14830" and back.fields["month"] == "5"


def test_markdown_link_of_a_doi_with_parentheses_and_angle_brackets_works(tmp_path):
    (tmp_path / "mine.bib").write_text(MESSY_BIB, encoding="utf-8")
    text = run_cli("export", "mine.bib", cwd=tmp_path, check=True).stdout
    link = "https://doi.org/10.1002/%28SICI%291097-4571%28199806%2949:8%3C693::AID-ASI4%3E3.0.CO;2-O"
    assert f"[DOI]({link})" in text
    assert "(Microsoft Research et al.)" in text and "The α-VAE" in text
    assert (
        unquote(link.removeprefix("https://doi.org/")) == "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-O"
    )


def test_markup_in_csl_text_cannot_carry_a_command_or_unbalance_braces(tmp_path):
    items = [
        {
            "id": "h1",
            "type": "article-journal",
            "title": '<i>\\input{/etc/passwd}</i> <sub>}{</sub> <span class="nocase">\\write18{rm}</span>',
            "author": [{"literal": "\\def\\x{y} Corp }{"}, {"family": "A}B", "given": "{C"}],
        }
    ]
    (tmp_path / "h.json").write_text(json.dumps(items), encoding="utf-8")
    result = run_cli("bib", "h.json", "-o", "-", cwd=tmp_path, check=True)
    assert r"\textit{\textbackslash{}input\textbraceleft{}/etc/passwd\textbraceright{}}" in result.stdout
    assert r"\textsubscript{\textbraceright{}\textbraceleft{}}" in result.stdout
    assert r"{\textbackslash{}def\textbackslash{}x" in result.stdout
    assert "\\input{" not in result.stdout and "\\write18{" not in result.stdout and "\\def\\" not in result.stdout
    assert "dangerous-macro" not in result.stderr


def test_a_chapter_and_a_report_keep_editors_place_edition_series_isbn_report_number_and_access_date(tmp_path):
    # As Zotero exports a book section and a technical report (CSL keeps "accessed" for the URL's date).
    items = [
        {
            "id": "smith2020pipelines",
            "type": "chapter",
            "title": "Pipelines in practice",
            "container-title": "Handbook of Training Systems",
            "collection-title": "Lecture Notes in Systems",
            "author": [{"family": "Smith", "given": "Ana"}],
            "editor": [{"family": "Müller", "given": "Jörg"}, {"literal": "ACME Labs"}],
            "publisher": "Springer",
            "publisher-place": "Cham",
            "edition": "2",
            "ISBN": "978-3-030-00000-0",
            "page": "12-34",
            "issued": {"date-parts": [[2020]]},
        },
        {
            "id": "lab2019report",
            "type": "report",
            "title": "Checkpointing at scale",
            "publisher": "Example Lab",
            "number": "TR-2019-07",
            "URL": "https://example.org/tr",
            "accessed": {"date-parts": [[2024, 3, 5]]},
            "issued": {"date-parts": [[2019, 7]]},
        },
        {"id": "page2024", "type": "webpage", "title": "A page", "accessed": {"date-parts": [["2024", "11"]]}},
        {"id": "bad2024", "type": "webpage", "title": "Bad date", "accessed": {"date-parts": [[2024, 13, 1]]}},
    ]
    (tmp_path / "zotero.json").write_text(json.dumps(items, indent=2), encoding="utf-8")
    written = run_cli("bib", "zotero.json", "-o", "refs.bib", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    bib = (tmp_path / "refs.bib").read_text(encoding="utf-8")
    chapter = bib[bib.index("@incollection{smith2020pipelines,") :]
    for line in (
        'editor = {M{\\"u}ller, J{\\"o}rg and {ACME Labs}},',  # the BibTeX dialect writes accents as commands
        "address = {Cham},",
        "edition = {2},",
        "series = {Lecture Notes in Systems},",
        "isbn = {978-3-030-00000-0},",
    ):
        assert line in chapter
    report = bib[bib.index("@techreport{lab2019report,") :]
    assert "number = {TR-2019-07}," in report and "urldate = {2024-03-05}," in report
    assert "urldate = {2024-11}," in bib[bib.index("{page2024,") :].split("\n}")[0]  # as much as Zotero gives
    assert "urldate" not in bib[bib.index("{bad2024,") :].split("\n}")[0]  # no 13th month
    back = json.loads(run_cli("export", "refs.bib", "-f", "csl-json", cwd=tmp_path, check=True).stdout)
    exported = {item["id"]: item for item in back}
    assert exported["smith2020pipelines"]["editor"][0] == {"family": "Müller", "given": "Jörg"}
    assert exported["smith2020pipelines"]["publisher-place"] == "Cham"
    assert exported["lab2019report"]["number"] == "TR-2019-07"
    assert exported["lab2019report"]["accessed"] == {"date-parts": [[2024, 3, 5]]}


def test_a_date_written_as_text_gives_its_year_and_a_particle_written_twice_is_read_once(tmp_path):
    items = [
        {"id": "spring", "type": "chapter", "title": "Spring Issue Chapter", "issued": {"literal": "Spring 2018"}},
        {"id": "may", "type": "report", "title": "A May Report", "issued": {"raw": "May 2020"}},
        {"id": "iso", "type": "report", "title": "An ISO Report", "issued": {"raw": "2020-05-03"}},
        {"id": "none", "type": "report", "title": "Undated Report", "issued": {"literal": "forthcoming"}},
        {
            "id": "cruz",
            "type": "book",
            "title": "Los Libros",
            "issued": {"date-parts": [["2001"]]},
            "author": [
                {"family": "de la Cruz", "given": "Juan", "non-dropping-particle": "de la"},
                {"family": "Berg", "given": "Jan", "non-dropping-particle": "van den"},
            ],
        },
    ]
    (tmp_path / "lib.json").write_text(json.dumps(items), encoding="utf-8")
    papers = {p.key: p for p in read_source(tmp_path / "lib.json", "lib.json").papers}
    assert [papers[k].fields.get("year") for k in ("spring", "may", "iso", "none", "cruz")] == [
        "2018",
        "2020",
        "2020",
        None,
        "2001",
    ]
    assert papers["iso"].fields["month"] == "5" and "month" not in papers["may"].fields
    assert papers["cruz"].fields["author"] == "de la Cruz, Juan and van den Berg, Jan"


def test_the_tags_csl_json_export_writes_as_keyword_are_read_back_and_other_subjects_are_no_tags(tmp_path):
    # The tagger would put this title in moe: the user's sections must survive export -> read.
    (tmp_path / "refs.bib").write_text(
        "@article{shazeer2017moe, title = {The Sparsely-Gated Mixture-of-Experts Layer}, author = {Shazeer, Noam},"
        " journal = {ICLR}, year = {2017}, sections = {pipeline-parallel, surveys}}\n",
        encoding="utf-8",
    )
    run_cli("export", "refs.bib", "-f", "csl-json", "-o", "refs.json", cwd=tmp_path, check=True)
    for extra in ((), ("--tags-field", "keyword")):
        markdown = run_cli("export", "refs.json", "-f", "markdown", *extra, cwd=tmp_path, check=True).stdout
        assert "(#pipeline-parallelism) (1)" in markdown
        assert "(#mixture-of-experts-and-conditional-computation) (0)" in markdown
        again = run_cli("export", "refs.json", "-f", "csl-json", *extra, cwd=tmp_path, check=True).stdout
        assert json.loads(again)[0]["keyword"] == "pipeline-parallel, surveys"
    items = json.loads((tmp_path / "refs.json").read_text(encoding="utf-8"))
    # Zotero's and pandoc's keyword holds the user's own subjects too: one-word ones look like ids, and were
    # unknown-tag errors (exit 1 on an ordinary Zotero export) and written into references.bib as sections.
    items[0]["keyword"] = "transformers, pipeline-parallel, Computer Science - Machine Learning"
    (tmp_path / "refs.json").write_text(json.dumps(items), encoding="utf-8")
    result = run_cli("export", "refs.json", "-f", "markdown", cwd=tmp_path)
    assert result.returncode == 0 and "unknown-tag" not in result.stderr, result.stderr
    assert "(#pipeline-parallelism) (1)" in result.stdout
    items[0]["keyword"] = "transformers, deep learning"  # no section named: the tagger places it
    (tmp_path / "refs.json").write_text(json.dumps(items), encoding="utf-8")
    run_cli("build", "refs.json", "--out", "out", cwd=tmp_path, check=True)
    written = (tmp_path / "out" / "references.bib").read_text(encoding="utf-8")
    assert "sections = {moe}" in written and "transformers" not in written


def test_a_citation_key_latex_cannot_cite_is_an_unusable_key_error_as_in_a_bib(tmp_path):
    # per%cent ends \cite at the %: a .bib's key is reported, a CSL-JSON item's key was not (check: no problems).
    items = [{"id": "k", "citation-key": key, "type": "article-journal", "title": f"T {key}"} for key in ("a%b", "c#d")]
    (tmp_path / "lib.json").write_text(json.dumps(items + [{"id": "ok1", "title": "Fine"}]), encoding="utf-8")
    read = read_source(tmp_path / "lib.json", "lib.json")
    assert [(f.check, f.key) for f in read.findings] == [("unusable-key", "a%b"), ("unusable-key", "c#d")]
    result = run_cli("check", "lib.json", "--checks", "unusable-key", cwd=tmp_path)
    assert result.returncode == 1 and "lib.json:1: error [unusable-key] entry key 'a%b' has '%'" in result.stderr
    assert "lib.json:1: error [unusable-key] key 'c#d' cannot be used in" in result.stderr


def test_a_citation_key_no_bib_reader_reads_is_written_under_a_new_key_and_the_bib_reads_back_whole(tmp_path):
    # bib -o wrote @article{eq=1, and @article{quo"te,: biber and surveytool's own reader stop at the = or ", so
    # the written .bib lost both entries when read again.
    items = [
        {
            "id": k,
            "citation-key": k,
            "type": "article-journal",
            "title": f"Title {i}",
            "issued": {"date-parts": [[2020]]},
        }
        for i, k in enumerate(("eq=1", 'quo"te', "plain"))
    ]
    (tmp_path / "lib.json").write_text(json.dumps(items), encoding="utf-8")
    result = run_cli("bib", "lib.json", "-o", "out.bib", cwd=tmp_path)
    assert "entry key 'eq=1' has '=', which BibTeX or biber does not read in a key" in result.stderr
    assert "entry key 'quo\"te' has '\"', which" in result.stderr
    read = read_source(tmp_path / "out.bib", "out.bib")
    assert sorted(p.fields["title"] for p in read.papers) == ["Title 0", "Title 1", "Title 2"]
    assert "plain" in {p.key for p in read.papers} and not [f for f in read.findings if f.check == "bibtex-syntax"]


def test_a_thesis_and_a_report_read_back_with_their_school_and_institution(tmp_path):
    # export -f csl-json writes school and institution as CSL's publisher: read back, they were a publisher,
    # and the @phdthesis and @techreport lacked the field BibTeX requires (missing-field).
    (tmp_path / "refs.bib").write_text(
        "@phdthesis{th, title = {A Thesis}, author = {Tee, T.}, school = {MIT}, year = {2021}}\n"
        "@techreport{tr, title = {A Report}, author = {Arr, A.}, institution = {Google}, year = {2017}}\n",
        encoding="utf-8",
    )
    run_cli("export", "refs.bib", "-f", "csl-json", "-o", "refs.json", cwd=tmp_path, check=True)
    papers = {p.key: p for p in read_source(tmp_path / "refs.json", "refs.json").papers}
    assert papers["th"].fields.get("school") == "MIT" and "publisher" not in papers["th"].fields
    assert papers["tr"].fields.get("institution") == "Google" and "publisher" not in papers["tr"].fields


def test_a_misc_entry_exported_reads_back_as_a_misc_entry():
    # export -f csl-json writes a @misc as CSL's "article" (a preprint, in no journal): it read back as an
    # @article, which then lacked a journal (missing-field).
    papers = csl_to_papers([{"id": "ms", "type": "article", "title": "A Misc Item"}], "x.json", "")[0]
    assert papers[0].entry_type == "misc"


def test_a_csl_article_with_a_journal_is_a_journal_article_and_one_without_is_a_misc():
    # CSL's "article" is a preprint in no journal, but some exporters write it for a journal's paper too: read as
    # @misc, its journal was dropped by every misc style.
    items = [
        {"id": "a", "type": "article", "title": "In a journal", "container-title": "Journal of E"},
        {"id": "b", "type": "article", "title": "A preprint"},
    ]
    papers, _ = csl_to_papers(items, "x.json", "")
    assert [(p.entry_type, p.fields.get("journal")) for p in papers] == [("article", "Journal of E"), ("misc", None)]


def test_a_year_that_is_not_four_digits_is_left_out_with_a_warning():
    # 10**30 gave the year "1000000000000000000000000000000" (a key "1000", a plot at 1000), raw "99999-01" the year
    # "9999", with no finding at all: the .bib's year-malformed does not read CSL-JSON.
    dates = [{"date-parts": [[10**30]]}, {"date-parts": [[-44]]}, {"date-parts": [[2020.5]]}, {"raw": "99999-01"}]
    dates += [{"date-parts": [["\uff12\uff10\uff12\uff10"]]}]  # full-width digits: no .bib reader's year
    items = [{"id": f"y{n}", "title": f"T{n}", "issued": date} for n, date in enumerate(dates)]
    fine = [{"id": f"ok{n}", "title": "T", "issued": {"raw": raw}} for n, raw in enumerate(("2020-5", "12/05/2021"))]
    papers, findings = csl_to_papers(items + fine, "x.json", "")
    assert [p.fields.get("year") for p in papers] == [None, None, None, None, None, "2020", "2021"]
    assert [f.message for f in findings] == [
        "item 1's year '1000000000000000000000000000000' is not a four-digit year; left out",
        "item 2's year '-44' is not a four-digit year; left out",
        "item 3's year '2020.5' is not a four-digit year; left out",
        "item 4's year '99999' is not a four-digit year; left out",
        "item 5's year '\uff12\uff10\uff12\uff10' is not a four-digit year; left out",
    ]


def test_a_number_too_long_for_python_is_refused_in_one_line_with_its_line(tmp_path):
    # json.loads raised a ValueError (not a JSONDecodeError) for an int of more than 4300 digits: a traceback.
    (tmp_path / "big.json").write_text(
        '[\n{"id": "x", "title": "T", "issued": {"date-parts": [[1' + "0" * 5000 + "]]}}]"
    )
    result = run_cli("parse", "big.json", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "big.json:2: error: holds a number of more than 4300 digits, which no CSL-JSON item has"
        " (export CSL-JSON from Zotero or pandoc)"
    ]


def test_a_date_written_as_an_edtf_string_gives_its_year_month_and_access_day():
    # CSL-JSON 1.0.2 prefers an EDTF string to date-parts ("issued": "2021-03-15"): issued and accessed were
    # dropped without a word.
    items = [
        {"id": "e1", "title": "T", "issued": "2021-03-15", "accessed": "2023-01-05"},
        {"id": "e2", "title": "T", "issued": "2020/2021", "accessed": "2023-01-05T10:11:12Z"},
        {"id": "e3", "title": "T", "issued": "2018~", "accessed": "2023-13-05"},
    ]
    papers, findings = csl_to_papers(items, "x.json", "")
    got = [(p.fields.get("year"), p.fields.get("month"), p.fields.get("urldate")) for p in papers]
    assert got == [("2021", "3", "2023-01-05"), ("2020", None, "2023-01-05"), ("2018", None, None)]
    assert findings == []


def test_a_master_s_thesis_exported_and_zotero_s_read_back_as_a_master_s_thesis(tmp_path):
    # CSL's type "thesis" does not say which: export wrote no genre and the reader took every thesis for a PhD
    # thesis, so a @mastersthesis came back a @phdthesis, as did Zotero's {"genre": "Master's thesis"}.
    (tmp_path / "refs.bib").write_text(
        "@mastersthesis{ms, title = {A Thesis}, author = {Tee, T.}, school = {MIT}, year = {2021}}\n"
        "@phdthesis{phd, title = {B Thesis}, author = {Tee, T.}, school = {MIT}, year = {2022}}\n"
        "@thesis{bl, title = {C Thesis}, author = {Tee, T.}, institution = {ETH}, type = {mathesis}, date = {2020}}\n",
        encoding="utf-8",
    )
    run_cli("export", "refs.bib", "-f", "csl-json", "-o", "refs.json", cwd=tmp_path, check=True)
    items = {i["id"]: i for i in json.loads((tmp_path / "refs.json").read_text(encoding="utf-8"))}
    assert [items[k].get("genre") for k in ("ms", "phd", "bl")] == ["Master's thesis", "PhD thesis", "Master's thesis"]
    papers = {p.key: p for p in read_source(tmp_path / "refs.json", "refs.json").papers}
    assert [papers[k].entry_type for k in ("ms", "phd", "bl")] == ["mastersthesis", "phdthesis", "mastersthesis"]
    assert papers["ms"].fields.get("school") == "MIT" and "publisher" not in papers["ms"].fields
    zotero = [{"id": "z", "type": "thesis", "title": "T", "genre": "M.Sc. thesis", "publisher": "KTH"}]
    (paper,) = csl_to_papers(zotero, "z.json", "")[0]
    assert paper.entry_type == "mastersthesis" and paper.fields["school"] == "KTH"


def test_translators_and_a_software_version_go_out_to_csl_json_and_come_back(tmp_path):
    # CSL has translator and version: export left both out and the reader ignored Zotero's, without a word.
    (tmp_path / "refs.bib").write_text(
        "@book{wp, title = {War and Peace}, author = {Tolstoy, Leo}, translator = {Garnett, Constance},"
        " publisher = {P}, year = {1869}}\n"
        "@software{tool, title = {Tool}, author = {Coder, Cody}, version = {1.2.3}, year = {2020}}\n",
        encoding="utf-8",
    )
    run_cli("export", "refs.bib", "-f", "csl-json", "-o", "refs.json", cwd=tmp_path, check=True)
    items = {i["id"]: i for i in json.loads((tmp_path / "refs.json").read_text(encoding="utf-8"))}
    assert items["wp"]["translator"] == [{"family": "Garnett", "given": "Constance"}]
    assert items["tool"]["version"] == "1.2.3"
    papers = {p.key: p for p in read_source(tmp_path / "refs.json", "refs.json").papers}
    assert papers["wp"].fields["translator"] == "Garnett, Constance" and papers["tool"].fields["version"] == "1.2.3"


def test_names_not_written_as_a_list_of_csl_names_are_reported_not_dropped_in_silence():
    items = [
        {"id": "s", "title": "T", "author": "Smith, John"},
        {"id": "o", "title": "T", "editor": {"family": "Doe"}},
        {"id": "m", "title": "T", "author": [{"family": "Fine"}, "Smith, J."]},
        {"id": "ok", "title": "T", "author": [], "editor": None},
    ]
    papers, findings = csl_to_papers(items, "x.json", "")
    assert len(papers) == 4 and papers[2].fields["author"] == "Fine"
    assert [f.message for f in findings] == [
        "item 1's author is not a list of CSL names; what is not one is left out",
        "item 2's editor is not a list of CSL names; what is not one is left out",
        "item 3's author is not a list of CSL names; what is not one is left out",
    ]


def test_a_web_page_software_and_a_dataset_keep_their_kind_for_biblatex(tmp_path):
    # CSL's webpage, software and dataset were read as @misc: bib --dialect biblatex lost the kind of work that
    # export -f csl-json wrote for @online, @software and @dataset (BibTeX's dialect still writes @misc).
    (tmp_path / "refs.bib").write_text(
        "@online{w, title = {A page}, author = {W, A}, url = {https://x.org}, date = {2021}}\n"
        "@software{s, title = {A tool}, author = {S, A}, url = {https://github.com/x/y}, date = {2020}}\n"
        "@dataset{d, title = {A dataset}, author = {D, A}, doi = {10.5281/zenodo.1}, date = {2019}}\n",
        encoding="utf-8",
    )
    run_cli("export", "refs.bib", "-f", "csl-json", "-o", "refs.json", cwd=tmp_path, check=True)
    papers = {p.key: p.entry_type for p in read_source(tmp_path / "refs.json", "refs.json").papers}
    assert papers == {"w": "online", "s": "software", "d": "dataset"}
    for dialect, kinds in (("biblatex", ("online", "software", "dataset")), ("bibtex", ("misc",) * 3)):
        run_cli("bib", "refs.json", "-o", f"{dialect}.bib", "--dialect", dialect, "-q", cwd=tmp_path, check=True)
        bib = (tmp_path / f"{dialect}.bib").read_text(encoding="utf-8")
        assert sorted(line.split("{")[0] for line in bib.splitlines() if line.startswith("@")) == sorted(
            f"@{k}" for k in kinds
        )


def test_an_item_whose_id_is_given_twice_is_placed_at_its_own_line():
    # Every item of a repeated id was placed at the first one's line: the duplicate-key warning and the skipped
    # item's warning pointed at the wrong item.
    text = '[\n{"id": "k", "title": "First"},\n{"id": "k", "title": "Second"},\n{"id": "k"}\n]'
    papers, findings = csl_to_papers(json.loads(text), "x.json", text)
    assert [p.sources[0].line for p in papers] == [2, 3] and [f.location.line for f in findings] == [4]


def test_a_note_keeps_the_user_s_own_lines_and_gives_its_doi_to_an_item_without_one():
    # Every "word: text" line was dropped as if it were a CSL variable: of this note only "Extended version." was
    # left, and its DOI was lost with it.
    note = "TODO: check pages\nDOI: 10.1000/abc\nsee: appendix B\nExtended version."
    extra = "URL: https://a.org/x\nISBN: 978-3-16-148410-0\nissued: 2020\n{:ISSN: 1234-5678} Seen: {:Note: n}"
    items = [
        {"id": "n", "type": "book", "title": "N", "note": note},
        {"id": "d", "type": "book", "title": "D", "DOI": "10.1/own", "URL": "https://own.org", "note": note},
        {"id": "e", "type": "book", "title": "E", "note": extra + "\nCitation Key: e0\ntex.ids: e1"},
    ]
    papers, findings = csl_to_papers(items, "x.json", "")
    assert findings == []
    n, d, e = (paper.fields for paper in papers)
    assert n["note"] == d["note"] == "TODO: check pages\nsee: appendix B\nExtended version."
    assert n["doi"] == "10.1000/abc" and d["doi"] == "10.1/own" and d["url"] == "https://own.org"
    assert e["note"] == "Seen: {:Note: n}"  # "Note" is no CSL variable: "note" is
    assert {name: e[name] for name in ("url", "isbn", "issn")} == {
        "url": "https://a.org/x",
        "isbn": "978-3-16-148410-0",
        "issn": "1234-5678",
    }
