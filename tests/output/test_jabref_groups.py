"""JabRef's groups as the tags field (`--tags-field groups`): the group names are the user's, shared with JabRef.

A name that names a section is read as that section and stays as written (`MoE` was rewritten `moe`, which
moved the entry out of its JabRef group); names that are no section are neither errors nor dropped; a section
is added after them only where the tagger is sure, and every other byte of the file stays.
"""

from pathlib import Path

import pytest
from helpers import run_cli

from surveytool.output.tags_field import add_tags

# As JabRef 5 saves a library: an encoding line, CRLF, aligned fields, groups joined by ", ", its metadata last.
JABREF = (
    "% Encoding: UTF-8\r\n"
    "\r\n"
    "@Article{shazeer2017moe,\r\n"
    "  author    = {Shazeer, Noam and M\u00fcller, J\u00fcrgen},\r\n"
    "  title     = {Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer},\r\n"
    "  journal   = {ICLR},\r\n"
    "  year      = {2017},\r\n"
    "  groups    = {To read, MoE, Advisor picks},\r\n"
    "}\r\n"
    "\r\n"
    "@InProceedings{rajbhandari2020zero,\r\n"
    "  author    = {Rajbhandari, Samyam and Rasley, Jeff},\r\n"
    "  title     = {{ZeRO}: Memory Optimizations Toward Training Trillion Parameter Models},\r\n"
    "  booktitle = {SC},\r\n"
    "  year      = {2020},\r\n"
    "  groups    = {Read, data parallelism and state sharding},\r\n"
    "}\r\n"
    "\r\n"
    "@Article{huang2019gpipe,\r\n"
    "  author    = {Huang, Yanping},\r\n"
    "  title     = {{GPipe}: Efficient Training of Giant Neural Networks using Pipeline Parallelism},\r\n"
    "  journal   = {NeurIPS},\r\n"
    "  year      = {2019},\r\n"
    "  abstract  = {We introduce GPipe, a pipeline parallelism library that scales any network expressed as a "
    "sequence of layers by pipelining micro-batches across accelerators.},\r\n"
    "  groups    = {To read},\r\n"
    "}\r\n"
    "\r\n"
    "@Misc{vague2021,\r\n"
    "  author    = {Someone, Anne},\r\n"
    "  title     = {Some thoughts},\r\n"
    "  year      = {2021},\r\n"
    "  groups    = {Advisor picks},\r\n"
    "}\r\n"
    "\r\n"
    "@Comment{jabref-meta: databaseType:bibtex;}\r\n"
    "\r\n"
    "@Comment{jabref-meta: grouping:\r\n"
    "0 AllEntriesGroup:;\r\n"
    "1 StaticGroup:MoE\\;0\\;1\\;\\;\\;\\;;\r\n"
    "1 StaticGroup:To read\\;0\\;1\\;\\;\\;\\;;\r\n"
    "1 StaticGroup:Read\\;0\\;1\\;\\;\\;\\;;\r\n"
    "1 StaticGroup:Advisor picks\\;0\\;1\\;\\;\\;\\;;\r\n"
    "}\r\n"
)
#: The one change `bib --in-place` has to make: the tagger is sure of GPipe, and its groups name no section.
#: (vague2021 is below the tagger's threshold: nothing is written there.)
TAGGED = JABREF.replace("groups    = {To read},", "groups    = {To read, pipeline-parallel},")
ENCODINGS = [("utf-8", b""), ("utf-8", b"\xef\xbb\xbf"), ("latin-1", b"")]
ENCODING_IDS = ["utf-8", "utf-8-bom", "latin-1"]


def _library(tmp_path: Path, encoding: str, mark: bytes) -> tuple[Path, bytes]:
    text = JABREF if encoding == "utf-8" else JABREF.replace("% Encoding: UTF-8", "% Encoding: ISO-8859-1")
    bib = tmp_path / "library.bib"
    bib.write_bytes(mark + text.encode(encoding))
    return bib, mark + text.encode(encoding)


@pytest.mark.parametrize(("encoding", "mark"), ENCODINGS, ids=ENCODING_IDS)
def test_bib_in_place_keeps_every_group_name_and_adds_only_a_sure_section(tmp_path, encoding, mark):
    bib, before = _library(tmp_path, encoding, mark)
    result = run_cli("bib", "--in-place", str(bib), "--tags-field", "groups", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    expected = before.replace(b"groups    = {To read},", b"groups    = {To read, pipeline-parallel},")
    assert bib.read_bytes() == expected
    assert "huang2019gpipe: tags To read -> To read,pipeline-parallel" in result.stdout + result.stderr
    # Read again, every entry is placed or left to the user: a second run writes nothing.
    again = run_cli("bib", "--in-place", str(bib), "--tags-field", "groups", cwd=tmp_path)
    assert bib.read_bytes() == expected, again.stdout + again.stderr


@pytest.mark.parametrize(("encoding", "mark"), ENCODINGS, ids=ENCODING_IDS)
def test_check_fix_leaves_the_group_names_as_they_are(tmp_path, encoding, mark):
    bib, before = _library(tmp_path, encoding, mark)
    result = run_cli("check", str(bib), "--tags-field", "groups", "--fix", cwd=tmp_path)
    assert bib.read_bytes() == before, result.stdout + result.stderr


def test_check_reports_no_group_name_as_a_problem(tmp_path):
    bib, _ = _library(tmp_path, "utf-8", b"")
    result = run_cli("check", str(bib), "--tags-field", "groups", cwd=tmp_path)
    reported = result.stdout + result.stderr
    for name in ("MoE", "To read", "Read", "Advisor picks", "data parallelism"):
        assert f"'{name}" not in reported, reported
    assert "[unknown-tag]" not in reported and "[tag-variant]" not in reported, reported
    # The entry left to the user is pointed at the field it is read from, beside its other groups.
    assert "[needs-review] no section given to 'vague2021'" in reported
    assert "to its groups field)" in reported and "sections = {" not in reported, reported
    # The entry bib --in-place would place is said to be unplaced, the tagger's guess named for its groups.
    assert (
        "library.bib:19: warning [untagged-entry] entry 'huang2019gpipe' has no section among its groups"
        " (add 'pipeline-parallel', the tagger's guess, to its groups field)"
    ) in reported, reported
    assert "'shazeer2017moe' has no" not in reported and "'rajbhandari2020zero' has no" not in reported
    assert result.returncode == 0, reported


def test_an_entry_without_groups_is_given_the_field_in_its_layout(tmp_path):
    bib = tmp_path / "library.bib"
    entry = JABREF.split("@Misc")[0].replace("  groups    = {To read},\r\n", "")
    bib.write_bytes(entry.encode())
    run_cli("bib", "--in-place", str(bib), "--tags-field", "groups", check=True, cwd=tmp_path)
    added = "@Article{huang2019gpipe,\r\n  groups    = {pipeline-parallel},\r\n"
    assert bib.read_bytes() == entry.replace("@Article{huang2019gpipe,\r\n", added).encode()


def test_the_sections_field_still_has_its_variants_made_ids(tmp_path):
    # Only a reference manager's field keeps its spellings: surveytool's own field is still mended.
    bib = tmp_path / "library.bib"
    bib.write_bytes(JABREF.replace("groups    =", "sections  =").encode())
    run_cli("bib", "--in-place", str(bib), cwd=tmp_path)
    assert b"sections  = {To read, moe, Advisor picks}," in bib.read_bytes()


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("  groups = {To read, MoE},", "  groups = {To read, MoE, memory, moe},"),
        ("  groups = {To read,MoE},", "  groups = {To read,MoE,memory,moe},"),
        ("  groups = {To read; MoE},", "  groups = {To read; MoE; memory; moe},"),
        ("  groups = {To read},", "  groups = {To read, memory, moe},"),
        ("  groups = {To read, },", "  groups = {To read, memory, moe },"),
        ('  groups = "To read",', '  groups = "To read, memory, moe",'),
        ("  groups = {},", "  groups = {memory, moe},"),
        ("  groups = {To read}  ,", "  groups = {To read, memory, moe}  ,"),
        ("  groups = {To\r\n    read},", "  groups = {To\r\n    read, memory, moe},"),
        ("  groups = {To read} # {, Later},", "  groups = {To read} # {, Later, memory, moe},"),
        ("  groups = ToRead,", "  groups = {ToRead,memory,moe},"),  # no literal to add to: written anew
        # JabRef splits groups at its keyword separator, a comma: a ";" in a name is no separator there.
        ("  groups = {To read; later, MoE},", "  groups = {To read; later, MoE, memory, moe},"),
        ('  groups = {To read, "Best"},', '  groups = {To read, "Best", memory, moe},'),  # a name ending in a quote
    ],
)
def test_sections_are_added_after_the_names_a_group_field_holds(field, expected):
    raw = f"@misc{{k,\r\n  title = {{T}},\r\n{field}\r\n}}"
    names = ("ToRead",) if "ToRead" in field else ("To read",)
    assert add_tags(raw, "groups", names, ("memory", "moe"), "\r\n") == raw.replace(field, expected)


def test_the_bib_written_from_the_library_keeps_the_group_names_in_their_order(tmp_path):
    # bib -o (and build's references.bib) wrote {moe,To read,Advisor picks}: respelled and reordered; then
    # {To read,MoE,Advisor picks} and model_parallel: the names joined anew and JabRef's own \_ decoded.
    bib, _ = _library(tmp_path, "utf-8", b"")
    bib.write_bytes(bib.read_bytes().replace(b"{Advisor picks}", b"{Advisor picks; model\\_parallel}"))
    run_cli("bib", str(bib), "--tags-field", "groups", "-o", "out.bib", cwd=tmp_path)
    written = (tmp_path / "out.bib").read_text(encoding="utf-8")
    groups = [line.strip() for line in written.splitlines() if line.strip().startswith("groups")]
    assert groups == [
        "groups = {To read, pipeline-parallel},",
        "groups = {Read, data parallelism and state sharding},",
        "groups = {To read, MoE, Advisor picks},",
        "groups = {Advisor picks; model\\_parallel},",
    ]
