"""Where `bib --in-place` puts the entries it adds and how it indents them: as the file does, every other byte kept."""

import pytest
from helpers import run_cli

# As JabRef 5 saves a library: an encoding line, aligned fields, its metadata last (the groups tree has braces).
JABREF_ENTRIES = (
    "% Encoding: UTF-8\n"
    "\n"
    "@Article{shazeer2017moe,\n"
    "  author    = {Shazeer, Noam and Mirhoseini, Azalia},\n"
    "  title     = {Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer},\n"
    "  journal   = {ICLR},\n"
    "  year      = {2017},\n"
    "  groups    = {MoE},\n"
    "}\n"
    "\n"
)
JABREF_META = (
    "@Comment{jabref-meta: databaseType:bibtex;}\n"
    "\n"
    "@Comment{jabref-meta: grouping:\n"
    "0 AllEntriesGroup:;\n"
    "1 StaticGroup:MoE\\;0\\;1\\;0x8a8a8aff\\;\\;\\;;\n"
    "1 KeywordGroup:{Pipeline}\\;0\\;keywords\\;pipeline\\;0\\;0\\;1\\;\\;\\;\\;;\n"
    "}\n"
)
GPIPE = (
    "@article{huang2019gpipe,\n  title = {GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism},\n"
    "  author = {Huang, Yanping},\n  year = {2019},\n}\n"
)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_an_entry_added_to_a_jabref_library_goes_before_the_metadata_jabref_keeps_last(tmp_path, newline):
    head, meta = (part.replace("\n", newline).encode() for part in (JABREF_ENTRIES, JABREF_META))
    (tmp_path / "refs.bib").write_bytes(head + meta)
    (tmp_path / "coauthor.bib").write_text(GPIPE)
    result = run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", "--tags-field", "groups", cwd=tmp_path)
    assert "huang2019gpipe: added" in result.stdout, result.stderr
    written = (tmp_path / "refs.bib").read_bytes()
    assert written.startswith(head) and written.endswith(meta)  # the new entry between them, nothing else changed
    added = written[len(head) : len(written) - len(meta)].decode()
    assert added.startswith("@article{huang2019gpipe,") and added.endswith("}" + newline + newline)
    assert added.count("@") == 1 and not {"\r", "\n"} & set(added.replace(newline, ""))  # the file's line ends
    again = run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", "--tags-field", "groups", cwd=tmp_path)
    assert "0 change(s)" in again.stdout and (tmp_path / "refs.bib").read_bytes() == written


def test_an_entry_is_appended_when_the_metadata_is_not_the_end_of_the_file(tmp_path):
    # Something the user wrote after JabRef's metadata: the metadata is not last, so the end of the file is.
    library = (JABREF_ENTRIES + JABREF_META + "\n% kept last by hand\n").encode()
    (tmp_path / "refs.bib").write_bytes(library)
    (tmp_path / "coauthor.bib").write_text(GPIPE)
    run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", "--tags-field", "groups", cwd=tmp_path, check=True)
    written = (tmp_path / "refs.bib").read_bytes()
    assert written.startswith(library + b"\n@article{huang2019gpipe,")


def indented(indent: str, newline: str) -> bytes:
    """A library whose entries indent their fields with ``indent``, one of them with DBLP's aligned "="."""
    return (
        f"@string{{acl = {{ACL}}}}{newline}{newline}"
        f"@inproceedings{{DBLP:conf/acl/Peters21,{newline}{indent}author       = {{Ben Peters}},{newline}"
        f"{indent}title        = {{Sparse nets}},{newline}{indent}booktitle    = acl,{newline}"
        f"{indent}year         = {{2021}},{newline}{indent}sections     = {{moe}},{newline}}}{newline}{newline}"
        f"@article{{a1,{newline}{indent}title = {{Pipeline parallel training}},{newline}"
        f"{indent}year = {{2020}},{newline}{indent}sections = {{pipeline-parallel}},{newline}}}{newline}"
    ).encode()


@pytest.mark.parametrize(
    "indent, newline", [("\t", "\n"), ("\t", "\r\n"), ("    ", "\n"), ("    ", "\r\n"), ("", "\n")]
)
def test_an_added_entry_indents_its_fields_as_the_file_does(tmp_path, indent, newline):
    library = indented(indent, newline)
    (tmp_path / "refs.bib").write_bytes(library)
    (tmp_path / "coauthor.bib").write_text(GPIPE)  # indented with two spaces
    run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path, check=True)
    written = (tmp_path / "refs.bib").read_bytes()
    assert written.startswith(library + newline.encode())
    added = written[len(library) + len(newline) :].decode()
    lines = added.split(newline)
    assert lines[0] == "@article{huang2019gpipe," and lines[-2:] == ["}", ""]
    assert lines[1:-2] == [
        indent + "author = {Huang, Yanping},",
        indent + "title = {GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism},",
        indent + "year = {2019},",
        indent + "sections = {pipeline-parallel},",
    ]
    again = run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path, check=True)
    assert "0 change(s)" in again.stdout and (tmp_path / "refs.bib").read_bytes() == written


def test_an_indent_asked_for_wins_over_the_files(tmp_path):
    (tmp_path / "refs.bib").write_bytes(indented("\t", "\n"))
    (tmp_path / "coauthor.bib").write_text(GPIPE)
    run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", "--space", "3", cwd=tmp_path, check=True)
    added = (tmp_path / "refs.bib").read_text().split("@article{huang2019gpipe,\n")[1]
    assert added.startswith("   author = {Huang, Yanping},\n   title = ")


@pytest.mark.parametrize("asked", [("--space", "2"), ("--no-tab",), ("--config", "settings.toml")])
def test_the_standard_indent_asked_for_wins_over_the_files_too(tmp_path, asked):
    (tmp_path / "refs.bib").write_bytes(indented("\t", "\n"))
    (tmp_path / "coauthor.bib").write_text(GPIPE)
    (tmp_path / "settings.toml").write_text("[bib]\nspace = 2\n")
    run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", *asked, cwd=tmp_path, check=True)
    added = (tmp_path / "refs.bib").read_text().split("@article{huang2019gpipe,\n")[1]
    assert added.startswith("  author = {Huang, Yanping},\n  title = ")


def dblp_library(indent: str, newline: str) -> bytes:
    """Two entries as DBLP exports them, "=" in one column (a long name followed by one space), and one by hand."""
    dblp = (
        "@inproceedings{{DBLP:conf/acl/{key},\n{i}author       = {{Ben Peters and\n{i}                  Andre Martins}},\n"
        "{i}title        = {{{title}}},\n{i}booktitle    = {{Proceedings of ACL}},\n{i}year         = {{2021}},\n"
        "{i}archiveprefix = {{arXiv}},\n{i}sections     = {{moe}},\n}}\n\n"
    )
    text = (
        dblp.format(key="Peters21", title="Sparse nets", i=indent)
        + dblp.format(key="Peters22", title="Sparser nets", i=indent)
        + f"@article{{a1,\n{indent}title = {{Pipeline parallel training}},\n{indent}year = {{2020}},\n"
        + f"{indent}sections = {{pipeline-parallel}},\n}}\n"
    )
    return text.replace("\n", newline).encode()


@pytest.mark.parametrize("indent, newline", [("  ", "\n"), ("  ", "\r\n"), ("\t", "\n")])
def test_an_added_entry_puts_its_equals_signs_in_the_column_most_entries_of_the_file_do(tmp_path, indent, newline):
    library = dblp_library(indent, newline)
    (tmp_path / "refs.bib").write_bytes(library)
    (tmp_path / "coauthor.bib").write_text(GPIPE.replace("  year", "  archiveprefix = {arXiv},\n  year"))
    run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path, check=True)
    written = (tmp_path / "refs.bib").read_bytes()
    assert written.startswith(library + newline.encode())  # the file's own entries as they were
    lines = written[len(library) + len(newline) :].decode().split(newline)
    assert lines[1:-2] == [
        indent + "author       = {Huang, Yanping},",
        indent + "title        = {GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism},",
        indent + "year         = {2019},",
        indent + "archiveprefix = {arXiv},",
        indent + "sections     = {pipeline-parallel},",
    ]
    again = run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path, check=True)
    assert "0 change(s)" in again.stdout and (tmp_path / "refs.bib").read_bytes() == written


def test_a_column_asked_for_wins_over_the_files(tmp_path):
    (tmp_path / "refs.bib").write_bytes(dblp_library("  ", "\n"))
    (tmp_path / "coauthor.bib").write_text(GPIPE)
    run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", "--align", "8", cwd=tmp_path, check=True)
    added = (tmp_path / "refs.bib").read_text().split("@article{huang2019gpipe,\n")[1]
    assert added.startswith("  author  = {Huang, Yanping},\n  title   = ")
