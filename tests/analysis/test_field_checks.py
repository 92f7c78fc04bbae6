"""Field integrity checks (DOI, year, month, @string, HTML, empty fields, 'and and'), crossref inheritance,
and `check --fix` editing only the bytes at fault, on .bib files written the way JabRef, Zotero and
hand-edited Latin-1 files with CRLF line ends write them."""

from __future__ import annotations

import json
import re
from pathlib import Path

from helpers import requires_latex, run_bibtex, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from surveytool.analysis.checks import REGISTRY, CheckContext, run_checks
from surveytool.analysis.name_lists import stray_and_removals
from surveytool.bibtex.reader import read_bibtex
from surveytool.model import Taxonomy
from surveytool.output.bib_in_place import fix_entries
from surveytool.sources.read import read_text_file

FIELD_CHECKS = (
    "doi-malformed",
    "year-malformed",
    "month-malformed",
    "undefined-string",
    "html-in-field",
    "empty-field",
    "stray-and",
)

# A JabRef export: aligned fields, capitalised types, @String macros, its metadata comment.
JABREF = """% Encoding: UTF-8

@String{ieee = {IEEE}}
@String{tpds = ieee # { Transactions on Parallel and Distributed Systems}}

@Article{Li2021,
  author    = {Li, Shen and Zhao, Yanli and and Varma, Rohan},
  journal   = tpds,
  title     = {{PyTorch} Distributed: Experiences on Accelerating Data Parallel Training},
  year      = {2021},
  month     = jun,
  doi       = {https://doi.org/10.14778/3415478.3415530},
  publisher = acmpress,
  note      = {},
}

@InProceedings{Rajbhandari2020,
  author    = {Rajbhandari, Samyam and Rasley, Jeff and Ruwase, Olatunji and He, Yuxiong},
  booktitle = ieee # { SC20},
  title     = {ZeRO: Memory Optimizations Toward Training Trillion Parameter Models},
  year      = {2020},
  month     = {Nov.},
  doi       = {10.1109/SC41405.2020.00024},
}

@Comment{jabref-meta: databaseType:bibtex;}
"""

# A Zotero export: HTML from the web page in the title, a link in url that must stay as it is.
ZOTERO = """
@article{fedus_switch_2022,
\ttitle = {Switch {Transformers}: {Scaling} to <i>Trillion</i> Parameter Models with Simple &amp; Efficient Sparsity},
\tvolume = {23},
\turl = {https://jmlr.org/papers/v23/21-0998.html?a=1&amp;b=2},
\tdoi = {doi:10.48550/arXiv.2101.03961},
\turldate = {2024-01-09},
\tjournal = {Journal of Machine Learning Research},
\tauthor = {Fedus, William and Zoph, Barret and Shazeer, Noam and},
\tyear = {2022},
\tmonth = {13},
}
"""

# Hand-edited, saved as Latin-1 with CRLF ends: an 'and' at the front, an empty field, a year typo.
LATIN1_CRLF = (
    "@inproceedings{mueller2019,\r\n"
    "  author = {and Müller, Jürgen and Gaßner, Ørsted},\r\n"
    "  title = {Über verteiltes Lernen},\r\n"
    "  booktitle = {Proc. Größe},\r\n"
    "  year = {20x9},\r\n"
    '  pages = "",\r\n'
    "  publisher = {Springer},\r\n"
    "}\r\n"
)


def findings(path: Path, *checks: str, dialect: str = "bibtex") -> list[tuple[str, int, str]]:
    """(check, line, message) of the named checks on the file, read as a run reads it."""
    text, _ = read_text_file(path, path.name)
    document = read_bibtex(text.text, path.name)
    context = CheckContext(document.papers, None, (), dialect, 2, blocks=document.blocks)
    found = run_checks(context, document.findings, checks or FIELD_CHECKS)
    return [
        (f.check, f.location.line if f.location else 0, f.message) for f in found if f.check in (checks or FIELD_CHECKS)
    ]


def test_the_field_checks_are_registered_and_explained():
    for name in FIELD_CHECKS:
        assert REGISTRY[name].run is not None and REGISTRY[name].explanation
    assert {n for n in FIELD_CHECKS if REGISTRY[n].fixable} == {
        "doi-malformed",
        "html-in-field",
        "empty-field",
        "stray-and",
    }


def test_a_jabref_export_gets_each_problem_on_the_line_of_its_field(tmp_path):
    (tmp_path / "refs.bib").write_text(JABREF, encoding="utf-8")
    assert findings(tmp_path / "refs.bib") == [
        ("stray-and", 7, "author of 'Li2021' has 'and and'"),
        ("doi-malformed", 12, "doi of 'Li2021' is not a DOI: 'https://doi.org/10.14778/3415478.3415530'"),
        ("undefined-string", 13, "field 'publisher' of 'Li2021' uses @string 'acmpress', which no source defines"),
        ("empty-field", 14, "field 'note' of 'Li2021' is empty"),
    ]


def test_a_zotero_export_gets_its_html_reported_but_not_in_its_url(tmp_path):
    (tmp_path / "zotero.bib").write_text(ZOTERO, encoding="utf-8")
    assert findings(tmp_path / "zotero.bib") == [
        ("html-in-field", 3, "field 'title' of 'fedus_switch_2022' has HTML: &amp; <i> </i>"),
        ("doi-malformed", 6, "doi of 'fedus_switch_2022' is not a DOI: 'doi:10.48550/arXiv.2101.03961'"),
        ("stray-and", 9, "author of 'fedus_switch_2022' has a trailing 'and'"),
        ("month-malformed", 11, "month of 'fedus_switch_2022' is not a month: '13'"),
    ]


def test_a_latin1_file_with_crlf_ends_is_checked_line_by_line(tmp_path):
    (tmp_path / "old.bib").write_bytes(LATIN1_CRLF.encode("latin-1"))
    assert findings(tmp_path / "old.bib") == [
        ("stray-and", 2, "author of 'mueller2019' has a leading 'and'"),
        ("year-malformed", 5, "year of 'mueller2019' is not a four-digit year: '20x9'"),
        ("empty-field", 6, "field 'pages' of 'mueller2019' is empty"),
    ]


def test_values_people_write_correctly_pass_every_field_check(tmp_path):
    good = (
        "@string{acm = {ACM}}\n"
        "@article{a, author = {Anderson, Sandy and {Barnes and Noble} and Andrew Sand}, title = {$a<b$ \\& "
        "{<}x{>} in R\\&D}, journal = acm # { Computing Surveys}, year = 2020, month = jun # {~15}, "
        "doi = {10.1145/3458817.3476209}, url = {https://x.org/?a=1&amp;b=2}}\n"
        "@book{b, editor = {Ng, Andrew}, title = {T}, publisher = {P}, year = {1999}, month = {May}}\n"
        '@misc{c, author = "Ng, Andrew and Dean, Jeff", title = {T}, year = "2001", month = 12, note = {cacm}}\n'
        "@misc{d, title = {T}, journal = cacm, month = {Sept.}, year = {{2003}}}\n"
    )
    (tmp_path / "good.bib").write_text(good, encoding="utf-8")
    assert findings(tmp_path / "good.bib") == []
    # The standard BibTeX styles define cacm; biblatex does not, and biber reads no month's name.
    assert findings(tmp_path / "good.bib", dialect="biblatex") == [
        ("month-malformed", 3, "month of 'b' is not a month biber reads: 'May'"),
        ("month-malformed", 5, "month of 'd' is not a month biber reads: 'Sept.'"),
        ("undefined-string", 5, "field 'journal' of 'd' uses @string 'cacm', which no source defines"),
    ]


def test_a_bare_word_that_is_no_macro_name_is_named_as_such(tmp_path):
    (tmp_path / "bare.bib").write_text("@article{a,\n  title = {T},\n  pages = 12--15,\n}\n", encoding="utf-8")
    assert findings(tmp_path / "bare.bib", "undefined-string") == [
        ("undefined-string", 3, "field 'pages' of 'a' is the bare '12--15': BibTeX reads a number or a macro")
    ]


@requires_latex
def test_a_string_used_above_its_definition_in_the_same_file_is_undefined_as_bibtex_reads_it(tmp_path):
    # A JabRef file, CRLF, whose @string block was appended at the end by hand.
    text = (
        "@article{a,\r\n  author = {A. Author},\r\n  title = {T},\r\n  journal = jmlr,\r\n  year = 2020,\r\n}\r\n\r\n"
        '@string{jmlr = "Journal of Machine Learning Research"}\r\n\r\n'
        "@article{b,\r\n  author = {B. Author},\r\n  title = {U},\r\n  journal = jmlr,\r\n  year = 2021,\r\n}\r\n"
    )
    (tmp_path / "references.bib").write_bytes(text.encode())
    assert findings(tmp_path / "references.bib", "undefined-string") == [
        ("undefined-string", 4, "field 'journal' of 'a' uses @string 'jmlr' above its definition")
    ]
    result, bbl = run_bibtex(tmp_path)
    assert 'string name "jmlr" is undefined' in result.stdout and "empty journal in a\n" in result.stdout
    assert bbl.count("Journal of Machine Learning Research") == 1  # b's, below the definition


def test_stray_and_removals_cut_only_the_extra_and_with_its_outer_space():
    def fixed(names: str) -> str:
        problems, cuts = stray_and_removals(names)
        for start, end in reversed(cuts):
            names = names[:start] + names[end:]
        return names

    assert fixed("A and and B") == "A and B"
    assert fixed("and A and B") == "A and B"
    assert fixed("A and B and") == "A and B"
    assert fixed("and and A AND\n   and B and") == "A AND B"
    assert fixed("{Barnes and Noble} and {and} and C") == "{Barnes and Noble} and {and} and C"
    assert stray_and_removals("Alexander Sandberg and Anders Band") == ([], [])
    assert stray_and_removals("and and") == (["a leading 'and'"], [])  # no name at all: nothing to keep


PROCEEDINGS = """@proceedings{sc20,
  title     = {Proceedings of SC20},
  booktitle = {SC20: International Conference for High Performance Computing},
  year      = {2020},
  publisher = {IEEE},
}

@inproceedings{zero,
  author   = {Rajbhandari, Samyam},
  title    = {ZeRO: Memory Optimizations},
  crossref = {SC20},
  sections = {memory},
}

@incollection{chapter,
  author   = {Doe, Jane},
  title    = {A Chapter},
  crossref = {vol},
  sections = {memory},
}

@collection{vol,
  title  = {The Volume},
  editor = {Roe, Richard},
  year   = {2019},
}

@xdata{ieeepub,
  publisher = {IEEE},
}

@inproceedings{orphan,
  author   = {Doe, John},
  title    = {No Parent Has My Venue},
  crossref = {vol},
  xdata    = {ieeepub},
  sections = {memory},
}

@book{whole,
  author   = {Smith, Ann},
  title    = {A Book Cited on Its Own},
  year     = {2018},
  xdata    = {ieeepub},
}
"""


def test_crossref_children_inherit_fields_and_container_parents_need_no_tags(tmp_path):
    (tmp_path / "xref.bib").write_text(PROCEEDINGS, encoding="utf-8")
    found = findings(tmp_path / "xref.bib", "missing-field", "untagged-entry")
    # zero: booktitle, year from sc20 (named in another case); chapter: the volume's title as its booktitle,
    # its year, publisher from nowhere; orphan: booktitle from the volume's title, year from it; whole: publisher
    # from its xdata, but it is a work of its own that needs tags.
    assert found == [
        ("missing-field", 15, "@incollection 'chapter' has no publisher"),
        ("untagged-entry", 40, "entry 'whole' has no tags"),
    ]


def test_a_crossref_child_without_a_parent_is_still_missing_its_fields(tmp_path):
    (tmp_path / "lost.bib").write_text(
        "@inproceedings{lost,\n  author = {A, B},\n  title = {T},\n  crossref = {nowhere},\n}\n", encoding="utf-8"
    )
    assert findings(tmp_path / "lost.bib", "missing-field", "crossref-undefined") == [
        ("missing-field", 1, "@inproceedings 'lost' has no booktitle, year"),
        ("crossref-undefined", 4, "crossref of 'lost' names 'nowhere', which is not in the bibliography"),
    ]
    (tmp_path / "xref.bib").write_text(PROCEEDINGS, encoding="utf-8")
    assert findings(tmp_path / "xref.bib", "crossref-undefined") == []  # SC20 is sc20, as BibTeX matches


def test_a_crossref_naming_a_biblatex_alias_is_undefined_for_bibtex_only(tmp_path):
    (tmp_path / "alias.bib").write_text(
        "@proceedings{sosp19,\n  ids = {sosp2019},\n  title = {SOSP '19},\n  year = {2019},\n}\n\n"
        "@inproceedings{pipe,\n  author = {A, B},\n  title = {T},\n  crossref = {SOSP2019},\n}\n",
        encoding="utf-8",
    )
    assert findings(tmp_path / "alias.bib", "crossref-undefined") == [
        (
            "crossref-undefined",
            10,
            "crossref of 'pipe' names 'SOSP2019', an ids alias of 'sosp19', which BibTeX does not read (biber does)",
        )
    ]
    assert findings(tmp_path / "alias.bib", "crossref-undefined", dialect="biblatex") == []


def test_check_fix_edits_only_the_bytes_at_fault_in_a_latin1_crlf_file(tmp_path):
    before = LATIN1_CRLF.encode("latin-1")
    (tmp_path / "old.bib").write_bytes(before)
    fixed = run_cli("check", "old.bib", "--fix", "--checks", ",".join(FIELD_CHECKS), cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    assert "fixed old.bib:1: mueller2019: author: a leading 'and' removed; empty pages removed" in fixed.stdout
    assert (tmp_path / "old.bib").read_bytes() == before.replace(b"{and M\xfcller", b"{M\xfcller").replace(
        b'  pages = "",\r\n', b""
    )
    assert "old.bib:5: warning [year-malformed]" in fixed.stderr  # not ours to guess: left for the user


def test_check_fix_on_jabref_and_zotero_exports_changes_the_fixed_bytes_only(tmp_path):
    (tmp_path / "refs.bib").write_text(JABREF + ZOTERO, encoding="utf-8")
    fixed = run_cli("check", "refs.bib", "--fix", "--checks", ",".join(FIELD_CHECKS), cwd=tmp_path)
    assert fixed.returncode == 1, fixed.stderr  # the undefined @string is an error --fix cannot mend
    expected = (
        (JABREF + ZOTERO)
        .replace("Zhao, Yanli and and Varma", "Zhao, Yanli and Varma")
        .replace("{https://doi.org/10.14778", "{10.14778")
        .replace("  note      = {},\n", "")
        .replace("Simple &amp; Efficient", "Simple \\& Efficient")
        .replace("{doi:10.48550", "{10.48550")
        .replace("Shazeer, Noam and}", "Shazeer, Noam}")
    )
    assert (tmp_path / "refs.bib").read_text(encoding="utf-8") == expected
    again = run_cli("check", "refs.bib", "--fix", "--json", "--checks", ",".join(FIELD_CHECKS), cwd=tmp_path)
    assert (tmp_path / "refs.bib").read_text(encoding="utf-8") == expected
    left = [(f["check"], f["line"]) for f in json.loads(again.stdout)]
    # The note's line is gone: the Zotero entry's lines are one less than in the file given.
    assert left == [("undefined-string", 13), ("html-in-field", 28), ("month-malformed", 36)]


def test_fix_repairs_only_the_checks_asked_for(tmp_path):
    (tmp_path / "refs.bib").write_text(JABREF, encoding="utf-8")
    run_cli("check", "refs.bib", "--fix", "--checks", "empty-field", cwd=tmp_path)
    assert (tmp_path / "refs.bib").read_text(encoding="utf-8") == JABREF.replace("  note      = {},\n", "")


def test_fix_leaves_the_tags_field_and_remarks_alone(tmp_path):
    bib = (
        "@article{a,\n  title = {T}, % a remark BibTeX reads as text\n  note = {},\n  sections = {},\n"
        "  doi = {http://doi.acm.org/10.1145/54277.54278},\n}\n"
    )
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    assert findings(tmp_path / "refs.bib", "empty-field") == [("empty-field", 3, "field 'note' of 'a' is empty")]
    run_cli("check", "refs.bib", "--fix", "--checks", "empty-field,doi-malformed", cwd=tmp_path)
    assert (tmp_path / "refs.bib").read_text(encoding="utf-8") == bib.replace("  note = {},\n", "").replace(
        "http://doi.acm.org/", ""
    )


def test_title_capitals_inside_html_tags_are_left_to_html_in_field(tmp_path):
    (tmp_path / "zotero.bib").write_text(ZOTERO.replace("<i>Trillion</i>", "<i>GShard</i>"), encoding="utf-8")
    assert findings(tmp_path / "zotero.bib", "title-case-unprotected") == []
    assert findings(tmp_path / "zotero.bib", "html-in-field")[0][2].endswith("has HTML: &amp; <i> </i>")


_NAMES = st.lists(st.sampled_from(["Müller, Jürgen", "Ng, Andrew", "{Barnes and Noble}", "Ada Lovelace"]), min_size=1)
_AND_SPLIT = re.compile(r"(?<!\S)and(?!\S)", re.IGNORECASE)


@st.composite
def _defective_entry(draw, key: str, nl: str) -> str:
    names = draw(_NAMES)
    joins = [draw(st.sampled_from([" and ", " and and ", f" and{nl}    and ", " AND "])) for _ in names[1:]]
    author = draw(st.sampled_from(["", "and ", "and and "])) + "".join(
        n + j for n, j in zip(names, [*joins, ""], strict=True)
    )
    author += draw(st.sampled_from(["", " and", " and and"]))
    fields = [("author", author), ("title", draw(st.sampled_from(["Fish &amp; Chips", "A \\& B", "Plain"])))]
    fields.append(
        ("doi", draw(st.sampled_from(["10.1145/3458817", "https://doi.org/10.1145/1", "doi:10.1109/5.771073"])))
    )
    fields += [(name, "") for name in draw(st.lists(st.sampled_from(["note", "pages", "volume"]), unique=True))]
    fields.append(("year", "2020"))
    order = draw(st.permutations(fields))
    quoted = draw(st.booleans())
    values = [f'{n} = "{v}"' if quoted and "{" not in v else f"{n} = {{{v}}}" for n, v in order]
    if draw(st.booleans()):
        return f"@article{{{key}, " + ", ".join(values) + "}" + nl
    return f"@article{{{key},{nl}" + "".join(f"  {v},{nl}" for v in values) + "}" + nl


@st.composite
def _defective_files(draw) -> str:
    nl = draw(st.sampled_from(["\n", "\r\n"]))
    count = draw(st.integers(1, 3))
    return nl.join(draw(_defective_entry(f"k{i}", nl)) for i in range(count))


def _expected_fields(fields: dict[str, str]) -> dict[str, str]:
    """The fields an entry should read as once fixed: what --fix promises, in plain text."""
    expected = {n: v for n, v in fields.items() if v.strip()}
    expected["title"] = expected["title"].replace("&amp;", "&")
    expected["doi"] = re.sub(r"^(https://doi\.org/|doi:)", "", expected["doi"])
    return _names_joined(expected)


def _names_joined(fields: dict[str, str]) -> dict[str, str]:
    """``fields`` with the author list as its names joined by one lower-case 'and' (stray ones dropped)."""
    names = [n.strip() for n in _AND_SPLIT.split(" ".join(fields["author"].split())) if n.strip()]
    return {**fields, "author": " and ".join(names)}


@settings(max_examples=60, deadline=None)
@given(text=_defective_files())
def test_fixed_entries_read_as_the_fixes_promise_and_check_clean(text):
    taxonomy = Taxonomy("t", (), ())
    before = read_bibtex(text, "p.bib")
    fixed, _ = fix_entries(text, "p.bib", before.papers, taxonomy, selected=frozenset(FIELD_CHECKS))
    after = read_bibtex(fixed, "p.bib")
    assert [p.key for p in after.papers] == [p.key for p in before.papers] and not after.findings
    for old, new in zip(before.papers, after.papers, strict=True):
        # Stray 'and's are gone (the checks below say so); the names and their order are kept.
        assert _names_joined(dict(new.fields)) == _expected_fields(dict(old.fields)), (old.raw, new.raw)
    context = CheckContext(after.papers, None, (), "bibtex", 2, blocks=after.blocks)
    assert run_checks(context, (), FIELD_CHECKS) == []
    again, _ = fix_entries(fixed, "p.bib", after.papers, taxonomy, selected=frozenset(FIELD_CHECKS))
    assert again == fixed


def test_fields_commented_out_tex_style_are_not_checked(tmp_path):
    bib = "@article{a,\n  title = {T},\n  % abstract = {a &lt; b},\n  % pages = {},\n  year = {2020},\n}\n"
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    assert findings(tmp_path / "refs.bib") == []
    run_cli("check", "refs.bib", "--fix", "--checks", ",".join(FIELD_CHECKS), cwd=tmp_path)
    assert (tmp_path / "refs.bib").read_text(encoding="utf-8") == bib
    (tmp_path / "refs.bib").write_text(bib.replace("% pages", "pages"), encoding="utf-8")
    assert findings(tmp_path / "refs.bib") == [("empty-field", 4, "field 'pages' of 'a' is empty")]


def test_a_stray_latin1_byte_between_two_fixes_of_one_entry_stays_that_byte(tmp_path):
    before = (
        "@article{a,\n  author = {M\u00fcller, J. and and Ng, A.},\n  title = {Caf".encode()
        + b"\xe9 &amp; Tea},\n  note = {},\n  year = {2020},\n}\n"
    )
    (tmp_path / "mixed.bib").write_bytes(before)
    run_cli("check", "mixed.bib", "--fix", "--checks", ",".join(FIELD_CHECKS), cwd=tmp_path)
    assert (tmp_path / "mixed.bib").read_bytes() == before.replace(b"and and", b"and").replace(
        b"&amp;", b"\\&"
    ).replace(b"  note = {},\n", b"")


def test_a_volume_cited_through_its_children_is_not_asked_to_be_placed(tmp_path):
    volume = "@proceedings{vol,\n  title = {Proceedings of the Annual Meeting},\n  year = {2021},\n}\n\n"
    child = (
        "@inproceedings{paper,\n  author = {Doe, Jane},\n  title = {Pipeline Parallel Training},\n"
        "  crossref = {vol},\n  sections = {pipeline-parallel},\n}\n"
    )
    lender = "\n@xdata{lender,\n  publisher = {IEEE},\n}\n"

    def placing(text: str) -> set[tuple[str, str]]:
        (tmp_path / "refs.bib").write_text(text, encoding="utf-8")
        found = json.loads(run_cli("check", "refs.bib", "--json", cwd=tmp_path).stdout)
        return {(f["check"], f["key"]) for f in found if f["check"] in ("untagged-entry", "no-section", "needs-review")}

    alone = placing(volume)
    assert {key for _, key in alone} == {"vol"}  # on its own it is a work to place
    assert placing(volume + child + lender) == set()


def test_a_macro_defined_in_another_source_is_defined(tmp_path):
    # BibTeX reads \bibliography{strings,refs} as one file: a macro of the first serves the second.
    (tmp_path / "strings.bib").write_text("@string{tpds = {IEEE Trans. Parallel Distrib. Syst.}}\n", encoding="utf-8")
    (tmp_path / "refs.bib").write_text(
        "@article{a,\n  title = {T},\n  journal = tpds,\n  publisher = ieeepress,\n}\n", encoding="utf-8"
    )
    found = run_cli("check", "strings.bib", "refs.bib", "--json", "--checks", "undefined-string", cwd=tmp_path)
    assert [(f["path"], f["line"], f["message"]) for f in json.loads(found.stdout)] == [
        ("refs.bib", 4, "field 'publisher' of 'a' uses @string 'ieeepress', which no source defines")
    ]


SCHOLAR = """@string{se = "Science & Engineering"}

@article{g03,
  author = {Doe, Jane},
  title = {50% faster pipeline parallel training of deep networks},
  journal = {J},
  year = 2001,
  url = {https://scholar.example.org/?q=a&b=50%25},
}

@article{g04, author={Roe, Rich}, title={Pipeline parallelism: Tom & Jerry, R\\&D \\&amp; Co &amp; more},
  journal = se, year=2002}
"""


def test_raw_ampersands_and_percents_are_reported_on_their_lines_and_fixed_only_there(tmp_path):
    path = tmp_path / "refs.bib"
    path.write_bytes(SCHOLAR.encode())
    assert findings(path, "unescaped-special") == [
        (
            "unescaped-special",
            1,
            "@string 'se' has a raw '&': LaTeX stops at the '&' (an alignment tab outside a table)",
        ),
        (
            "unescaped-special",
            5,
            "field 'title' of 'g03' has a raw '%': LaTeX reads the '%' as a comment and drops the rest of the line",
        ),
        (
            "unescaped-special",
            11,
            "field 'title' of 'g04' has a raw '&': LaTeX stops at the '&' (an alignment tab outside a table)",
        ),
    ]  # not the url's, not the escaped \&, not &amp; (html-in-field's)
    checked = run_cli("check", "refs.bib", "--checks", "unescaped-special", "--json", cwd=tmp_path)
    assert checked.returncode == 1 and path.read_bytes() == SCHOLAR.encode()  # reported, the file left alone
    assert {f["hint"] for f in json.loads(checked.stdout)} == {
        "write \\& instead",
        "write \\% instead; surveytool check --fix does this",
        "write \\& instead; surveytool check --fix does this",
    }
    fixed = run_cli("check", "refs.bib", "--fix", "--checks", "unescaped-special", cwd=tmp_path)
    assert "fixed refs.bib:3: g03: title: % -> \\%" in fixed.stdout
    assert "fixed refs.bib:11: g04: title: & -> \\&" in fixed.stdout
    assert path.read_text() == SCHOLAR.replace("50% faster", "50\\% faster").replace("Tom & Jerry", "Tom \\& Jerry")
    assert findings(path, "unescaped-special") == [findings(path, "unescaped-special")[0]]  # only the @string's
    again = run_cli("check", "refs.bib", "--fix", "--checks", "unescaped-special", cwd=tmp_path)
    assert "fixed" not in again.stdout and path.read_text().count("\\%") == 1


def test_the_year_of_a_placeholder_surveytool_wrote_is_reported_once_as_unresolved(tmp_path: Path):
    (tmp_path / "references.bib").write_text(
        "@misc{anon-e6d1,\n  title = {Unresolved snippet: We study graph partitioning…},\n"
        "  year = {n.d.},\n  key = {Unresolved anon-e6d1},\n}\n\n"
        "@misc{typo,\n  title = {A real paper},\n  author = {Ann Smith},\n  year = {n.d.},\n}\n",
        encoding="utf-8",
    )
    assert findings(tmp_path / "references.bib", "year-malformed", "unresolved-entry") == [
        ("unresolved-entry", 1, "'anon-e6d1' is a placeholder for an unidentified paper"),
        ("year-malformed", 10, "year of 'typo' is not a four-digit year: 'n.d.'"),
    ]


def test_a_year_or_month_beside_a_date_that_says_another_is_reported_at_its_line(tmp_path):
    (tmp_path / "dates.bib").write_text(
        "@article{d1,\n  year = {2021},\n  date = {2020},\n}\n"
        "@article{d2,\n  year = 2020,\n  month = mar,\n  date = {2020-05-01},\n}\n"
        "@article{same,\n  year = 2020,\n  month = may,\n  date = {2020-05},\n}\n"
        "@article{range,\n  year = 2020,\n  date = {2020/2021},\n}\n",
        encoding="utf-8",
    )
    assert findings(tmp_path / "dates.bib", "date-conflict") == [
        (
            "date-conflict",
            2,
            "year 2021 of 'd1' disagrees with its date 2020: BibTeX prints the year, biblatex the date",
        ),
        (
            "date-conflict",
            7,
            "month mar of 'd2' disagrees with its date 2020-05-01: BibTeX prints the month, biblatex the date",
        ),
    ]


def test_fix_leaves_a_field_named_twice_alone_as_bibtex_reads_its_first_value():
    # BibTeX reads `note = {}` here and ignores NOTE: removing the empty note would have it print the other.
    bib = (
        "@article{a,\n  title = {T},\n  note = {},\n  NOTE = {Printed by biber only},\n"
        "  doi = {https://doi.org/10.1/x},\n  DOI = {10.1/y},\n  year = {2020},\n}\n"
    )
    document = read_bibtex(bib, "p.bib")
    assert document.papers[0].fields["note"] == "" and "10.1/x" in document.papers[0].fields["doi"]
    fixed, edits = fix_entries(bib, "p.bib", document.papers, Taxonomy("t", (), ()), selected=frozenset(FIELD_CHECKS))
    assert (fixed, edits) == (bib, [])


def test_the_hint_on_a_field_named_twice_says_fix_leaves_it_and_fix_does(tmp_path):
    # Two copies of one entry pasted together by hand (CRLF, as Windows editors write them): the hints promised
    # "--fix removes it", and --fix, which must not have BibTeX read another value, left every byte as it was.
    bib = (
        "@inproceedings{rajbhandari2020zero,\r\n  author = {Rajbhandari, Samyam and and Rasley, Jeff},\r\n"
        "  author = {Rajbhandari, Samyam and Rasley, Jeff},\r\n  title = {{ZeRO}: Memory Optimizations},\r\n"
        "  booktitle = {SC20: Networking, Storage &amp; Analysis},\r\n  booktitle = {SC20},\r\n"
        "  year = {2020},\r\n  doi = {https://doi.org/10.1109/SC41405.2020.00024},\r\n"
        "  doi = {10.1109/SC41405.2020.00024},\r\n  note = {},\r\n  note = {},\r\n  pages = {1--16},\r\n"
        "  pages = {},\r\n  publisher = {},\r\n  NOTE = {},\r\n}\r\n\r\n"
        "@article{huang2019gpipe,\r\n  author = {Huang, Yanping},\r\n  title = {{GPipe}},\r\n  journal = {NeurIPS},\r\n"
        "  year = {2019},\r\n  note = {},\r\n  note = {50% faster},\r\n  keywords = {pipeline},\r\n}\r\n"
    )
    (tmp_path / "refs.bib").write_bytes(bib.encode())
    checked = run_cli("check", "refs.bib", "--json", cwd=tmp_path)
    hints = {(f["check"], f["line"]): f["hint"] for f in json.loads(checked.stdout) if f["check"] in FIELD_CHECKS}
    left = "surveytool check --fix leaves {} alone, named twice (duplicate-field): delete the value you do not mean"
    assert hints == {
        ("stray-and", 2): left.format("author"),
        ("html-in-field", 5): left.format("booktitle"),
        ("doi-malformed", 8): left.format("doi"),
        ("empty-field", 10): left.format("note"),
        ("empty-field", 14): "surveytool check --fix removes it",
        ("empty-field", 23): left.format("note"),
    }
    fixed = run_cli("check", "refs.bib", "--fix", cwd=tmp_path)
    assert fixed.stdout.splitlines()[0] == "fixed refs.bib:1: rajbhandari2020zero: empty publisher removed"
    assert (tmp_path / "refs.bib").read_bytes() == bib.replace("  publisher = {},\r\n", "").encode()


def test_a_raw_percent_or_ampersand_in_an_abstract_is_a_warning_as_no_standard_style_prints_it(tmp_path):
    # An ACM DL export's abstract ("50% less memory", "R&D") made every check of the file exit 1.
    (tmp_path / "acm.bib").write_text(
        "@inproceedings{a1,\n  author = {Doe, Jane},\n  title = {Pipelines},\n  booktitle = {SOSP},\n"
        "  year = {2019},\n  abstract = {We use 50% less memory in R&D clusters.},\n}\n",
        encoding="utf-8",
    )
    checked = run_cli("check", "acm.bib", "--checks", "unescaped-special", "--json", cwd=tmp_path)
    [finding] = json.loads(checked.stdout)
    assert (finding["severity"], finding["line"], checked.returncode) == ("warning", 6, 0)


def test_an_empty_field_is_named_as_the_entry_writes_it(tmp_path):
    # IEEE Xplore writes ISSN in capitals and leaves number and month empty: the finding said 'issn', a name
    # the user searching the file for it does not find as such.
    bib = (
        "@ARTICLE{9000001,\n  author={Smith, John and Doe, Jane},\n"
        "  journal={IEEE Transactions on Parallel and Distributed Systems}, \n  title={Pipeline Parallelism at Scale}, \n"
        "  year={2021},\n  volume={32},\n  number={},\n  pages={1-14},\n  doi={10.1109/TPDS.2021.0000001},\n"
        "  ISSN={},\n  month={},}\n"
    )
    (tmp_path / "ieee.bib").write_text(bib, encoding="utf-8")
    assert findings(tmp_path / "ieee.bib", "empty-field") == [
        ("empty-field", 7, "field 'number' of '9000001' is empty"),
        ("empty-field", 10, "field 'ISSN' of '9000001' is empty"),
        ("empty-field", 11, "field 'month' of '9000001' is empty"),
    ]


# A Web of Science export capitalises every field name; IEEE Xplore writes ISSN so. Hand-edited: a macro, and
# a note pasted twice.
CAPITALISED = (
    "@Article{WOS:000600000000001,\n"
    "Author = {Huang, Yanping and Cheng, Youlong},\n"
    "Title = {{GPipe}: Micro-Batch Pipeline Parallelism &amp; Beyond},\n"
    "Journal = tpds,\n"
    "Year = {2019},\n"
    "Abstract = {We train 50% larger models.},\n"
    "ISSN = {},\n"
    "Note = {},\n"
    "note = {Preprint},\n"
    "}\n"
)


def test_findings_and_hints_name_a_field_as_the_entry_writes_it():
    # They said 'title', 'journal', 'abstract' and 'note': names the user searching the file does not find as such.
    document = read_bibtex(CAPITALISED, "wos.bib")
    context = CheckContext(document.papers, None, (), "bibtex", 2, blocks=document.blocks)
    checks = (*FIELD_CHECKS, "unescaped-special")
    found = [(f.check, f.location.line, f.message, f.hint) for f in run_checks(context, (), checks) if f.location]
    key = "WOS:000600000000001"
    twice = "surveytool check --fix leaves Note alone, named twice (duplicate-field): delete the value you do not mean"
    assert sorted(f for f in found if f[0] in checks) == [
        ("empty-field", 7, f"field 'ISSN' of '{key}' is empty", "surveytool check --fix removes it"),
        ("empty-field", 8, f"field 'Note' of '{key}' is empty", twice),
        (
            "html-in-field",
            3,
            f"field 'Title' of '{key}' has HTML: &amp;",
            "surveytool check --fix writes &amp; as \\&",
        ),
        (
            "undefined-string",
            4,
            f"field 'Journal' of '{key}' uses @string 'tpds', which no source defines",
            "define it, or brace the text: {...}",
        ),
        (
            "unescaped-special",
            6,
            f"field 'Abstract' of '{key}' has a raw '%': LaTeX reads the '%' as a comment and drops the rest of "
            "the line",
            "write \\% instead; surveytool check --fix does this",
        ),
    ]


def test_check_fix_reports_a_field_as_the_entry_writes_it():
    # IEEE Xplore writes ISSN={}; --fix reported "empty issn removed", a name the user does not find in the file.
    bib = (
        "@ARTICLE{9000002,\n  Author={Narayanan, Deepak and},\n"
        "  Title={Efficient Large-Scale Training: PipeDream &amp; Megatron}, \n"
        "  Abstract={We reach 52% of peak throughput.}, \n  DOI={https://doi.org/10.1145/3458817.3476209},\n"
        "  URL={https://github.com/nvidia/megatron{\\_}lm},\n  ISSN={},\n  month={},}\n"
    )
    document = read_bibtex(bib, "ieee.bib")
    checks = frozenset({*FIELD_CHECKS, "unescaped-special", "url-malformed"})
    fixed, edits = fix_entries(bib, "ieee.bib", document.papers, Taxonomy("t", (), ()), selected=checks)
    assert [edit.what for edit in edits] == [
        "Author: a trailing 'and' removed; Title: &amp; -> \\&; Abstract: % -> \\%; DOI without https://doi.org/; "
        "URL: {\\_} -> _; empty ISSN removed; empty month removed"
    ]
    assert fixed == (
        "@ARTICLE{9000002,\n  Author={Narayanan, Deepak},\n"
        "  Title={Efficient Large-Scale Training: PipeDream \\& Megatron}, \n"
        "  Abstract={We reach 52\\% of peak throughput.}, \n  DOI={10.1145/3458817.3476209},\n"
        "  URL={https://github.com/nvidia/megatron_lm},\n}\n"
    )


def test_findings_on_a_named_field_name_it_as_the_entry_writes_it(tmp_path):
    # As --fix reports "DOI without doi:", the finding it answers names DOI, not doi.
    bib = (
        "@Article{k1,\nAuthor = {and Narayanan, Deepak},\nTitle = {PipeDream},\nYear = {2019a},\nMonth = {13},\n"
        "DOI = {doi:10.1145/3341301.3359646},\nURL = {https://github.com/msr-fiddle/pipedream{\\_}v2},\n}\n"
    )
    (tmp_path / "wos.bib").write_text(bib, encoding="utf-8")
    assert findings(tmp_path / "wos.bib", *FIELD_CHECKS, "url-malformed") == [
        ("stray-and", 2, "Author of 'k1' has a leading 'and'"),
        ("year-malformed", 4, "Year of 'k1' is not a four-digit year: '2019a'"),
        ("month-malformed", 5, "Month of 'k1' is not a month: '13'"),
        ("doi-malformed", 6, "DOI of 'k1' is not a DOI: 'doi:10.1145/3341301.3359646'"),
        ("url-malformed", 7, "URL of 'k1' has LaTeX escapes in its address: {\\_}"),
    ]


def test_entry_checks_name_a_field_as_the_entry_writes_it(tmp_path):
    # A Zotero export merged with a Web of Science copy writes Month, Crossref and Title: the findings said 'month',
    # 'crossref' and 'title', which a case-sensitive search of the file does not find.
    bib = (
        "@Article{d2,\nYear = 2020,\nMonth = mar,\nDate = {2020-05-01},\n}\n"
        "@InProceedings{lost,\nAuthor = {A, B},\nTitle = {Training GPUs},\nBooktitle = {SC},\nYear = 2020,\n"
        "Crossref = {nowhere},\n}\n"
        "@Proceedings{self,\nTitle = {SC},\nYear = 2020,\nCrossref = {Self},\n}\n"
    )
    (tmp_path / "wos.bib").write_text(bib, encoding="utf-8")
    checks = ("date-conflict", "crossref-undefined", "crossref-loop", "title-case-unprotected")
    assert sorted(findings(tmp_path / "wos.bib", *checks)) == [
        ("crossref-loop", 16, "Crossref of 'self' names the entry itself ('Self')"),
        ("crossref-undefined", 11, "Crossref of 'lost' names 'nowhere', which is not in the bibliography"),
        (
            "date-conflict",
            3,
            "Month mar of 'd2' disagrees with its date 2020-05-01: BibTeX prints the month, biblatex the date",
        ),
        ("title-case-unprotected", 8, "Title of 'lost' has unprotected capitals: GPUs"),
    ]


def test_fix_leaves_the_closing_brace_of_a_removed_last_field_where_the_file_puts_it():
    # IEEE Xplore ends an entry with month={},}: removing the empty month left a line of just "  }".
    bib = (
        "@ARTICLE{9000001,\n  Title={GPipe},\n  Year={2019},\n}\n\n"
        "@ARTICLE{9000002,\n  Title={PipeDream},\n  Year={2019},\n  month={},}\n"
    )
    document = read_bibtex(bib, "ieee.bib")
    fixed, edits = fix_entries(bib, "ieee.bib", document.papers, Taxonomy("t", (), ()), selected={"empty-field"})
    assert [edit.what for edit in edits] == ["empty month removed"]
    assert fixed == bib.replace("  month={},}\n", "}\n")
