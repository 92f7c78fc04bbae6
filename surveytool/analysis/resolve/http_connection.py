"""The plumbing of one HTTP request under a deadline: the proxy, the name lookup, the connection, the cut.

Neither ``getaddrinfo`` nor ``http.client`` takes a deadline for a whole request, so the name is
looked up in a thread waited on until the deadline, the connection goes to the addresses found,
and a timer cuts the socket when the deadline passes.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import math
import socket
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from datetime import UTC
from email.utils import parsedate_to_datetime

#: ``socket.getaddrinfo``'s signature (tests pass a resolver that hangs).
Resolve = Callable[..., list]
Clock = Callable[[], float]


def lookup_addresses(
    resolve: Resolve, host: str, port: int, deadline: float, clock: Clock, timeout: float
) -> list[tuple]:
    """``host``'s addresses, looked up in a thread of its own so that a resolver that hangs costs no more
    than the request's deadline (getaddrinfo takes no timeout; a thread still waiting is left to end)."""
    found: dict[str, object] = {}
    done = threading.Event()

    def lookup() -> None:
        try:
            found["addresses"] = resolve(host, port, 0, socket.SOCK_STREAM)
        except (OSError, UnicodeError) as error:
            found["error"] = error
        finally:
            done.set()

    threading.Thread(target=lookup, name=f"resolve {host}", daemon=True).start()
    if not done.wait(max(0.0, deadline - clock())):
        raise Retry(f"no answer within {timeout:g} s (looking up {host} took too long)", None)
    if "error" in found:
        error = found["error"]
        reason = getattr(error, "strerror", None) or error
        raise Retry(f"no answer (the name {host} cannot be resolved: {reason})", None)
    return list(found["addresses"])  # type: ignore[call-overload]


def connector(addresses: list[tuple], deadline: float, clock):
    """socket.create_connection for http.client, over addresses looked up already, within ``deadline``."""

    def create_connection(address, timeout=None, source_address=None, *more):
        error: OSError | None = None
        for family, kind, proto, _, where in addresses:
            remaining = deadline - clock()
            if remaining <= 0:
                raise TimeoutError("the request's deadline passed while connecting")
            sock = socket.socket(family, kind, proto)
            try:
                sock.settimeout(remaining if timeout is None else min(timeout, remaining))
                if source_address:
                    sock.bind(source_address)
                sock.connect(where)
                return sock
            except OSError as problem:
                error = problem
                sock.close()
        raise error or OSError(f"no address for {address[0]}")

    return create_connection


def cut_connection(connection: http.client.HTTPConnection, cut: threading.Event) -> None:
    """Called at the deadline: a blocked read returns at once and the request fails."""
    cut.set()
    sock = connection.sock
    if sock is not None:
        # The plain socket's shutdown: a TLS socket's own would unwrap it under the reading thread.
        with contextlib.suppress(OSError):  # already closed: nothing left to cut
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


def proxy_for(scheme: str, host: str) -> tuple[str, int, str] | None:
    """The proxy the environment names for ``scheme`` (http_proxy, https_proxy, no_proxy), if any:
    its host, port and Basic credentials (empty if none)."""
    proxy = urllib.request.getproxies().get(scheme)
    if not proxy or urllib.request.proxy_bypass(host):
        return None
    parts = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    try:
        port = parts.port or 80
    except ValueError:
        return None
    if not parts.hostname:
        return None
    credentials = ""
    if parts.username is not None:
        user_pass = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
        credentials = "Basic " + base64.b64encode(user_pass.encode()).decode("ascii")
    return parts.hostname, port, credentials


class HttpError(Exception):
    """The service could not give an answer (network down, timeouts, errors after retries)."""


class Retry(Exception):
    def __init__(self, reason: str, after: float | None):
        super().__init__(reason)
        self.reason = reason
        self.after = after


def retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number of seconds or an HTTP date; None if it is neither."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
            if when.tzinfo is None:  # asctime or "-0000": an HTTP date is in GMT, not in the local time
                when = when.replace(tzinfo=UTC)
            seconds = when.timestamp() - time.time()
        except (TypeError, ValueError, OverflowError, IndexError):
            return None
    return max(seconds, 0.0) if math.isfinite(seconds) else None
