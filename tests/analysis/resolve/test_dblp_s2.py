"""DBLP and Semantic Scholar against a real HTTP server on 127.0.0.1 serving their recorded answer formats."""

import re
import urllib.parse

import pytest
from helpers import DATA
from loopback import FakeServices, serve

from surveytool.analysis.resolve.dblp import DblpResolver
from surveytool.analysis.resolve.http import HttpClient, HttpSettings
from surveytool.analysis.resolve.online import CrossrefResolver, OpenAlexResolver
from surveytool.analysis.resolve.semantic_scholar import SemanticScholarResolver
from surveytool.model import Origin, Paper, SourceLocation, frozen_mapping

RECORDED = DATA / "online"
GPIPE = "GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism"


# A DBLP answer with one hit and one author: DBLP then writes an object where a list would be.
ONE_HIT = (
    '{"result":{"hits":{"@total":"1","hit":{"info":{"authors":{"author":{"@pid":"1/2","text":"Ada Lovelace"}},'
    '"title":"Notes on the Analytical Engine.","venue":"Sci. Mem.","year":"1843","type":"Journal Articles",'
    '"volume":"3","pages":"666-731","key":"journals/x/Lovelace43"}}}}}'
)


@pytest.fixture
def base():
    FakeServices.routes, FakeServices.seen = {}, []
    with serve(FakeServices) as url:
        yield url


def answer(name, status=200):
    return (status, {"Content-Type": "application/json"}, (RECORDED / name).read_text(encoding="utf-8"), 0)


def client():
    return HttpClient(HttpSettings("surveytool-tests", timeout=2, retries=0, min_interval=0))


def entry(**fields):
    return Paper(Origin.BIBTEX, (SourceLocation("my.bib", 1),), frozen_mapping(fields), "article", "mine")


def test_dblp_search_gives_the_conference_record_and_the_corr_copy_as_a_preprint(base):
    FakeServices.routes = {"/dblp/search/publ/api?q=": [answer("dblp_search.json")]}
    resolver = DblpResolver(client(), f"{base}/dblp")
    candidates = resolver.lookup(entry(title=GPIPE, author="Huang, Yanping", year="2018"))
    by_key = {c.paper.key: c.paper for c in candidates}
    conference, corr = by_key["conf/nips/HuangCBFCCLNLWC19"], by_key["journals/corr/abs-1811-06965"]
    assert conference.entry_type == "inproceedings" and conference.fields["booktitle"] == "NeurIPS"
    assert conference.title == GPIPE  # DBLP's closing full stop is not part of the title
    assert conference.fields["pages"] == "103-112" and conference.year == "2019"
    assert conference.authors[0] == "Yanping Huang"  # the homonym number "0001" is not part of the name
    assert conference.fields["url"].startswith("https://proceedings.neurips.cc/")
    assert corr.entry_type == "misc" and corr.fields["eprint"] == "1811.06965" and "journal" not in corr.fields
    asked = urllib.parse.unquote(FakeServices.seen[0])
    assert f"q={GPIPE}" in asked and "format=json" in asked


def test_dblp_answer_with_one_hit_and_one_author_is_read_as_a_list_of_one(base):
    FakeServices.routes = {"/dblp/search/publ/api?q=": [(200, {}, ONE_HIT, 0)]}
    [candidate] = DblpResolver(client(), f"{base}/dblp").lookup(entry(title="Notes on the Analytical Engine"))
    assert candidate.paper.fields["journal"] == "Sci. Mem." and candidate.paper.authors == ("Ada Lovelace",)
    assert candidate.paper.fields["volume"] == "3" and candidate.method == "title"


def test_semantic_scholar_finds_a_preprint_by_its_arxiv_id_with_its_published_venue(base):
    FakeServices.routes = {"/s2/graph/v1/paper/arXiv:1811.06965": [answer("semantic_scholar_paper.json")]}
    resolver = SemanticScholarResolver(client(), f"{base}/s2")
    [candidate] = resolver.lookup(entry(title=GPIPE, eprint="1811.06965"))
    found = candidate.paper
    assert candidate.method == "arxiv" and found.key == "c18663fea10c8a303d045fd2c1f33cacf9b73ca3"
    assert found.entry_type == "inproceedings"
    assert found.fields["booktitle"] == "Neural Information Processing Systems"
    assert found.fields["eprint"] == "1811.06965" and len(FakeServices.seen) == 1
    assert "fields=title,authors,year,venue,externalIds,publicationVenue" in FakeServices.seen[0]


def test_semantic_scholar_search_keeps_only_records_whose_authors_and_years_agree(base):
    FakeServices.routes = {"/s2/graph/v1/paper/search?query=": [answer("semantic_scholar_search.json")]}
    resolver = SemanticScholarResolver(client(), f"{base}/s2")
    asked = entry(title="Attention Is All You Need", author="Vaswani, Ashish", year="2017")
    assert resolver.lookup(asked) == []  # three papers with similar titles, none by Vaswani in 2017
    anonymous = resolver.lookup(entry(title="Attention Is All You Need"))
    assert {c.paper.title for c in anonymous} >= {"Attention Is Not All You Need"}
    assert all(c.method == "title-similar" for c in anonymous)


@pytest.mark.parametrize(
    "body",
    ['{"result": {"hits": {"hit": [{"info": {"title": 7}}]}}}', '{"result": []}', "<html>busy</html>"],
)
def test_a_malformed_dblp_answer_is_an_error_for_that_lookup_not_a_crash(base, body):
    FakeServices.routes = {"/dblp/search/publ/api?q=": [(200, {}, body, 0)]}
    resolver = DblpResolver(client(), f"{base}/dblp")
    assert resolver.lookup(entry(title=GPIPE)) == []
    [(_, error)] = resolver.errors
    assert error.service == "dblp" and "malformed answer" in error.message


def test_a_semantic_scholar_404_for_an_arxiv_id_falls_back_to_the_title_search(base):
    FakeServices.routes = {
        "/s2/graph/v1/paper/arXiv:": [(404, {}, '{"error": "Paper with id arXiv:1811.06965 not found"}', 0)],
        "/s2/graph/v1/paper/search?query=": [answer("semantic_scholar_search.json")],
    }
    resolver = SemanticScholarResolver(client(), f"{base}/s2")
    resolver.lookup(entry(title=GPIPE, eprint="1811.06965"))
    assert [path.split("?")[0].rsplit("/", 1)[-1] for path in FakeServices.seen] == ["arXiv:1811.06965", "search"]
    assert resolver.errors == []


def test_resolution_asks_dblp_when_the_settings_name_it(base, tmp_path):
    FakeServices.routes = {"/dblp/search/publ/api?q=": [(200, {}, ONE_HIT, 0)]}
    config = tmp_path / "surveytool.toml"
    config.write_text(f'[online]\nservices = ["dblp"]\ndblp_url = "{base}/dblp"\nretries = 0\nmin_interval = 0\n')
    titles = tmp_path / "list.txt"
    titles.write_text("Related papers: Notes on the Analytical Engine\n")
    from surveytool.pipeline import Options, analyse

    survey = analyse(
        Options(sources=(titles,), online=True, config=config, cache=tmp_path / "c.sqlite", bundled_catalog=False)
    )
    [paper] = survey.papers
    assert paper.resolution is not None and paper.resolution.source == "dblp"
    assert paper.resolution.matched_key == "journals/x/Lovelace43" and paper.fields["pages"] == "666-731"


@pytest.mark.parametrize(
    "setting, words",
    [
        ('complete_services = ["scholar"]', "unknown service(s): scholar"),
        ('complete_services = "dblp"', "[online] complete_services must be a list of service names"),
        ('semantic_scholar_url = "ftp://x"', "[online] semantic_scholar_url must be an http:// or https:// address"),
    ],
)
def test_a_wrong_setting_for_the_new_services_is_one_line(tmp_path, setting, words):
    from surveytool.errors import InputError
    from surveytool.online_settings import load_online_settings

    config = tmp_path / "surveytool.toml"
    config.write_text(f"[online]\n{setting}\n")
    with pytest.raises(InputError, match=re.escape(words)):
        load_online_settings(config)


@pytest.mark.parametrize("ids", ['{"DOI": ["10.1/x"]}', '{"DOI": 7}', '{"ArXiv": {"id": "1811.06965"}}'])
def test_a_semantic_scholar_id_that_is_no_text_is_a_malformed_answer_not_its_python_spelling(base, ids):
    # str() of it was taken: the DOI "['10.1/x']", "7"; now an error for that lookup.
    record = f'{{"paperId": "p", "title": "{GPIPE}", "authors": [{{"name": "Yanping Huang"}}], "externalIds": {ids}}}'
    FakeServices.routes = {"/s2/graph/v1/paper/search?query=": [(200, {}, f'{{"data": [{record}]}}', 0)]}
    resolver = SemanticScholarResolver(client(), f"{base}/s2")
    assert resolver.lookup(entry(title=GPIPE)) == []
    [(_, error)] = resolver.errors
    assert error.message == "malformed answer (TypeError)"


MEGATRON = "Efficient large-scale language model training on GPU clusters using megatron-LM"


@pytest.mark.parametrize(
    "written",
    [
        "https://doi.org/10.1145/3458817.3476209",
        "doi:10.1145/3458817.3476209",
        "DOI: 10.1145/3458817.3476209",
        "http://dx.doi.org/10.1145%2F3458817.3476209",
    ],
)
@pytest.mark.parametrize(
    "service, path",
    [
        (CrossrefResolver, "/crossref/works/10.1145/3458817.3476209"),
        (OpenAlexResolver, "/openalex/works/doi:10.1145/3458817.3476209"),
        (SemanticScholarResolver, "/s2/graph/v1/paper/DOI:10.1145/3458817.3476209"),
    ],
)
def test_a_doi_written_as_a_link_or_with_its_prefix_is_asked_for_as_the_doi(base, written, service, path):
    # How .bib files from publishers and reference managers write it; the record is asked for by its DOI alone.
    FakeServices.routes = {path: [answer("crossref_work.json")]} if service is CrossrefResolver else {}
    resolver = service(client(), base + path[: path.index("/", 1)])
    candidates = resolver.lookup(entry(title=MEGATRON, doi=written))
    assert FakeServices.seen and FakeServices.seen[0].split("?")[0] == path
    if service is CrossrefResolver:
        assert [c.method for c in candidates] == ["doi"]


def test_a_doi_field_that_holds_no_doi_is_not_asked_for(base):
    resolver = CrossrefResolver(client(), f"{base}/crossref")
    resolver.lookup(entry(title=MEGATRON, doi="n/a"))
    assert [p for p in FakeServices.seen if p.startswith("/crossref/works/")] == []
