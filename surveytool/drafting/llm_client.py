"""An OpenAI-compatible chat-completions client (OpenAI, llama.cpp, vLLM, Ollama), bounded like the online resolvers.

One POST of ``{model, messages, temperature: 0}`` to ``{base_url}/chat/completions`` through the
resolvers' HTTP client: a deadline for the whole request, a size limit on the answer, redirects
only on the service's own host, Retry-After, and a breaker that stops asking a service that keeps
failing. The key is read from the environment variable the settings name, when a client is made,
and is never written anywhere. An answer is an untrusted stranger's: anything but the expected
shape is an :class:`LlmError` with a one-line reason, never a traceback. Its settings, the [llm]
table, are read by llm_settings.py.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import os
import re
import socket
import time
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path

from surveytool import __version__
from surveytool.analysis.resolve.http import HttpClient, HttpError, HttpSettings
from surveytool.analysis.resolve.http_connection import Retry, lookup_addresses
from surveytool.drafting.answer_text import without_thinking
from surveytool.drafting.llm_settings import LlmSettings
from surveytool.errors import InputError

#: The breaker's name for the model's service.
SERVICE = "llm"
#: An answer's text longer than this is not a paragraph: refused.
MAX_CONTENT_CHARS = 20_000
#: The longest reason for a failure that a message quotes.
_REASON_CHARS = 300
#: A run of this many characters of the key in a message (an address the service sent, cut short) is the key, echoed.
_KEY_RUN = 10
_ECHOED = "the service's answer holds the API key sent with the request (a proxy or server echoing it); not shown"
_UNPRINTABLE = re.compile(r"[^\x20-\x7e]+")
_SENTENCE_END = re.compile(r"[.!?][\"')\]\u201d\u2019]*(?=\s|$)")

Message = Mapping[str, str]
# Why an answer stopped mid-sentence, by its finish_reason (Azure OpenAI stops at its content filter, keeping the
# text before it).
_CUT = {"length": "at the model's length limit", "content_filter": "by the service's content filter"}

# Why the service could not be reached at all, as the HTTP client says it, and what to check: asking again later
# does not help.
_UNREACHED = (
    ("connection refused", "is the server running? check the host and port of [llm] base_url"),
    ("cannot be resolved", "check the host name in [llm] base_url"),
    ("WRONG_VERSION_NUMBER", "the server speaks plain HTTP: write [llm] base_url with http://, not https://"),
    ("CERTIFICATE_VERIFY_FAILED", "its certificate is not trusted here: name its CA's certificate in SSL_CERT_FILE"),
)


class LlmError(Exception):
    """No usable answer: the service failed, or answered something that is not a chat completion."""


def one_line(text: str, limit: int = 160) -> str:
    """Untrusted text fit for a terminal line: printable ASCII, shortened."""
    cleaned = _UNPRINTABLE.sub(" ", text).strip()
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 3] + "..."


def request_document(model: str, messages: Sequence[Message]) -> dict:
    """The JSON body of a request: everything the answer depends on, and nothing secret."""
    return {"model": model, "messages": [dict(m) for m in messages], "temperature": 0}


def answer_key(model: str, messages: Sequence[Message]) -> str:
    """The cache key of an answer: a digest of the request's body (model and prompt), in a canonical spelling."""
    canonical = json.dumps(request_document(model, messages), sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def parse_chat_answer(status: int, body: str) -> str:
    """The text of a chat completion's first choice; LlmError with a one-line reason for anything else."""
    try:  # a byte-order mark is no part of JSON, but some servers send one
        document = json.loads(body.removeprefix("\ufeff"))
    except RecursionError:
        raise LlmError("the answer is nested too deeply to be a chat completion") from None
    except ValueError:
        reason = f"HTTP {status}, and" if status != 200 else "the answer is"
        # A proxy's or gateway's HTML page for a wrong key or address says why no less than a JSON error.
        raise LlmError(f"{reason} not JSON: {one_line(body, 60)!r}" + _status_hint(status)) from None
    if isinstance(document, dict) and isinstance(document.get("error"), dict | str):
        error = document["error"]
        message = error.get("message") if isinstance(error, dict) else error
        raise LlmError(f"HTTP {status}: the service says {one_line(str(message))!r}" + _status_hint(status))
    if status != 200:
        # vLLM ({"object": "error", "message": ...}) and FastAPI ({"detail": ...}) say why elsewhere than "error".
        said = [document.get(name) for name in ("message", "detail")] if isinstance(document, dict) else []
        why = next((f": the service says {one_line(text)!r}" for text in said if isinstance(text, str) and text), "")
        raise LlmError(f"HTTP {status}{why}" + _status_hint(status))
    choices = document.get("choices") if isinstance(document, dict) else None
    if not isinstance(choices, list) or not choices:
        raise LlmError("the answer has no choices")
    message = choices[0].get("message") if isinstance(choices[0], dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):  # parts, as Mistral's reasoning models send (their thinking is one): the text ones
        parts = [part.get("text") for part in content if isinstance(part, dict) and part.get("type") == "text"]
        texts = [text for text in parts if isinstance(text, str)]
        content = "".join(texts) if texts and len(texts) == len(parts) else None
    if not isinstance(content, str):
        refused = message.get("refusal") if isinstance(message, dict) else None
        if isinstance(refused, str) and refused.strip():  # OpenAI's structured refusal, in place of the text
            raise LlmError(f"the model refused: {one_line(refused)!r}")
        raise LlmError("the answer's first choice has no message text")
    cut = _CUT.get(choices[0].get("finish_reason"))
    if cut:  # stopped mid-sentence: its last sentence is unfinished, and would be written as one
        ends = list(_SENTENCE_END.finditer(content))
        content = content[: ends[-1].end()] if ends else ""
    # A reasoning model's thinking goes before the length check: it is often longer than any paragraph.
    answer = without_thinking(content)
    if not answer.strip():  # a server that answers nothing is failing: the theme is asked again next time
        what = "all the model's thinking" if content.strip() else "empty"
        raise LlmError(f"the answer's text is {what}" + (f", cut short {cut}" if cut else ""))
    content = answer
    if len(content) > MAX_CONTENT_CHARS:
        raise LlmError(f"the answer's text is {len(content):,} characters, more than a paragraph")
    return content


def _public(host: str, timeout: float) -> bool:
    """Whether ``host`` has an address on the internet (not this computer's, a private network's or a VPN's)."""
    try:  # getaddrinfo takes no timeout: a resolver that hangs must not hang the run before its first request
        found = lookup_addresses(socket.getaddrinfo, host, 0, time.monotonic() + timeout, time.monotonic, timeout)
    except Retry:  # no address, or none in time: the request then says why
        return False
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in found]
    # An IPv4 address written as IPv6 (::ffff:8.8.8.8) is rated as the IPv4 address it carries.
    return any((getattr(address, "ipv4_mapped", None) or address).is_global for address in addresses)


def _status_hint(status: int) -> str:
    if status in (401, 403):
        return " (check the key in the variable [llm] api_key_env names)"
    if status == 404:
        return " (check [llm] base_url: it is the part before /chat/completions, often ending in /v1)"
    return ""


class LlmClient:
    """Asks the configured model; made only when the user asked for the model (``draft --llm``)."""

    def __init__(
        self,
        settings: LlmSettings,
        environ: Mapping[str, str] = os.environ,
        http: HttpClient | None = None,
        path: Path | None = None,
    ):
        where = str(path) if path else None
        if not settings.model:
            raise InputError(
                "no model is named for --llm", path=where, hint='set model in [llm], e.g. model = "gpt-4o-mini"'
            )
        self.settings = settings
        self._headers = {"Content-Type": "application/json"}
        self._key = ""
        if settings.api_key_env:
            key = environ.get(settings.api_key_env, "")
            if not key and not settings.api_key_env.isupper():
                # Not shown: "gsk_8fQ..." is a name by its letters, and more likely the key written in its place.
                raise InputError(
                    "the environment variable [llm] api_key_env names is not set; its name has lowercase letters: "
                    "is it the key itself?",
                    path=where,
                    hint="put the key in a variable, e.g. export OPENAI_API_KEY=<your key>, and name that: "
                    'api_key_env = "OPENAI_API_KEY"',
                )
            if not key:
                raise InputError(
                    f"the environment variable {settings.api_key_env} (named by [llm] api_key_env) is not set",
                    path=where,
                    hint=f"export {settings.api_key_env}=<your key>, or remove api_key_env for a server that needs "
                    "no key",
                )
            if not key.isascii() or not key.isprintable():
                raise InputError(
                    f"the environment variable {settings.api_key_env} holds more than one line of ASCII text",
                    path=where,
                    hint="a key is one line of letters, digits and punctuation",
                )
            self._headers["Authorization"] = f"Bearer {key}"
            self._key = key
        self.url = settings.base_url.rstrip("/") + "/chat/completions"
        parts = urllib.parse.urlsplit(self.url)  # its scheme lowered: "HTTP://" is plain http too
        host = parts.hostname or ""
        if self._key and parts.scheme == "http" and _public(host, settings.timeout):
            raise InputError(
                f"[llm] base_url is a plain http:// address of {host}, on the internet: the key in "
                f"{settings.api_key_env} would travel unencrypted",
                path=where,
                hint="write https:// (hosted services all speak it); http:// carries a key only to this computer "
                "or a local network",
            )
        self.http = http or HttpClient(
            HttpSettings(
                f"surveytool/{__version__}",
                timeout=settings.timeout,
                retries=settings.retries,
                max_bytes=settings.max_bytes,
                min_interval=0.0,
                budget=settings.budget,
            )
        )
        self.requests = 0  # requests sent by this client, for the run's summary

    def given_up(self) -> str | None:
        """Why the model is asked nothing more in this run (it kept failing, or the time budget is spent), or None."""
        reason = self.http.skipped(SERVICE)
        return reason and one_line(self._masked(reason), _REASON_CHARS)

    def _quotes_key(self, body: str) -> bool:
        """Whether the body the service sent holds the key, as it is or spelt with JSON escapes."""
        if not self._key:
            return False
        if self._key in body:
            return True
        try:
            return self._key in json.dumps(json.loads(body.removeprefix("\ufeff")), ensure_ascii=False)
        except (ValueError, RecursionError):
            return False

    def _masked(self, reason: str) -> str:
        """``reason`` for a message, unless it quotes a run of the key (a redirect's address, cut short): the key
        is never printed, logged or written."""
        key = self._key
        run = min(_KEY_RUN, len(key))
        if key and any(key[i : i + run] in reason for i in range(len(key) - run + 1)):
            return _ECHOED
        return reason

    def complete(self, messages: Sequence[Message]) -> str:
        """The model's answer to ``messages``; LlmError when there is no usable one."""
        body = json.dumps(request_document(self.settings.model, messages), ensure_ascii=True).encode("ascii")
        self.requests += 1
        try:
            response = self.http.post(self.url, body, self._headers, service=SERVICE)
        except HttpError as error:
            # The server's status line or address is quoted: one line of printable text, never its escape codes.
            reason = one_line(self._masked(str(error)), _REASON_CHARS)
            hint = next((f" ({hint})" for said, hint in _UNREACHED if said in reason), "")
            raise LlmError(reason + hint) from None
        try:
            if self._quotes_key(response.body):  # checked before any of it is quoted or cut short
                raise LlmError(_ECHOED)
            content = parse_chat_answer(response.status, response.body)
        except LlmError as error:
            # The service's own words are quoted: an error that names the key cut short ("invalid token sk-...")
            # does not hold it whole, yet shows most of it.
            reason = self._masked(str(error))
            self.http.record_failure(SERVICE, reason)
            raise LlmError(reason) from None
        self.http.keep(self.url, response, service=SERVICE)  # no cache: only clears the breaker's count
        return content
