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
