"""The tags field written into a user's entry: its whole value, in the entry's layout, or left with a reason.

A tags field joined with ``#`` is written as one braced value, so that a second run finds nothing to do; a
field that uses an @string macro is reported and left.
"""

import pytest
from helpers import run_cli
from typer.testing import CliRunner

from surveytool.cli.app import app
from surveytool.errors import InputError
from surveytool.output.tags_field import set_tags_field, tags_macro

ENTRY = "@article{{concat,\n  author = {{Poe, P}},\n  title = {{Gradient compression}},\n  year = 2020,\n{tags}}}\n"


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.output


def concatenated(tags: str) -> str:
    return ENTRY.format(tags=f"  sections = {tags},\n")


@pytest.mark.parametrize(
    "command", [("bib", "--in-place"), ("check", "--checks", "tag-variant", "--fix")], ids=["in-place", "fix"]
)
@pytest.mark.parametrize(
    "tags",
    [
        "{MoE} # {, data_parallel}",
        '"MoE" # ", " # {data_parallel}',
        "MoE # {, data_parallel}",  # a bare word no @string defines: the user's way of writing one tag
        "{{MoE}, {{data_parallel}}}",  # braces nested two deep were not found: a second field was added
    ],
)
def test_a_tags_field_in_pieces_is_written_whole_and_a_second_run_changes_nothing(tmp_path, command, tags):
    bib = tmp_path / "refs.bib"
    bib.write_text(concatenated(tags), encoding="utf-8")
    output = run(*command, str(bib))
    assert "tags MoE,data_parallel -> moe,data-parallel" in output
    # Each way of writing it has ", " between the tags: the tags are joined as the user joined them.
    assert bib.read_text(encoding="utf-8") == concatenated("{moe, data-parallel}")
    again = run(*command, str(bib))
    assert "->" not in again and bib.read_text(encoding="utf-8") == concatenated("{moe, data-parallel}")
    assert "tag-variant" not in again


@pytest.mark.parametrize("command", [("bib", "--in-place"), ("check", "--fix")], ids=["in-place", "fix"])
def test_a_tags_field_using_a_string_macro_is_reported_and_left(tmp_path, command):
    # The macro may hold the tags of other entries too: writing ids over it in one entry would fork the list.
    bib = tmp_path / "refs.bib"
    before = '@string{mytags = "MoE"}\n\n' + concatenated("mytags # {, data_parallel}")
    bib.write_text(before, encoding="utf-8")
    for _ in range(2):
        output = run(*command, str(bib))
        assert bib.read_text(encoding="utf-8") == before
        assert "warning [tags-not-written] the tags of 'concat' were not written (MoE,data_parallel -> " in output
        assert "uses @string 'mytags'" in output and "->" not in output.replace("(MoE,data_parallel -> ", "")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('@misc{k,\n  sections = {a} # b # "c",\n  year = 2020\n}', "@misc{k,\n  sections = {x},\n  year = 2020\n}"),
        ("@misc{k, SECTIONS={a}}", "@misc{k, SECTIONS={x}}"),
        # A remark line before the name is the reader's, and the field is still the tags field.
        ("@misc{k,\n% old tags\n  sections = {a}\n}", "@misc{k,\n% old tags\n  sections = {x}\n}"),
        # Another field's value that reads like the tags field is not touched: the field is added.
        ("@misc{k,\n  note = {sections = {a}}\n}", "@misc{k,\n  sections = {x},\n  note = {sections = {a}}\n}"),
        ("@misc{k}", "@misc{k,\n  sections = {x}\n}"),
        ("@misc{k, title = {T}}", "@misc{k, sections = {x}, title = {T}}"),  # an entry on one line stays one
    ],
)
def test_the_whole_value_is_replaced_or_a_field_added(raw, expected):
    assert set_tags_field(raw, "sections", ("x",)) == expected


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_an_added_tags_line_ends_as_the_entry_s_lines_do(newline):
    raw = "@misc{k,\n\ttitle = {T},\n\tyear = 2020\n}".replace("\n", newline)
    expected = "@misc{k,\n\tsections = {x},\n\ttitle = {T},\n\tyear = 2020\n}".replace("\n", newline)
    assert set_tags_field(raw, "sections", ("x",), "\n") == expected
    assert set_tags_field("@misc{k}", "sections", ("x",), newline) == f"@misc{{k,{newline}  sections = {{x}}{newline}}}"


@pytest.mark.parametrize(
    ("fields", "added"),
    [
        ("  author    = {A},\n  title     = {T},\n", "  sections  = {x},\n"),
        ("\tauthor\t= {A},\n\tyear\t= 2020,\n", "\tsections\t= {x},\n"),
    ],
)
def test_an_added_tags_field_is_lined_up_as_the_entry_lines_up_its_own(fields, added):
    assert set_tags_field(f"@misc{{k,\n{fields}}}", "sections", ("x",)) == f"@misc{{k,\n{added}{fields}}}"


@pytest.mark.parametrize(
    ("fields", "added"),
    [
        # Google Scholar, IEEE Xplore and arXiv write "name={value}": an added " = " stood out in every entry.
        ("  title={T},\n  year={2021}\n", "  sections={x},\n"),
        ("  author={A},\n  title={T},\n  ISSN={1},\n  month={Aug},", "  sections={x},\n"),
        # Names all in capitals (older exports): the added one too, as edit_fields adds a field.
        ("  TITLE = {T},\n  YEAR = 2021\n", "  SECTIONS = {x},\n"),
    ],
)
def test_an_added_tags_field_is_named_and_spaced_as_the_entry_writes_its_fields(tmp_path, fields, added):
    raw = f"@article{{k,\n{fields}}}"
    assert set_tags_field(raw, "sections", ("x",)) == f"@article{{k,\n{added}{fields}}}"
    # The same through bib --in-place, on an entry the tagger places surely.
    moe = "Sparsely-gated mixture-of-experts layers: expert routing, gating and expert parallelism"
    bib = tmp_path / "scholar.bib"
    bib.write_text(raw.replace("{T}", "{" + moe + "}"), encoding="utf-8")
    run("bib", "--in-place", str(bib))
    tags = added.strip().rstrip(",").replace("{x}", "{")
    assert bib.read_text(encoding="utf-8").startswith(f"@article{{k,\n  {tags}moe")


def test_no_second_tags_field_is_written_past_what_reads_field_by_field():
    raw = "@misc{k,\n  title = {T} stray words,\n  sections = {a}\n}"
    assert set_tags_field(raw, "sections", ("x",)) is None


def test_the_macro_a_tags_field_uses_is_named_if_a_source_defines_it():
    raw = "@misc{k, sections = {a} # MyTags, note = other}"
    assert tags_macro(raw, "sections", {"mytags"}) == "mytags"
    assert tags_macro(raw, "sections", {"other"}) is None  # a bare word no @string defines is a tag
    assert tags_macro("@misc{k, sections = jan}", "sections", ()) == "jan"  # BibTeX defines the months
    assert tags_macro("@misc{k, sections = {a} # 2020}", "sections", {"2020"}) is None


@pytest.mark.parametrize(
    "command", [("bib", "--in-place"), ("check", "--checks", "tag-variant", "--fix")], ids=["in-place", "fix"]
)
def test_tags_joined_with_comma_and_space_stay_so_and_only_a_variant_changes(tmp_path, command):
    # Written as JabRef writes groups, {MoE, Reading list, To read}: the spaces after its commas were dropped.
    # (JabRef's own groups field keeps its names as they are: see test_jabref_groups.py.)
    bib = tmp_path / "jabref.bib"
    bib.write_text(ENTRY.format(tags="  tags    = {MoE, Reading list, To read},\n"), encoding="utf-8")
    run(*command, str(bib), "--tags-field", "tags")
    assert bib.read_text(encoding="utf-8") == ENTRY.format(tags="  tags    = {moe, Reading list, To read},\n")


# Hand-kept in Latin-1 with CRLF ends: one @string holds the tags several entries share.
SHARED_TAGS = (
    "% Literatur zum verteilten Training\r\n"
    "@string{kw = {MoE}}\r\n"
    "\r\n"
    "@article{shazeer2017,\r\n"
    "  author = {Shazeer, Noam and M\u00fcller, J\u00fcrgen},\r\n"
    "  title = {Outrageously Large Neural Networks},\r\n"
    "  year = 2017,\r\n"
    "  tags = kw,\r\n"
    "}\r\n"
    "\r\n"
    "@article{fedus2022,\r\n"
    "  author = {Fedus, William},\r\n"
    "  title = {Switch Transformers},\r\n"
    "  year = 2022,\r\n"
    '  tags = kw # ", data_parallel",\r\n'
    "}\r\n"
)


@pytest.mark.parametrize(
    "command", [("check",), ("check", "--fix"), ("bib", "--in-place")], ids=["check", "fix", "in-place"]
)
def test_a_tag_variant_from_a_string_macro_is_hinted_where_it_is_written(tmp_path, command):
    # "write 'moe'; surveytool check --fix does this" sent the user to a literal the field does not hold, and
    # --fix leaves a field that uses an @string as it is.
    bib = tmp_path / "refs.bib"
    bib.write_bytes(SHARED_TAGS.encode("latin-1"))
    output = run(*command, str(bib), "--tags-field", "tags")
    hints = sorted(line.split(" (", 1)[1] for line in output.splitlines() if "[tag-variant]" in line)
    assert hints == [
        "'MoE' comes from @string 'kw' at line 2, which other entries may share: write 'moe' there)",
        "'MoE' comes from @string 'kw' at line 2, which other entries may share: write 'moe' there)",
        "write 'data-parallel' in the tags field yourself: check --fix leaves a field that uses @string 'kw' "
        "at line 2 as it is)",
    ]
    assert bib.read_bytes() == SHARED_TAGS.encode("latin-1")


@pytest.mark.parametrize("key", ["key with space", "Smith 2020a", "ab\tc"])
def test_a_key_with_spaces_is_given_its_tags_field_and_still_reads(tmp_path, key):
    bib = tmp_path / "refs.bib"
    text = f"@article{{{key},\n  author = {{S, P}},\n  title = {{Data parallel thing}},\n  year = {{2020}},\n}}\n"
    bib.write_text(text, encoding="utf-8")
    run("bib", "--in-place", str(bib))
    written = bib.read_text(encoding="utf-8")
    assert written == text.replace(",\n  author", ",\n  sections = {data-parallel},\n  author")
    assert set_tags_field(text, "sections", ["moe"]) == text.replace(",\n  author", ",\n  sections = {moe},\n  author")


def test_an_entry_whose_header_does_not_read_gets_no_second_comma():
    raw = "@misc{a=b,\n  title = {T},\n}"
    assert set_tags_field(raw, "sections", ["moe"]) == "@misc{a=b,\n  title = {T},\n\n  sections = {moe}\n}"


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("{Memory; pipeline-parallel}", "{memory; pipeline-parallel}"),
        ("{Memory;pipeline-parallel}", "{memory;pipeline-parallel}"),
        ("{Memory, pipeline-parallel}", "{memory, pipeline-parallel}"),
        ("{Memory,pipeline-parallel}", "{memory,pipeline-parallel}"),
        ("{memory,, MEMORY, data_parallel,}", "{memory, pipeline-parallel}"),
        ("{Memory}", "{memory,pipeline-parallel}"),
    ],
)
def test_the_tags_are_joined_as_the_field_joined_them(value, written):
    """A field written ``{Memory; pipeline-parallel}`` came back ``{memory,pipeline-parallel}``: a byte changed
    between the tags for no reason of the user's."""
    raw = f"@misc{{k,\n  sections = {value},\n  year = 2020\n}}"
    expected = f"@misc{{k,\n  sections = {written},\n  year = 2020\n}}"
    assert set_tags_field(raw, "sections", ("memory", "pipeline-parallel")) == expected


@pytest.mark.parametrize("field", ["", "sec tions", "tags=", "{sections}"])
def test_a_tags_field_no_entry_can_hold_is_refused_and_the_file_left_as_it_was(tmp_path, field):
    """``bib --in-place --tags-field ""`` wrote `` = {pipeline-parallel},`` into the user's entry: a field BibTeX
    cannot read, and every field after it lost; ``tag``, ``check`` and ``build`` read the user's tags from nowhere,
    unsaid."""
    mine = tmp_path / "mine.bib"
    text = "@inproceedings{a,\n  title = {GPipe: Pipeline Parallelism for Giant Models},\n  year = {2019}\n}\n"
    mine.write_text(text, encoding="utf-8")
    commands = (
        ("bib", "--in-place", "mine.bib"),
        ("tag", "mine.bib"),
        ("check", "mine.bib"),
        ("bib", "mine.bib", "-o", "out.bib"),
        ("build", "mine.bib", "-o", "out"),
        ("draft", "mine.bib", "-o", "rw.tex"),
    )
    for command in commands:
        result = run_cli(*command, "--tags-field", field, cwd=tmp_path)
        assert result.returncode == 2 and "Traceback" not in result.stderr, (command, result.stderr)
        assert f"error: --tags-field {field!r} is no name a BibTeX field can have" in result.stderr
        assert mine.read_text(encoding="utf-8") == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.bib"]  # nothing written
    with pytest.raises(InputError):
        set_tags_field(text, field, ("moe",))
