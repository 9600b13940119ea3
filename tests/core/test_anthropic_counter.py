"""The anthropic counter against a local fake of Anthropic's token-counting endpoint: the
request it sends, its cache, and its errors. Never the network."""

from __future__ import annotations

import json
import sys

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from ctx_lab.errors import CounterUnavailableError
from ctx_lab.tokens import counter_status, get_counter
from ctx_lab.tokens._anthropic import AnthropicCounter

pytest.importorskip("anthropic")


def fake_count(request: Request) -> Response:
    body = json.loads(request.data)
    text = body["messages"][0]["content"]
    return Response(
        json.dumps({"input_tokens": len(text.split()) + 7}), content_type="application/json"
    )


def test_request_shape_and_answer(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/v1/messages/count_tokens", method="POST").respond_with_handler(
        fake_count
    )
    counter = AnthropicCounter(
        "claude-sonnet-4-5", api_key="test-key", base_url=httpserver.url_for("/")
    )
    assert counter.count("one two three") == 10
    ((request, _),) = httpserver.log
    sent = json.loads(request.data)
    assert sent == {
        "model": "claude-sonnet-4-5",
        "messages": [{"role": "user", "content": "one two three"}],
    }
    # the key travels as the SDK sends it (x-api-key, or a bearer token in newer SDKs)
    assert "test-key" in (
        request.headers.get("x-api-key", ""),
        request.headers.get("Authorization", "").removeprefix("Bearer "),
    )
    assert request.headers["anthropic-version"]
    assert counter.name == "anthropic:claude-sonnet-4-5" and counter.exact


def test_counts_are_cached_by_text(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/v1/messages/count_tokens").respond_with_handler(fake_count)
    counter = AnthropicCounter(api_key="k", base_url=httpserver.url_for("/"))
    assert counter.count_many(["a b", "a b", "c", "a b"]) == [9, 9, 8, 9]
    assert counter.calls == 2 and len(httpserver.log) == 2
    assert counter.count("c") == 8 and len(httpserver.log) == 2


def test_api_errors_are_clear(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/v1/messages/count_tokens").respond_with_json(
        {
            "type": "error",
            "error": {"type": "authentication_error", "message": "invalid x-api-key"},
        },
        status=401,
    )
    counter = AnthropicCounter(api_key="bad", base_url=httpserver.url_for("/"))
    with pytest.raises(CounterUnavailableError, match="401: invalid x-api-key"):
        counter.count("hello")


def test_unreachable_server_is_clear() -> None:
    counter = AnthropicCounter(api_key="k", base_url="http://127.0.0.1:9")  # nothing listens
    with pytest.raises(CounterUnavailableError, match="could not be reached"):
        counter.count("hello")


def test_without_a_key_or_the_sdk_it_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    ok, reason = counter_status("anthropic")
    assert not ok and "ANTHROPIC_API_KEY" in reason
    with pytest.raises(CounterUnavailableError, match="ANTHROPIC_API_KEY"):
        get_counter("anthropic").count("x")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setitem(sys.modules, "anthropic", None)  # the SDK not installed
    ok, reason = counter_status("anthropic")
    assert not ok and "ctx-lab[anthropic]" in reason
