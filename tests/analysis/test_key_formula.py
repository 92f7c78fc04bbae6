"""Key formulas: the default keys as always, transliteration, corporate names, the language, settings and pins."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import replace

import pytest
from helpers import run_cli
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from surveytool.analysis.key_formula import DEFAULT, KeyFormulaError, compile_formula
from surveytool.analysis.keys import assign_keys, identity_of, key_base
from surveytool.bibtex.reader import read_bibtex
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping
from surveytool.text.transliterate import to_ascii

KEY_CHARACTERS = re.compile(r"[A-Za-z0-9_:.\-]+")


def item(line: int = 1, latex_author: str | None = None, **fields: str) -> Paper:
    """A resolved paper without a key of its own, as a CSL-JSON item without citation-key is."""
    latex = {"author": latex_author} if latex_author is not None else {}
    return Paper(
        origin=Origin.CSL_JSON,
        sources=(SourceLocation("items.json", line),),
        fields=frozen_mapping(fields),
        latex_fields=frozen_mapping(latex),
    )


def keyed_from_bib(text: str) -> list[str]:
    """The default keys of the entries of ``text`` once their own keys are set aside."""
    papers = read_bibtex(text, "wild.bib").papers
    return [key_base(replace(p, key="")) for p in papers]


def test_the_default_formula_gives_the_keys_it_always_gave():
    assert key_base(item(author="Dmitry Lepikhin and X Y", title="GShard: Scaling", year="2021")) == (
        "lepikhin2021gshard"
    )
    assert key_base(item(author="van der Berg, Jan", title="On the Pre-train Gap", year="2019a")) == (
        "vanderberg2019pretrain"
    )
    assert key_base(item(author="Müller, Hans", title="Über alles", year="n.d.")) == "mullernduber"
    long_word = "Supercalifragilisticexpialidocious"
    assert key_base(item(author="Lee, A", title=f"A {long_word}", year="2020")) == "lee2020" + long_word.lower()[:20]


@pytest.mark.parametrize("year", ["(2010)", "{2010}", "[2010]", "2010a", "c2010", "c. 2010", "ca. 2010 (reprint)"])
def test_a_year_with_parentheses_or_a_mark_gives_its_four_digits_not_nd(year):
    # "nd" (no date) was given for any year that did not open with its four digits.
    assert key_base(item(author="Müller, Hans", title="Über alles", year=year)) == "muller2010uber"


@pytest.mark.parametrize("year", ["in press", "forthcoming", "either 2009 or 2010", "(2009, 2010)", "ca. 20th century"])
def test_a_year_without_digits_or_with_two_years_still_gives_nd(year):
    assert key_base(item(author="Müller, Hans", title="Über alles", year=year)) == "mullernduber"


@pytest.mark.parametrize("year", ["12021", "202", "20210"])
def test_a_year_of_more_or_fewer_than_four_digits_gives_nd_not_its_first_digits(year):
    # A typo "12021" gave the key year 1202, and "202" the year 202.
    assert key_base(item(author="Müller, Hans", title="Über alles", year=year)) == "mullernduber"


def test_a_key_pinned_with_nd_for_such_a_year_is_kept_and_a_new_paper_gets_the_year():
    pinned = item(1, author="Müller, Hans", title="Über alles", year="c. 2010")
    new = item(2, author="Müller, Hans", title="Über nichts", year="(2011)")
    # The lock of a run before years in parentheses or marked "c." counted: its keys are the papers' still.
    keyed, pins = assign_keys([pinned, new], {identity_of(pinned): "mullernduber"})
    assert [p.key for p in keyed] == ["mullernduber", "muller2011uber"]
    assert pins == {identity_of(pinned): "mullernduber", identity_of(new): "muller2011uber"}


@pytest.mark.parametrize(
    ("author", "key"),
    [
        ("Øster, Lars and Gaßner, Jens", "oster2020sparse"),
        ("Gaßner, Jens", "gassner2020sparse"),
        ("Łukasz, Jan", "lukasz2020sparse"),
        ("Jette Randløv", "randlov2020sparse"),
        ("Sæmundsson, Steindór", "saemundsson2020sparse"),
        ("张伟", "zhangwei2020sparse"),  # East Asian order, no space: the whole name
        ("张 伟 and Li, Mu", "zhang2020sparse"),  # family name first
        ("Wang, 伟", "wang2020sparse"),  # a comma says which part is the family name
        ("김민수", "gimminsu2020sparse"),
        ("Παπαδόπουλος, Νίκος", "papadopoylos2020sparse"),
        ("Wei Zhang 0001", "zhang2020sparse"),  # DBLP's number tells two people apart: it is no name
        ("\U00030554", "u305542020sparse"),  # an ideograph with no spelling still gives a key by its code point
    ],
)
def test_names_are_transliterated_never_dropped_or_anonymous(author, key):
    assert key_base(item(author=author, title="Sparse Routing", year="2020")) == key


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12))
def test_any_name_gives_a_key_bibtex_can_hold_and_one_with_a_letter_is_never_anonymous(name):
    key = key_base(item(author=name, title="T", year="2020"))
    assert KEY_CHARACTERS.fullmatch(key)
    # One name: with " and " in it, the key's is the first's (": and Bob" is anonymous, as auth is in Better BibTeX).
    assume(not re.search(r"\sand\s", f" {name} ", re.IGNORECASE))
    # "others" (any case) is BibTeX's "et al.", no person; a name spelled with "anon" in ASCII may give that stem as
    # its own (an ideograph anyascii spells "Non" after an "A").
    spelled = to_ascii(name).lower()
    no_person = spelled.strip() == "others" or "anon" in spelled
    assert key.startswith("anon") <= (not any(unicodedata.category(c).startswith("L") for c in name) or no_person)


@pytest.mark.parametrize("name", ["OTHERS", "Others", " others "])
def test_others_in_any_case_is_no_author_of_the_key(name):
    assert key_base(item(author=name, title="Sparse Routing", year="2020")) == "anon2020sparse"


def test_a_name_whose_ascii_spelling_is_anon_keeps_it_as_its_own():
    assert to_ascii("A\U00030ce3") == "ANon"  # a CJK Extension H ideograph anyascii spells "Non"
    assert key_base(item(author="A\U00030ce3", title="Sparse Routing", year="2020")) == "anon2020sparse"
    assert key_base(item(author="Ab\U00030ce3", title="Sparse Routing", year="2020")) == "abnon2020sparse"


def test_latex_accents_latin1_and_braces_in_a_bib_give_the_same_letters():
    text = (
        '@article{a, author = {{\\"O}ster, Lars}, title = {Sparse Routing}, year = 2020}\n'
        "@article{b, author = {Ga{\\ss}ner, Jens}, title = {Sparse Routing}, year = 2020}\n"
        "@article{c, author = {{\\L}ukasz, Jan}, title = {Sparse Routing}, year = 2020}\n"
        "@article{d, author = {Jan {\\O}stergaard}, title = {{\\ss}-Routing}, year = 2020}\n"
        "@article{e, author = {Fran\u00e7ois Ch\u00e9rel}, title = {\u00c9tude}, year = 2020}\n"  # Latin-1 text as is
    )
    assert keyed_from_bib(text) == [
        "oster2020sparse",
        "gassner2020sparse",
        "lukasz2020sparse",
        "ostergaard2020ssrouting",
        "cherel2020etude",
    ]


def test_a_corporate_name_in_braces_is_kept_whole():
    text = (
        "@misc{a, author = {{Microsoft Research}}, title = {Federated Averaging}, year = 2021}\n"
        "@misc{b, author = {{Barnes and Noble} and Smith, John}, title = {Books}, year = 2021}\n"
        "@misc{c, author = {Microsoft Research}, title = {Federated Averaging}, year = 2021}\n"  # a person
    )
    assert keyed_from_bib(text) == [
        "microsoftresearch2021federated",
        "barnesandnoble2021books",
        "research2021federated",
    ]
    corporate = item(author="Google Research", latex_author="{{Google Research}}", title="Pathways", year="2022")
    assert key_base(corporate) == "googleresearch2022pathways"


def test_no_author_no_year_or_no_letters_fall_back_as_before():
    assert key_base(item(title="Federated Averaging", year="2021")) == "anon2021federated"
    assert key_base(item(author="???", title="The 2021 Federated", year="")) == "anonndfederated"
    assert key_base(item(author="Lee, A", title="β-NMR of μSR in 8π", year="2014")) == "lee2014betanmr"


def test_fields_and_filters_of_the_language():
    paper = item(
        author="Smith, John and van der Berg, Jan and Øster, Lars",
        title="The attention is all you need paper",
        year="2017",
        booktitle="Neural Information Processing Systems",
    )

    def key(formula: str) -> str:
        return compile_formula(formula).key(paper)

    assert key("auth(3, 2).upper + year") == "VAN2017"
    assert key("authors(2).lower") == "smithvanderbergetal"
    assert key('authors.condense("_")') == "Smith_vanderBerg_Oster"
    assert key("authEtAl") == "SmithEtAl"
    assert key("shorttitle(2, 1)") == "Attentionall"
    assert key("shorttitle") == "attentionallyou"
    assert key("title.truncate(12)") == "Theattention"  # spaces between words are not counted
    assert key('title.lower.condense("-").truncate(9)') == "the-atten"  # the separator counts, spaces do not
    assert key("venue.abbr.lower") == "nips"
    # What follows a comma or a parenthesis (a year, an edition, a place) and numbers are no part of the name.
    for venue, abbreviated in (
        ("International Conference on Learning Representations ({ICLR} 2021)", "ICLR"),
        ("2022 {USENIX} Annual Technical Conference ({USENIX} {ATC} 22)", "UATC"),
        ("Advances in Neural Information Processing Systems 32, Vancouver, Canada", "ANIPS"),
    ):
        assert compile_formula("venue.abbr").key(item(author="Lee, A", booktitle=venue)) == abbreviated, venue
    assert key('"Øß:" + year') == "Oss:2017"  # quoted text is transliterated too
    assert key('"a b,c{d}"') == "abcd"  # what a key cannot hold is left out
    assert key('auth(0, 3).fold.lower + "." + auth(0, 3).ascii') == "oster.Oster"  # Better BibTeX's, accepted
    assert compile_formula("authEtAl").key(item(author="Lee, A and Kim, B")) == "LeeKim"
    assert compile_formula("authors(1)").key(item(author="Lee, A and others")) == "LeeEtAl"


def test_alternatives_give_the_first_key_that_is_not_empty():
    formula = compile_formula('venue.abbr | auth.lower + year | "x"')
    assert formula.key(item(author="Lee, A", title="T", year="2020", journal="Machine Learning")) == "ML"
    assert formula.key(item(author="Lee, A", title="T", year="2020")) == "lee2020"
    assert formula.key(item(title="T")) == "x"
    assert compile_formula('venue.or("novenue") + year').key(item(title="T", year="2020")) == "novenue2020"
    # A formula that gives nothing at all falls back to the default formula.
    nothing = item(title="Sparse Routing", year="2020", author="Lee, A")
    assert key_base(nothing, compile_formula("venue")) == DEFAULT.key(nothing) == "lee2020sparse"


def test_a_number_written_with_leading_zeros_is_its_value():
    paper = item(title="Sparse Routing", year="2020", author="Lee, A")
    assert compile_formula("title.lower.truncate(000006)").key(paper) == "sparse"
    assert compile_formula("title.lower.truncate(" + "0" * 5000 + "6)").key(paper) == "sparse"
    with pytest.raises(KeyFormulaError, match="is over 10000"):
        compile_formula("title.truncate(0010001)")


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ("", "the formula is empty"),
        ("auth +", "expected a field at column 7, found the end"),
        ("auht + year", "expected a field at column 1, found 'auht' (known: auth, authors,"),
        ("auth.lowr", "expected a filter at column 6, found 'lowr'"),
        ("auth.truncate", "truncate at column 6 needs its n: truncate(n)"),
        ('auth.truncate("a")', "truncate's n at column 15 must be a whole number"),
        ("auth(1, 2, 3)", "auth at column 1 takes 2 argument(s): auth(n, m)"),
        ("auth(0, 0)", "auth's m at column 1 counts authors from 1"),
        ("shorttitle(" + "9" * 20 + ")", "shorttitle's n at column 12 is over 10000"),
        ("title.truncate(" + "9" * 5000 + ")", "truncate's n at column 16 is over 10000"),
        ("year(4)", "year at column 1 takes no argument(s)"),
        ('"abc + year', "unclosed quote at column 1"),
        ("auth $ year", "unexpected '$' at column 6"),
        ("auth year", "expected the end at column 6, found 'year'"),
        ("auth(x)", "expected a number or a quoted text at column 6, found 'x'"),
        ("year |", "expected a field at column 7, found the end"),
        ("[auth:lower][year]", "write auth.lower + year for [auth:lower][year]"),
    ],
)
def test_a_formula_that_cannot_be_read_says_what_and_where(formula, message):
    with pytest.raises(KeyFormulaError) as error:
        compile_formula(formula)
    assert message in str(error.value)


def test_collisions_get_suffixes_in_identity_order_whatever_the_formula():
    formula = compile_formula("auth.lower + year")
    papers = [item(i, author="Øster, L", title=f"Title {w}", year="2020") for i, w in enumerate("ABC", 1)]
    keyed, _ = assign_keys(papers, formula=formula)
    assert sorted(p.key for p in keyed) == ["oster2020", "oster2020b", "oster2020c"]
    again, _ = assign_keys(list(reversed(papers)), formula=formula)
    assert {p.fields["title"]: p.key for p in again} == {p.fields["title"]: p.key for p in keyed}


def test_pinned_keys_never_change_when_the_formula_does():
    papers = [item(i, author="Gaßner, J", title=f"{w} Routing", year="2020") for i, w in enumerate(["Sparse", "Dense"])]
    first, pins = assign_keys(papers)
    newcomer = item(9, author="Gaßner, J", title="Token Routing", year="2020")
    second, _ = assign_keys([*papers, newcomer], pins, formula=compile_formula('auth.upper + "-" + year'))
    assert [p.key for p in first] == ["gassner2020sparse", "gassner2020dense"]
    assert [p.key for p in second] == ["gassner2020sparse", "gassner2020dense", "GASSNER-2020"]


def test_transliteration_keeps_what_the_accent_fold_kept():
    assert to_ascii("Müller Ünsal façade naïve") == "Muller Unsal facade naive"
    assert to_ascii("Øster Gaßner Łukasz Sæmundsson þorn") == "Oster Gassner Lukasz Saemundsson thorn"
    assert to_ascii("µSR ϕ Ω") == "muSR phi Omega"
    assert to_ascii("plain ascii") == "plain ascii"


CATALOG = """@inproceedings{c1, title = {Sparse Mixture Routing for Giant Models},
  author = {{\\O}ster, Lars and Ga{\\ss}ner, Jens}, year = {2020}, booktitle = {NeurIPS}}
@inproceedings{c2, title = {Graph Sampling Without Replacement}, author = {张 伟 and Li, Mu}, year = {2022}}
@inproceedings{c3, title = {Pipeline Parallel Training at Scale}, author = {{\\L}ukasz, Jan}, year = {2019}}
@techreport{c4, title = {Federated Averaging Revisited at Scale}, author = {{Microsoft Research} and Li, Mu}, year = {2021}}
"""
LIST = "1. Sparse Mixture Routing for Giant Models\n2. Graph Sampling Without Replacement\n"


def _keys(bib: str) -> list[str]:
    return [line.split("{", 1)[1].rstrip(",") for line in bib.splitlines() if line.startswith("@")]


def test_bib_keys_follow_the_formula_and_the_lock_file_keeps_the_keys_given(tmp_path):
    (tmp_path / "catalog.bib").write_text(CATALOG, encoding="utf-8")
    (tmp_path / "list.txt").write_text(LIST, encoding="utf-8")
    args = ("bib", "list.txt", "--catalog", "catalog.bib", "-o", "out.bib")
    run_cli(*args, cwd=tmp_path, check=True)
    assert _keys((tmp_path / "out.bib").read_text(encoding="utf-8")) == ["oster2020sparse", "zhang2022graph"]
    pins = json.loads((tmp_path / "surveytool.lock.json").read_text(encoding="utf-8"))["keys"]
    assert sorted(pins.values()) == ["oster2020sparse", "zhang2022graph"]

    (tmp_path / "list.txt").write_text(LIST + "3. Pipeline Parallel Training at Scale\n", encoding="utf-8")
    run_cli(*args, "--key-formula", 'authors(2).lower + "_" + year', cwd=tmp_path, check=True)
    # The keys given before are pinned; only the new entry takes the new formula.
    assert _keys((tmp_path / "out.bib").read_text(encoding="utf-8")) == [
        "lukasz_2019",
        "oster2020sparse",
        "zhang2022graph",
    ]


def test_the_settings_file_sets_the_formula_and_a_wrong_one_is_one_line_with_its_line(tmp_path):
    (tmp_path / "catalog.bib").write_text(CATALOG, encoding="utf-8")
    (tmp_path / "list.txt").write_text(LIST, encoding="utf-8")
    settings = tmp_path / "surveytool.toml"
    settings.write_text('[online]\ntimeout = 5\n\n[keys]\nformula = "auth.upper + year"\n', encoding="utf-8")
    result = run_cli("bib", "list.txt", "--catalog", "catalog.bib", "-o", "-", cwd=tmp_path, check=True)
    assert _keys(result.stdout) == ["OSTER2020", "ZHANG2022"]

    settings.write_text('[online]\ntimeout = 5\n\n[keys]\nformula = "auth.upper + yeer"\n', encoding="utf-8")
    result = run_cli("bib", "list.txt", "--catalog", "catalog.bib", "-o", "-", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("surveytool.toml:5: error: [keys] formula: expected a field at column 14")

    settings.write_text("[keys]\nformula = 3\n", encoding="utf-8")
    result = run_cli("bib", "list.txt", "-o", "-", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.startswith("surveytool.toml:2: error: [keys] formula must be")

    settings.write_text('[keys]\nformula = "year"\npattern = "x"\n', encoding="utf-8")
    result = run_cli("bib", "list.txt", "-o", "-", cwd=tmp_path)
    assert result.returncode == 2 and "surveytool.toml:3: error: unknown setting(s) in [keys]: pattern" in result.stderr


def test_a_wrong_key_formula_option_stops_build_before_it_writes(tmp_path):
    result = run_cli("build", "--out", "out", "--key-formula", "auth.lowercase", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "error: --key-formula: expected a filter at column 6, found 'lowercase' "
        "(known: lower, upper, abbr, truncate, condense, ascii, fold, or) (see Keys in the README)"
    ]
    assert not (tmp_path / "out").exists()


def test_csl_json_items_without_a_key_take_the_formula_with_literal_names_whole(tmp_path):
    items = [
        {"type": "report", "title": "Pathways Systems", "author": [{"literal": "Google Research"}], "issued": {"date-parts": [[2022]]}},
        {"type": "article", "title": "Sparse Routing", "author": [{"family": "Øster", "given": "L"}], "issued": {"date-parts": [[2020]]}},
    ]  # fmt: skip
    (tmp_path / "items.json").write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    result = run_cli("bib", "items.json", "-o", "-", "--key-formula", "auth.lower + year", cwd=tmp_path, check=True)
    assert _keys(result.stdout) == ["googleresearch2022", "oster2020"]


def test_a_paper_resolved_from_a_catalog_keeps_its_corporate_author_whole_in_key_and_bib(tmp_path):
    (tmp_path / "catalog.bib").write_text(CATALOG, encoding="utf-8")
    (tmp_path / "list.txt").write_text("1. Federated Averaging Revisited at Scale\n", encoding="utf-8")
    result = run_cli("bib", "list.txt", "--catalog", "catalog.bib", "-o", "-", cwd=tmp_path, check=True)
    assert _keys(result.stdout) == ["microsoftresearch2021federated"]
    assert "author = {{Microsoft Research} and Li, Mu}," in result.stdout  # still one name for BibTeX


def test_a_latin1_encoded_catalog_gives_transliterated_keys(tmp_path):
    entry = "@inproceedings{c1,\n title = {Sparse Mixture Routing for Giant Models}, author = {\u00d8ster, Lars and Ga\u00dfner, J}, year = 2020}\n"
    (tmp_path / "catalog.bib").write_bytes(entry.encode("latin-1"))
    (tmp_path / "list.txt").write_text("1. Sparse Mixture Routing for Giant Models\n", encoding="utf-8")
    result = run_cli("bib", "list.txt", "--catalog", "catalog.bib", "-o", "-", cwd=tmp_path, check=True)
    assert _keys(result.stdout) == ["oster2020sparse"]
