"""The HTTP client: its politeness with a fake clock, its limits against a real loopback server."""

import base64
import threading
import time
import tracemalloc

import pytest
from loopback import TLS_CERT, FakeServices, serve, stream, trickle

from surveytool.analysis.resolve.http import HttpClient, HttpError, HttpSettings, ServiceSkipped, _same_service
from surveytool.analysis.resolve.http_connection import retry_after as _retry_after


class FakeTime:
    def __init__(self):
        self.now = 100.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 3))
        self.now += seconds


def test_requests_to_one_host_are_spaced_by_the_minimum_interval():
    fake = FakeTime()
    client = HttpClient(HttpSettings("t", min_interval=0.5), sleep=fake.sleep, clock=fake.clock)
    client._wait_for_turn("http://api.example.org/a")
    fake.now += 0.1
    client._wait_for_turn("http://api.example.org/b")
    client._wait_for_turn("http://other.example.org/c")  # another host does not wait
    assert fake.slept == [0.4]


def test_retry_after_in_seconds_or_as_a_date():
    assert _retry_after("3") == 3.0
    assert _retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past: no wait
    assert _retry_after("soon") is None and _retry_after(None) is None


def test_retry_after_that_is_not_a_finite_number_of_seconds_is_ignored():
    assert _retry_after("nan") is None and _retry_after("inf") is None and _retry_after("-inf") is None
    assert _retry_after("-5") == 0.0 and _retry_after("3600") == 3600.0
    assert _retry_after("Mon, 99 Foo 99999 99:99:99 GMT") is None


@pytest.mark.parametrize(
    "target, allowed",
    [
        ("https://api.example.org/works/2", True),  # same host, upgraded to https
        ("http://api.example.org/works/2", True),  # same host, port and scheme
        ("http://API.example.org/works/2", True),
        ("http://api.example.org:8080/works/2", False),  # another port of the same host: another server
        ("https://evil.example/works", False),
        ("http://api.example.org.evil.example/works", False),
        ("ftp://api.example.org/works", False),
        ("http:///works", False),
    ],
)
def test_a_redirect_is_followed_only_within_the_service_host(target, allowed):
    assert _same_service("http://api.example.org/works?search=x", target) is allowed


def test_an_https_service_is_never_redirected_down_to_http():
    assert not _same_service("https://api.example.org/works", "http://api.example.org/works")


def fetch_once(url, **settings):
    client = HttpClient(HttpSettings("surveytool-tests", **{"retries": 0, "min_interval": 0, **settings}))
    start = time.monotonic()
    try:
        client.get(url)
    except HttpError as error:
        return str(error), time.monotonic() - start
    raise AssertionError("the request was expected to fail")


class Hostile(FakeServices):
    routes: dict = {}
    seen: list = []


@pytest.fixture(autouse=True)
def fresh_server_log():
    Hostile.seen = []


def test_a_one_byte_a_second_trickle_ends_at_the_two_second_deadline():
    answer = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{}"
    Hostile.routes = {"/": [(200, {}, trickle(answer, every=1.0), 0)]}
    with serve(Hostile) as base:
        message, elapsed = fetch_once(f"{base}/works", timeout=2)
    assert message == "no answer within 2 s after 1 attempt"
    assert 1.9 <= elapsed < 2.6


def test_a_200_mb_answer_is_read_in_pieces_up_to_the_limit_and_refused():
    Hostile.routes = {"/": [(200, {}, stream(200_000_000, declare_length=False), 0)]}
    with serve(Hostile) as base:
        tracemalloc.start()
        try:
            message, elapsed = fetch_once(f"{base}/works", max_bytes=1_000_000)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert message == "answer larger than the limit of 1,000,000 bytes"
    assert peak < 8_000_000 and elapsed < 5


def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_read():
    Hostile.routes = {"/": [(200, {}, stream(200_000_000, declare_length=True), 0)]}
    with serve(Hostile) as base:
        message, elapsed = fetch_once(f"{base}/works")
    assert message == "answer of 200,000,000 bytes is larger than the limit of 4,000,000" and elapsed < 2


def test_a_redirect_loop_ends():
    Hostile.routes = {"/": [(302, {"Location": "/again"}, "", 0)]}
    with serve(Hostile) as base:
        message, _ = fetch_once(f"{base}/works")
    assert message == "more than 5 redirects" and len(Hostile.seen) == 6


def test_the_proxy_named_in_the_environment_is_used_as_urllib_would(monkeypatch):
    Hostile.routes = {"http://service.invalid/": [(200, {}, '{"results": []}', 0)]}
    with serve(Hostile) as base:
        monkeypatch.setenv("http_proxy", base.replace("//", "//me:s%40cret@"))
        monkeypatch.delenv("no_proxy", raising=False)
        monkeypatch.delenv("NO_PROXY", raising=False)
        client = HttpClient(HttpSettings("surveytool-tests", retries=0, min_interval=0))
        answer = client.get("http://service.invalid/works?search=x")
    assert answer.status == 200 and Hostile.seen == ["http://service.invalid/works?search=x"]
    assert Hostile.headers_seen[-1]["Proxy-Authorization"] == "Basic " + base64.b64encode(b"me:s@cret").decode()


def test_the_backoff_never_sleeps_longer_than_max_wait_and_is_not_mistaken_for_a_retry_after():
    fake = FakeTime()
    Hostile.routes = {"/": [(503, {}, "busy", 0)]}
    with serve(Hostile) as base:
        client = HttpClient(HttpSettings("t", retries=3, backoff=20, max_wait=30, min_interval=0), sleep=fake.sleep)
        with pytest.raises(HttpError, match="HTTP 503 after 4 attempts"):
            client.get(f"{base}/works")
    assert fake.slept == [20, 30, 30] and client.skipped(base.split("//")[1]) is None


def test_a_trickle_over_tls_ends_at_the_deadline_too(monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS_CERT))
    answer = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{}"
    Hostile.routes = {"/": [(200, {}, trickle(answer, every=0.1), 0)]}
    with serve(Hostile, tls=True) as base:
        message, elapsed = fetch_once(f"{base}/works", timeout=1)
    assert message == "no answer within 1 s after 1 attempt" and 0.9 <= elapsed < 1.6


def test_an_https_answer_is_read_and_a_redirect_to_the_same_https_host_is_followed(monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS_CERT))
    Hostile.routes = {
        "/works": [(302, {"Location": "/v2/works"}, "", 0)],
        "/v2/works": [(200, {}, '{"results": []}', 0)],
    }
    with serve(Hostile, tls=True) as base:
        answer = HttpClient(HttpSettings("t", retries=0, min_interval=0)).get(f"{base}/works")
    assert answer.status == 200 and answer.body == '{"results": []}' and Hostile.seen == ["/works", "/v2/works"]


def test_a_certificate_that_is_not_trusted_is_no_answer():
    Hostile.routes = {"/": [(200, {}, '{"results": []}', 0)]}
    with serve(Hostile, tls=True) as base:
        message, _ = fetch_once(f"{base}/works")
    assert "CERTIFICATE_VERIFY_FAILED" in message and Hostile.seen == []


def test_a_name_that_does_not_resolve_is_no_answer_within_the_deadline():
    # .invalid never resolves (RFC 2606): the lookup fails at once, or is cut at the deadline.
    message, elapsed = fetch_once("http://surveytool-tests.invalid/works", timeout=2)
    assert message.startswith("no answer") and message.endswith("after 1 attempt")
    assert elapsed < 2.6


def test_a_resolver_that_hangs_costs_no_more_than_the_request_deadline():
    released = threading.Event()

    def hanging_resolver(*args):
        released.wait(30)  # a DNS server that never answers
        raise OSError("too late")

    client = HttpClient(
        HttpSettings("surveytool-tests", retries=0, min_interval=0, timeout=1), resolve=hanging_resolver
    )
    start = time.monotonic()
    with pytest.raises(HttpError, match=r"no answer within 1 s \(looking up api.example.org took too long\)"):
        client.get("http://api.example.org/works")
    assert time.monotonic() - start < 1.5
    released.set()


def test_the_looked_up_address_is_the_one_connected_to_and_tls_still_checks_the_name(monkeypatch):
    """The resolver's answer is used (no second lookup), and a TLS name check still sees the host name."""
    import socket

    asked = []

    def loopback_resolver(host, port, *args):
        asked.append(host)
        return socket.getaddrinfo("127.0.0.1", port, 0, socket.SOCK_STREAM)

    Hostile.routes = {"/works": [(200, {"Content-Type": "application/json"}, "{}", 0)]}
    with serve(Hostile) as base:
        port = base.rsplit(":", 1)[1]
        client = HttpClient(
            HttpSettings("surveytool-tests", retries=0, min_interval=0, timeout=2), resolve=loopback_resolver
        )
        assert client.get(f"http://service.example:{port}/works").body == "{}"
    assert asked == ["service.example"]
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS_CERT))
    with serve(Hostile, tls=True) as base:
        port = base.rsplit(":", 1)[1]
        client = HttpClient(
            HttpSettings("surveytool-tests", retries=0, min_interval=0, timeout=2), resolve=loopback_resolver
        )
        Hostile.seen = []
        with pytest.raises(HttpError, match="CERTIFICATE_VERIFY_FAILED"):
            client.get(f"https://service.example:{port}/works")  # the test certificate is for 127.0.0.1 only
    assert Hostile.seen == []


@pytest.mark.parametrize("location", ["http://[::1", "http://[127.0.0.1]x/", "//a]b/"])
def test_a_redirect_to_an_address_urllib_cannot_read_is_no_answer_not_a_crash(location):
    Hostile.routes = {"/": [(302, {"Location": location}, "", 0)]}
    with serve(Hostile) as base:
        message, _ = fetch_once(f"{base}/works")
    assert message.startswith("redirected to ") and "which is no address; not followed" in message


def test_the_wait_between_requests_to_one_host_ends_with_the_runs_budget():
    # min_interval = 30 with budget = 1: the second request slept its 30 s, then found the budget spent.
    Hostile.routes = {"/": [(200, {}, "{}", 0)]}
    client = HttpClient(HttpSettings("surveytool-tests", timeout=1, retries=0, min_interval=30, budget=1))
    with serve(Hostile) as base:
        start = time.monotonic()
        client.get(f"{base}/a")
        with pytest.raises(ServiceSkipped, match="the run's time budget of 1 s is spent"):
            client.get(f"{base}/b")
    assert time.monotonic() - start < 3 and len(Hostile.seen) == 1


def test_a_retry_after_date_without_a_zone_is_in_gmt_as_http_dates_are_not_the_users_local_time(monkeypatch):
    # asctime, one of the three forms HTTP dates take, names no zone: in New York 10 s was read as 5 hours and 10 s,
    # more than max_wait, and the service was skipped for the run.
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        then = time.gmtime(time.time() + 10)
        waits = [
            _retry_after(time.strftime(form, then)) for form in ("%a %b %d %H:%M:%S %Y", "%a, %d %b %Y %H:%M:%S -0000")
        ]
    finally:
        monkeypatch.undo()
        time.tzset()
    assert all(w is not None and 5 < w <= 10 for w in waits), waits
