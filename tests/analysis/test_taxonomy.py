import re

import pytest
from helpers import ROOT

from surveytool.analysis.section_names import canonical_section
from surveytool.analysis.taxonomy import load_taxonomy, parse_taxonomy
from surveytool.errors import TaxonomyError
from surveytool.resources import default_taxonomy

MINIMAL = """title = "T"
[[groups]]
id = "g"
title = "G"
[[sections]]
id = "a"
parent = "g"
title = "A"
aliases = ["alpha"]
[[sections]]
id = "b"
parent = "g"
title = "B"
"""


def test_default_taxonomy_has_the_public_section_ids_in_order():
    taxonomy = load_taxonomy(default_taxonomy())
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## The default taxonomy", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"\| `([a-z-]+)` \|", table)
    expected = [
        "surveys",
        "data-parallel",
        "model-parallel",
        "pipeline-parallel",
        "moe",
        "memory",
        "communication",
        "hardware-systems",
        "optimization",
        "decentralized",
        "embeddings-recsys",
        "gnn-training",
        "applications",
    ]
    assert list(taxonomy.section_ids) == expected
    assert documented == expected  # the README lists them too
    assert all(section.keywords and section.description for section in taxonomy.sections)


def test_aliases_and_variants_map_to_ids():
    taxonomy = load_taxonomy(default_taxonomy())
    assert canonical_section("MoE", taxonomy) == "moe"
    assert canonical_section("Mixture of Experts", taxonomy) == "moe"
    assert canonical_section("data_parallel", taxonomy) == "data-parallel"
    assert canonical_section("quantum", taxonomy) is None


@pytest.mark.parametrize(
    "change, line, words",
    [
        (lambda t: t.replace('id = "b"', 'id = "a"'), 11, "duplicate id 'a'"),
        (lambda t: t.replace('parent = "g"\ntitle = "B"', 'parent = "h"\ntitle = "B"'), 12, "unknown parent 'h'"),
        (lambda t: t.replace('title = "B"', 'title = "B"\naliases = ["Alpha"]'), 14, "alias 'Alpha'"),
        (lambda t: t.replace('title = "B"', 'titel = "B2"\ntitle = "B"'), 13, "unknown key 'titel'"),
        # A top-level key misspelt as a table of its own, quoted, or dotted: its line, not the file alone.
        (lambda t: t.replace("[[groups]]", "[[grups]]"), 2, "unknown key 'grups' (did you mean 'groups'?)"),
        (lambda t: t + "[grups]\n", 14, "unknown key 'grups'"),
        (lambda t: t.replace('title = "T"', 'title = "T"\n"titel" = "U"'), 2, "unknown key 'titel'"),
        (lambda t: t.replace('title = "T"', 'title = "T"\ngrups.x = 1'), 2, "unknown key 'grups'"),
        (
            lambda t: (
                t.replace('title = "G"', 'title = "G"\nparent = "g2"')
                + '[[groups]]\nid = "g2"\ntitle = "G2"\nparent = "g"\n'
            ),
            3,
            "cycle",
        ),
        (lambda t: t.replace('title = "A"', 'title = "A'), 8, "not valid TOML"),
        (lambda t: t + 'title = """A\n', MINIMAL.count("\n") + 1, "Unterminated string at the end of the file"),
        # Saved with classic Mac OS line ends: tomllib said what it expected, not why.
        (lambda t: t.replace("\n", "\r"), 1, "(the file has carriage returns alone: save it with LF or CRLF line ends"),
        # "$" matched before a final newline: the id then split \label and the tags field over two lines.
        (lambda t: t.replace('id = "b"', 'id = """b\n"""'), 11, "is not lowercase-with-hyphens"),
        # A title's escape sequence or bell reached the terminal as it was (`taxonomy` draws the titles).
        (lambda t: t.replace('title = "A"', 'title = "A\\u001b]0;owned\\u0007"'), 8, "control character (U+001B)"),
        (lambda t: t.replace('title = "T"', 'title = "T\\u0007U"'), 1, "'title' holds a control character (U+0007)"),
        (lambda t: t.replace('aliases = ["alpha"]', 'aliases = ["al\\u0000pha"]'), 9, "aliases of 'a' hold a control"),
        # A direction override drew the tree's line reversed from it on, a zero-width space split a word unseen.
        (
            lambda t: t.replace('title = "B"', 'title = "B \\u202Egnippahs"'),
            13,
            "'title' in [[sections]] holds an invisible character (U+202E, right-to-left override)",
        ),
        (lambda t: t.replace('title = "G"', 'title = "G\\u200Bx"'), 4, "(U+200B, zero width space)"),
        (
            lambda t: t.replace('aliases = ["alpha"]', 'aliases = ["al\\u2066pha"]'),
            9,
            "aliases of 'a' hold an invisible",
        ),
        (lambda t: t.replace('title = "T"', 'title = "T"\nversion = 2'), 2, "'version' must be 1"),
        # An alias that is another section's title led to that section, the alias silently unused.
        (lambda t: t.replace('aliases = ["alpha"]', 'aliases = ["the b"]').replace('"B"', '"The B"'), 9, "'the b'"),
        # A weight in a [sections.keywords] table: its own line, not the first of the file.
        (lambda t: t + '[sections.keywords]\n"x" = 1\n"y" = "high"\n', 16, "numeric weights"),
        # A bare phrase's dots make tables in TOML: this was "keywords must map phrases to numeric weights".
        (lambda t: t + '[sections.keywords]\n"x" = 1\ngpt-3.5 = 4\n', 16, "keyword 'gpt-3.5' is split at its dots"),
        (lambda t: t.replace('title = "B"', 'title = "B"\nkeywords = { v2.0 = 3 }'), 14, 'quote it: "v2.0" = 4'),
        # Keywords written as dotted keys: the weight's own line, not the [[sections]] header.
        (lambda t: t.replace('title = "B"', 'title = "B"\nkeywords.x = 1\nkeywords.y = "high"'), 15, "numeric weights"),
        (lambda t: t.replace('title = "B"', 'title = "B"\nkeywords.x = 1\nkeywords."?!" = 2'), 15, "keyword '?!'"),
        (lambda t: t.replace('id = "b"', 'id = "KV Cache"'), 11, "not lowercase-with-hyphens (write it 'kv-cache')"),
        # Subsections written as nested tables were told at the outer table's header, with only the allowed keys.
        (lambda t: t + '[[sections.subsections]]\nid = "c"\ntitle = "C"\n', 14, "(tables do not nest: make the outer"),
        (
            lambda t: t.replace('title = "G"\n', 'title = "G"\n[[groups.sections]]\nid = "c"\ntitle = "C"\n'),
            5,
            "unknown key 'sections' in [[groups]] (tables do not nest",
        ),
        (lambda t: t + '[sections.keywrods]\n"x" = 1\n', 14, "(did you mean 'keywords'?)"),
        # A subsection given its section's id as parent was told only "parents must be group ids".
        (
            lambda t: t + '[[sections]]\nid = "a1"\nparent = "a"\ntitle = "A1"\n',
            16,
            "('a' is a section, and sections hold no others: make it a [[groups]] table",
        ),
    ],
)
def test_malformed_taxonomies_name_the_line(change, line, words):
    with pytest.raises(TaxonomyError) as raised:
        parse_taxonomy(change(MINIMAL), "tax.toml")
    assert raised.value.line == line, str(raised.value)
    assert words in str(raised.value)
    assert str(raised.value).startswith(f"tax.toml:{line}: error: ")


def test_a_title_keeps_the_joiners_its_words_are_spelled_with():
    # Persian writes a zero-width non-joiner inside words ("mi-khaham", I want): invisible, yet part of the word.
    taxonomy = parse_taxonomy(
        MINIMAL.replace('title = "A"', 'title = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"')
    )
    assert "\u200c" in taxonomy.section("a").title


def test_every_table_with_a_problem_is_reported_at_once_in_file_order():
    # A user's first taxonomy: a typo in each of three tables and an alias two sections claim.
    text = (
        MINIMAL.replace('title = "G"', 'title = "G"\ncolour = "red"')
        .replace('id = "b"', 'id = "B"')
        .replace('aliases = ["alpha"]', 'aliases = ["alpha"]\nkeyword = {"x" = 1}')
        + '[[sections]]\nid = "c"\ntitle = "C"\naliases = ["gamma"]\n'
        + '[[sections]]\nid = "d"\ntitle = "D"\naliases = ["Gamma"]\n'
    )
    with pytest.raises(TaxonomyError) as raised:
        parse_taxonomy(text, "tax.toml")
    assert [(p.line, p.message) for p in raised.value.problems] == [
        (5, "unknown key 'colour' in [[groups]]"),
        (11, "unknown key 'keyword' in [[sections]]"),
        (13, "id 'B' is not lowercase-with-hyphens"),
        (23, "alias 'Gamma' of 'd' is already a name of 'c'"),
    ]
    assert str(raised.value).splitlines()[1].startswith("tax.toml:11: error: unknown key 'keyword'")


def test_a_typo_at_the_top_hides_neither_a_parent_typo_nor_a_missing_sections_table():
    with pytest.raises(TaxonomyError) as raised:
        parse_taxonomy('titel = "T"\n' + MINIMAL.replace('parent = "g"', 'parent = "gg"', 1), "t.toml")
    assert [p.message for p in raised.value.problems] == [
        "unknown key 'titel'",
        "'a' names unknown parent 'gg'",
    ]
    with pytest.raises(TaxonomyError) as raised:
        parse_taxonomy('titel = "T"\n', "t.toml")
    assert [p.message for p in raised.value.problems] == ["unknown key 'titel'", "the taxonomy has no [[sections]]"]


def test_a_group_with_a_problem_hides_no_other_sections_parent_typo():
    text = (
        MINIMAL.replace('title = "G"', 'title = "G"\ncolour = "red"')
        + '[[groups]]\nid = "sys"\ntitle = "S"\n[[sections]]\nid = "c"\ntitle = "C"\nparent = "sytems"\n'
    )
    with pytest.raises(TaxonomyError) as raised:
        parse_taxonomy(text, "t.toml")
    # 'a' and 'b' name the group that failed: that is no second problem of theirs.
    assert [p.message for p in raised.value.problems] == [
        "unknown key 'colour' in [[groups]]",
        "'c' names unknown parent 'sytems'",
    ]
    assert "did you mean 'sys'?" in str(raised.value)


def test_unknown_key_gets_a_did_you_mean():
    with pytest.raises(TaxonomyError) as raised:
        parse_taxonomy(MINIMAL.replace('aliases = ["alpha"]', 'alias = ["alpha"]'), "t.toml")
    assert "did you mean 'aliases'?" in str(raised.value)


def test_a_long_chain_of_groups_is_valid_and_a_cycle_at_its_end_is_found_with_its_line():
    chain = "".join(
        f'[[groups]]\nid = "g{n}"\ntitle = "G{n}"\n' + (f'parent = "g{n - 1}"\n' if n else "") for n in range(300)
    )
    leaf = '[[sections]]\nid = "leaf"\ntitle = "Leaf"\nparent = "g299"\n'
    taxonomy = parse_taxonomy(chain + leaf)
    assert taxonomy.groups[-1].id == "g299" and taxonomy.groups[-1].sections == ("leaf",)
    looped = chain.replace('id = "g0"\ntitle = "G0"\n', 'id = "g0"\ntitle = "G0"\nparent = "g299"\n')
    with pytest.raises(TaxonomyError, match="cycle") as raised:
        parse_taxonomy(looped + leaf)
    assert raised.value.line == 2  # the first group of the loop, where it is declared


def test_a_key_of_the_last_table_is_located_on_its_own_line_in_a_wide_taxonomy():
    sections = "".join(f'[[sections]]\nid = "s{n}"\ntitle = "S{n}"\n\n' for n in range(500))
    text = sections + '[[sections]]\nid = "last"\ntitle = "Last"\n\nkeywords = { "x" = "heavy" }\n'
    with pytest.raises(TaxonomyError) as raised:
        parse_taxonomy(text)
    assert raised.value.line == text.splitlines().index('keywords = { "x" = "heavy" }') + 1


def test_a_taxonomy_with_no_tables_at_all_is_one_error_not_a_crash():
    with pytest.raises(TaxonomyError, match="no \\[\\[sections\\]\\]"):
        parse_taxonomy('title = "Only a title"\n')


def test_the_readme_example_of_a_taxonomy_of_ones_own_is_valid():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = readme.split("A taxonomy of your own needs only", 1)[1].split("```toml\n", 1)[1].split("```", 1)[0]
    taxonomy = parse_taxonomy(example, "README.md")
    [section] = taxonomy.sections
    assert (section.id, section.group, canonical_section("kvcache", taxonomy)) == ("kv-cache", "systems", "kv-cache")
    assert section.keywords["paged attention"] == 4


def test_a_name_of_no_letter_or_digit_names_no_section():
    # normalize("!!!") is "": the alias, or a title of punctuation, made every tag "-" or "?" a tag of 'b'.
    with pytest.raises(TaxonomyError, match="alias '!!!' of 'b' has no letter or digit") as raised:
        parse_taxonomy(MINIMAL.replace('title = "B"', 'title = "B"\naliases = ["!!!"]'), "t.toml")
    assert raised.value.line == 14
    taxonomy = parse_taxonomy(MINIMAL.replace('title = "B"', 'title = "???"'), "t.toml")
    assert [canonical_section(tag, taxonomy) for tag in ("-", "?", "", "???", "b")] == [None, None, None, None, "b"]


def test_a_tag_is_the_section_of_that_id_before_one_whose_title_reads_the_same():
    # A section titled "Experts" (id moe) listed first took every tag 'experts' from the section of that id,
    # and check --fix would have rewritten them to moe.
    text = MINIMAL.replace('id = "a"', 'id = "moe"').replace('title = "A"', 'title = "Experts"')
    taxonomy = parse_taxonomy(
        text.replace('id = "b"', 'id = "experts"').replace('aliases = ["alpha"]', 'aliases = ["b-alias"]'), "t.toml"
    )
    assert [canonical_section(tag, taxonomy) for tag in ("experts", "Experts", "moe")] == ["experts", "experts", "moe"]


def test_a_duplicate_id_is_reported_where_it_comes_again_naming_where_it_came_first():
    # Groups were checked before sections: a section on line 2 and a group of its id on line 6 gave "duplicate id
    # 'x' (first defined on line 6)" on line 2.
    text = 'title = "T"\n[[sections]]\nid = "x"\ntitle = "X"\n[[groups]]\nid = "x"\ntitle = "G"\n'
    with pytest.raises(TaxonomyError, match=r"duplicate id 'x' \(first defined on line 3\)") as raised:
        parse_taxonomy(text, "t.toml")
    assert raised.value.line == 6


def test_an_alias_or_keyword_in_another_script_loads():
    # Letters beyond ASCII are letters: a Greek alias or a CJK keyword is no punctuation (it loaded before the
    # punctuation check, and must still).
    text = MINIMAL.replace(
        'title = "B"', 'title = "B"\naliases = ["\u03b1\u03b2"]\n[sections.keywords]\n"\u6df1\u5ea6" = 2'
    )
    taxonomy = parse_taxonomy(text, "t.toml")
    assert taxonomy.sections[1].aliases == ("\u03b1\u03b2",) and dict(taxonomy.sections[1].keywords) == {
        "\u6df1\u5ea6": 2.0
    }


def test_a_tag_written_as_a_title_or_alias_in_another_script_names_its_section():
    # normalize folds Chinese and Cyrillic to nothing: such a tag was an unknown-tag, and two such names one.
    text = MINIMAL.replace('title = "A"', 'title = "混合专家"').replace(
        'title = "B"', 'title = "B"\naliases = ["Смесь экспертов"]'
    )
    taxonomy = parse_taxonomy(text, "t.toml")
    tags = ("混合专家", "смесь экспертов", "混合")
    assert [canonical_section(tag, taxonomy) for tag in tags] == ["a", "b", None]
    # Two aliases in another script were both "" to the check, one "already a name" of the other's section.
    taxonomy = parse_taxonomy(text.replace('aliases = ["alpha"]', 'aliases = ["\u4e13\u5bb6"]'), "t.toml")
    assert canonical_section("\u4e13\u5bb6", taxonomy) == "a"


@pytest.mark.parametrize("phrase", ["!!!", "*", "-- *"])
def test_a_keyword_phrase_of_no_letter_or_digit_is_an_error_at_its_line(phrase):
    # Phrases are matched on normalized words: one of punctuation alone never matched, and validate said nothing.
    keywords = f'title = "B"\n[sections.keywords]\n"pipeline*" = 2\n"{phrase}" = 3'
    with pytest.raises(TaxonomyError, match=f"keyword '{re.escape(phrase)}' of 'b' has no letter or digit") as raised:
        parse_taxonomy(MINIMAL.replace('title = "B"', keywords), "t.toml")
    assert raised.value.line == 16


def test_a_keyword_of_no_letter_in_an_inline_table_is_reported_at_the_tables_line():
    keywords = 'title = "B"\nkeywords = { "pipeline*" = 2, "!!!" = 3 }'
    with pytest.raises(TaxonomyError, match="keyword '!!!' of 'b' has no letter or digit") as raised:
        parse_taxonomy(MINIMAL.replace('title = "B"', keywords), "t.toml")
    assert raised.value.line == 14  # the keywords line, not the section's [[sections]] line


@pytest.mark.parametrize(
    ("change", "line", "message"),
    [
        (lambda t: t.replace('title = "T"', 'title = ["T", 1]'), 1, "'title' must be a string"),
        # An empty title was an empty \section{}, \title{} and root of the tree figure.
        (lambda t: t.replace('title = "T"', 'title = "  "'), 1, "'title' must be a string of text"),
        (lambda t: t.replace('title = "G"', 'title = "G"\ndescription = 5'), 5, "'description' in [[groups]] must"),
        (lambda t: t.replace('title = "A"', 'title = "A"\ndescription = {x = 1}'), 9, "'description' in [[sections]]"),
        (lambda t: t.replace('parent = "g"', "parent = 7", 1), 7, "'parent' in [[sections]] must be a string"),
        # The [[sections]] header's line with "add title", beside a title that is there but a number.
        (lambda t: t.replace('title = "B"', "title = 5"), 13, "needs a non-empty string 'title', not 5"),
        (lambda t: t.replace('id = "b"', "id = 2"), 11, "needs a non-empty string 'id', not 2"),
        (lambda t: t.replace('title = "G"', 'title = ""'), 4, "string 'title', not ''"),
    ],
)
def test_a_title_description_or_parent_that_is_no_string_is_an_error_at_its_line(change, line, message):
    # str() made them the chapter's \\section{['T', 1]} and "Scope: {'x': 1}", or "unknown parent '7'".
    with pytest.raises(TaxonomyError, match=re.escape(message)) as raised:
        parse_taxonomy(change(MINIMAL), "t.toml")
    assert raised.value.line == line


def test_a_description_may_span_lines_and_keep_tabs():
    taxonomy = parse_taxonomy(MINIMAL.replace('title = "B"', 'title = "B\tC"\ndescription = """one\r\ntwo"""'))
    assert taxonomy.section("b").description == "one\ntwo"
    assert taxonomy.section("b").title == "B\tC"


def test_a_latin1_taxonomy_names_the_line_of_its_first_byte_that_is_no_utf8(tmp_path):
    path = tmp_path / "tax.toml"
    path.write_bytes(MINIMAL.replace('title = "B"', 'title = "Caf\u00e9"').encode("latin-1"))
    with pytest.raises(TaxonomyError) as raised:
        load_taxonomy(path, "tax.toml")
    assert str(raised.value) == "tax.toml:13: error: not UTF-8 text (save the taxonomy as UTF-8)"


def test_tables_written_as_an_inline_array_are_told_at_the_array_line():
    # They have no [[sections]] header: the problem was told at no line, a duplicate "first defined on line 0".
    text = 'title = "T"\nsections = [\n  {id = "a", title = "A"},\n  {id = "a", title = "B"},\n  {id = "C", title = "C"},\n]\n'
    with pytest.raises(TaxonomyError) as raised:
        parse_taxonomy(text, "tax.toml")
    assert str(raised.value).splitlines() == [
        "tax.toml:2: error: id 'C' is not lowercase-with-hyphens (write it 'c')",
        "tax.toml:2: error: duplicate id 'a' (first defined on line 2) (give every group and section its own id)",
    ]


def test_a_markdown_taxonomy_is_told_what_a_taxonomy_is(tmp_path):
    # TOML's "Expected '=' after a key" alone said nothing to an author who wrote a TAXONOMY.md.
    path = tmp_path / "TAXONOMY.md"
    path.write_text("# My Taxonomy\n\n## Systems ##\n\n- **kv-cache**: KV cache management\n", encoding="utf-8")
    with pytest.raises(TaxonomyError) as raised:
        load_taxonomy(path, "TAXONOMY.md")
    assert raised.value.line == 5
    assert (
        raised.value.hint
        == "a taxonomy is a TOML file of [[sections]] tables: see 'The default taxonomy' in the README"
    )


@pytest.mark.parametrize("reserved", ["out-of-scope", "introduction"])
def test_a_section_id_surveytool_gives_meaning_itself_is_an_error_at_its_line(reserved):
    # out-of-scope is the learned tagger's background class: a section so named was trained on off-topic papers.
    text = f'version = 1\n\n[[sections]]\nid = "{reserved}"\ntitle = "Other Work"\n'
    with pytest.raises(TaxonomyError) as raised:
        parse_taxonomy(text, "tax.toml")
    assert raised.value.line == 4, str(raised.value)
    assert f"tax.toml:4: error: id '{reserved}' is the " in str(raised.value)
