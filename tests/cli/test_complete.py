"""`surveytool complete`: a user's own entries completed from catalogs and services, byte for byte elsewhere."""

import json
import re

import pytest
from helpers import DATA, run_cli
from loopback import FakeServices, refusing_port, serve

RECORDED = DATA / "online"

SCHOLAR_PREPRINT = """% exported from Google Scholar
@article{huang2018gpipe,
  title={Gpipe: Efficient training of giant neural networks using pipeline parallelism},
  author={Huang, Yanping and Cheng, Youlong and Bapna, Ankur and Firat, Orhan and Chen, Mia Xu and others},
  journal={arXiv preprint arXiv:1811.06965},
  year={2018}
}

@misc{notes,   title = {My reading notes}  }
"""


@pytest.fixture
def services(tmp_path):
    FakeServices.routes, FakeServices.seen = {}, []
    with serve(FakeServices) as base:
        urls = {name: f'"{base}/{name}"' for name in ("openalex", "crossref", "arxiv", "dblp", "semantic_scholar")}
        settings = {f"{name}_url": url for name, url in urls.items()}
        settings.update(timeout=1, retries=0, min_interval=0)
        lines = "".join(f"{name} = {value}\n" for name, value in settings.items())
        (tmp_path / "surveytool.toml").write_text("[online]\n" + lines)
        yield FakeServices


def recorded(name):
    return (200, {"Content-Type": "application/json"}, (RECORDED / name).read_text(encoding="utf-8"), 0)


def complete(tmp_path, *args):
    return run_cli("complete", *args, "--cache", "cache.sqlite", cwd=tmp_path)


def test_a_google_scholar_preprint_is_upgraded_in_place_keeping_its_arxiv_id(services, tmp_path):
    services.routes = {
        "/semantic_scholar/graph/v1/paper/arXiv:1811.06965": [recorded("semantic_scholar_paper.json")],
        "/dblp/search/publ/api": [recorded("dblp_search.json")],
    }
    bib = tmp_path / "my.bib"
    bib.write_text(SCHOLAR_PREPRINT, encoding="utf-8")
    result = complete(tmp_path, "my.bib", "--online", "--in-place")
    assert result.returncode == 0, result.stderr
    text = bib.read_text(encoding="utf-8")
    assert text == SCHOLAR_PREPRINT.replace("@article{", "@inproceedings{").replace(
        "  journal={arXiv preprint arXiv:1811.06965},\n  year={2018}\n",
        "  booktitle={Neural Information Processing Systems},\n  year={2018},\n  pages={103--112},\n"
        "  url={https://proceedings.neurips.cc/paper/2019/hash/093f65e080a295f8076b1c5722a46aa2-Abstract.html},\n"
        "  eprint={1811.06965},\n  archiveprefix={arXiv}\n",
    )
    assert "journal" not in text  # never an @inproceedings with a journal as well as a booktitle
    out = result.stdout
    assert "my.bib:2: huang2018gpipe: type article -> inproceedings (semantic_scholar c18663fe" in out
    assert "journal = arXiv preprint arXiv:1811.06965 -> booktitle = Neural Information Processing Systems" in out
    assert "added pages = 103-112 (dblp conf/nips/HuangCBFCCLNLWC19)" in out  # the first version that had them
    assert "added eprint = 1811.06965 (from the entry's journal)" in out
    # The year the user wrote stays (the preprint's); the published one is named, with how to take it.
    assert "note: year 2018 kept; the published version's is 2019 (dblp conf/nips/HuangCBFCCLNLWC19)" in out
    again = complete(tmp_path, "my.bib", "--online", "--in-place")
    assert "0 change(s) made" in again.stdout and bib.read_text(encoding="utf-8") == text


def test_dry_run_prints_a_unified_diff_and_changes_nothing(services, tmp_path):
    services.routes = {"/dblp/search/publ/api": [recorded("dblp_search.json")]}
    bib = tmp_path / "my.bib"
    bib.write_bytes(SCHOLAR_PREPRINT.replace("\n", "\r\n").encode())
    result = complete(tmp_path, "my.bib", "--online", "--dry-run")
    assert result.returncode == 0, result.stderr
    assert bib.read_bytes() == SCHOLAR_PREPRINT.replace("\n", "\r\n").encode()
    diff = result.stdout.replace("\r", "")
    assert diff.startswith("--- a/my.bib\n+++ b/my.bib\n@@")
    assert "-@article{huang2018gpipe,\n+@inproceedings{huang2018gpipe," in diff
    assert "\n-  journal={arXiv preprint arXiv:1811.06965},\n-  year={2018}\n+  booktitle={{NeurIPS}},\n" in diff
    assert "+  pages={103--112}," in diff and "to make (nothing written)" in result.stderr


LATEX_TITLE = r"""@inproceedings{gpipe,
    title = "{{GP}ipe}: {E}fficient Training of Giant Neural Networks using Pipeline {P}arallelism",
    author = {Yanping Huang and Youlong Cheng},
    booktitle = {Advances in Neural Information Processing Systems 32},
}
"""


def test_an_entry_with_braces_and_latex_in_its_title_gets_only_its_missing_fields(services, tmp_path):
    services.routes = {"/dblp/search/publ/api": [recorded("dblp_search.json")]}
    (tmp_path / "my.bib").write_text(LATEX_TITLE, encoding="utf-8")
    result = complete(tmp_path, "my.bib", "--online", "-o", "done.bib")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "my.bib").read_text(encoding="utf-8") == LATEX_TITLE  # -o leaves the original alone
    done = (tmp_path / "done.bib").read_text(encoding="utf-8")
    # The booktitle the user wrote stays; the year, pages and url are added in the entry's own layout.
    assert done == LATEX_TITLE.replace(
        "Systems 32},\n",
        "Systems 32},\n    year = {2019},\n    pages = {103--112},\n"
        "    url = {https://proceedings.neurips.cc/paper/2019/hash/093f65e080a295f8076b1c5722a46aa2-Abstract.html},\n",
    )
    assert "eprint" not in done  # a published entry is not given its preprint's id


ATTENTION = """@inproceedings{vaswani2017,
  author = {Vaswani, Ashish and Shazeer, Noam},
  title = {Attention Is All You Need},
  year = 2017,
}
@inproceedings{unsigned, title = {Attention Is All You Need}}
"""


def test_a_search_that_returns_other_papers_with_similar_titles_completes_nothing(services, tmp_path):
    services.routes = {
        "/semantic_scholar/graph/v1/paper/search": [recorded("semantic_scholar_search.json")],
        "/dblp/search/publ/api": [recorded("dblp_search.json")],
    }
    bib = tmp_path / "my.bib"
    bib.write_text(ATTENTION, encoding="utf-8")
    result = complete(tmp_path, "my.bib", "--online", "--in-place")
    assert result.returncode == 0, result.stderr
    assert bib.read_text(encoding="utf-8") == ATTENTION
    assert "0 change(s) made in 0 entr(ies)" in result.stdout
    # Without author or year, a title one word off is reported as the closest, never taken.
    assert "my.bib:6: info [not-completed] semantic_scholar: " in result.stderr
    assert "Attention Is Not All You Need" not in bib.read_text(encoding="utf-8")


def test_a_field_the_user_wrote_is_replaced_only_when_named_in_overwrite(services, tmp_path):
    work = json.loads((RECORDED / "crossref_work.json").read_text(encoding="utf-8"))
    services.routes = {"/crossref/works": [(200, {}, json.dumps({"message": {"items": [work["message"]]}}), 0)]}
    written = """@inproceedings{narayanan2021,
  title = {Efficient Large-Scale Language Model Training on {GPU} Clusters Using {Megatron-LM}},
  author = {Narayanan, Deepak}, year = {2021}, pages = {1--99},
}
"""
    bib = tmp_path / "my.bib"
    bib.write_text(written, encoding="utf-8")
    kept = complete(tmp_path, "my.bib", "--online", "--in-place")
    assert kept.returncode == 0, kept.stderr
    text = bib.read_text(encoding="utf-8")
    assert "pages = {1--99}" in text and "doi = {10.1145/3458817.3476209}" in text
    assert "publisher = {ACM}" in text and "(crossref 10.1145/3458817.3476209)" in kept.stdout
    replaced = complete(tmp_path, "my.bib", "--online", "--in-place", "--overwrite", "pages")
    assert "pages 1--99 -> 1-15 (crossref 10.1145/3458817.3476209)" in replaced.stdout
    assert bib.read_text(encoding="utf-8") == text.replace("pages = {1--99}", "pages = {1--15}")


def test_a_catalog_completes_entries_without_going_online(tmp_path):
    (tmp_path / "known.bib").write_text(
        "@article{k, title = {Deep Learning}, author = {LeCun, Yann and Bengio, Yoshua and Hinton, Geoffrey},\n"
        "  journal = {Nature}, volume = {521}, number = {7553}, pages = {436--444}, year = {2015},\n"
        "  doi = {10.1038/nature14539}, publisher = {Springer Nature}}\n"
    )
    mine = "@article{lecun, author = {Y. LeCun}, title = {Deep learning}, year = 2015}\n"
    (tmp_path / "my.bib").write_text(mine)
    result = run_cli("complete", "my.bib", "--catalog", "known.bib", "--in-place", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "my.bib").read_text()
    assert text == mine.replace(
        "year = 2015}",
        "year = 2015, journal = {Nature}, volume = {521}, number = {7553}, pages = {436--444}, "
        "publisher = {Springer Nature}, doi = {10.1038/nature14539}}",
    )
    assert "added doi = 10.1038/nature14539 (catalog:known.bib k)" in result.stdout


@pytest.mark.parametrize("first, second", [("a.bib", "b.bib"), ("b.bib", "a.bib")])
def test_fields_taken_from_two_catalogs_are_written_in_the_documented_order(tmp_path, first, second):
    record = (
        "@article{{{}, title = {{Deep Learning}}, author = {{LeCun, Yann}}, journal = {{Nature}}, year = 2015, {}}}\n"
    )
    (tmp_path / "a.bib").write_text(record.format("a", "pages = {436--444}, url = {https://nature.com/dl}"))
    (tmp_path / "b.bib").write_text(record.format("b", "volume = {521}, doi = {10.1038/nature14539}"))
    mine = "@article{lecun, author = {Y. LeCun}, title = {Deep learning}, year = 2015}\n"
    (tmp_path / "my.bib").write_text(mine)
    result = run_cli("complete", "my.bib", "--catalog", first, "--catalog", second, "--in-place", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # COMPLETED_FIELDS' order, whichever catalog gave a field, and so the one the changes are told in.
    assert (tmp_path / "my.bib").read_text() == mine.replace(
        "year = 2015}",
        "year = 2015, journal = {Nature}, volume = {521}, pages = {436--444}, doi = {10.1038/nature14539}, "
        "url = {https://nature.com/dl}}",
    )
    told = re.findall(r"added (\w+) =", result.stdout)
    assert told == ["journal", "volume", "pages", "doi", "url"]


ALIGNED = (
    "% lined up with tabs, then with spaces\n"
    "@article{lecun,\n\tauthor\t= {Y. LeCun},\n\ttitle\t= {Deep learning},\n\tyear\t= 2015\n}\n\n"
    "@Article{he2016,\r\n  author    = {He, K.},\r\n  title     = {Deep residual learning for image recognition},"
    "\r\n  year      = 2016,\r\n}\r\n"
)


def test_added_fields_are_lined_up_as_the_entry_lines_up_its_own_and_nothing_else_changes(tmp_path):
    (tmp_path / "known.bib").write_text(
        "@article{k, title = {Deep Learning}, author = {LeCun, Yann}, journal = {Nature}, volume = {521},"
        " publisher = {Springer Nature}, year = {2015}}\n"
        "@article{h, title = {Deep residual learning for image recognition}, author = {He, Kaiming},"
        " journal = {TPAMI}, doi = {10.1/h}, year = 2016}\n"
    )
    (tmp_path / "my.bib").write_bytes(ALIGNED.encode())
    result = run_cli("complete", "my.bib", "--catalog", "known.bib", "--in-place", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    # Every byte as it was but for the new lines (and the comma the old last field needs before them).
    expected = ALIGNED.replace(
        "\tyear\t= 2015\n",
        "\tyear\t= 2015,\n\tjournal\t= {Nature},\n\tvolume\t= {521},\n\tpublisher\t= {Springer Nature}\n",
    ).replace("  year      = 2016,\r\n", "  year      = 2016,\r\n  journal   = {TPAMI},\r\n  doi       = {10.1/h},\r\n")
    assert (tmp_path / "my.bib").read_bytes() == expected.encode()


UNTRUSTED = """@string{evil = "IEEE" # "\\input{/etc/passwd}"}

@article{k, title = {Deep Learning}, author = {LeCun, Yann},
  journal = {Nature\\input{/etc/passwd}}, volume = {521}, pages = {436--444\\immediate\\write18{rm -rf ~}},
  publisher = evil, doi = {10.1038/nature14539}, year = {2015}}
"""


def test_a_catalog_field_with_latex_outside_the_allowlist_is_not_taken_and_is_named(tmp_path):
    (tmp_path / "known.bib").write_text(UNTRUSTED)
    # A later catalog may still give what the first could not.
    (tmp_path / "clean.bib").write_text(
        "@article{c, title = {Deep learning}, author = {LeCun, Y.}, year = 2015, pages = {436--444}}\n"
    )
    mine = "@article{lecun, author = {Y. LeCun}, title = {Deep learning}, year = 2015}\n"
    (tmp_path / "my.bib").write_text(mine)
    result = run_cli(
        "complete", "my.bib", "--catalog", "known.bib", "--catalog", "clean.bib", "--in-place", cwd=tmp_path
    )
    assert result.returncode == 1, result.stderr
    assert (tmp_path / "my.bib").read_text() == mine.replace(
        "year = 2015}", "year = 2015, volume = {521}, pages = {436--444}, doi = {10.1038/nature14539}}"
    )
    refused = [line for line in result.stderr.splitlines() if "[dangerous-macro]" in line]
    hint = "(a catalog's commands are never copied; fix the record, or write the field into your entry yourself)"
    assert refused == [
        f"known.bib:3: error [dangerous-macro] field '{name}' of 'k' was not taken for 'lecun' (my.bib:1): "
        f"it has LaTeX outside the allowlist: {listed} {hint}"
        for name, listed in (
            ("journal", "\\input (not in the LaTeX allowlist)"),
            ("pages", "\\immediate (not in the LaTeX allowlist), \\write (not in the LaTeX allowlist)"),
            ("publisher", "\\input (not in the LaTeX allowlist)"),  # through its @string macro
        )
    ]


def test_a_refused_catalog_field_is_named_as_the_catalog_writes_it(tmp_path):
    # A Web of Science catalog writes Journal: the refusal said 'journal', which a case-sensitive search misses.
    (tmp_path / "known.bib").write_text(UNTRUSTED.replace("journal = {Nature", "Journal = {Nature"))
    mine = "@article{lecun, author = {Y. LeCun}, title = {Deep learning}, year = 2015}\n"
    (tmp_path / "my.bib").write_text(mine)
    result = run_cli("complete", "my.bib", "--catalog", "known.bib", cwd=tmp_path)
    refused = [line.split(": it has")[0] for line in result.stderr.splitlines() if "[dangerous-macro]" in line]
    assert refused == [
        f"known.bib:3: error [dangerous-macro] field '{name}' of 'k' was not taken for 'lecun' (my.bib:1)"
        for name in ("Journal", "pages", "publisher")
    ]


OTHER_VERSION = (
    "@article{other, title = {Deep Residual Learning for Image Recognition}, author = {He, Kaiming},\n"
    "  journal = {Journal B}, volume = {7}, number = {3}, pages = {1--9}, publisher = {Publisher B},"
    " doi = {10.9999/other}, year = {2016}}\n"
)


@pytest.mark.parametrize(
    "mine, why",
    [
        ("journal = {Journal A}, doi = {10.1111/mine}", "its DOI is 10.9999/other"),
        ("journal = {Journal A}", "it names another venue"),
        ("journal = {J. Mach. Learn. Res.}, doi = {10.1111/mine}", "its DOI is 10.9999/other"),
    ],
)
def test_a_record_of_another_version_gives_the_entry_nothing(tmp_path, mine, why):
    # Journal B's volume and pages in an entry of Journal A would cite neither version.
    (tmp_path / "known.bib").write_text(OTHER_VERSION)
    entry = f"@article{{he2016, title = {{Deep residual learning for image recognition}}, author = {{He, K.}}, {mine}, year = 2016}}\n"
    (tmp_path / "my.bib").write_text(entry)
    result = run_cli("complete", "my.bib", "--catalog", "known.bib", "--in-place", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "my.bib").read_text() == entry
    assert f"other is another version of this paper ({why}); nothing was taken from it" in result.stderr


def test_a_venue_written_another_way_is_the_same_version(tmp_path):
    (tmp_path / "known.bib").write_text(OTHER_VERSION.replace("Journal B", "Journal of Machine Learning Research"))
    entry = "@article{he2016, title = {Deep residual learning for image recognition}, author = {He, K.}, journal = {J. Mach. Learn. Res.}, year = 2016}\n"
    (tmp_path / "my.bib").write_text(entry)
    result = run_cli("complete", "my.bib", "--catalog", "known.bib", "--in-place", cwd=tmp_path)
    assert "volume = {7}" in (tmp_path / "my.bib").read_text(), result.stderr


@pytest.mark.parametrize(
    "args, words",
    [
        (("my.bib", "--overwrite", "title"), "title is not a field complete fills"),
        (("my.bib", "--in-place", "-o", "x.bib"), "give one of --in-place or -o FILE"),
        (("absent.bib",), "absent.bib: error: no such file (name the .bib file to complete)"),
        (("blob.bin",), "blob.bin: error: is not a text file (complete takes a .bib file)"),
        # A catalog is no source: the bundled seeds and the source formats are no help with it.
        (("my.bib", "--catalog", "gone.bib"), "gone.bib: error: no such file (check the path given with --catalog)"),
        (
            ("my.bib", "--catalog", "blob.bin"),
            "blob.bin: error: is not a text file (--catalog takes a .bib file of known papers)",
        ),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(tmp_path, args, words):
    (tmp_path / "my.bib").write_text("@misc{a, title = {A}}\n")
    (tmp_path / "blob.bin").write_bytes(b"\x7fELF\x02\x01\x00\x00")
    result = run_cli("complete", *args, cwd=tmp_path)
    assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr


def test_a_service_that_refuses_is_one_warning_and_the_others_still_complete(services, tmp_path):
    services.routes = {"/semantic_scholar/graph/v1/paper/arXiv:1811.06965": [recorded("semantic_scholar_paper.json")]}
    config = tmp_path / "surveytool.toml"
    dead = f"http://127.0.0.1:{refusing_port()}"
    config.write_text(re.sub(r'dblp_url = "[^"]*"', f'dblp_url = "{dead}"', config.read_text()))
    bib = tmp_path / "my.bib"
    bib.write_text(SCHOLAR_PREPRINT, encoding="utf-8")
    result = complete(tmp_path, "my.bib", "--online", "--in-place")
    assert result.returncode == 0, result.stderr
    assert "booktitle={Neural Information Processing Systems}" in bib.read_text(encoding="utf-8")
    assert "pages" not in bib.read_text(encoding="utf-8")  # only DBLP had them
    warnings = [line for line in result.stderr.splitlines() if "[resolver-error] dblp" in line]
    assert len(warnings) == 1 and warnings[0].startswith("my.bib:2: warning")


def test_semantic_scholars_year_of_the_first_version_is_not_written(services, tmp_path):
    services.routes = {"/semantic_scholar/graph/v1/paper/arXiv:1811.06965": [recorded("semantic_scholar_paper.json")]}
    written = (
        "@inproceedings{gpipe, title = {GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism},"
        " author = {Huang, Yanping}, eprint = {1811.06965}}\n"
    )
    bib = tmp_path / "my.bib"
    bib.write_text(written, encoding="utf-8")
    result = complete(tmp_path, "my.bib", "--online", "--in-place")
    assert result.returncode == 0, result.stderr
    # Its record says 2018, the preprint's year, for the NeurIPS 2019 paper: the venue is taken, the year is not.
    assert bib.read_text(encoding="utf-8") == written.replace(
        "eprint = {1811.06965}}", "eprint = {1811.06965}, booktitle = {Neural Information Processing Systems}}"
    )


ARXIV_EXPORT = (
    "@misc{roe2020sparse,\n  title={Sparse Routing Tables for Giant Mixture Models},\n"
    "  author={Rita Roe and Sam Poe},\n  year={2020},\n  eprint={2006.00001},\n"
    "  archivePrefix={arXiv},\n  doi={10.48550/arXiv.2006.00001},\n  publisher={arXiv},\n}\n"
)


@pytest.mark.parametrize("publisher", ["", "  publisher = {OpenReview.net},\n"])
def test_arxivs_own_export_upgraded_names_what_still_describes_the_preprint(tmp_path, publisher):
    # "In ICLR 2021. arXiv, 2020. doi:10.48550/arXiv..." cites two versions at once.
    (tmp_path / "known.bib").write_text(
        "@inproceedings{k,\n  title = {Sparse Routing Tables for Giant Mixture Models},\n"
        "  author = {Roe, Rita and Poe, Sam},\n"
        f"  booktitle = {{ICLR}},\n{publisher}  year = {{2021}}\n}}\n"
    )
    (tmp_path / "my.bib").write_text(ARXIV_EXPORT)
    result = run_cli("complete", "my.bib", "--catalog", "known.bib", "--in-place", cwd=tmp_path)
    text = (tmp_path / "my.bib").read_text()
    assert text.startswith("@inproceedings{") and "booktitle={{ICLR}}" in text, result.stdout
    notes = [line.split("note: ", 1)[1] for line in result.stdout.splitlines() if "note: " in line]
    doi_note = "doi 10.48550/arXiv.2006.00001 is the preprint's, not the published version's: remove it"
    if publisher:
        assert "publisher={OpenReview.net}" in text and "publisher arXiv -> OpenReview.net" in result.stdout
        assert doi_note in notes and not any(n.startswith("publisher") for n in notes)
    else:
        assert "publisher={arXiv}" in text
        assert "publisher arXiv is the preprint server's, not the published version's: remove it" in notes
        assert doi_note in notes


@pytest.mark.parametrize("target", ["known.bib", "my.bib", "surveytool.toml", "link.bib"])
def test_an_output_that_is_a_file_the_run_reads_is_refused_and_left_as_it_was(tmp_path, target):
    # -o naming the catalog (or the entry's own file, or the settings) replaced that file with the completed .bib.
    known = "@article{k, title = {Deep Learning}, author = {LeCun, Yann}, journal = {Nature}, year = {2015}}\n"
    (tmp_path / "known.bib").write_text(known)
    (tmp_path / "my.bib").write_text("@article{lecun, author = {Y. LeCun}, title = {Deep learning}}\n")
    (tmp_path / "surveytool.toml").write_text("[check]\nthin = 3\n")
    (tmp_path / "link.bib").symlink_to("known.bib")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    result = run_cli("complete", "my.bib", "--catalog", "known.bib", "-o", target, cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{target}: error: is also read by this run" in result.stderr and "--in-place" in result.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
