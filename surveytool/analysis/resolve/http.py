"""A polite, bounded HTTP GET for the online resolvers.

Every answer is an untrusted stranger's: a request has a deadline (not a
per-read timeout, which a trickle of one byte a second never trips; the name
lookup is under it too), a body has
a size limit and is read in pieces, redirects stay on the service's own host,
a run has a time budget, and a service that keeps failing is skipped for the
rest of the run (a circuit breaker) instead of being waited on for every paper.

Answers are cached on disk (see response_cache.py) once the caller has parsed them, so a
rerun asks the network nothing. Only the standard library is used.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass

from surveytool.analysis.resolve.http_body import read_body, service_said
from surveytool.analysis.resolve.http_connection import (
    HttpError,
    Retry,
    connector,
    cut_connection,
    lookup_addresses,
    proxy_for,
    retry_after,
)
from surveytool.analysis.resolve.response_cache import ResponseCache

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
# The redirects that keep a POST a POST (the others turn it into a GET).
_POST_REDIRECTS = frozenset({307, 308})
# Answers worth keeping: the paper, or the service's word that there is none.
CACHEABLE_STATUSES = frozenset({200, 404})
_MAX_REDIRECTS = 5
#: A POST's body and its extra headers.
_Post = tuple[bytes, Mapping[str, str]]


@dataclass(frozen=True)
class HttpSettings:
    user_agent: str
    timeout: float = 10.0  # seconds for one whole request, body included
    retries: int = 3
    backoff: float = 1.0  # seconds before the first retry; doubled each time
    max_wait: float = 30.0  # a longer Retry-After skips the service instead of waiting
    min_interval: float = 0.2  # seconds between two requests to one host
    max_bytes: int = 4_000_000  # a larger answer is refused, not read
    budget: float = 600.0  # seconds of network time for the whole run
    give_up_after: int = 3  # consecutive failures before a service is skipped


@dataclass(frozen=True)
class Response:
    status: int
    body: str
    fetched_at: str
    from_cache: bool = False


class ServiceSkipped(HttpError):
    """The service is no longer asked in this run: it failed too often, or the run's budget is spent."""


class HttpClient:
    def __init__(
        self,
        settings: HttpSettings,
        cache: ResponseCache | None = None,
        sleep=time.sleep,
        clock=time.monotonic,
        resolve=socket.getaddrinfo,
    ):
        self.settings = settings
        self.cache = cache
        self._sleep = sleep
        self._clock = clock
        self._resolve = resolve  # socket.getaddrinfo's signature; run under the request's deadline
        self._last_request: dict[str, float] = {}
        self._failures: dict[str, int] = {}
        self._skipped: dict[str, str] = {}  # service -> why it is no longer asked
        self._budget_end: float | None = None

    def get(self, url: str, service: str = "") -> Response:
        """The answer for ``url``, from the cache or the network; ``service`` names the breaker to use."""
        if self.cache is not None:
            cached = self.cache.get(url)
            if cached is not None:
                return Response(cached.status, cached.body, cached.fetched_at, from_cache=True)
        service = service or urllib.parse.urlsplit(url).netloc
        reason = self.skipped(service)
        if reason:
            raise ServiceSkipped(reason)
        try:
            status, body = self._fetch_with_retries(url, service)
        except ServiceSkipped:
            raise
        except HttpError as error:
            self.record_failure(service, str(error))
            raise
        fetched_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        return Response(status, body, fetched_at)

    def post(self, url: str, data: bytes, headers: Mapping[str, str], service: str = "") -> Response:
        """POST ``data`` to ``url`` under the same deadline, limits, retries and breaker as :meth:`get`.

        Never cached here: the caller knows what the answer depends on. ``headers`` (a key, say) are sent on
        redirects only as far as a redirect may go, the service's own host.
        """
        service = service or urllib.parse.urlsplit(url).netloc
        reason = self.skipped(service)
        if reason:
            raise ServiceSkipped(reason)
        try:
            status, body = self._fetch_with_retries(url, service, (data, headers))
        except ServiceSkipped:
            raise
        except HttpError as error:
            self.record_failure(service, str(error))
            raise
        return Response(status, body, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))

    def keep(self, url: str, response: Response, service: str = "") -> None:
        """Cache an answer the caller could use; an answer that failed to parse is never kept."""
        self._failures.pop(service or urllib.parse.urlsplit(url).netloc, None)
        if self.cache is not None and not response.from_cache and response.status in CACHEABLE_STATUSES:
            self.cache.put(url, response.status, response.body, response.fetched_at)

    def forget(self, url: str) -> None:
        """Drop a cached answer that turned out to be unusable, so that the next run asks again."""
        if self.cache is not None:
            self.cache.delete(url)

    def record_failure(self, service: str, reason: str) -> None:
        """Count one failure (no answer, or an unusable one); enough in a row skip the service."""
        self._failures[service] = self._failures.get(service, 0) + 1
        if self._failures[service] >= self.settings.give_up_after and service not in self._skipped:
            self._skipped[service] = f"{self._failures[service]} failures in a row, the last: {reason}"

    def skipped(self, service: str) -> str | None:
        """Why ``service`` is no longer asked in this run, or None."""
        if service in self._skipped:
            return self._skipped[service]
        if self._budget_end is not None and self._clock() >= self._budget_end:
            return f"the run's time budget of {self.settings.budget:g} s is spent"
        return None

    def _fetch_with_retries(self, url: str, service: str, post: _Post | None = None) -> tuple[int, str]:
        delay = self.settings.backoff
        for attempt in range(self.settings.retries + 1):
            self._wait_for_turn(url)
            deadline = self._deadline(service)
            try:
                return self._follow(url, deadline, post)
            except Retry as retry:
                if attempt == self.settings.retries:
                    tries = f"{attempt + 1} attempt{'s' if attempt else ''}"
                    raise HttpError(f"{retry.reason} after {tries}") from None
                if retry.after is not None and retry.after > self.settings.max_wait:
                    waited = "over a day" if retry.after > 86_400 else f"{retry.after:.0f} s"  # not 309 digits of 1e308
                    self._skipped[service] = f"it asked to wait {waited} ({retry.reason})"
                    raise ServiceSkipped(self._skipped[service]) from None
                wait = retry.after if retry.after is not None else min(delay, self.settings.max_wait)
                if self._clock() + wait >= self._budget_end_time():
                    raise HttpError(f"{retry.reason}; no time left in the run's budget to retry") from None
                self._sleep(wait)
                delay *= 2
        raise AssertionError("unreachable")

    def _budget_end_time(self) -> float:
        if self._budget_end is None:
            self._budget_end = self._clock() + self.settings.budget
        return self._budget_end

    def _deadline(self, service: str) -> float:
        end = self._budget_end_time()
        reason = self.skipped(service)
        if reason:
            raise ServiceSkipped(reason)
        return min(self._clock() + self.settings.timeout, end)

    def _wait_for_turn(self, url: str) -> None:
        host = urllib.parse.urlsplit(url).netloc
        last = self._last_request.get(host)
        if last is not None:
            wait = self.settings.min_interval - (self._clock() - last)
            if wait > 0:  # never past the run's budget, where the request is not made
                self._sleep(min(wait, max(0.0, self._budget_end_time() - self._clock())))
        self._last_request[host] = self._clock()

    def _follow(self, url: str, deadline: float, post: _Post | None = None) -> tuple[int, str]:
        """GET ``url`` (or POST, with ``post``), following redirects that stay on its host."""
        current = url
        for _ in range(_MAX_REDIRECTS + 1):
            status, location, body = self._exchange(current, deadline, post)
            if status not in REDIRECT_STATUSES or not location:
                return status, body
            if post is not None and status not in _POST_REDIRECTS:
                raise HttpError(f"HTTP {status} would turn the POST into a GET; not followed")
            try:
                target = urllib.parse.urljoin(current, location)
            except ValueError:  # an address urllib cannot read ("http://[::1"): no place to go
                raise HttpError(f"redirected to {location[:80]!r}, which is no address; not followed") from None
            if not _same_service(url, target):
                raise HttpError(
                    f"redirected to {urllib.parse.urlsplit(target).netloc or target!r}, another host; not followed"
                )
            current = target
        raise HttpError(f"more than {_MAX_REDIRECTS} redirects")

    def _exchange(self, url: str, deadline: float, post: _Post | None = None) -> tuple[int, str, str]:
        """One request: (status, Location header, body), within ``deadline`` and the size limit."""
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise HttpError(f"not an http(s) address: {url!r}")
        secure = parts.scheme == "https"
        connection_class = http.client.HTTPSConnection if secure else http.client.HTTPConnection
        remaining = deadline - self._clock()
        if remaining <= 0:
            raise Retry(f"no answer within {self.settings.timeout:g} s", None)
        try:
            port = parts.port or (443 if secure else 80)
        except ValueError:
            raise HttpError(f"not a valid address: {url!r}") from None
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        headers = {"User-Agent": self.settings.user_agent, "Accept": "*/*", **(post[1] if post else {})}
        proxy = proxy_for(parts.scheme, parts.hostname)
        if proxy is None:
            connection = connection_class(parts.hostname, port, timeout=min(self.settings.timeout, remaining))
            addresses = lookup_addresses(
                self._resolve, parts.hostname, port, deadline, self._clock, self.settings.timeout
            )
        else:  # as urllib would: an http request names the whole URL, https goes through a tunnel
            proxy_host, proxy_port, credentials = proxy
            connection = connection_class(proxy_host, proxy_port, timeout=min(self.settings.timeout, remaining))
            addresses = lookup_addresses(
                self._resolve, proxy_host, proxy_port, deadline, self._clock, self.settings.timeout
            )
            proxy_headers = {"Proxy-Authorization": credentials} if credentials else {}
            if secure:
                connection.set_tunnel(parts.hostname, port, headers=proxy_headers)
            else:
                target = url
                headers.update(proxy_headers)
        # The name is resolved already: the connection goes to those addresses (TLS still checks the name).
        connection._create_connection = connector(addresses, deadline, self._clock)  # type: ignore[attr-defined]
        remaining = deadline - self._clock()
        if remaining <= 0:
            raise Retry(f"no answer within {self.settings.timeout:g} s", None)
        # Socket timeouts bound each read; the watchdog bounds the whole request.
        cut = threading.Event()
        watchdog = threading.Timer(remaining, cut_connection, (connection, cut))
        watchdog.daemon = True
        watchdog.start()
        try:
            if post is None:
                connection.request("GET", target, headers=headers)
            else:
                connection.request("POST", target, body=post[0], headers=headers)
            answer = connection.getresponse()
            body = read_body(answer, self.settings.max_bytes)
            if cut.is_set():
                raise TimeoutError
        except ConnectionRefusedError:
            raise HttpError("no answer (connection refused)") from None
        except (http.client.InvalidURL, UnicodeError) as error:
            raise HttpError(f"not a valid address ({error})") from None
        except (OSError, http.client.HTTPException) as error:
            if cut.is_set() or isinstance(error, TimeoutError):
                raise Retry(f"no answer within {self.settings.timeout:g} s", None) from None
            raise Retry(
                f"no answer ({getattr(error, 'reason', None) or error or type(error).__name__})", None
            ) from None
        finally:
            watchdog.cancel()
            connection.close()
        if answer.status in RETRY_STATUSES:
            said, lasting = service_said(body)
            if lasting:  # "run again later" would be wrong advice: the account needs seeing to first
                raise HttpError(f"HTTP {answer.status}{said}; not retried, waiting does not mend it")
            raise Retry(f"HTTP {answer.status}{said}", retry_after(answer.getheader("Retry-After")))
        try:  # JSON and Atom come as UTF-8: a byte that is none would be read as U+FFFD in a title, and kept
            text = body.decode("utf-8", errors="strict" if answer.status == 200 else "replace")
        except UnicodeDecodeError as error:
            raise HttpError(f"answer is not UTF-8 text (at byte {error.start:,})") from None
        return answer.status, answer.getheader("Location") or "", text


def _same_service(origin: str, target: str) -> bool:
    """A redirect stays on the service's own host, and goes to https or exactly where the service is."""
    before, after = urllib.parse.urlsplit(origin), urllib.parse.urlsplit(target)
    if not after.hostname or (after.hostname or "").lower() != (before.hostname or "").lower():
        return False
    try:
        same_port = after.port == before.port
    except ValueError:
        return False
    return after.scheme == "https" or (after.scheme == before.scheme and same_port)
