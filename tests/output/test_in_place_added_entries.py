"""Entries `bib --in-place` adds from other sources: added once, and only as the file's encoding can hold them."""

import pytest
from helpers import run_cli

GPIPE = (
    "@article{gpipe2019,\n  title = {GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism},\n"
    "  author = {Huang, Yanping},\n  year = {2019},\n}\n"
)
GREEK = (
    "@article{alpha2022,\n  title = {α-scaling of “deep” pipeline parallel nets},\n  author = {Li, Wei},\n"
    "  year = {2022},\n  note = {the α-entmax of Müller},\n  abstract = {We scale α — and “β” — pipelines.},\n}\n"
)
CHINESE = (
    "@article{zhang2021,\n  title = {大模型训练 Large model training},\n  author = {Zhang, San},\n  year = {2021},\n}\n"
)


def latin1_library(count: int = 30) -> bytes:
    """A JabRef library saved as Latin-1 on Windows: many accented names, CRLF."""
    return b"".join(
        f"@article{{m{i},\r\n  title = {{Café naïve résumé training {i}}},\r\n  author = {{Müller, Hans}},\r\n"
        f"  year = {{2020}},\r\n}}\r\n\r\n".encode("latin-1")
        for i in range(count)
    )


def test_a_second_run_does_not_add_again_the_entry_the_first_run_added(tmp_path):
    (tmp_path / "refs.bib").write_text("@article{a1,\n  title = {Pipeline parallel training},\n  year = {2020},\n}\n")
    (tmp_path / "coauthor.bib").write_text(GPIPE)
    first = run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path)
    assert first.returncode == 0 and "gpipe2019: added" in first.stdout + first.stderr
    once = (tmp_path / "refs.bib").read_bytes()
    assert b"sections = {pipeline-parallel}" in once.split(b"@article{gpipe2019,")[1]  # the copy has tags
    for _ in range(2):
        again = run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path)
        assert again.returncode == 0 and "added" not in again.stdout + again.stderr
        assert (tmp_path / "refs.bib").read_bytes() == once


def test_later_runs_give_no_warning_for_the_copies_an_earlier_run_added(tmp_path):
    (tmp_path / "refs.bib").write_text("@article{a1,\n  title = {Pipeline parallel training},\n  year = {2020},\n}\n")
    (tmp_path / "coauthor.bib").write_text(GPIPE)
    run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path)
    again = run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path)
    # The co-author's entry is now in both files, as the user asked: nothing to mend in either.
    assert "warning" not in again.stderr and "delete the copy" not in again.stderr
    assert (
        "coauthor.bib:1: info [duplicate-key] entry 'gpipe2019' here is an identical copy of the entry at"
        in again.stderr
    )
    quiet = run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", "--quiet", cwd=tmp_path)
    assert quiet.stderr == ""
    strict = run_cli("bib", "refs.bib", "coauthor.bib", "-o", "out.bib", "--strict", cwd=tmp_path)
    assert strict.returncode == 0, strict.stderr


def test_an_entry_added_to_a_latin1_file_spells_in_latex_what_latin1_cannot_hold_and_is_added_once(tmp_path):
    library = latin1_library()
    (tmp_path / "refs.bib").write_bytes(library)
    (tmp_path / "coauthor.bib").write_text(GREEK, encoding="utf-8")
    run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path)
    written = (tmp_path / "refs.bib").read_bytes()
    added = written.split(b"@article{alpha2022,")[1]
    # Every byte is Latin-1 text (no UTF-8 sequence a later read would take for other characters).
    assert b"{\\ensuremath{\\alpha}}-scaling of {\\textquotedblleft}deep{\\textquotedblright}" in added
    assert {byte for byte in added if byte >= 0x80} == {0xFC}  # ü as Latin-1 holds it; no UTF-8 sequence
    assert b"\r\n" in added and b"\n" not in added.replace(b"\r\n", b"")
    once = written
    again = run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path)
    said = again.stdout + again.stderr
    assert "added" not in said and "alpha2022b" not in said and "already-in-file" not in said
    assert "duplicate-entry" not in said and "used again here (the entry" not in said  # one entry, not two
    assert (tmp_path / "refs.bib").read_bytes() == once
    # Read with its source, the file's copy is that entry: one entry written, not alpha2022 and alpha2022b.
    printed = run_cli("bib", "refs.bib", "coauthor.bib", "-o", "-", cwd=tmp_path).stdout
    assert printed.count("@article{alpha2022") == 1


@pytest.mark.parametrize(
    "entry, char",
    [
        (CHINESE, "大"),
        ("@misc{web,\n  title = {Notes},\n  url = {https://example.org/α},\n  year = {2020},\n}\n", "α"),
        ("@misc{bétaα,\n  title = {Notes},\n  year = {2020},\n}\n", "α"),
    ],
)
def test_an_entry_a_latin1_file_cannot_hold_is_not_added_and_the_run_says_why(tmp_path, entry, char):
    library = latin1_library()
    (tmp_path / "refs.bib").write_bytes(library)
    (tmp_path / "coauthor.bib").write_text(entry + GREEK, encoding="utf-8")
    result = run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path)
    assert result.returncode == 1
    assert (
        f"[not-in-file-encoding] entry '{entry.split('{')[1].split(',')[0]}' is not added to refs.bib" in result.stderr
    )
    assert f"'{char}' (U+{ord(char):04X})" in result.stderr and "save refs.bib as UTF-8" in result.stderr
    written = (tmp_path / "refs.bib").read_bytes()
    assert written.decode("latin-1").count("@") == library.decode("latin-1").count("@") + 1  # the Greek one only
    assert {byte for byte in written.split(b"@article{alpha2022,")[1] if byte >= 0x80} == {0xFC}


def test_an_entry_edited_in_its_source_after_it_was_added_is_reported_not_added_again(tmp_path):
    (tmp_path / "refs.bib").write_text("@article{a1,\n  title = {Pipeline parallel training},\n  year = {2020},\n}\n")
    (tmp_path / "coauthor.bib").write_text(GPIPE)
    run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path)
    once = (tmp_path / "refs.bib").read_bytes()
    (tmp_path / "coauthor.bib").write_text(
        GPIPE.replace("  year", "  booktitle = {NeurIPS},\n  doi = {10.5555/1},\n  year")
    )
    for _ in range(2):
        again = run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path)
        assert again.returncode == 0 and "added" not in again.stdout
        assert (
            "coauthor.bib:1: warning [already-in-file] entry 'gpipe2019' is not added to refs.bib: refs.bib:7 has "
            "that key for the same work (they differ in booktitle, doi)" in again.stderr
        )
        assert (tmp_path / "refs.bib").read_bytes() == once


def test_another_work_under_a_key_the_file_has_is_still_added_under_a_key_of_its_own(tmp_path):
    (tmp_path / "refs.bib").write_text(
        "@article{huang2019,\n  title = {Pipeline parallel training},\n  year = {2019},\n}\n"
    )
    (tmp_path / "coauthor.bib").write_text(GPIPE.replace("gpipe2019", "huang2019"))
    result = run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path)
    assert "huang2019b: added" in result.stdout and "already-in-file" not in result.stderr
    assert (tmp_path / "refs.bib").read_text().count("@article{huang2019b,") == 1


def test_an_entry_of_a_short_title_edited_in_its_source_is_not_added_again(tmp_path):
    # A title of two words is no identity of its own (only with its authors and year).
    (tmp_path / "refs.bib").write_text("@article{a1,\n  title = {Pipeline parallel training},\n  year = {2020},\n}\n")
    short = "@article{b2021,\n  title = {Sparse nets},\n  author = {Peters, Ben},\n  journal = {ACL},\n  year = {2021},\n}\n"
    (tmp_path / "coauthor.bib").write_text(short)
    run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path)
    once = (tmp_path / "refs.bib").read_bytes()
    (tmp_path / "coauthor.bib").write_text(short.replace("  year", "  pages = {1--9},\n  year"))
    for _ in range(2):
        again = run_cli("bib", "--in-place", "refs.bib", "coauthor.bib", cwd=tmp_path)
        assert "b2021b" not in again.stdout and "[already-in-file] entry 'b2021'" in again.stderr
        assert (tmp_path / "refs.bib").read_bytes() == once


# The same paper as DBLP exports it and as Google Scholar does.
DBLP = (
    "@inproceedings{DBLP:conf/nips/HuangCBFCCLNLWC19,\n"
    "  author       = {Yanping Huang and\n                  Youlong Cheng and\n                  Ankur Bapna and\n"
    "                  Orhan Firat and\n                  Dehao Chen and\n                  Mia Xu Chen and\n"
    "                  HyoukJoong Lee and\n                  Jiquan Ngiam and\n                  Quoc V. Le and\n"
    "                  Yonghui Wu and\n                  Zhifeng Chen},\n"
    "  title        = {GPipe: Efficient Training of Giant Neural Networks using Pipeline\n"
    "                  Parallelism},\n"
    "  booktitle    = {Advances in Neural Information Processing Systems 32: Annual Conference\n"
    "                  on Neural Information Processing Systems 2019, NeurIPS 2019, December\n"
    "                  8-14, 2019, Vancouver, BC, Canada},\n"
    "  pages        = {103--112},\n  year         = {2019},\n"
    "  url          = {https://proceedings.neurips.cc/paper/2019/hash/093f65e080a295f8076b1c5722a46aa2-Abstract.html},\n"
    "  sections     = {pipeline-parallel},\n"
    "  biburl       = {https://dblp.org/rec/conf/nips/HuangCBFCCLNLWC19.bib},\n"
    "  bibsource    = {dblp computer science bibliography, https://dblp.org}\n}\n"
)
SCHOLAR = (
    "@article{huang2019gpipe,\n"
    "  title={Gpipe: Efficient training of giant neural networks using pipeline parallelism},\n"
    "  author={Huang, Yanping and Cheng, Youlong and Bapna, Ankur and Firat, Orhan and Chen, Dehao and Chen, Mia and "
    "Lee, HyoukJoong and Ngiam, Jiquan and Le, Quoc V and Wu, Yonghui and others},\n"
    "  journal={Advances in neural information processing systems},\n  volume={32},\n  year={2019}\n}\n"
)


def with_field(entry: str, field: str) -> str:
    """``entry`` with the line ``field`` before its year: each source's export of one paper, carrying its id."""
    return entry.replace("  year", f"  {field},\n  year", 1)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_work_the_file_has_under_another_key_is_not_added_and_the_key_to_cite_is_named(tmp_path, newline):
    doi = "doi = {10.5555/3454287.3454297}"
    mine = ("% my library" + newline + newline + with_field(DBLP, doi).replace("\n", newline)).encode()
    (tmp_path / "mine.bib").write_bytes(mine)
    (tmp_path / "coauthor.bib").write_text(with_field(SCHOLAR, doi))
    (tmp_path / "main.tex").write_text("As in \\cite{huang2019gpipe}.\n\\bibliography{mine}\n")
    for _ in range(2):  # and no warning on a later run either
        result = run_cli("bib", "--in-place", "mine.bib", "coauthor.bib", "--strict", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert "added" not in result.stdout and "0 change(s) to mine.bib" in result.stdout
        assert (tmp_path / "mine.bib").read_bytes() == mine
        assert result.stderr == (
            "coauthor.bib:1: info [already-in-file] entry 'huang2019gpipe' is not added to mine.bib: mine.bib:3 has "
            "that work as 'DBLP:conf/nips/HuangCBFCCLNLWC19' (the same DOI 10.5555/3454287.3454297); "
            "cite 'DBLP:conf/nips/HuangCBFCCLNLWC19' (`surveytool rekey mine.bib coauthor.bib --tex FILE` rewrites "
            "\\cite{huang2019gpipe} in your documents to \\cite{DBLP:conf/nips/HuangCBFCCLNLWC19})\n"
        )
    # The command the hint gives keeps the co-author's citations working with the user's file alone.
    run_cli("rekey", "mine.bib", "coauthor.bib", "--tex", "main.tex", cwd=tmp_path, check=True)
    assert (
        tmp_path / "main.tex"
    ).read_text() == "As in \\cite{DBLP:conf/nips/HuangCBFCCLNLWC19}.\n\\bibliography{mine}\n"


def test_another_work_of_the_same_title_is_still_added(tmp_path):
    (tmp_path / "mine.bib").write_text(DBLP)
    # A later paper of other authors under the same title: another work.
    other = SCHOLAR.replace("huang2019", "cheng2023").replace("Huang, Yanping and ", "").replace("2019", "2023")
    (tmp_path / "coauthor.bib").write_text(other)
    result = run_cli("bib", "--in-place", "mine.bib", "coauthor.bib", cwd=tmp_path)
    assert "cheng2023gpipe: added" in result.stdout and "already-in-file" not in result.stderr
    assert (tmp_path / "mine.bib").read_text().startswith(DBLP)


@pytest.mark.parametrize("order", [("dblp.bib", "scholar.bib"), ("scholar.bib", "dblp.bib")])
def test_of_two_sources_entries_of_one_work_only_the_first_sources_is_added(tmp_path, order):
    mine = "@article{a1,\n  title = {Pipeline parallel training},\n  year = {2020},\n  sections = {pipeline-parallel},\n}\n"
    (tmp_path / "mine.bib").write_text(mine)
    (tmp_path / "dblp.bib").write_text(with_field(DBLP, "eprint = {1811.06965}"))
    (tmp_path / "scholar.bib").write_text(with_field(SCHOLAR, "eprint = {1811.06965}"))
    (tmp_path / "main.tex").write_text("As in \\cite{huang2019gpipe} and \\cite{DBLP:conf/nips/HuangCBFCCLNLWC19}.\n")
    first, other = order
    kept, dropped = ("DBLP:conf/nips/HuangCBFCCLNLWC19", "huang2019gpipe")[:: 1 if first == "dblp.bib" else -1]
    result = run_cli("bib", "--in-place", "mine.bib", *order, "--strict", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"{kept}: added" in result.stdout and dropped not in result.stdout
    assert result.stderr == (
        f"{other}:1: info [already-in-file] entry '{dropped}' is not added to mine.bib: this run adds that work from "
        f"{first}:1 as '{kept}' (the same arXiv id 1811.06965); cite '{kept}' (`surveytool "
        f"rekey mine.bib {other} --tex FILE` rewrites \\cite{{{dropped}}} in your documents to \\cite{{{kept}}})\n"
    )
    written = (tmp_path / "mine.bib").read_text()
    # The next run adds nothing and says the same of the other entry, now of the file's.
    again = run_cli("bib", "--in-place", "mine.bib", *order, "--strict", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "0 change(s)" in again.stdout and (tmp_path / "mine.bib").read_text() == written
    assert "[duplicate-entry]" not in again.stderr and f"has that work as '{kept}'" in again.stderr
    run_cli("rekey", "mine.bib", other, "--tex", "main.tex", cwd=tmp_path, check=True)
    assert (tmp_path / "main.tex").read_text() == f"As in \\cite{{{kept}}} and \\cite{{{kept}}}.\n"


NEURIPS19 = (
    "@proceedings{NeurIPS2019,\n  title = {Advances in Neural Information Processing Systems 32},\n"
    "  editor = {Wallach, Hanna},\n  year = {2019},\n}\n"
)


# The volume where the file has it, or where another source given first does (this run adds it from there).
@pytest.mark.parametrize("volume_in", ["mine.bib", "a.bib"])
def test_the_parent_an_added_entry_crossrefs_is_added_with_it_though_the_file_has_its_work(tmp_path, volume_in):
    mine = "@article{a1,\n  title = {Pipeline parallel training},\n  year = {2020},\n}\n"
    (tmp_path / "mine.bib").write_text(NEURIPS19 if volume_in == "mine.bib" else mine)
    (tmp_path / "a.bib").write_text(NEURIPS19)
    child = (
        "@inproceedings{huang2019,\n  title = {GPipe: Efficient Training of Giant Neural Networks},\n"
        "  author = {Huang, Yanping},\n  pages = {103--112},\n  crossref = {nips19},\n}\n"
    )
    (tmp_path / "co.bib").write_text(NEURIPS19.replace("NeurIPS2019", "nips19") + "\n" + child)
    result = run_cli("bib", "--in-place", "mine.bib", "a.bib", "co.bib", cwd=tmp_path)
    assert "huang2019: added" in result.stdout and "nips19: added" in result.stdout
    assert "already-in-file" not in result.stderr
    written = (tmp_path / "mine.bib").read_text()
    assert written.count("{NeurIPS2019,") == 1 and written.index("{huang2019,") < written.index("{nips19,")
    # The child finds its parent in the file alone and inherits its year; the file has the volume twice, and says so.
    check = run_cli("check", "mine.bib", cwd=tmp_path)
    assert "crossref-undefined" not in check.stderr and "has no booktitle, year" not in check.stderr
    assert "[duplicate-entry] 'nips19' (mine.bib:" in check.stderr


THESIS = (
    "@phdthesis{smith2019thesis,\n  title = {Scaling Sparse Mixture of Experts Models for Language},\n"
    "  author = {Smith, John},\n  school = {MIT},\n  year = {2019},\n}\n"
)
WORKSHOP = (
    "@inproceedings{smith2019workshop,\n  title = {Scaling Sparse Mixture of Experts Models for Language},\n"
    "  author = {Smith, John},\n  booktitle = {ICML Workshop on Efficient Training},\n  year = {2019},\n}\n"
)
ARTICLE = (
    "@article{smith2019jmlr,\n  title = {Scaling Sparse Mixture of Experts Models for Language},\n"
    "  author = {Smith, John and Doe, Jane},\n  journal = {Journal of Machine Learning Research},\n"
    "  volume = {20},\n  pages = {1--40},\n  year = {2019},\n}\n"
)


# A workshop paper and the article of its title, by one first author in one year: perhaps two publications.
# (A thesis and the article of its title are two works, never reported: test_false_merges.)
@pytest.mark.parametrize("mine, theirs", [(WORKSHOP, ARTICLE), (ARTICLE, WORKSHOP)])
def test_an_entry_that_shares_only_a_title_with_one_of_the_file_is_added_and_reported_as_a_duplicate(
    tmp_path, mine, theirs
):
    (tmp_path / "mine.bib").write_text(mine)
    (tmp_path / "co.bib").write_text(theirs)
    key, other = theirs.split("{")[1].split(",")[0], mine.split("{")[1].split(",")[0]
    result = run_cli("bib", "--in-place", "mine.bib", "co.bib", cwd=tmp_path)
    # Merging joins them only when asked: not added, the co-author's publication would be one of the user's unasked.
    assert f"{key}: added" in result.stdout and "already-in-file" not in result.stderr
    assert (
        f"mine.bib:1: warning [duplicate-entry] '{other}' (mine.bib:1) and '{key}' (co.bib:1) look like the same work"
        in result.stderr
    )
    written = (tmp_path / "mine.bib").read_text()
    assert written.startswith(mine.split("\n")[0]) and written.count(f"{{{key},") == 1


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_dblps_and_scholars_entries_of_one_paper_without_an_id_are_one_work_and_not_added_twice(tmp_path, newline):
    # DBLP's @inproceedings in the user's file, Google Scholar's @article in a co-author's: the same title, first
    # author (written "Yanping Huang" and "Huang, Yanping") and year, and nothing they state disagrees.
    mine = DBLP.replace("\n", newline).encode()
    (tmp_path / "mine.bib").write_bytes(mine)
    (tmp_path / "coauthor.bib").write_text(SCHOLAR)
    (tmp_path / "main.tex").write_text("As in \\cite{huang2019gpipe}.\n")
    for _ in range(2):
        result = run_cli("bib", "--in-place", "mine.bib", "coauthor.bib", "--strict", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert "0 change(s) to mine.bib" in result.stdout and (tmp_path / "mine.bib").read_bytes() == mine
        assert result.stderr == (
            "coauthor.bib:1: info [already-in-file] entry 'huang2019gpipe' is not added to mine.bib: mine.bib:1 has "
            "that work as 'DBLP:conf/nips/HuangCBFCCLNLWC19' (the same title, authors, year and kind of entry); "
            "cite 'DBLP:conf/nips/HuangCBFCCLNLWC19' (`surveytool rekey mine.bib coauthor.bib --tex FILE` rewrites "
            "\\cite{huang2019gpipe} in your documents to \\cite{DBLP:conf/nips/HuangCBFCCLNLWC19})\n"
        )
    run_cli("rekey", "mine.bib", "coauthor.bib", "--tex", "main.tex", cwd=tmp_path, check=True)
    assert (tmp_path / "main.tex").read_text() == "As in \\cite{DBLP:conf/nips/HuangCBFCCLNLWC19}.\n"


@pytest.mark.parametrize(
    "change",
    [
        ("Huang, Yanping and Cheng", "Cheng, Youlong and Huang"),  # another first author
        ("year={2019}", "year={2020}"),  # another year
        ("@article{huang2019gpipe", "@phdthesis{huang2019gpipe"),  # another kind of publication
        ("journal={Advances in neural information processing systems}", "journal={arXiv preprint}"),  # a preprint
        ("  year={2019}\n", ""),  # no year to compare
        ("Wu, Yonghui and others", "Wu, Yonghui and Doe, Jane"),  # another author list
        ("Advances in neural information processing systems", "Journal of Machine Learning Research"),  # extended
    ],
)
def test_an_entry_sharing_a_title_but_not_its_authors_year_or_kind_is_still_added(tmp_path, change):
    (tmp_path / "mine.bib").write_text(DBLP)
    (tmp_path / "coauthor.bib").write_text(SCHOLAR.replace(*change))
    result = run_cli("bib", "--in-place", "mine.bib", "coauthor.bib", cwd=tmp_path)
    assert "huang2019gpipe: added" in result.stdout and "already-in-file" not in result.stderr


def test_a_copy_of_an_entry_of_the_file_under_another_key_is_not_added(tmp_path):
    (tmp_path / "mine.bib").write_text(THESIS)
    (tmp_path / "co.bib").write_text(THESIS.replace("smith2019thesis", "smith19").replace("\n  ", "\n    "))
    result = run_cli("bib", "--in-place", "mine.bib", "co.bib", "--strict", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "added" not in result.stdout and (tmp_path / "mine.bib").read_text().count("@phdthesis") == 1
    assert (
        "co.bib:1: info [already-in-file] entry 'smith19' is not added to mine.bib: mine.bib:1 has that work as "
        "'smith2019thesis' (the same entry type and fields); cite 'smith2019thesis'" in result.stderr
    )


def test_the_xdata_entry_an_added_entry_names_is_added_though_the_file_has_a_copy_of_it(tmp_path):
    lender = "@xdata{nips19data,\n  booktitle = {Advances in Neural Information Processing Systems 32},\n  year = {2019},\n}\n"
    (tmp_path / "mine.bib").write_text(lender)
    child = "@inproceedings{huang2019,\n  title = {GPipe},\n  author = {Huang, Yanping},\n  xdata = {nips19},\n}\n"
    (tmp_path / "co.bib").write_text(lender.replace("nips19data", "nips19") + "\n" + child)
    result = run_cli("bib", "--in-place", "mine.bib", "co.bib", cwd=tmp_path)
    assert "huang2019: added" in result.stdout and "nips19: added" in result.stdout
    assert "already-in-file" not in result.stderr
    check = run_cli("check", "mine.bib", cwd=tmp_path)
    assert "crossref-undefined" not in check.stderr and "has no booktitle, year" not in check.stderr


def test_a_duplicate_entry_warning_is_located_at_the_users_entry_not_at_a_coauthors_copy_of_it(tmp_path):
    # The co-author's file shares the user's workshop paper and has the article of its title. The copy's place,
    # coauthor.bib:1, sorts before mine.bib:3, but the user edits mine.bib: the warning is located there.
    (tmp_path / "mine.bib").write_text("% my library\n\n" + WORKSHOP)
    (tmp_path / "coauthor.bib").write_text(WORKSHOP + "\n" + ARTICLE)
    result = run_cli("bib", "--in-place", "mine.bib", "coauthor.bib", cwd=tmp_path)
    assert "smith2019jmlr: added" in result.stdout
    [warning] = [line for line in result.stderr.splitlines() if "[duplicate-entry]" in line]
    assert warning.startswith(
        "mine.bib:3: warning [duplicate-entry] 'smith2019workshop' (mine.bib:3) and 'smith2019jmlr' (coauthor.bib:8) "
    )
    # Once added, both entries are in mine.bib: located at the later one, the added article, as in any one file.
    added_at = (tmp_path / "mine.bib").read_text().splitlines().index("@article{smith2019jmlr,") + 1
    again = run_cli("bib", "--in-place", "mine.bib", "coauthor.bib", cwd=tmp_path)
    [warning] = [line for line in again.stderr.splitlines() if "[duplicate-entry]" in line]
    assert warning.startswith(
        f"mine.bib:{added_at}: warning [duplicate-entry] 'smith2019jmlr' (mine.bib:{added_at}) and "
        "'smith2019workshop' (mine.bib:3) "
    )
    # The co-author's file given first: the places are the co-author's.
    checked = run_cli("check", "coauthor.bib", "mine.bib", "--checks", "duplicate-entry", cwd=tmp_path)
    [warning] = [line for line in checked.stderr.splitlines() if "[duplicate-entry]" in line]
    assert warning.startswith(
        "coauthor.bib:8: warning [duplicate-entry] 'smith2019jmlr' (coauthor.bib:8) and 'smith2019workshop' (coauthor.bib:1) "
    )
