"""The chat client against a real loopback server: good answers, malformed ones, slow, huge, failing, redirected."""

import json
import time

import pytest
from loopback import FakeServices, refusing_port, serve, stream, trickle

from surveytool.drafting.llm_client import LlmClient, LlmError
from surveytool.drafting.llm_settings import LlmSettings, llm_settings_from_table
from surveytool.errors import InputError


class Model(FakeServices):
    routes: dict = {}
    seen: list = []
    headers_seen: list = []
    bodies_seen: list = []


@pytest.fixture(autouse=True)
def fresh_server_log():
    Model.seen, Model.headers_seen, Model.bodies_seen = [], [], []


def chat(content: str) -> str:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})


def client(base: str, **settings) -> LlmClient:
    values = {"base_url": f"{base}/v1", "model": "test-model", "retries": 0, "timeout": 2, **settings}
    return LlmClient(LlmSettings(**values), environ={"TEST_LLM_KEY": "sk-test"})


MESSAGES = [{"role": "user", "content": "Write."}]


def test_a_good_answer_is_the_first_choice_text_and_the_request_is_an_openai_chat_completion():
    Model.routes = {"/v1/chat/completions": [(200, {}, chat("A paragraph."), 0)]}
    with serve(Model) as base:
        answer = client(base, api_key_env="TEST_LLM_KEY").complete(MESSAGES)
    assert answer == "A paragraph."
    assert json.loads(Model.bodies_seen[0]) == {"model": "test-model", "messages": MESSAGES, "temperature": 0}
    assert Model.headers_seen[0]["Authorization"] == "Bearer sk-test"


def test_without_a_key_variable_named_no_authorization_is_sent():
    Model.routes = {"/": [(200, {}, chat("ok"), 0)]}
    with serve(Model) as base:
        client(base).complete(MESSAGES)
    assert "Authorization" not in Model.headers_seen[0]


def test_a_key_variable_that_is_not_set_is_a_clear_error_before_anything_is_sent():
    with pytest.raises(InputError, match="environment variable MISSING_KEY .* is not set"):
        LlmClient(LlmSettings(model="m", api_key_env="MISSING_KEY"), environ={})


@pytest.mark.parametrize(
    "body, reason",
    [
        ("not json at all", "the answer is not JSON"),
        (json.dumps({"choices": []}), "the answer has no choices"),
        (json.dumps({"id": "x"}), "the answer has no choices"),
        (json.dumps({"choices": [{"message": {"content": None}}]}), "has no message text"),
        ("[" * 200_000 + "]" * 200_000, "nested too deeply"),
        (chat("x" * 30_000), "more than a paragraph"),
        (json.dumps({"error": {"message": "model\nnot found"}}), "the service says 'model not found'"),
        # vLLM's and FastAPI's errors: only "HTTP 400" was said, not that the prompt was too long for the model.
        (
            json.dumps({"object": "error", "message": "maximum context length is 8192 tokens", "code": 400}),
            "HTTP 400: the service says 'maximum context length is 8192 tokens'",
        ),
        (json.dumps({"detail": "Not Found"}), "HTTP 400: the service says 'Not Found'"),
    ],
    ids=[
        "not-json",
        "empty-choices",
        "no-choices",
        "no-content",
        "deep",
        "long-content",
        "error-object",
        "vllm",
        "fastapi",
    ],
)
def test_a_malformed_answer_is_an_error_value_not_a_traceback(body, reason):
    status = 400 if "HTTP 400" in reason else 200
    Model.routes = {"/": [(status, {}, body, 0)]}
    with serve(Model) as base, pytest.raises(LlmError, match=reason):
        client(base).complete(MESSAGES)


def test_a_huge_body_is_refused_at_the_size_limit():
    Model.routes = {"/": [(200, {}, stream(50_000_000, declare_length=False), 0)]}
    with serve(Model) as base, pytest.raises(LlmError, match="larger than the limit of 1,000,000 bytes"):
        client(base).complete(MESSAGES)


def test_a_slow_trickle_ends_at_the_deadline():
    answer = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + chat("late").encode()
    Model.routes = {"/": [(200, {}, trickle(answer, every=0.2), 0)]}
    start = time.monotonic()
    with serve(Model) as base, pytest.raises(LlmError, match="no answer within 1 s"):
        client(base, timeout=1).complete(MESSAGES)
    assert time.monotonic() - start < 1.8


def test_a_500_is_retried_then_reported_and_three_in_a_row_stop_the_asking():
    Model.routes = {"/": [(500, {"Retry-After": "0"}, "oops", 0)]}
    with serve(Model) as base:
        model = client(base, retries=1)
        for _ in range(3):
            with pytest.raises(LlmError, match="HTTP 500 after 2 attempts"):
                model.complete(MESSAGES)
        with pytest.raises(LlmError, match="3 failures in a row"):
            model.complete(MESSAGES)
    assert len(Model.seen) == 6


def test_a_redirect_to_another_host_is_not_followed_and_the_key_never_leaves():
    with serve(Model) as other:
        target = other.replace("127.0.0.1", "localhost") + "/v1/chat/completions"
        Model.routes = {"/v1/chat/completions": [(307, {"Location": target}, "", 0)]}
        with serve(Model) as base, pytest.raises(LlmError, match="redirected to .localhost:[0-9]+., another host"):
            client(base, api_key_env="TEST_LLM_KEY").complete(MESSAGES)
    assert len(Model.seen) == 1


def test_a_redirect_that_would_turn_the_post_into_a_get_is_not_followed():
    Model.routes = {"/v1/chat/completions": [(302, {"Location": "/v2/chat/completions"}, "", 0)]}
    with serve(Model) as base, pytest.raises(LlmError, match="HTTP 302 would turn the POST into a GET"):
        client(base).complete(MESSAGES)


def test_settings_read_from_a_table_and_wrong_ones_name_the_file_and_give_a_hint(tmp_path):
    path = tmp_path / "surveytool.toml"
    settings = llm_settings_from_table({"model": "m", "api_key_env": "OPENAI_API_KEY", "timeout": 30}, path)
    assert settings == LlmSettings(model="m", api_key_env="OPENAI_API_KEY", timeout=30.0)
    with pytest.raises(InputError) as wrong:
        llm_settings_from_table({"timeout": "soon"}, path, line_of=lambda name: 4)
    assert (
        str(wrong.value)
        == f"{path}:4: error: [llm] timeout must be a number of seconds above 0, not 'soon' (timeout = 120)"
    )
    with pytest.raises(InputError) as key_written:
        llm_settings_from_table({"api_key_env": "sk-secret-123"}, path)
    assert "sk-secret" not in str(key_written.value) and "not the key itself" in str(key_written.value)
    with pytest.raises(InputError, match="a key is never written in a settings file"):
        llm_settings_from_table({"api_key": "sk-secret-123"}, path)
    with pytest.raises(InputError, match="unknown setting"):
        llm_settings_from_table({"temperature": 1}, path)


@pytest.mark.parametrize(
    "shape",
    [
        lambda key: (200, json.dumps({"error": {"message": f"bad header Bearer {key}"}})),
        lambda key: (401, json.dumps({"error": f"Incorrect API key provided: {key}"})),
        # A gateway that quotes the key cut short: not the whole key, yet most of it.
        lambda key: (401, json.dumps({"error": {"message": f"invalid token {key[:18]}... for this route"}})),
        lambda key: (403, f"<html>upstream refused Bearer {key[:-3]}</html>"),
        lambda key: (200, f"Bearer {key}"),  # not JSON: quoted, cut short at 60 characters
        lambda key: (200, "x" * 40 + f"Bearer {key}"),
        lambda key: (200, chat(f"Your key is {key} \\cite{{a}}.")),
        lambda key: (200, chat("Your key is KEY.").replace("KEY", "".join(f"\\u{ord(c):04x}" for c in key))),
        lambda key: (307, "", {"Location": f"http://{key}@localhost:1/"}),
    ],
    ids=[
        "error-object",
        "error-401",
        "error-cut",
        "html-cut",
        "not-json",
        "not-json-cut",
        "content",
        "content-escaped",
        "redirect",
    ],
)
def test_a_key_the_service_sends_back_is_never_shown_nor_returned(shape):
    # A server or proxy that echoed the Authorization header had the key printed in every llm-failed warning, and
    # an answer quoting it was written into the chapter and the answer cache.
    key = "sk-test-0123456789abcdef"

    def write(handler):
        got = handler.headers.get("Authorization", "").removeprefix("Bearer ")
        status, body, *headers = shape(got)
        handler.send_response(status)
        for name, value in (headers[0] if headers else {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body.encode())

    Model.routes = {"/": [(200, {}, write, 0)]}
    with serve(Model) as base:
        model = LlmClient(LlmSettings(base_url=f"{base}/v1", model="m", retries=0, api_key_env="K"), {"K": key})
        reasons = []
        for _ in range(4):
            with pytest.raises(LlmError) as failed:
                model.complete(MESSAGES)
            reasons.append(str(failed.value))
        reasons.append(model.given_up() or "")
    assert all("0123456" not in reason and "89abcdef" not in reason for reason in reasons), reasons
    assert "holds the API key" in reasons[0] and model.given_up()


@pytest.mark.parametrize(
    "base_url", ["http://[::1/v1", "http://127.0.0.1:99999/v1", "http://127.0.0.1:abc/v1", "http://a b/v1"]
)
def test_a_base_url_that_is_no_address_is_refused_with_its_line_not_a_traceback(tmp_path, base_url):
    # "http://[::1/v1" crashed every command that reads the settings (urllib's ValueError); a bad port was taken.
    with pytest.raises(InputError, match=r"\[llm\] base_url must be an http:// or https:// address") as wrong:
        llm_settings_from_table({"base_url": base_url}, tmp_path / "surveytool.toml", line_of=lambda name: 3)
    assert str(wrong.value).startswith(f"{tmp_path / 'surveytool.toml'}:3: error:")


def test_a_key_written_into_the_base_url_is_refused_and_not_shown(tmp_path):
    # It was taken, and never sent (the user's key silently left out: 401 on every theme).
    with pytest.raises(InputError, match="holds a user name or password") as wrong:
        llm_settings_from_table({"base_url": "https://me:sk-secret-99@api.example.org/v1"}, tmp_path / "s.toml")
    assert "sk-secret" not in str(wrong.value) and "api_key_env" in str(wrong.value)


@pytest.mark.parametrize(
    "content, kept",
    [
        (
            "GPipe pipelines micro-batches \\cite{a}. PipeDream then keeps the",
            "GPipe pipelines micro-batches \\cite{a}.",
        ),
        ('It "scales." Then the', 'It "scales."'),
        ("Mixture of experts scale the", None),
    ],
)
@pytest.mark.parametrize(
    "finish_reason, said", [("length", "at the model's length limit"), ("content_filter", "by the service's content")]
)
def test_an_answer_cut_short_loses_its_unfinished_sentence(content, kept, finish_reason, said):
    # "PipeDream then keeps the" was written as a sentence of the suggestion; Azure OpenAI's content filter cuts
    # an answer the same way.
    body = json.dumps({"choices": [{"message": {"content": content}, "finish_reason": finish_reason}]})
    Model.routes = {"/": [(200, {}, body, 0)]}
    with serve(Model) as base:
        if kept is None:
            with pytest.raises(LlmError, match=f"empty, cut short {said}"):
                client(base).complete(MESSAGES)
        else:
            assert client(base).complete(MESSAGES) == kept


def test_an_answer_sharing_words_with_a_local_servers_placeholder_key_is_used():
    # llama.cpp's documented placeholder key is "sk-no-key-required": an answer with "required" in it is no echo.
    Model.routes = {"/": [(200, {}, chat("The memory required for no-key setups shrinks."), 0)]}
    with serve(Model) as base:
        model = LlmClient(LlmSettings(base_url=f"{base}/v1", model="m", api_key_env="K"), {"K": "sk-no-key-required"})
        assert model.complete(MESSAGES) == "The memory required for no-key setups shrinks."


@pytest.mark.parametrize(
    "status, hint",
    [(401, "check the key in the variable [llm] api_key_env names"), (404, "check [llm] base_url")],
)
def test_a_wrong_key_or_address_answered_with_an_html_page_still_says_what_to_check(status, hint):
    # A reverse proxy (nginx, a cloud gateway) answers 401 or 404 with its own HTML page, not the service's JSON.
    page = f"<html><head><title>{status}</title></head><body><center>nginx</center></body></html>"
    Model.routes = {"/": [(status, {"Content-Type": "text/html"}, page, 0)]}
    with serve(Model) as base, pytest.raises(LlmError) as raised:
        client(base).complete(MESSAGES)
    assert f"HTTP {status}, and not JSON" in str(raised.value) and hint in str(raised.value)


def test_a_server_that_cannot_be_reached_says_what_in_base_url_to_check():
    # "no answer (WRONG_VERSION_NUMBER)" left a user who wrote https:// for llama.cpp's plain HTTP server only the
    # advice to run again later, which never helps.
    Model.routes = {"/": [(200, {}, chat("unused"), 0)]}
    with serve(Model) as base, pytest.raises(LlmError) as plain:
        client(base.replace("http://", "https://")).complete(MESSAGES)
    assert "WRONG_VERSION_NUMBER" in str(plain.value) and "write [llm] base_url with http://" in str(plain.value)
    with pytest.raises(LlmError) as refused:
        client(f"http://127.0.0.1:{refusing_port()}").complete(MESSAGES)
    assert "connection refused" in str(refused.value) and "check the host and port of [llm] base_url" in str(
        refused.value
    )


def test_a_key_is_never_sent_over_plain_http_to_an_internet_address():
    # http://<a hosted service> sent the Bearer key unencrypted across the internet, without a word.
    settings = {"model": "m", "api_key_env": "K"}
    # An IPv4 address written as IPv6 is rated as the IPv4 address it carries (some Pythons rate it by IPv6 ranges).
    for address in ("http://8.8.8.8/v1", "HTTP://8.8.8.8/v1", "http://[::ffff:8.8.8.8]/v1"):
        with pytest.raises(InputError, match="would travel unencrypted") as refused:
            LlmClient(LlmSettings(base_url=address, **settings), {"K": "sk-secret-0123456789"})
        assert "sk-secret" not in str(refused.value) and "https://" in (refused.value.hint or "")
    # https, no key, this computer, a private network or a VPN's addresses: as before.
    LlmClient(LlmSettings(base_url="https://8.8.8.8/v1", **settings), {"K": "sk-secret-0123456789"})
    LlmClient(LlmSettings(base_url="http://8.8.8.8/v1", model="m"), {})
    for local in ("127.0.0.1", "localhost", "[::1]", "192.168.1.20:8000", "10.0.0.7", "100.101.102.103"):
        LlmClient(LlmSettings(base_url=f"http://{local}/v1", **settings), {"K": "sk-secret-0123456789"})


def test_a_reasoning_models_long_thinking_does_not_count_against_the_paragraph():
    # DeepSeek-R1 and Qwen3 think for thousands of words before the paragraph: every answer failed as
    # "more than a paragraph", and one cut at the length limit while thinking was only "empty".
    thinking = "<think>\n" + "Hmm, GPipe first, or PipeDream? " * 1000 + "\n</think>\n\n"
    Model.routes = {"/": [(200, {}, chat(thinking + "GPipe pipelines micro-batches \\cite{a}."), 0)]}
    with serve(Model) as base:
        assert client(base).complete(MESSAGES) == "GPipe pipelines micro-batches \\cite{a}."
    cut = json.dumps({"choices": [{"message": {"content": thinking[:5000]}, "finish_reason": "length"}]})
    Model.routes = {"/": [(200, {}, cut, 0)]}
    with serve(Model) as base, pytest.raises(LlmError, match="all the model's thinking, cut short at the model's"):
        client(base).complete(MESSAGES)


def test_an_answer_in_parts_is_its_text_parts_and_a_refusal_says_so():
    # Mistral's reasoning models send the message as a list of parts, the thinking one of them: every answer failed
    # as "no message text". OpenAI's refusal (content null, refusal set) was told the same way.
    parts = [
        {"type": "thinking", "thinking": [{"type": "text", "text": "GPipe first? \\cite{b}."}]},
        {"type": "text", "text": "GPipe pipelines "},
        {"type": "text", "text": "micro-batches \\cite{a}."},
    ]
    body = json.dumps({"choices": [{"message": {"role": "assistant", "content": parts}}]})
    Model.routes = {"/": [(200, {}, body, 0)]}
    with serve(Model) as base:
        assert client(base).complete(MESSAGES) == "GPipe pipelines micro-batches \\cite{a}."
    refusal = {"role": "assistant", "content": None, "refusal": "I'm sorry, I cannot\nhelp with that."}
    Model.routes = {"/": [(200, {}, json.dumps({"choices": [{"message": refusal}]}), 0)]}
    with serve(Model) as base, pytest.raises(LlmError, match="the model refused: \"I'm sorry, I cannot help with"):
        client(base).complete(MESSAGES)


def test_a_servers_escape_codes_never_reach_the_terminal():
    # A status line the HTTP client cannot read was quoted as sent: it cleared the user's screen, set the
    # terminal's title and broke the warning's line, on every theme.
    def write(handler):
        handler.wfile.write(b"\x1b[2J\x1b]0;pwned\x07HTTP/9.9 200 \x1b[31mOK\r\n\r\n")

    Model.routes = {"/": [(200, {}, write, 0)]}
    with serve(Model) as base:
        model = client(base)
        reasons = []
        for _ in range(3):
            with pytest.raises(LlmError) as failed:
                model.complete(MESSAGES)
            reasons.append(str(failed.value))
        reasons.append(model.given_up() or "")
    assert all(reason.isascii() and reason.isprintable() for reason in reasons), reasons
    assert "HTTP/9.9 200" in reasons[0] and "pwned" in reasons[-1]


def test_a_spent_quota_says_so_once_and_a_key_quoted_in_an_error_is_never_shown():
    quota = json.dumps({"error": {"message": "You exceeded your current quota.", "code": "insufficient_quota"}})
    Model.routes = {"/v1/chat/completions": [(429, {}, quota, 0)]}
    with serve(Model) as base, pytest.raises(LlmError) as caught:
        client(base, api_key_env="TEST_LLM_KEY", retries=2).complete(MESSAGES)
    assert str(caught.value) == (
        "HTTP 429: You exceeded your current quota. (insufficient_quota); not retried, waiting does not mend it"
    )
    assert len(Model.seen) == 1
    echoed = json.dumps({"error": {"message": "Incorrect API key provided: sk-test", "code": "rate_limit"}})
    Model.routes = {"/v1/chat/completions": [(429, {}, echoed, 0)]}
    with serve(Model) as base, pytest.raises(LlmError) as caught:
        client(base, api_key_env="TEST_LLM_KEY").complete(MESSAGES)
    assert "sk-test" not in str(caught.value) and "API key" in str(caught.value)


def test_a_max_bytes_that_would_let_an_answer_take_any_memory_is_refused(tmp_path):
    with pytest.raises(InputError) as caught:
        llm_settings_from_table({"model": "m", "max_bytes": 10**12}, tmp_path / "surveytool.toml")
    assert str(caught.value).endswith(
        "surveytool.toml: error: [llm] max_bytes must be a whole number of bytes from 1,024 to 100,000,000, "
        "not 1000000000000 (max_bytes = 1000000)"
    )
    assert llm_settings_from_table({"max_bytes": 100_000_000}, tmp_path / "surveytool.toml").max_bytes == 100_000_000
