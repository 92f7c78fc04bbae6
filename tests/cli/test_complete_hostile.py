"""`complete --online` against services that answer what no real one should: nothing odd reaches the user's file."""

import json

import pytest
from helpers import run_cli
from loopback import FakeServices, serve

from surveytool.analysis.resolve.answer_text import one_line

GPIPE = (
    "@inproceedings{huang2019gpipe,\n"
    "  title = {GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism},\n"
    "  author = {Huang, Yanping and Cheng, Youlong},\n"
    "  booktitle = {NeurIPS},\n"
    "  year = {2019}\n"
    "}\n"
)


@pytest.fixture
def dblp(tmp_path):
    """A DBLP that answers every search with one record of GPipe, its fields as the test sets them."""
    FakeServices.routes, FakeServices.seen = {}, []
    with serve(FakeServices) as base:
        (tmp_path / "surveytool.toml").write_text(
            f'[online]\ndblp_url = "{base}/dblp"\ncomplete_services = ["dblp"]\ntimeout = 2\nretries = 0\nmin_interval = 0\n'
        )
        (tmp_path / "my.bib").write_text(GPIPE)

        def answer(**info):
            record = {
                "authors": {"author": [{"text": "Yanping Huang 0001"}]},
                "title": "GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism.",
                "venue": "NeurIPS",
                "year": "2019",
                "type": "Conference and Workshop Papers",
                "key": "conf/nips/HuangCBFCCLNLWC19",
                **info,
            }
            body = json.dumps({"result": {"hits": {"hit": [{"info": record}]}}})
            FakeServices.routes = {"/dblp/search/publ/api": [(200, {"Content-Type": "application/json"}, body, 0)]}
            return run_cli("complete", "my.bib", "--online", "--cache", "c.sqlite", "--dry-run", cwd=tmp_path)

        yield answer


@pytest.mark.parametrize(
    "doi, written",
    [
        ("10.1/x y", None),  # a space: no DOI
        ("not a doi", None),
        ("https://doi.org/10.5555/3454287.3454297", "10.5555/3454287.3454297"),  # a link: the DOI it names
        ("10.5555/3454287.3454297", "10.5555/3454287.3454297"),
        ("10.1145/abc}{\\input{x}", None),  # proposed as the garbled doi = {10.1145/abc\textbackslash{}inputx}
        ("10.1145/a%b", None),  # a raw % ends the line for TeX
        (
            "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0",
            "10.1002/(SICI)1097-4571(199806)49:8<693::AID-ASI4>3.0.CO;2-0",
        ),
    ],
)
def test_only_a_doi_that_is_one_is_added_and_as_a_bare_doi(dblp, doi, written):
    result = dblp(doi=doi, pages="103-112")
    assert result.returncode == 0, result.stderr
    assert "+  pages = {103--112}" in result.stdout  # the record is taken
    added = [line for line in result.stdout.splitlines() if line.startswith("+  doi")]
    assert added == ([f"+  doi = {{{written}}}"] if written else [])


def test_a_records_id_and_values_reach_the_report_and_the_file_as_one_line_of_visible_characters(dblp):
    # DBLP's key is printed after each change: a line break in it started a line of its own in the report, an
    # escape sequence recoloured the terminal; a zero-width space or a bidi override sat unseen in the value.
    result = dblp(
        key="conf/nips/\x1b[2J\nmy.bib:9: other: added doi = x", pages="103\u200b-\u202e112\x00", number="\u2066"
    )
    assert result.returncode == 0, result.stderr
    assert "+  pages = {103--112}" in result.stdout and "number" not in result.stdout
    changes = [line for line in result.stderr.splitlines() if line.startswith("my.bib:")]
    assert changes == [
        "my.bib:1: huang2019gpipe: added pages = 103-112 (dblp conf/nips/[2J my.bib:9: other: added doi = x)"
    ]
    assert not any(char in result.stdout + result.stderr for char in "\x1b\x00\u200b\u202e\u2066")


def test_format_characters_in_a_records_values_go_but_the_joiners_words_need(dblp):
    # A soft hyphen and a zero-width non-joiner after a digit went into the entry as {\-} and {\textcompwordmark}.
    result = dblp(publisher="ACM\u00adPress", volume="3\u2061")
    assert result.returncode == 0, result.stderr
    assert "+  publisher = {ACMPress}" in result.stdout and "+  volume = {3}" in result.stdout
    assert (
        one_line("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645")
        == "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"
    )


@pytest.mark.parametrize(
    "ee",
    [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "http://x.org/%}{\\input{a}",  # written as the garbled text http://x/\%\textbackslash{}inputa
        "https://x.org/a b",
        "https:///no-host",
        "https://x.org/100%",
    ],
)
def test_a_url_that_is_no_web_address_is_not_added(dblp, ee):
    result = dblp(ee=ee, pages="103-112")
    assert result.returncode == 0, result.stderr
    assert "+  pages = {103--112}" in result.stdout and "url" not in result.stdout + result.stderr


def test_a_web_address_is_added_as_it_is(dblp):
    result = dblp(ee="https://proceedings.neurips.cc/paper/2019/a%20b_c~d?x=1&y=2#top")
    assert "+  url = {https://proceedings.neurips.cc/paper/2019/a%20b_c~d?x=1&y=2#top}" in result.stdout


@pytest.mark.parametrize("cache", ["my.bib", "known.bib", "surveytool.toml", "link.bib"])
def test_an_answer_cache_that_is_a_file_the_run_reads_is_refused_and_left_as_it_was(tmp_path, cache):
    # The .bib being completed, taken for a damaged cache, was moved to my.bib.unreadable and became a database.
    (tmp_path / "my.bib").write_text(GPIPE)
    (tmp_path / "known.bib").write_text("@article{k, title = {Deep Learning}, author = {LeCun, Yann}, year = {2015}}\n")
    (tmp_path / "surveytool.toml").write_text('[online]\ndblp_url = "http://127.0.0.1:9"\nretries = 0\n')
    (tmp_path / "link.bib").symlink_to("my.bib")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    result = run_cli("complete", "my.bib", "--online", "--catalog", "known.bib", "--cache", cache, cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"{cache}: error: is also read by this run")
    assert len(result.stderr.splitlines()) == 1 and "--cache" in result.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize("command", ["build", "resolve", "parse"])
@pytest.mark.parametrize("cache", ["my.bib", "ids.txt", "surveytool.toml", "link.bib"])
def test_every_online_command_refuses_an_answer_cache_that_is_a_file_it_reads(tmp_path, command, cache):
    # build my.bib ids.txt --online --cache my.bib moved my.bib to my.bib.unreadable and put a database there.
    (tmp_path / "my.bib").write_text(GPIPE)
    (tmp_path / "ids.txt").write_text("10.1000/xyz\n")
    (tmp_path / "surveytool.toml").write_text('[online]\ncrossref_url = "http://127.0.0.1:9"\nretries = 0\n')
    (tmp_path / "link.bib").symlink_to("my.bib")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    out = ["--out", str(tmp_path.parent / f"{tmp_path.name}-out")] if command == "build" else []
    result = run_cli(command, "my.bib", "ids.txt", "--online", "--cache", cache, *out, cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().endswith("(name another --cache)")
    assert f"{cache}: error: is also read by this run" in result.stderr
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize("output", ["related_work.tex", "main.tex", "references.bib", "surveytool.lock.json"])
def test_build_refuses_an_answer_cache_that_is_one_of_its_outputs(tmp_path, output):
    # --cache out/related_work.tex moved the author's chapter to .unreadable and wrote a database in its place.
    (tmp_path / "my.bib").write_text(GPIPE)
    (tmp_path / "surveytool.toml").write_text('[online]\ncrossref_url = "http://127.0.0.1:9"\nretries = 0\n')
    run_cli("build", "my.bib", "--out", "out", cwd=tmp_path, check=True)
    before = {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir() if p.is_file()}
    result = run_cli("build", "my.bib", "--out", "out", "--online", "--cache", f"out/{output}", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.startswith(f"out/{output}: error: is also read by this run")
    assert {p.name: p.read_bytes() for p in (tmp_path / "out").iterdir() if p.is_file()} == before
