"""Bodies as servers really send them: compressed unasked, cut short, errors that say why."""

import gzip
import zlib

import pytest
from loopback import FakeServices, serve

from surveytool.analysis.resolve.http import HttpClient, HttpError, HttpSettings


class Server(FakeServices):
    routes: dict = {}
    seen: list = []


def raw(status: int, headers: dict[str, str], body: bytes):
    """An answer written as given: the bytes of the body, the headers as they are (no length added)."""

    def write(handler):
        handler.send_response(status)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)

    return write


def client(**settings) -> HttpClient:
    return HttpClient(HttpSettings("surveytool-tests", **{"retries": 0, "min_interval": 0, **settings}))


def failure(url: str, **settings) -> str:
    with pytest.raises(HttpError) as caught:
        client(**settings).get(url)
    return str(caught.value)


WORK = '{"title": "Attention Is All You Need", "author": "Vaswani, Ashish and Müller, Jörg"}'


@pytest.mark.parametrize(
    "coding, packed",
    [
        ("gzip", gzip.compress(WORK.encode())),
        ("x-gzip", gzip.compress(WORK.encode())),
        ("deflate", zlib.compress(WORK.encode())),
        ("deflate", zlib.compress(WORK.encode())[2:-4]),  # raw deflate, as some servers send "deflate"
    ],
    ids=["gzip", "x-gzip", "deflate", "raw-deflate"],
)
def test_an_answer_compressed_unasked_is_decompressed(coding, packed):
    Server.routes = {"/": [(200, {}, raw(200, {"Content-Encoding": coding}, packed), 0)]}
    with serve(Server) as base:
        assert client().get(f"{base}/works").body == WORK


def test_a_gzip_bomb_is_refused_at_the_limit_after_decompressing():
    bomb = gzip.compress(b" " * 50_000_000)  # about 50 KB on the wire
    Server.routes = {"/": [(200, {}, raw(200, {"Content-Encoding": "gzip"}, bomb), 0)]}
    with serve(Server) as base:
        message = failure(f"{base}/works", max_bytes=1_000_000)
    assert message == "answer larger than the limit of 1,000,000 bytes once decompressed (gzip)"


def test_an_encoding_that_cannot_be_read_is_named_not_called_bad_utf8():
    Server.routes = {"/": [(200, {}, raw(200, {"Content-Encoding": "br"}, b"\x8b\x05\x80{}\x03"), 0)]}
    with serve(Server) as base:
        message = failure(f"{base}/works")
    assert message == "the server sent an answer compressed as 'br', which it was not asked for"


def test_a_body_shorter_than_its_content_length_is_cut_short_and_retried():
    cut = raw(200, {"Content-Length": str(len(WORK) + 500)}, WORK[:40].encode())
    whole = raw(200, {"Content-Length": str(len(WORK.encode()))}, WORK.encode())
    Server.routes = {"/": [(200, {}, cut, 0), (200, {}, whole, 0)]}
    with serve(Server) as base:
        assert failure(f"{base}/works") == f"answer cut short: 40 of {len(WORK) + 500:,} bytes arrived after 1 attempt"
        Server.routes = {"/": [(200, {}, cut, 0), (200, {}, whole, 0)]}
        assert client(retries=1, backoff=0).get(f"{base}/works").body == WORK


def test_a_chunked_body_that_stops_before_its_last_chunk_is_cut_short():
    def chunked(handler):
        handler.protocol_version = "HTTP/1.1"
        handler.send_response(200)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        handler.wfile.write(b"28\r\n" + WORK[:40].encode() + b"\r\n")  # no last chunk: the connection closes

    Server.routes = {"/": [(200, {}, chunked, 0)]}
    with serve(Server) as base:
        assert failure(f"{base}/works") == "answer cut short after 40 bytes after 1 attempt"


QUOTA = (
    '{"error": {"message": "You exceeded your current quota, please check your plan and billing details.", '
    '"type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}'
)


def test_a_spent_quota_is_said_as_the_service_says_it_and_not_retried():
    Server.routes = {"/": [(429, {"Content-Type": "application/json"}, QUOTA, 0)]}
    Server.seen = []
    with serve(Server) as base:
        message = failure(f"{base}/v1/chat/completions", retries=3, backoff=0)
    assert message == (
        "HTTP 429: You exceeded your current quota, please check your plan and billing details. "
        "(insufficient_quota); not retried, waiting does not mend it"
    )
    assert len(Server.seen) == 1


def test_an_overloaded_service_is_retried_and_its_message_quoted_without_escape_codes():
    said = '{"error": {"message": "The server is overloaded\\u001b[2J\\r\\nTry later.", "type": "server_error"}}'
    Server.routes = {"/": [(503, {"Content-Type": "application/json"}, said, 0)]}
    Server.seen = []
    with serve(Server) as base:
        message = failure(f"{base}/works", retries=1, backoff=0)
    assert message == "HTTP 503: The server is overloaded [2J Try later. (server_error) after 2 attempts"
    assert len(Server.seen) == 2


def test_an_error_page_of_any_size_is_read_only_in_part_and_still_retried():
    page = "<html><body>" + "Bad gateway. " * 500_000 + "</body></html>"  # 6.5 MB, over the limit
    Server.routes = {"/": [(502, {"Content-Length": str(len(page))}, page, 0)]}
    with serve(Server) as base:
        assert failure(f"{base}/works", max_bytes=1_000_000) == "HTTP 502 after 1 attempt"


def test_an_overloaded_service_answering_in_brotli_is_still_retried_as_the_error_it_is():
    Server.routes = {"/": [(503, {}, raw(503, {"Content-Encoding": "br"}, b"\x8b\x05\x80{}\x03"), 0)]}
    Server.seen = []
    with serve(Server) as base:
        assert failure(f"{base}/works", retries=1, backoff=0) == "HTTP 503 after 2 attempts"
    assert len(Server.seen) == 2
