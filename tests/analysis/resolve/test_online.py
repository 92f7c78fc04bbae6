"""Online resolvers against a real HTTP server on 127.0.0.1 serving the services' response formats."""

import json
import re
import sqlite3
import time

import pytest
from helpers import DATA, run_cli
from loopback import FakeServices, refusing_port, serve, stream, trickle

from surveytool.analysis.resolve.answer_text import author_fields, display_names
from surveytool.pipeline import Options, analyse

RECORDED = DATA / "online"
SNIPPET = (
    "Pipeline parallelism is one of the key components for large-scale distributed training, yet its efficiency "
    "suffers from pipeline bubbles which were deemed inevitable. In this work…"
)


@pytest.fixture
def services(tmp_path):
    FakeServices.routes, FakeServices.seen = {}, []
    with serve(FakeServices) as base:
        FakeServices.base = base
        yield FakeServices, write_config(tmp_path, base)


def write_config(tmp_path, base, **settings):
    """surveytool.toml pointing every service at ``base``, with test-sized timeouts unless overridden."""
    values = {
        "contact": '"tests@example.org"',
        "openalex_url": f'"{base}/openalex"',
        "crossref_url": f'"{base}/crossref"',
        "arxiv_url": f'"{base}/arxiv"',
        "timeout": 0.5,
        "retries": 1,
        "backoff": 0.01,
        "min_interval": 0,
    }
    values.update(settings)
    config = tmp_path / "surveytool.toml"
    config.write_text("[online]\n" + "".join(f"{name} = {value}\n" for name, value in values.items()))
    return config


def ok(name, delay=0.0):
    return (200, {"Content-Type": "application/json"}, (RECORDED / name).read_text(encoding="utf-8"), delay)


def analyse_online(tmp_path, config, *files):
    return analyse(
        Options(
            sources=tuple(files), online=True, config=config, cache=tmp_path / "cache.sqlite", bundled_catalog=False
        )
    )


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
    handler.routes = {
        "/openalex/works?search=": [(429, {"Retry-After": "1"}, "slow down", 0), ok("openalex_search.json")]
    }
    start = time.monotonic()
    [paper] = analyse_online(tmp_path, config, write_list(tmp_path)).papers
    assert time.monotonic() - start >= 0.9
    assert paper.resolved and len(handler.seen) == 2


@pytest.mark.parametrize(
    "answer, words",
    [
        ((500, {}, "internal error", 0), "HTTP 500 after 2 attempts"),
        ((200, {}, "{not json", 0), "malformed answer"),
        ((200, {}, '{"results": [{"title": 7}]}', 0), "malformed answer"),
        (ok("openalex_search.json", delay=1.0), "no answer"),
    ],
)
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
    handler.routes = {
        "/crossref/works/10.1145": [ok("crossref_work.json")],
        "/arxiv/api/query?id_list=1909.08053": [(200, {}, (RECORDED / "arxiv_entry.xml").read_text(), 0)],
    }
    ids = tmp_path / "ids.txt"
    ids.write_text("10.1145/3458817.3476209\narXiv:1909.08053v2\n")
    survey = analyse_online(tmp_path, config, ids)
    by_source = {p.resolution.source: p for p in survey.papers}
    crossref, arxiv = by_source["crossref"], by_source["arxiv"]
    assert (
        crossref.fields["author"] == "Narayanan, Deepak and Shoeybi, Mohammad"
        and crossref.entry_type == "inproceedings"
    )
    assert crossref.fields["booktitle"].startswith("Proceedings of the International Conference for High Performance")
    assert arxiv.title == "Megatron-LM: Training Multi-Billion Parameter Language Models Using Model Parallelism"
    assert arxiv.fields["eprint"] == "1909.08053v2" and arxiv.year == "2019"


def test_network_down_is_a_finding_not_a_crash(tmp_path):
    config = tmp_path / "surveytool.toml"
    config.write_text(
        '[online]\nopenalex_url = "http://127.0.0.1:9"\ncrossref_url = "http://127.0.0.1:9"\n'
        'arxiv_url = "http://127.0.0.1:9"\ntimeout = 0.5\nretries = 0\nmin_interval = 0\n'
    )
    survey = analyse_online(tmp_path, config, write_list(tmp_path))
    assert not survey.papers[0].resolved
    assert any(f.check == "resolver-error" and "no answer" in f.message for f in survey.findings)


def test_an_identifier_no_service_could_be_asked_for_is_not_blamed_for_a_typo(tmp_path):
    config = tmp_path / "surveytool.toml"
    config.write_text(
        '[online]\nopenalex_url = "http://127.0.0.1:9"\ncrossref_url = "http://127.0.0.1:9"\n'
        'arxiv_url = "http://127.0.0.1:9"\ntimeout = 0.5\nretries = 0\nmin_interval = 0\n'
    )
    ids = tmp_path / "new.ids"
    ids.write_text("10.1145/3458817.3476209\r\narXiv:2104.04473\r\n")
    survey = analyse_online(tmp_path, config, ids)
    hints = [f.hint for f in survey.findings if f.check == "unresolved-entry"]
    assert len(hints) == 2 and all(h.startswith("no service answered for it") for h in hints), hints
    assert any(f.check == "resolver-error" for f in survey.findings)


def test_resolve_command_explains_provenance(services, tmp_path):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [ok("openalex_search.json")]}
    write_list(tmp_path)
    result = run_cli("resolve", "list.txt", "--online", "--explain", "--cache", "c.sqlite", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "openalex (abstract, score 1)" in result.stdout and "retrieved 20" in result.stdout
    entries = json.loads(
        run_cli("resolve", "list.txt", "--online", "--json", "--cache", "c.sqlite", cwd=tmp_path).stdout
    )
    assert entries[0]["resolution"]["source"] == "openalex" and entries[0]["resolution"]["retrieved"]


def test_bad_config_is_a_clear_error(tmp_path):
    (tmp_path / "surveytool.toml").write_text("[online]\ncontakt = 'x'\n")
    write_list(tmp_path)
    result = run_cli("resolve", "list.txt", "--online", cwd=tmp_path)
    assert result.returncode == 2 and "unknown setting(s) in [online]: contakt" in result.stderr


def cached_urls(tmp_path):
    return [url for (url,) in sqlite3.connect(tmp_path / "cache.sqlite").execute("SELECT url FROM responses")]


def write_ids(tmp_path, *lines):
    ids = tmp_path / "ids.txt"
    ids.write_text("".join(f"{line}\n" for line in lines))
    return ids


def crossref_with(**changes):
    work = json.loads((RECORDED / "crossref_work.json").read_text(encoding="utf-8"))
    work["message"].update(changes)
    return (200, {"Content-Type": "application/json"}, json.dumps(work), 0)


@pytest.mark.parametrize(
    "answer, error",
    [
        (crossref_with(issued={"date-parts": [[]]}), "IndexError"),
        ((200, {}, "[" * 200_000 + "]" * 200_000, 0), "RecursionError"),
        ((200, {}, '{"message": {"items": [{"title": ["x"], "author": "not a list"}]}}', 0), "AttributeError"),
        # A text where Crossref lists texts: its first character was taken (the title "E", the booktitle "P").
        (crossref_with(title="Efficient large-scale language model training on GPU clusters"), "TypeError"),
        (crossref_with(**{"container-title": "Proceedings of SC21"}), "TypeError"),
        # A name that is no text: its Python spelling became the author ("['Narayanan'], Deepak", "7, Deepak").
        (crossref_with(author=[{"family": ["Narayanan"], "given": "Deepak"}]), "TypeError"),
        (crossref_with(author=[{"family": 7, "given": "Deepak"}]), "TypeError"),
        (crossref_with(author=[{"family": "Narayanan", "given": {"first": "Deepak"}}]), "TypeError"),
    ],
)
def test_a_hostile_answer_is_a_finding_for_that_lookup_and_is_not_cached(services, tmp_path, answer, error):
    handler, config = services
    handler.routes = {"/crossref/works/10.1145": [answer]}
    survey = analyse_online(tmp_path, config, write_ids(tmp_path, "10.1145/3458817.3476209"))
    assert not survey.papers[0].resolved
    [finding] = [f for f in survey.findings if f.check == "resolver-error"]
    assert finding.message == f"crossref gave no usable answer: malformed answer ({error})"
    assert not [url for url in cached_urls(tmp_path) if "/crossref/" in url]


def test_a_malformed_answer_is_asked_again_on_the_next_run_and_then_used(services, tmp_path):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [(200, {}, '{"results": [', 0), ok("openalex_search.json")]}
    assert not analyse_online(tmp_path, config, write_list(tmp_path)).papers[0].resolved
    [paper] = analyse_online(tmp_path, config, write_list(tmp_path)).papers
    assert paper.resolved and paper.title == "Zero Bubble Pipeline Parallelism"
    assert len(handler.seen) == 2  # the second run asked again
    analyse_online(tmp_path, config, write_list(tmp_path))
    assert len(handler.seen) == 2  # the good answer was kept


def cache_notes(survey):
    return [f.message for f in survey.findings if f.check == "online-cache"]


def test_a_malformed_answer_planted_in_the_cache_fails_its_checksum_and_is_asked_again(services, tmp_path):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [ok("openalex_search.json")]}
    analyse_online(tmp_path, config, write_list(tmp_path))
    with sqlite3.connect(tmp_path / "cache.sqlite") as db:
        db.execute("UPDATE responses SET body = '[[[' ")
    survey = analyse_online(tmp_path, config, write_list(tmp_path))
    assert not any("malformed answer" in f.message for f in survey.findings)  # never parsed
    assert survey.papers[0].resolved and len(handler.seen) == 2
    [note] = cache_notes(survey)
    assert "1 cached answer failed its checksum" in note


def test_a_cached_answer_edited_to_another_valid_answer_is_not_used(services, tmp_path):
    """The dangerous edit: one that still parses and names another paper."""
    handler, config = services
    handler.routes = {"/openalex/works?search=": [ok("openalex_search.json")]}
    first = analyse_online(tmp_path, config, write_list(tmp_path))
    with sqlite3.connect(tmp_path / "cache.sqlite") as db:
        db.execute("UPDATE responses SET body = replace(body, 'Zero Bubble', 'Tiny Bubble')")
    again = analyse_online(tmp_path, config, write_list(tmp_path))
    assert again.papers[0].title == first.papers[0].title == "Zero Bubble Pipeline Parallelism"
    assert len(handler.seen) == 2 and len(cache_notes(again)) == 1
    third = analyse_online(tmp_path, config, write_list(tmp_path))
    assert len(handler.seen) == 2 and cache_notes(third) == []  # the answer asked again was sealed and kept


def test_an_answer_cache_another_user_wrote_is_asked_again(services, tmp_path, monkeypatch):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [ok("openalex_search.json")]}
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "alice"))
    analyse_online(tmp_path, config, write_list(tmp_path))
    from surveytool.user_key import _key_at

    _key_at.cache_clear()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "bob"))
    survey = analyse_online(tmp_path, config, write_list(tmp_path))
    assert len(handler.seen) == 2 and len(cache_notes(survey)) == 1 and survey.papers[0].resolved


def test_an_answer_cache_of_a_version_that_sealed_nothing_is_asked_again(services, tmp_path):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [ok("openalex_search.json")]}
    analyse_online(tmp_path, config, write_list(tmp_path))
    with sqlite3.connect(tmp_path / "cache.sqlite") as db:
        rows = db.execute("SELECT url, status, body, fetched_at FROM responses").fetchall()
        db.execute("DROP TABLE responses")
        db.execute(
            "CREATE TABLE responses (url TEXT PRIMARY KEY, status INTEGER NOT NULL, body TEXT NOT NULL,"
            " fetched_at TEXT NOT NULL)"
        )
        db.executemany("INSERT INTO responses VALUES (?, ?, ?, ?)", rows)
    survey = analyse_online(tmp_path, config, write_list(tmp_path))
    assert len(handler.seen) == 2 and len(cache_notes(survey)) == 1 and survey.papers[0].resolved


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped-header"])
def test_an_answer_cache_sqlite_cannot_read_is_set_aside_with_one_finding_and_the_run_goes_on(
    services, tmp_path, damage
):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [ok("openalex_search.json")]}
    cache = tmp_path / "cache.sqlite"
    analyse_online(tmp_path, config, write_list(tmp_path))
    data = cache.read_bytes()
    spoiled = {
        "garbage": b"not a database at all" * 100,
        "truncated": data[:200],
        "flipped-header": b"SQLite format 2\0" + data[16:],
    }[damage]
    cache.write_bytes(spoiled)
    survey = analyse_online(tmp_path, config, write_list(tmp_path))
    assert survey.papers[0].title == "Zero Bubble Pipeline Parallelism" and len(handler.seen) == 2
    [note] = cache_notes(survey)
    assert "is not a readable SQLite database; moved to cache.sqlite.unreadable" in note
    assert (tmp_path / "cache.sqlite.unreadable").read_bytes() == spoiled
    analyse_online(tmp_path, config, write_list(tmp_path))
    assert len(handler.seen) == 2  # the new cache works


@pytest.mark.parametrize(
    "layout",
    [
        "CREATE TABLE responses (url TEXT PRIMARY KEY, body TEXT, fetched_at TEXT)",  # no status
        "CREATE TABLE responses (url TEXT PRIMARY KEY, status INTEGER, body TEXT, fetched_at TEXT, seal TEXT,"
        " owner TEXT NOT NULL)",  # a column of its own that no insert fills
        "CREATE TABLE answers (x); CREATE VIEW responses AS SELECT x AS url FROM answers",
    ],
)
def test_an_answer_cache_of_another_programs_layout_is_refused_and_left_as_it_is(services, tmp_path, layout):
    # It stopped the run with "no such column: status"; set aside, another program's database would lose its name.
    handler, config = services
    cache = tmp_path / "cache.sqlite"
    with sqlite3.connect(cache) as db:
        db.executescript(layout)
    before = cache.read_bytes()
    result = run_cli("resolve", str(write_list(tmp_path)), "--online", "--config", str(config), "--cache", str(cache))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"{cache}: error: is a database whose responses table another program laid out")
    assert cache.read_bytes() == before and not (tmp_path / "cache.sqlite.unreadable").exists()
    assert handler.seen == []


def test_an_answer_cache_with_a_column_of_its_own_that_inserts_may_leave_empty_is_used(services, tmp_path):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [ok("openalex_search.json")]}
    with sqlite3.connect(tmp_path / "cache.sqlite") as db:
        db.execute(
            "CREATE TABLE responses (url TEXT PRIMARY KEY, status INTEGER NOT NULL, body TEXT NOT NULL,"
            " fetched_at TEXT NOT NULL, seal TEXT, note TEXT)"
        )
    for _ in range(2):
        survey = analyse_online(tmp_path, config, write_list(tmp_path))
        assert survey.papers[0].title == "Zero Bubble Pipeline Parallelism" and not cache_notes(survey)
    assert len(handler.seen) == 1  # the second run read the answer from it


def test_a_cache_in_a_folder_no_one_can_write_is_one_info_line_and_the_lookups_go_on(services, tmp_path):
    # /proc takes no new file, whoever runs the tests (root ignores a read-only folder's mode).
    handler, config = services
    handler.routes = {"/openalex/works?search=": [ok("openalex_search.json")]}
    write_list(tmp_path)
    result = run_cli(
        "resolve", "list.txt", "--online", "--config", str(config), "--cache", "/proc/c.sqlite", cwd=tmp_path
    )
    assert result.returncode == 0 and "1 resolved" in result.stdout, result.stderr
    (line,) = [line for line in result.stderr.splitlines() if "online-cache" in line]
    assert "/proc/c.sqlite: cannot be created" in line and "delete" not in line


def test_the_cli_says_in_one_info_line_that_the_answer_cache_was_set_aside(services, tmp_path):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [ok("openalex_search.json")]}
    write_list(tmp_path)
    (tmp_path / "c.sqlite").write_bytes(b"\0" * 4096)
    result = run_cli("resolve", "list.txt", "--online", "--config", str(config), "--cache", "c.sqlite", cwd=tmp_path)
    assert result.returncode == 0 and "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if "online-cache" in line]
    assert len(lines) == 1 and "c.sqlite.unreadable" in lines[0]


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "soon"])
def test_a_retry_after_that_is_no_number_of_seconds_falls_back_to_the_backoff(services, tmp_path, value):
    handler, config = services
    handler.routes = {
        "/openalex/works?search=": [(429, {"Retry-After": value}, "slow down", 0), ok("openalex_search.json")]
    }
    start = time.monotonic()
    [paper] = analyse_online(tmp_path, config, write_list(tmp_path)).papers
    assert paper.resolved and len(handler.seen) == 2
    assert time.monotonic() - start < 3


def many_snippets(tmp_path, count):
    """``count`` different snippets, none of which merges with another."""
    paragraphs = [
        f"Snippet number {i} studies " + " ".join(f"topic{i}x{j}" for j in range(30)) + "…" for i in range(count)
    ]
    path = tmp_path / "many.txt"
    path.write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    return path


def skip_findings(survey):
    return [
        f for f in survey.findings if f.check == "resolver-error" and "skipped for the rest of the run" in f.message
    ]


@pytest.mark.parametrize(("after", "said"), [("3600", "3600 s"), ("1e308", "over a day")])
def test_a_long_retry_after_skips_the_service_for_the_rest_of_the_run_with_one_finding(services, tmp_path, after, said):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [(429, {"Retry-After": after}, "come back in an hour", 0)]}
    start = time.monotonic()
    survey = analyse_online(tmp_path, config, many_snippets(tmp_path, 20))
    assert time.monotonic() - start < 5
    assert len(handler.seen) == 1
    [finding] = skip_findings(survey)
    assert (
        f"it asked to wait {said} (HTTP 429)" in finding.message and "20 entries were not looked up" in finding.message
    )
    assert cached_urls(tmp_path) == []


def test_repeated_server_errors_skip_the_service_after_three_failures(services, tmp_path):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [(503, {}, "down for maintenance", 0)]}
    survey = analyse_online(tmp_path, config, many_snippets(tmp_path, 10))
    assert len(handler.seen) == 3 * 2  # three entries, two attempts each, then no more
    [finding] = skip_findings(survey)
    assert "3 failures in a row, the last: HTTP 503 after 2 attempts" in finding.message
    assert "7 entries were not looked up" in finding.message
    assert len([f for f in survey.findings if f.check == "resolver-error"]) == 3 + 1


def test_a_success_resets_the_count_of_failures_in_a_row(services, tmp_path):
    handler, config = services
    failure = (503, {}, "busy", 0)
    handler.routes = {"/openalex/works?search=": [failure] * 4 + [ok("openalex_search.json"), failure]}
    survey = analyse_online(tmp_path, config, many_snippets(tmp_path, 5))
    # Two failures, an answer, two failures: never three in a row, so the fifth entry is still asked.
    assert len(handler.seen) == 2 + 2 + 1 + 2 + 2
    assert skip_findings(survey) == []


def test_a_refusing_service_is_given_up_at_once_not_retried_for_every_entry(tmp_path):
    base = f"http://127.0.0.1:{refusing_port()}"
    config = write_config(tmp_path, base, retries=3, backoff=1, timeout=10)
    start = time.monotonic()
    survey = analyse_online(tmp_path, config, many_snippets(tmp_path, 50))
    assert time.monotonic() - start < 5  # before: 7 s of backoff per entry
    [finding] = skip_findings(survey)
    assert finding.message.startswith(
        "openalex gave no usable answer: skipped for the rest of the run "
        "(3 failures in a row, the last: no answer (connection refused)); 47 entries"
    )


def test_the_run_budget_ends_all_lookups_and_says_so(services, tmp_path):
    handler, config = services
    write_config(tmp_path, handler.base, budget=1, timeout=5)
    handler.routes = {"/openalex/works?search=": [(200, {}, '{"results": []}', 0.4)]}
    start = time.monotonic()
    survey = analyse_online(tmp_path, config, many_snippets(tmp_path, 20))
    assert time.monotonic() - start < 3
    [finding] = skip_findings(survey)
    assert "the run's time budget of 1 s is spent" in finding.message
    assert 2 <= len(handler.seen) <= 4


def test_a_trickling_answer_is_cut_at_the_request_deadline(services, tmp_path):
    handler, config = services
    write_config(tmp_path, handler.base, timeout=1, retries=0)
    answer = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + b'{"results": []}'
    handler.routes = {"/openalex/works?search=": [(200, {}, trickle(answer, every=0.05), 0)]}
    start = time.monotonic()
    survey = analyse_online(tmp_path, config, write_list(tmp_path))
    elapsed = time.monotonic() - start
    assert 0.9 <= elapsed < 2  # one byte every 50 ms never trips a socket timeout; the deadline does
    assert any("no answer within 1 s" in f.message for f in survey.findings)


@pytest.mark.parametrize("declare_length", [True, False])
def test_a_200_mb_answer_is_refused_without_being_read_whole_or_cached(services, tmp_path, declare_length):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [(200, {}, stream(200_000_000, declare_length), 0)]}
    start = time.monotonic()
    survey = analyse_online(tmp_path, config, write_list(tmp_path))
    assert time.monotonic() - start < 5
    [finding] = [f for f in survey.findings if f.check == "resolver-error"]
    assert "larger than the limit of 4,000,000" in finding.message
    assert cached_urls(tmp_path) == []


def test_a_redirect_to_another_host_is_refused_and_not_cached(services, tmp_path):
    handler, config = services

    class WrongPaper(FakeServices):
        routes = {"/": [ok("openalex_search.json")]}
        seen = []

    with serve(WrongPaper) as elsewhere:
        handler.routes = {"/openalex/works?search=": [(302, {"Location": f"{elsewhere}/works?search=x"}, "", 0)]}
        survey = analyse_online(tmp_path, config, write_list(tmp_path))
    assert not survey.papers[0].resolved and WrongPaper.seen == []
    assert any("another host; not followed" in f.message for f in survey.findings)
    assert cached_urls(tmp_path) == []


def test_a_redirect_to_an_address_that_cannot_be_sent_is_a_finding(services, tmp_path):
    handler, config = services
    handler.routes = {"/openalex/works?search=": [(302, {"Location": "/openalex/w\u00f6rks"}, "", 0)]}
    survey = analyse_online(tmp_path, config, write_list(tmp_path))
    assert any("not a valid address" in f.message for f in survey.findings)


def test_a_redirect_within_the_service_is_followed(services, tmp_path):
    handler, config = services
    handler.routes = {
        "/openalex/works?search=": [(301, {"Location": "/openalex/v2/works"}, "", 0)],
        "/openalex/v2/works": [ok("openalex_search.json")],
    }
    [paper] = analyse_online(tmp_path, config, write_list(tmp_path)).papers
    assert paper.resolved and handler.seen[-1] == "/openalex/v2/works"


@pytest.mark.parametrize(
    "setting, message",
    [
        ('timeout = "abc"', "[online] timeout must be a number of seconds above 0, a day at most, not 'abc'"),
        ("retries = -1", "[online] retries must be a whole number from 0 to 20, not -1 (retries = 3)"),
        ('contact = "me@example.org\\r\\nX-Injected: 1"', "[online] contact must be one line of printable ASCII text"),
        ('contact = "张伟 <zw@example.org>"', "[online] contact must be one line of printable ASCII text"),
        ("budget = nan", "[online] budget must be a number of seconds above 0, a day at most, not nan"),
        # 1e300 seconds overflowed time.sleep: a traceback and exit 1.
        ("budget = 1e300", "[online] budget must be a number of seconds above 0, a day at most, not 1e+300"),
        ("backoff = 1e300", "[online] backoff must be a number of seconds from 0 to 86,400, not 1e+300"),
        ("max_wait = 1e300", "[online] max_wait must be a number of seconds from 0 to 86,400, not 1e+300"),
        ('openalex_url = "file:///etc/passwd"', "[online] openalex_url must be an http:// or https:// address"),
        ('services = "openalex"', "[online] services must be a list of service names"),
        # Accepted, it let a server's answer take any amount of memory.
        ("max_bytes = 400000000000", "[online] max_bytes must be a whole number of bytes from 1,024 to 100,000,000"),
    ],
)
def test_a_wrong_typed_online_setting_is_one_line_with_file_line_and_hint(tmp_path, setting, message):
    (tmp_path / "surveytool.toml").write_text(f"# settings\n[online]\nmin_interval = 0\n{setting}\n")
    write_list(tmp_path)
    result = run_cli("resolve", "list.txt", "--online", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"surveytool.toml:4: error: {message}") and len(result.stderr.splitlines()) == 1


def openalex_answer(*works):
    return (200, {"Content-Type": "application/json"}, json.dumps({"results": list(works)}), 0)


def test_an_answer_that_echoes_the_snippet_opening_is_not_taken_as_the_paper(services, tmp_path):
    handler, config = services
    echo = {
        "title": "Whatever You Asked",
        "type": "article",
        "abstract_inverted_index": {word: [i] for i, word in enumerate(SNIPPET.split()[:16])},
    }
    handler.routes = {"/openalex/works?search=": [openalex_answer(echo)]}
    [paper] = analyse_online(tmp_path, config, write_list(tmp_path)).papers
    assert not paper.resolved


def test_a_truncated_title_is_not_resolved_to_the_lone_result_that_starts_with_it(services, tmp_path):
    handler, config = services
    lone = {
        "title": "Attention Is All You in Speech Separation",
        "type": "article",
        "publication_year": 2021,
        "authorships": [{"author": {"display_name": "Cem Subakan"}}],
    }
    handler.routes = {"/openalex/works?search=": [openalex_answer(lone)]}
    listing = tmp_path / "list.txt"
    listing.write_text(f"Related papers: Attention Is All You…\n\n{SNIPPET}\n", encoding="utf-8")
    survey = analyse_online(tmp_path, config, listing)
    anchors = [p for p in survey.papers if p.title and p.title.startswith("Attention")]
    assert anchors and not any(p.resolved for p in anchors)


def test_line_breaks_in_an_online_title_become_single_spaces(services, tmp_path):
    handler, config = services
    handler.routes = {
        "/crossref/works/10.1145": [
            crossref_with(
                title=["Efficient large-scale language model\n\n training on GPU clusters\r\nusing megatron-LM"]
            )
        ]
    }
    [paper] = analyse_online(tmp_path, config, write_ids(tmp_path, "10.1145/3458817.3476209")).papers
    assert paper.title == "Efficient large-scale language model training on GPU clusters using megatron-LM"


@pytest.mark.parametrize(
    "setting, message",
    [
        ('thin = "x"', "[check] thin must be a whole number of papers, 0 or more, not 'x' (thin = 2)"),
        ("thin = true", "[check] thin must be a whole number of papers, 0 or more, not True (thin = 2)"),
        (
            'disable = "thin-section"',
            "[check] disable must be a list of check names, not 'thin-section' (disable = [\"thin-section\"])",
        ),
    ],
)
def test_a_wrong_typed_check_setting_is_one_line_with_file_line_and_hint(tmp_path, setting, message):
    (tmp_path / "surveytool.toml").write_text(f"[check]\n{setting}\n")
    write_list(tmp_path)
    result = run_cli("check", "list.txt", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr == f"surveytool.toml:2: error: {message}\n"


def test_an_answer_cache_path_that_is_a_folder_is_one_line_and_exit_2(tmp_path):
    cache = tmp_path / "c.sqlite"
    cache.mkdir()
    (tmp_path / "surveytool.toml").write_text("[online]\nopenalex_url = 'http://127.0.0.1:9'\n")
    write_list(tmp_path)
    result = run_cli("resolve", "list.txt", "--online", "--cache", "c.sqlite", cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert (
        result.stderr.startswith("c.sqlite: error: cannot use the online answer cache")
        and len(result.stderr.splitlines()) == 1
    )


def test_an_identifier_no_one_knows_is_sent_online_offline_and_checked_for_a_typo_online(services, tmp_path):
    handler, config = services
    handler.routes = {"/crossref/works/10.9999": [(404, {}, "Resource not found.", 0)]}
    ids = tmp_path / "ids.txt"
    ids.write_text("10.9999/no.such.paper\n")
    offline = analyse(Options(sources=(ids,), bundled_catalog=False))
    online = analyse_online(tmp_path, config, ids)
    hints = [next(f.hint for f in s.findings if f.check == "unresolved-entry") for s in (offline, online)]
    assert hints == ["run resolve or build with --online to fetch its record", "check the identifier for a typo"]
    # Nothing but an id to tag: its unresolved-entry says what to do, no overrides file for an empty entry.
    assert [f.check for f in offline.findings] == ["unresolved-entry"]
    table = run_cli("parse", "ids.txt", cwd=tmp_path, check=True)  # the id, not an empty title, names it
    row = re.split(r"\s{2,}", table.stdout.splitlines()[1])
    assert row == [offline.papers[0].key, "[unresolved] doi:10.9999/no.such.paper", "ids.txt:1"]
    assert "no-section" not in table.stderr
    explained = run_cli("tag", "ids.txt", "--explain", cwd=tmp_path, check=True).stdout
    assert "no tag: an unresolved id has no text to tag (see its unresolved-entry finding)" in explained


@pytest.mark.parametrize("year", [10**30, -44, 20211, "n.d."])
def test_a_year_that_is_no_year_is_not_taken_from_an_answer(services, tmp_path, year):
    handler, config = services
    handler.routes = {"/crossref/works/10.1145": [crossref_with(issued={"date-parts": [[year, 11]]})]}
    survey = analyse_online(tmp_path, config, write_ids(tmp_path, "10.1145/3458817.3476209"))
    [paper] = survey.papers
    assert paper.resolved and paper.fields["booktitle"].startswith("Proceedings of the International Conference")
    assert "year" not in paper.fields and paper.key == "narayananndefficient"  # not "narayanan1000efficient"


def raw(status, payload):
    """An answer of these bytes as they are (a str route is sent as UTF-8)."""

    def write(handler):
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.end_headers()
        handler.wfile.write(payload)

    return (status, {}, write, 0)


@pytest.mark.parametrize("spoil", [b"\xff\xfe", "é".encode("latin-1"), b"\xed\xa0\x80"])
def test_an_answer_that_is_not_utf8_is_a_finding_and_not_cached_not_a_title_with_replacement_characters(
    services, tmp_path, spoil
):
    handler, config = services
    good = (RECORDED / "crossref_work.json").read_bytes()
    handler.routes = {"/crossref/works/10.1145": [raw(200, good.replace(b"Efficient large", b"Efficient " + spoil))]}
    ids = tmp_path / "ids.txt"
    ids.write_text("10.1145/3458817.3476209\n")
    survey = analyse_online(tmp_path, config, ids)
    [paper] = survey.papers
    assert not paper.resolved and "\ufffd" not in (paper.title or "")
    errors = [f.message for f in survey.findings if f.check == "resolver-error"]
    assert errors == ["crossref gave no usable answer: answer is not UTF-8 text (at byte 189)"]
    cached = sqlite3.connect(tmp_path / "cache.sqlite").execute("SELECT url FROM responses").fetchall()
    assert not [url for (url,) in cached if "/crossref/" in url]
    handler.routes = {"/crossref/works/10.1145": [ok("crossref_work.json")]}
    survey = analyse_online(tmp_path, config, ids)
    assert survey.papers[0].title.startswith("Efficient large-scale language model training")


@pytest.mark.parametrize("target", ["mine.db", "missing.db"])
def test_an_answer_cache_that_is_a_symbolic_link_is_one_line_and_exit_2_and_its_target_is_left_alone(
    services, tmp_path, target
):
    # A link planted as .surveytool-cache.sqlite in a cloned folder: SQLite wrote its table into the file it named.
    handler, config = services
    mine = tmp_path / "mine.db"
    db = sqlite3.connect(mine)
    db.execute("CREATE TABLE bookmarks (url TEXT)")
    db.commit()
    db.close()
    before = mine.read_bytes()
    (tmp_path / ".surveytool-cache.sqlite").symlink_to(target)
    write_list(tmp_path)
    result = run_cli("resolve", "list.txt", "--online", "--config", str(config), cwd=tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr and handler.seen == []
    assert result.stderr == (
        ".surveytool-cache.sqlite: error: cannot use the online answer cache: it is a symbolic link, which is not"
        " followed (delete the file, or choose another with --cache)\n"
    )
    assert mine.read_bytes() == before and not (tmp_path / "missing.db").exists()


def test_crossrefs_jats_and_html_markup_is_not_taken_into_the_title_abstract_or_venue(services, tmp_path):
    # Crossref deposits keep their markup: the abstract began "<jats:title>Abstract</jats:title><jats:p>", a title
    # read "Training <i>giant</i> ... &amp; ...", and the .bib and chapter printed the tags as text.
    handler, config = services
    handler.routes = {
        "/crossref/works/10.1145": [
            crossref_with(
                title=["Training <i>giant</i> models on H<sub>2</sub>O <scp>GPU</scp> clusters &amp; more"],
                abstract="<jats:title>Abstract</jats:title><jats:p>We train models.</jats:p><jats:p>Fast &lt;1 s.</jats:p>",
                **{"container-title": ["Proceedings of <i>SC</i>&amp;A"]},
            )
        ]
    }
    [paper] = analyse_online(tmp_path, config, write_ids(tmp_path, "10.1145/3458817.3476209")).papers
    assert paper.title == "Training giant models on H2O GPU clusters & more"
    assert paper.fields["abstract"] == "We train models. Fast <1 s."
    assert paper.fields["booktitle"] == "Proceedings of SC&A"


@pytest.mark.parametrize("doi", ["10.1145/../../admin", "10.1145/./../x", "10.1145/x/../../y.z"])
def test_a_doi_with_dot_segments_asks_for_that_record_and_never_another_path_of_the_host(services, tmp_path, doi):
    handler, config = services
    write_config(tmp_path, handler.base, services='["openalex", "crossref"]')
    analyse_online(tmp_path, config, write_ids(tmp_path, doi))
    asked = [path for path in handler.seen if "/works/" in path]
    assert len(asked) == 2, handler.seen  # one lookup by DOI at each service
    for path in asked:
        segments = path.split("?")[0].split("/")
        assert "." not in segments and ".." not in segments, path
        assert "%2E" in path  # the dots of a dot segment, encoded


@pytest.mark.parametrize(
    "asked, found",
    [
        # A survey of the paper, and a rebuttal of it: other works whose titles differ by a word or two.
        ("Deep Residual Learning for Image Recognition", "Deep Residual Learning for Image Recognition: A Survey"),
        ("Attention Is All You Need", "Attention Is Not All You Need"),
    ],
)
def test_a_near_title_of_another_work_without_author_or_year_is_not_taken_for_the_paper(
    services, tmp_path, asked, found
):
    handler, config = services
    other = {
        "title": found,
        "doi": "https://doi.org/10.5555/other.work",
        "type": "article",
        "publication_year": 2023,
        "authorships": [{"author": {"display_name": "Ann Other"}}],
    }
    handler.routes = {"/openalex/works?search=": [openalex_answer(other)]}
    listing = tmp_path / "list.txt"
    listing.write_text(f"Related papers: {asked}\n\n{SNIPPET}\n", encoding="utf-8")
    survey = analyse_online(tmp_path, config, listing)
    [anchor] = [p for p in survey.papers if p.origin.value == "anchor"]
    assert anchor.title == asked and not anchor.resolved
    [unresolved] = [f for f in survey.findings if f.check == "unresolved-entry" and f.location.line == 1]
    assert "closest: 10.5555/other.work" in unresolved.hint  # still listed, for the user to judge


def test_a_near_title_confirmed_by_the_first_author_is_still_taken(services, tmp_path):
    handler, config = services
    record = {
        "title": "Zero Bubble (Almost) Pipeline Parallelism",
        "doi": "https://doi.org/10.5555/zero.bubble",
        "type": "article",
        "publication_year": 2024,
        "authorships": [{"author": {"display_name": "Penghui Qi"}}],
    }
    handler.routes = {"/openalex/works?search=": [openalex_answer(record)]}
    listing = tmp_path / "list.txt"
    # A Google Scholar result: its title line and byline give the title, the authors and the year.
    listing.write_text(
        "Zero Bubble Pipeline Parallelism\nP Qi, X Wan, G Huang, M Lin - arXiv preprint arXiv:2401.10241, 2024 - "
        "arxiv.org\nPipeline parallelism is one of the key components for large-scale distributed training.\n",
        encoding="utf-8",
    )
    [paper] = analyse_online(tmp_path, config, listing).papers
    assert paper.resolved and paper.fields["doi"] == "10.5555/zero.bubble"


@pytest.mark.parametrize("title", [" ", "\u202e\u200b", "<i> </i>", "\x1b\n"])
def test_a_record_whose_title_is_blank_once_cleaned_does_not_resolve_the_entry(services, tmp_path, title):
    handler, config = services
    blank = {
        "id": "https://openalex.org/W4200000002",
        "title": title,
        "doi": "https://doi.org/10.1000/blank",
        "type": "article",
        "publication_year": 2021,
        "authorships": [{"author": {"display_name": "Jane Doe"}}],
    }
    handler.routes = {"/openalex/works/doi:": [(200, {}, json.dumps(blank), 0)]}
    survey = analyse_online(tmp_path, config, write_ids(tmp_path, "10.1000/blank"))
    [paper] = survey.papers
    assert not paper.resolved  # it was 'resolved', and written to references.bib with no title at all
    assert [f.check for f in survey.findings if f.check in ("unresolved-entry", "resolver-error")] == [
        "unresolved-entry"
    ]


def test_an_old_style_arxiv_id_with_its_subject_class_is_asked_for_as_arxiv_knows_it(services, tmp_path):
    handler, config = services
    feed = (RECORDED / "arxiv_entry.xml").read_text().replace("1909.08053v4", "math/0309136v1")
    handler.routes = {"/arxiv/api/query?id_list=math/0309136": [(200, {}, feed, 0)]}
    # Copied as arXiv's old listings print it; 'math.gt/0309136' is no id arXiv knows.
    [paper] = analyse_online(tmp_path, config, write_ids(tmp_path, "arXiv:math.GT/0309136")).papers
    assert paper.resolved and paper.resolution.source == "arxiv"
    assert paper.fields["eprint"] == "math/0309136"


def test_an_answer_cache_that_cannot_be_written_is_still_read_and_the_run_goes_on(services, tmp_path):
    # It stopped the run at its first new answer, after the network was asked: exit 2, "delete the file".
    handler, config = services
    handler.routes = {"/openalex/works?search=": [ok("openalex_search.json")]}
    analyse_online(tmp_path, config, write_list(tmp_path))
    other = "Recommendation models need huge embedding tables that we shard across hosts with a learned cost model…"
    holder = sqlite3.connect(tmp_path / "cache.sqlite", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another run writing: this one may read, not write
    try:
        survey = analyse_online(tmp_path, config, write_list(tmp_path, f"{SNIPPET}\n\n{other}"))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert [p.title for p in survey.papers if p.resolved] == ["Zero Bubble Pipeline Parallelism"]
    assert len(handler.seen) == 2  # the first snippet's answer came from the cache
    [note] = cache_notes(survey)
    assert "cache.sqlite: cannot be written (database is locked)" in note and "not cached" in note


def test_an_answer_cache_another_run_holds_locked_is_one_info_line_and_the_lookups_go_on(services, tmp_path):
    # It stopped the run with exit 2 and the hint "delete the file", a file another run was using.
    handler, config = services
    handler.routes = {"/openalex/works?search=": [ok("openalex_search.json")]}
    analyse_online(tmp_path, config, write_list(tmp_path))
    holder = sqlite3.connect(tmp_path / "cache.sqlite", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # not even read: SQLite gives up after its 5 s wait
    try:
        survey = analyse_online(tmp_path, config, write_list(tmp_path))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert [p.title for p in survey.papers if p.resolved] == ["Zero Bubble Pipeline Parallelism"]
    [note] = cache_notes(survey)
    assert "cache.sqlite: is locked by another run (database is locked)" in note and "not cached" in note


PORTAL = (
    '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body><p>Log in to the Wi-Fi</p></body></html>'
)


@pytest.mark.parametrize(
    "service, route, line, body",
    [
        # What a captive portal or a broken proxy answers with 200: it read as "no such paper", and was cached.
        ("arxiv", "/arxiv/api/query?id_list=", "arXiv:1909.08053", PORTAL),
        ("openalex", "/openalex/works/doi:", "10.1145/3458817.3476209", "{}"),
        ("openalex", "/openalex/works/doi:", "10.1145/3458817.3476209", '{"error": "rate limited"}'),
    ],
)
def test_a_200_answer_that_is_not_the_services_kind_is_a_finding_and_not_cached(
    services, tmp_path, service, route, line, body
):
    handler, config = services
    write_config(tmp_path, handler.base, services=f'["{service}"]')
    handler.routes = {route: [(200, {}, body, 0)]}
    survey = analyse_online(tmp_path, config, write_ids(tmp_path, line))
    [finding] = [f for f in survey.findings if f.check == "resolver-error"]
    assert finding.message.startswith(f"{service} gave no usable answer: malformed answer")
    assert cached_urls(tmp_path) == []  # the next run asks again


def test_an_organisation_whose_name_holds_and_stays_one_author(services, tmp_path):
    handler, config = services
    work = json.loads((RECORDED / "crossref_work.json").read_text(encoding="utf-8"))
    society = "Society for Industrial and Applied Mathematics"
    work["message"]["author"].append({"name": society, "sequence": "additional"})
    handler.routes = {"/crossref/works/10.1145": [(200, {"Content-Type": "application/json"}, json.dumps(work), 0)]}
    (tmp_path / "ids.txt").write_text("10.1145/3458817.3476209\n")
    run_cli(
        "build", "ids.txt", "--online", "--config", str(config), "--cache", "c.sqlite", "--out", "out", cwd=tmp_path
    )
    written = (tmp_path / "out" / "references.bib").read_text(encoding="utf-8")
    assert f"Narayanan, Deepak and Shoeybi, Mohammad and {{{society}}}" in written  # BibTeX reads three names


def test_a_display_name_holding_and_or_two_commas_is_braced_and_a_person_s_is_not():
    academies = "National Academies of Sciences, Engineering, Medicine"
    names = display_names(["Jane Doe", "Smith, J.", academies, "Tom and Jerry Lab", " "])
    assert author_fields(names) == (
        f"Jane Doe and Smith, J. and {academies} and Tom and Jerry Lab",
        f"{{Jane Doe and Smith, J. and {{{academies}}} and {{Tom and Jerry Lab}}}}",
    )
    assert author_fields(display_names(["Jane Doe", "Ada Lovelace"]))[1] == ""  # as before: from the text
