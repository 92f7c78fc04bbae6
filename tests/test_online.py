"""Online resolvers against a real HTTP server on 127.0.0.1 serving the services' response formats."""

import contextlib
import json
import sqlite3
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import DATA, run_cli
from surveytool.pipeline import Options, analyse

RECORDED = DATA / "online"
SNIPPET = ("Pipeline parallelism is one of the key components for large-scale distributed training, yet its efficiency "
           "suffers from pipeline bubbles which were deemed inevitable. In this work…")


class FakeServices(BaseHTTPRequestHandler):
    """Routes by path prefix; each route is a queue of (status, headers, body, delay), the last one repeating."""

    routes: dict = {}
    seen: list = []

    def do_GET(self):
        type(self).seen.append(self.path)
        for prefix, answers in type(self).routes.items():
            if self.path.startswith(prefix):
                status, headers, body, delay = answers.pop(0) if len(answers) > 1 else answers[0]
                break
        else:
            status, headers, body, delay = 404, {}, '{"error": "not found"}', 0
        time.sleep(delay)
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        with contextlib.suppress(BrokenPipeError):  # the client gave up (timeout test)
            self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


@pytest.fixture
def services(tmp_path):
    FakeServices.routes, FakeServices.seen = {}, []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeServices)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    config = tmp_path / "surveytool.toml"
    config.write_text(f'[online]\ncontact = "tests@example.org"\nopenalex_url = "{base}/openalex"\n'
                      f'crossref_url = "{base}/crossref"\narxiv_url = "{base}/arxiv"\n'
                      "timeout = 0.5\nretries = 1\nbackoff = 0.01\nmin_interval = 0\n")
    yield FakeServices, config
    server.shutdown()
    server.server_close()


def ok(name, delay=0.0):
    return (200, {"Content-Type": "application/json"}, (RECORDED / name).read_text(encoding="utf-8"), delay)


def analyse_online(tmp_path, config, *files):
    return analyse(Options(sources=tuple(files), online=True, config=config, cache=tmp_path / "cache.sqlite",
                           bundled_catalog=False))


def write_list(tmp_path, text=SNIPPET):
    path = tmp_path / "list.txt"
    path.write_text(f"{text}\n", encoding="utf-8")
    return path


def test_snippet_is_resolved_to_the_right_result_and_a_rerun_uses_only_the_cache(services, tmp_path):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [ok("openalex_search.json")]}
    survey = analyse_online(tmp_path, config, write_list(tmp_path))
    [paper] = survey.papers
    assert paper.title == "Zero Bubble Pipeline Parallelism"  # not the first hit, which is another paper
    assert paper.resolution.source == "openalex" and paper.resolution.method == "abstract"
    assert paper.resolution.retrieved.endswith("Z") and "doi" in paper.resolution.fields
    assert paper.fields["abstract"] == SNIPPET  # the user's text is kept
    assert "mailto=tests%40example.org" in handler.seen[0]
    asked = len(handler.seen)
    again = analyse_online(tmp_path, config, write_list(tmp_path))
    assert len(handler.seen) == asked  # nothing sent: every answer came from the cache
    assert again.papers[0].resolution == paper.resolution


def test_429_with_retry_after_is_waited_out(services, tmp_path):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [(429, {"Retry-After": "1"}, "slow down", 0), ok("openalex_search.json")]}
    start = time.monotonic()
    [paper] = analyse_online(tmp_path, config, write_list(tmp_path)).papers
    assert time.monotonic() - start >= 0.9
    assert paper.resolved and len(handler.seen) == 2


@pytest.mark.parametrize("answer, words", [
    ((500, {}, "internal error", 0), "HTTP 500 after 2 attempts"),
    ((200, {}, "{not json", 0), "malformed answer"),
    ((200, {}, '{"results": [{"title": 7}]}', 0), "malformed answer"),
    (ok("openalex_search.json", delay=1.0), "no answer"),
])
def test_service_failures_become_findings_and_the_run_goes_on(services, tmp_path, answer, words):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [answer]}
    survey = analyse_online(tmp_path, config, write_list(tmp_path))
    [paper] = survey.papers
    assert not paper.resolved
    errors = [f for f in survey.findings if f.check == "resolver-error"]
    assert errors and words in errors[0].message and errors[0].location.line == 1
    cached = sqlite3.connect(tmp_path / "cache.sqlite").execute("SELECT status FROM responses").fetchall()
    assert all(status in (200, 404) for (status,) in cached)  # failures are never cached
    if words == "malformed answer":
        assert cached == [(200,)] or cached == []


def test_an_answer_for_another_paper_is_never_taken(services, tmp_path):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [ok("openalex_search.json")]}
    other = "Recommendation models need huge embedding tables that we shard across hosts with a learned cost model…"
    [paper] = analyse_online(tmp_path, config, write_list(tmp_path, other)).papers
    assert not paper.resolved
    assert paper.fields == {"abstract": other}


def test_doi_through_crossref_and_arxiv_id_through_arxiv(services, tmp_path):
    handler, config = services
    handler.routes = {"/crossref/works/10.1145": [ok("crossref_work.json")],
                      "/arxiv/api/query?id_list=1909.08053": [(200, {}, (RECORDED / "arxiv_entry.xml").read_text(), 0)]}
    ids = tmp_path / "ids.txt"
    ids.write_text("10.1145/3458817.3476209\narXiv:1909.08053v2\n")
    survey = analyse_online(tmp_path, config, ids)
    by_source = {p.resolution.source: p for p in survey.papers}
    crossref, arxiv = by_source["crossref"], by_source["arxiv"]
    assert crossref.fields["author"] == "Narayanan, Deepak and Shoeybi, Mohammad" and crossref.entry_type == "inproceedings"
    assert crossref.fields["booktitle"].startswith("Proceedings of the International Conference for High Performance")
    assert arxiv.title == "Megatron-LM: Training Multi-Billion Parameter Language Models Using Model Parallelism"
    assert arxiv.fields["eprint"] == "1909.08053v2" and arxiv.year == "2019"


def test_network_down_is_a_finding_not_a_crash(tmp_path):
    config = tmp_path / "surveytool.toml"
    config.write_text('[online]\nopenalex_url = "http://127.0.0.1:9"\ncrossref_url = "http://127.0.0.1:9"\n'
                      'arxiv_url = "http://127.0.0.1:9"\ntimeout = 0.5\nretries = 0\nmin_interval = 0\n')
    survey = analyse_online(tmp_path, config, write_list(tmp_path))
    assert not survey.papers[0].resolved
    assert any(f.check == "resolver-error" and "no answer" in f.message for f in survey.findings)


def test_resolve_command_explains_provenance(services, tmp_path):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [ok("openalex_search.json")]}
    write_list(tmp_path)
    result = run_cli("resolve", "list.txt", "--online", "--explain", "--cache", "c.sqlite", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "openalex (abstract, score 1)" in result.stdout and "retrieved 20" in result.stdout
    entries = json.loads(run_cli("resolve", "list.txt", "--online", "--json", "--cache", "c.sqlite", cwd=tmp_path).stdout)
    assert entries[0]["resolution"]["source"] == "openalex" and entries[0]["resolution"]["retrieved"]


def test_bad_config_is_a_clear_error(tmp_path):
    (tmp_path / "surveytool.toml").write_text("[online]\ncontakt = 'x'\n")
    write_list(tmp_path)
    result = run_cli("resolve", "list.txt", "--online", cwd=tmp_path)
    assert result.returncode == 2 and "unknown setting(s) in [online]: contakt" in result.stderr
