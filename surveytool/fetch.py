"""A polite HTTP GET for the online resolvers: timeouts, retries with backoff, a rate limit.

Answers are cached on disk (see cache.py), so a rerun asks the network nothing.
Only the standard library is used: requests would add a dependency for two calls.
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

from .cache import ResponseCache

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
# Answers worth keeping: the paper, or the service's word that there is none.
CACHEABLE_STATUSES = frozenset({200, 404})


@dataclass(frozen=True)
class HttpSettings:
    user_agent: str
    timeout: float = 10.0
    retries: int = 3
    backoff: float = 1.0  # seconds before the first retry; doubled each time
    max_wait: float = 30.0  # never sleep longer than this for one Retry-After
    min_interval: float = 0.2  # seconds between two requests to one host


@dataclass(frozen=True)
class Response:
    status: int
    body: str
    fetched_at: str


class HttpError(Exception):
    """The service could not give an answer (network down, timeouts, errors after retries)."""


class HttpClient:
    def __init__(self, settings: HttpSettings, cache: ResponseCache | None = None, sleep=time.sleep, clock=time.monotonic):
        self.settings = settings
        self.cache = cache
        self._sleep = sleep
        self._clock = clock
        self._last_request: dict[str, float] = {}

    def get(self, url: str) -> Response:
        if self.cache is not None:
            cached = self.cache.get(url)
            if cached is not None:
                return Response(cached.status, cached.body, cached.fetched_at)
        status, body = self._fetch_with_retries(url)
        fetched_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        if self.cache is not None and status in CACHEABLE_STATUSES:
            self.cache.put(url, status, body, fetched_at)
        return Response(status, body, fetched_at)

    def _fetch_with_retries(self, url: str) -> tuple[int, str]:
        delay = self.settings.backoff
        for attempt in range(self.settings.retries + 1):
            self._wait_for_turn(url)
            try:
                return self._fetch(url)
            except _Retry as retry:
                if attempt == self.settings.retries:
                    raise HttpError(f"{retry.reason} after {attempt + 1} attempts") from None
                self._sleep(min(retry.after if retry.after is not None else delay, self.settings.max_wait))
                delay *= 2
        raise AssertionError("unreachable")

    def _wait_for_turn(self, url: str) -> None:
        host = urllib.request.urlparse(url).netloc
        last = self._last_request.get(host)
        if last is not None:
            wait = self.settings.min_interval - (self._clock() - last)
            if wait > 0:
                self._sleep(wait)
        self._last_request[host] = self._clock()

    def _fetch(self, url: str) -> tuple[int, str]:
        request = urllib.request.Request(url, headers={"User-Agent": self.settings.user_agent, "Accept": "*/*"})
        try:
            with urllib.request.urlopen(request, timeout=self.settings.timeout) as answer:
                return answer.status, answer.read().decode("utf-8", errors="replace")
        except urllib.error.HTTPError as error:
            if error.code in RETRY_STATUSES:
                raise _Retry(f"HTTP {error.code}", _retry_after(error.headers.get("Retry-After"))) from None
            return error.code, error.read().decode("utf-8", errors="replace")
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise _Retry(f"no answer ({reason})", None) from None


class _Retry(Exception):
    def __init__(self, reason: str, after: float | None):
        super().__init__(reason)
        self.reason = reason
        self.after = after


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number of seconds or an HTTP date."""
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        try:
            return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
        except (TypeError, ValueError):
            return None
