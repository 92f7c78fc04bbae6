"""What a .bib says that CSL-JSON can carry, exported and read back: italics, "and others", dates that are not
one plain year, and a howpublished that is no link."""

import json
import re
from pathlib import Path

from helpers import run_cli

from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping
from surveytool.output.export import to_csl_json
from surveytool.sources.csl_json import csl_to_papers
from surveytool.sources.csl_rich_text import rich_text
from surveytool.sources.read import read_source


def _export(tmp_path: Path, bib: str) -> dict[str, dict]:
    (tmp_path / "in.bib").write_text(bib, encoding="utf-8")
    read = read_source(tmp_path / "in.bib", "in.bib")
    return {item["id"]: item for item in json.loads(to_csl_json(read.papers, read.blocks))}


def _back(items: dict[str, dict]):
    papers, findings = csl_to_papers(list(items.values()), "x.json", "")
    return {p.key: p for p in papers}, findings


def test_italics_in_a_title_are_csl_rich_text_and_read_back_as_latex_italics(tmp_path):
    items = _export(
        tmp_path,
        r"@article{a, title = {Training \emph{GShard} the {\em fast} way: \textit{E.~coli} and {BERT}},"
        r" journal = {Notes on \emph{Sparse} Models}, author = {Doe, J.}, year = 2020}"
        "\n",
    )
    assert items["a"]["title"] == "Training <i>GShard</i> the <i>fast</i> way: <i>E. coli</i> and BERT"
    assert items["a"]["container-title"] == "Notes on <i>Sparse</i> Models"
    back, _ = _back(items)
    assert back["a"].fields["title"] == "Training GShard the fast way: E. coli and BERT"
    assert r"\textit{{GShard}}" in back["a"].latex_fields["title"]
    assert r"\textit{fast}" in back["a"].latex_fields["title"]


def test_a_title_that_says_a_tag_in_words_stays_text_in_csl_json_and_back(tmp_path):
    # Today's plain titles went out as they were: "<i>" a .bib wrote as text read back as \textit.
    items = _export(tmp_path, "@misc{t, title = {Why <i>x</i> and <b>y</b> \\emph{z}}, year = 2020}\n")
    title = items["t"]["title"]
    assert "<i>x" not in title and "<b>" not in title and title.endswith("<i>z</i>")
    back, _ = _back(items)
    assert back["t"].fields["title"] == "Why <i>x</i> and <b>y</b> z"
    latex = back["t"].latex_fields["title"]
    assert r"\textless{}i\textgreater{}x" in latex and latex.count(r"\textit") == 1 and r"\textbf" not in latex


def test_and_others_goes_out_as_pandoc_s_literal_others_and_comes_back_as_and_others(tmp_path):
    # split_names leaves "others" out: the export said the paper had one author, and so did the .bib read back.
    items = _export(
        tmp_path,
        "@article{o, title = {T}, author = {Doe, J. and Roe, R. and others}, journal = {J}, year = 2020}\n"
        "@article{team, title = {U}, author = {{Smith and others Ltd.}}, journal = {J}, year = 2020}\n",
    )
    assert items["o"]["author"] == [
        {"family": "Doe", "given": "J."},
        {"family": "Roe", "given": "R."},
        {"literal": "others"},
    ]
    assert items["team"]["author"] == [{"literal": "Smith and others Ltd."}]
    back, _ = _back(items)
    assert back["o"].fields["author"] == "Doe, J. and Roe, R. and others"
    assert back["o"].latex_fields["author"] == "{Doe, J. and Roe, R. and others}"
    (tmp_path / "o.json").write_text(json.dumps([items["o"]]), encoding="utf-8")
    bib = run_cli("bib", "o.json", "-o", "-", cwd=tmp_path, check=True).stdout
    assert "author = {Doe, J. and Roe, R. and others}," in bib
    markdown = run_cli("export", "in.bib", "-f", "markdown", cwd=tmp_path, check=True).stdout
    assert "**T** (Doe et al.)" in markdown


DATES = """@article{range, title = {R}, author = {A, B}, journal = {J}, year = {2019--2020}}
@online{approx, title = {A}, author = {A, B}, url = {https://x.org}, date = {2020-03~}}
@book{circa, title = {C}, author = {A, B}, publisher = {P}, year = {c. 1900}}
@misc{nodate, title = {N}, author = {A, B}, year = {n.d.}}
@article{press, title = {P}, author = {A, B}, journal = {J}, year = {in press}}
@article{state, title = {S}, author = {A, B}, journal = {J}, year = {2021}, pubstate = {inpress}}
"""


def test_ranges_circa_no_date_and_in_press_go_out_as_csl_dates_and_status_and_come_back(tmp_path):
    # A range kept its first year, c. 1900 and n.d. no date at all, "in press" was lost, and 2020~ was not circa.
    items = _export(tmp_path, DATES)
    assert items["range"]["issued"] == {"date-parts": [[2019], [2020]]}
    assert items["approx"]["issued"] == {"date-parts": [[2020, 3]], "circa": True}
    assert items["circa"]["issued"] == {"date-parts": [[1900]], "circa": True}
    assert items["nodate"]["issued"] == {"literal": "n.d."}
    assert "issued" not in items["press"] and items["press"]["status"] == "in press"
    assert items["state"]["issued"] == {"date-parts": [[2021]]} and items["state"]["status"] == "in press"
    back, findings = _back(items)
    assert findings == []
    got = {
        key: {f: p.fields.get(f) for f in ("year", "month", "date", "pubstate") if f in p.fields}
        for key, p in back.items()
    }
    assert got == {
        "range": {"year": "2019", "date": "2019/2020"},
        "approx": {"year": "2020", "month": "3", "date": "2020-03"},  # as a .bib's decoded date, the "~" a space
        "circa": {"year": "1900", "date": "1900"},
        "nodate": {"year": "n.d."},
        "press": {"year": "in press"},
        "state": {"year": "2021", "pubstate": "inpress"},
    }
    assert [back[k].latex_fields["date"] for k in ("approx", "circa")] == ["{2020-03~}", "{1900~}"]
    (tmp_path / "d.json").write_text(json.dumps(list(items.values())), encoding="utf-8")
    biblatex = run_cli("bib", "d.json", "-o", "-", "--dialect", "biblatex", cwd=tmp_path).stdout
    for line in ("date = {2019/2020},", "date = {2020-03~},", "date = {1900~},", "pubstate = {inpress},"):
        assert line in biblatex
    bibtex = run_cli("bib", "d.json", "-o", "-", "--dialect", "bibtex", cwd=tmp_path).stdout
    assert (
        "year = {n.d.}," in bibtex
        and "year = {in press}," in bibtex
        and "year = {2019}," in bibtex
        and "date = {2019/2020}," in bibtex
    )


def test_a_howpublished_that_is_no_link_goes_out_as_the_publisher_and_comes_back(tmp_path):
    # howpublished = {Blog post} was left out of the export: a @misc lost how it came out.
    items = _export(
        tmp_path,
        "@misc{blog, title = {B}, author = {A, B}, year = 2020, howpublished = {Blog post}}\n"
        "@misc{link, title = {L}, author = {A, B}, year = 2020, howpublished = {\\url{https://x.org/p}}}\n"
        "@misc{pre, title = {P}, author = {A, B}, year = 2020, howpublished = {arXiv preprint arXiv:2104.14830}}\n",
    )
    assert items["blog"]["publisher"] == "Blog post"
    assert "publisher" not in items["link"] and "publisher" not in items["pre"]
    back, _ = _back(items)
    assert back["blog"].fields["howpublished"] == "Blog post" and "publisher" not in back["blog"].fields
    (tmp_path / "b.json").write_text(json.dumps([items["blog"]]), encoding="utf-8")
    assert "howpublished = {Blog post}," in run_cli("bib", "b.json", "-o", "-", cwd=tmp_path, check=True).stdout


def test_tags_inside_latex_italics_stay_text_both_ways(tmp_path):
    # The text inside \emph is a .bib's too: a closing tag in it must not end the italics or open another.
    items = _export(tmp_path, '@misc{h, title = {\\emph{</i><b>x} and <span class="nocase">y</span>}, year = 2020}\n')
    title = items["h"]["title"]
    assert title.startswith("<i>") and title.count("<i>") == 1 and "<b>" not in title and "</i><b>" not in title
    back, _ = _back(items)
    assert back["h"].fields["title"] == '</i><b>x and <span class="nocase">y</span>'
    latex = back["h"].latex_fields["title"]
    assert latex.count(r"\textit{") == 1 and r"\textbf" not in latex and r"\textless{}" in latex


def test_tags_written_as_text_in_any_field_stay_text_in_csl_json_and_back(tmp_path):
    # Only the title and the journal went out inert: citeproc-js and pandoc read every variable but DOI, URL, ISBN
    # and ISSN as rich text, so a howpublished's, pubstate's or note's "<i>" printed as italics.
    items = _export(
        tmp_path,
        '@misc{m, title = {M}, year = 2020, howpublished = {<i>Blog</i> post <span class="nocase">x</span>},'
        " pubstate = {<b>forthcoming</b>}, note = {See <i>this</i>}, abstract = {<sup>1</sup>}, edition = {<b>2</b>}}\n"
        "@techreport{r, title = {R}, year = 2020, institution = {<i>Lab</i>}, number = {<b>7</b>},"
        " address = {<sc>Here</sc>}, series = {<i>S</i>}, pages = {<i>1</i>}, volume = {<i>2</i>}}\n"
        "@phdthesis{t, title = {T}, year = 2020, school = {U}, type = {<i>Habil.</i> thesis}, isbn = {<i>1</i>}}\n",
    )
    sent = {
        (key, name): value
        for key, item in items.items()
        for name, value in item.items()
        if isinstance(value, str) and "<" in value
    }
    assert set(sent) == {
        ("m", "publisher"),
        ("m", "status"),
        ("m", "note"),
        ("m", "abstract"),
        ("m", "edition"),
        ("r", "publisher"),
        ("r", "number"),
        ("r", "publisher-place"),
        ("r", "collection-title"),
        ("r", "page"),
        ("r", "volume"),
        ("t", "genre"),
        ("t", "ISBN"),  # read as a plain string: a nocase span would be printed as written
    }
    for (key, name), value in sent.items():
        if name != "ISBN":  # no "<" left that opens a tag: each is alone in a nocase span
            assert "<" not in value.replace('<span class="nocase"><</span>', ""), (key, name, value)
    assert items["t"]["ISBN"] == "<i>1</i>"
    back, _ = _back(items)
    assert back["m"].fields["howpublished"] == '<i>Blog</i> post <span class="nocase">x</span>'
    assert back["m"].fields["pubstate"] == "<b>forthcoming</b>"
    assert back["r"].fields["institution"] == "<i>Lab</i>" and back["r"].fields["number"] == "<b>7</b>"
    assert back["r"].fields["address"] == "<sc>Here</sc>" and back["t"].fields["isbn"] == "<i>1</i>"


# What citeproc-js reads as a variable in a note (CSL.NOTE_FIELD_REGEXP, CSL.NOTE_FIELDS_REGEXP), and the looser
# line other readers match.
_CITEPROC_NOTE_LINE = re.compile(r"^([\-_a-z]+|[A-Z]+):\s*([^\}]+)$")
_CITEPROC_NOTE_INLINE = re.compile(r"\{:(?:[\-_a-z]+|[A-Z]+):[^\}]+\}")
_LOOSE_NOTE_LINE = re.compile(r"^\s*([a-zA-Z-]+)\s*:\s*(.*)$")


def test_tags_in_names_stay_text_and_particles_and_literal_names_survive(tmp_path):
    # Names went out as written: citeproc-js printed <i>Doe</i> in italics and <sc>Team</sc> in small caps.
    items = _export(
        tmp_path,
        "@book{n, title = {T}, year = 2020, publisher = {P}, author = {<i>Doe</i>, <b>J.</b> and {<sc>Team</sc>}"
        ' and de <i>la</i> Fontaine, Jean and van Beethoven, Ludwig and {<span style="x">Lab</span>}},'
        " editor = {Roe, <sup>R</sup>}}\n",
    )
    people = items["n"]["author"] + items["n"]["editor"]
    for person in people:
        for part, value in person.items():
            if isinstance(value, str):
                assert "<" not in value.replace('<span class="nocase"><</span>', ""), (part, value)
    doe, team, fontaine, beethoven, lab, roe = people
    assert doe["parse-names"] is False and roe["parse-names"] is False  # citeproc-js would split the span off
    assert "parse-names" not in team and "literal" in team and "literal" in lab
    assert fontaine["family"] == "Fontaine" and fontaine["given"] == "Jean" and fontaine["parse-names"] is False
    assert fontaine["non-dropping-particle"] == 'de <span class="nocase"><</span>i>la<span class="nocase"><</span>/i>'
    assert beethoven == {"family": "Beethoven", "given": "Ludwig", "non-dropping-particle": "van"}
    back, _ = _back(items)
    assert back["n"].fields["author"] == (
        "<i>Doe</i>, <b>J.</b> and <sc>Team</sc> and de <i>la</i> Fontaine, Jean and van Beethoven, Ludwig"
        ' and <span style="x">Lab</span>'
    )
    assert back["n"].fields["editor"] == "Roe, <sup>R</sup>"


def test_a_note_s_lines_are_kept_but_none_reads_as_a_csl_variable(tmp_path):
    # "type: book" or "issued: 1900" in a note changed the item's type and date in citeproc-js and Zotero.
    items = _export(tmp_path, "@misc{b, title = {B}, year = 2020, note = {type: book, see \\{:issued: 1900\\}}}\n")
    lines = "type: book\n  issued : 1900\nDOI: 10.1/x\nSee {:publisher: Evil} and <i>x</i>: y\nwords, no: field"
    record = Paper(Origin.BIBTEX, (SourceLocation("r.bib", 1),), frozen_mapping({"title": "R", "note": lines}), key="r")
    items |= {item["id"]: item for item in json.loads(to_csl_json([record]))}
    for item in items.values():
        assert not _CITEPROC_NOTE_INLINE.search(item["note"]), item["note"]
        for line in item["note"].split("\n"):
            assert not _CITEPROC_NOTE_LINE.match(line) and not _LOOSE_NOTE_LINE.match(line), line
    # What a reader shows of the note (its rich text's text) is the note as written.
    assert rich_text(items["b"]["note"]).text == "type: book, see {:issued: 1900}"
    assert rich_text(items["r"]["note"]).text == lines


def test_an_edtf_range_goes_out_as_a_csl_range_whatever_else_the_entry_says(tmp_path):
    # Each of these went out as its first year (or month) alone: a range beside a month field, an end with an
    # EDTF qualifier, and a CSL-JSON item's EDTF string date, which was read as its first year.
    items = _export(
        tmp_path,
        "@misc{month, title = {M}, year = 2019, month = may, date = {2019-05/2019-07}}\n"
        "@misc{unsure, title = {U}, date = {2019?/2021}}\n"
        "@misc{about, title = {A}, date = {2019~/2021}}\n"
        "@misc{both, title = {B}, date = {2019/2021%}}\n",
    )
    assert items["month"]["issued"] == {"date-parts": [[2019, 5], [2019, 7]]}
    assert items["unsure"]["issued"] == {"date-parts": [[2019], [2021]]}
    assert items["about"]["issued"] == {"date-parts": [[2019], [2021]], "circa": True}
    assert items["both"]["issued"] == {"date-parts": [[2019], [2021]], "circa": True}
    source = [
        {"id": "s", "type": "book", "title": "S", "issued": "2019/2021"},
        {"id": "r", "type": "book", "title": "R", "issued": {"raw": "2019-05/2019-07"}},
        {"id": "c", "type": "book", "title": "C", "issued": "2018~"},
    ]
    (tmp_path / "in.json").write_text(json.dumps(source), encoding="utf-8")
    exported = run_cli("export", "in.json", "-f", "csl-json", cwd=tmp_path, check=True).stdout
    again = {item["id"]: item["issued"] for item in json.loads(exported)}
    assert again == {
        "s": {"date-parts": [[2019], [2021]]},
        "r": {"date-parts": [[2019, 5], [2019, 7]]},
        "c": {"date-parts": [[2018]], "circa": True},
    }
    biblatex = run_cli("bib", "in.json", "-o", "-", "--dialect", "biblatex", cwd=tmp_path, check=True).stdout
    assert "date = {2019/2021}," in biblatex and "date = {2019-05/2019-07}," in biblatex


def test_a_day_and_a_note_come_back_from_csl_json_through_a_bib_of_either_dialect(tmp_path):
    # The reader kept the year and month of "issued": [[2020, 5, 17]] (the day was lost) and no note at all.
    note = "Citation Key: d\ntex.ids: d0\nissued: 2020-05-17\nSeen at the {:publisher: P}workshop\nDOI: 10.1/x"
    source = [
        {"id": "d", "type": "article-journal", "title": "D", "container-title": "J", "note": note,
         "issued": {"date-parts": [[2020, 5, 17]]}},
        {"id": "e", "type": "book", "title": "E", "publisher": "P", "issued": "2021-03-04"},
    ]  # fmt: skip
    back, findings = _back({item["id"]: item for item in source})
    assert findings == []
    # What citeproc-js and Zotero read as variables is none of the note's text.
    assert back["d"].fields["note"] == "Seen at the workshop" and "note" not in back["e"].fields
    assert [{f: back[k].fields[f] for f in ("year", "month", "date")} for k in "de"] == [
        {"year": "2020", "month": "5", "date": "2020-05-17"},
        {"year": "2021", "month": "3", "date": "2021-03-04"},
    ]
    (tmp_path / "in.json").write_text(json.dumps(source), encoding="utf-8")
    for dialect, dated in (("biblatex", "date = {2020-05-17},"), ("bibtex", "month = may,")):
        bib = run_cli("bib", "in.json", "-o", f"{dialect}.bib", "--dialect", dialect, cwd=tmp_path, check=True)
        written = (tmp_path / f"{dialect}.bib").read_text(encoding="utf-8")
        assert dated in written and "date = {2020-05-17}," in written and "note = {Seen at the workshop}," in written
        again = {
            i["id"]: i for i in json.loads(run_cli("export", f"{dialect}.bib", "-f", "csl-json", cwd=tmp_path).stdout)
        }
        assert again["d"]["issued"] == {"date-parts": [[2020, 5, 17]]}, (dialect, bib.stderr)
        assert again["e"]["issued"] == {"date-parts": [[2021, 3, 4]]} and again["d"]["note"] == "Seen at the workshop"


def test_an_exported_note_reads_back_as_written(tmp_path):
    # Lines a reader would take for variables go out with inert colons, and come back as the note's own text.
    lines = "type: book\n  issued : 1900\nDOI: 10.1/x\nSee {:publisher: Evil} and <i>x</i>: y\nhttps://b.org/y"
    record = Paper(Origin.BIBTEX, (SourceLocation("r.bib", 1),), frozen_mapping({"title": "R", "note": lines}), key="r")
    back, _ = _back({item["id"]: item for item in json.loads(to_csl_json([record]))})
    assert back["r"].fields["note"] == lines


def test_an_open_ended_range_goes_out_as_csl_s_open_range_and_comes_back(tmp_path):
    # date = {2019/..} went out as 2019 alone (an ongoing series read as one year), and CSL's open range
    # [[2019], [0]] (the CSL test suite's, pandoc's citeproc's) came back as year = {2019}.
    items = _export(
        tmp_path,
        "@misc{edtf, title = {E}, date = {2019/..}}\n"
        "@misc{month, title = {M}, year = 2019, month = may, date = {2019-05/}}\n"
        "@misc{about, title = {A}, date = {2019~/..}}\n",
    )
    assert items["edtf"]["issued"] == {"date-parts": [[2019], [0]]}
    assert items["month"]["issued"] == {"date-parts": [[2019, 5], [0]]}
    assert items["about"]["issued"] == {"date-parts": [[2019], [0]], "circa": True}
    source = [
        {"id": "s", "type": "book", "title": "S", "issued": "2019/.."},
        {"id": "r", "type": "book", "title": "R", "issued": {"raw": "2019-05/"}},
        {"id": "e", "type": "book", "title": "E", "issued": {"date-parts": [[2019], []]}},
    ]
    back, findings = _back(items | {item["id"]: item for item in source})
    assert findings == []
    dates = {key: paper.fields["date"] for key, paper in back.items()}
    assert dates == {
        "edtf": "2019/",
        "month": "2019-05/",
        "about": "2019/",
        "s": "2019/",
        "r": "2019-05/",
        "e": "2019/",
    }
    assert back["about"].latex_fields["date"] == "{2019~/}"
    (tmp_path / "o.json").write_text(json.dumps(list(items.values()) + source), encoding="utf-8")
    biblatex = run_cli("bib", "o.json", "-o", "o.bib", "--dialect", "biblatex", cwd=tmp_path, check=True)
    written = (tmp_path / "o.bib").read_text(encoding="utf-8")
    assert written.count("date = {2019/},") == 3 and written.count("date = {2019-05/},") == 2, biblatex.stderr
    again = json.loads(run_cli("export", "o.bib", "-f", "csl-json", cwd=tmp_path, check=True).stdout)
    assert {item["id"]: item["issued"]["date-parts"][1] for item in again} == dict.fromkeys(dates, [0])


def test_a_bibtex_year_open_at_its_end_goes_out_as_csl_s_open_range(tmp_path):
    # year = {1990--} (a series still running, as BibTeX users write it) went out as 1990 alone.
    items = _export(
        tmp_path, "@misc{a, title = {A}, year = {1990--}}\n@misc{b, title = {B}, year = {1990\\textendash}}\n"
    )
    assert [items[k]["issued"] for k in "ab"] == [{"date-parts": [[1990], [0]]}] * 2
    back, _ = _back(items)
    assert [(back[k].fields["year"], back[k].fields["date"]) for k in "ab"] == [("1990", "1990/")] * 2


def test_a_note_s_own_lines_and_its_doi_survive_csl_json_to_bib_and_back(tmp_path):
    # A note's "TODO: check pages" and "see: appendix B" were dropped on reading (only "Extended version." was
    # left), and its "DOI: ..." line with them.
    note = "TODO: check pages\nDOI: 10.1000/abc\nsee: appendix B\nExtended version."
    (tmp_path / "in.json").write_text(json.dumps([{"id": "k", "type": "book", "title": "T", "note": note}]))
    run_cli("bib", "in.json", "-o", "out.bib", cwd=tmp_path, check=True)
    bib = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert "doi = {10.1000/abc}," in bib and "note = {TODO: check pages\nsee: appendix B\nExtended version.}" in bib
    kept = "TODO: check pages see: appendix B Extended version."  # a .bib reader takes a line end for a space
    again = json.loads(run_cli("export", "out.bib", "-f", "csl-json", cwd=tmp_path, check=True).stdout)
    assert again[0]["DOI"] == "10.1000/abc" and rich_text(again[0]["note"]).text == kept
    back, findings = _back({item["id"]: item for item in again})
    assert findings == [] and back["k"].fields["note"] == kept and back["k"].fields["doi"] == "10.1000/abc"


def test_a_year_is_exported_by_the_rule_keys_read_and_digits_that_are_no_year_as_text(tmp_path):
    # "12021" (a typo) went out as the year 1202, and "(2021)" as no date at all.
    items = _export(tmp_path, "@misc{a, title = {A}, year = {12021}}\n@misc{b, title = {B}, year = {(2021)}}\n")
    assert items["b"]["issued"] == {"date-parts": [[2021]]}
    assert items["a"]["issued"] == {"literal": "12021"}
