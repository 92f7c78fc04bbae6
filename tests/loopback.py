"""A real HTTP server on 127.0.0.1 that answers as the online services do, or as a hostile one would."""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class FakeServices(BaseHTTPRequestHandler):
    """Routes by path prefix; each route is a queue of (status, headers, body, delay), the last one repeating.

    A body is text, or a function given the handler that writes the answer itself (a trickle, a
    stream of any length).
    """

    routes: dict = {}
    seen: list = []
    headers_seen: list = []
    bodies_seen: list = []
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        type(self).seen.append(self.path)
        type(self).headers_seen.append(dict(self.headers))
        for prefix, answers in type(self).routes.items():
            if self.path.startswith(prefix):
                status, headers, body, delay = answers.pop(0) if len(answers) > 1 else answers[0]
                break
        else:
            status, headers, body, delay = 404, {}, '{"error": "not found"}', 0
        time.sleep(delay)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up
            if callable(body):
                body(self)
                return
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body.encode())

    def do_POST(self):
        # The body is read whole (the tests send small ones) and kept, then answered as a GET would be.
        length = int(self.headers.get("Content-Length") or 0)
        type(self).bodies_seen.append(self.rfile.read(length))
        self.do_GET()

    def log_message(self, *args):
        pass


#: A self-signed certificate for 127.0.0.1 and its key, made for these tests only (trust it with SSL_CERT_FILE).
TLS_CERT = Path(__file__).parent / "data" / "tls" / "loopback-cert.pem"
TLS_KEY = Path(__file__).parent / "data" / "tls" / "loopback-key.pem"


@contextlib.contextmanager
def serve(handler: type[BaseHTTPRequestHandler], host: str = "127.0.0.1", tls: bool = False) -> Iterator[str]:
    """Run ``handler`` on a free port of ``host`` (over TLS with the test certificate if asked); yields the base URL."""
    server = ThreadingHTTPServer((host, 0), handler)
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(TLS_CERT, TLS_KEY)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{'https' if tls else 'http'}://{host}:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def refusing_port() -> int:
    """A port on 127.0.0.1 where nothing listens: connections are refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def trickle(payload: bytes, every: float) -> Callable[[BaseHTTPRequestHandler], None]:
    """An answer written one byte at a time, headers included, ``every`` seconds apart."""

    def write(handler: BaseHTTPRequestHandler) -> None:
        for byte in payload:
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            time.sleep(every)

    return write


def stream(size: int, declare_length: bool) -> Callable[[BaseHTTPRequestHandler], None]:
    """A 200 answer of ``size`` bytes, written in 1 MB pieces from one buffer (never held whole)."""
    piece = b"[" + b" " * (1 << 20)

    def write(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        if declare_length:
            handler.send_header("Content-Length", str(size))
        handler.end_headers()
        sent = 0
        while sent < size:
            handler.wfile.write(piece[: size - sent])
            sent += len(piece)

    return write
