"""The recording proxy, driven by the official openai and anthropic SDKs: the answers they get
through ``ctx-lab capture`` are byte for byte the ones they get from the upstream directly —
JSON, streams, errors and retries — every call lands in the capture file with its anatomy, no
credential is ever written, and killing the proxy mid-stream leaves a readable file. The canned
answers are the real recorded responses of ../shared/real-data (pydantic-ai's cassettes)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import anthropic
import openai
import pytest
from paths import REPO

from ctx_lab.anatomy import CaptureStore, anatomy_of, is_capture
from ctx_lab.capture import Answer, CaptureProxy, FakeUpstream, Served, sse_from_response

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning"),
]

REAL = REPO.parent / "shared" / "real-data" / "transcripts"
OPENAI_FILE = REAL / "pydantic__pydantic-ai" / "test_openai_tool_output.jsonl"
ANTHROPIC_FILE = REAL / "pydantic__pydantic-ai" / "test_anthropic_tool_with_thinking.json"
KEY = "sk-test-0123456789-never-stored"


def openai_calls() -> list[dict]:
    return [json.loads(line) for line in OPENAI_FILE.read_text().splitlines() if line.strip()]


def anthropic_call() -> dict:
    return json.loads(ANTHROPIC_FILE.read_text())


def answers_openai() -> list[Answer]:
    first, second = openai_calls()
    error = {"error": {"message": "bad", "type": "invalid_request_error", "code": None}}
    return [
        Answer.json(first["response"]),
        Answer.stream(sse_from_response(second["response"]), delay=0.01),
        Answer.json(error, status=400),
        Answer.json({"error": {"message": "overloaded", "type": "server_error"}}, status=500),
        Answer.json(second["response"]),
    ]


def request_args(call: dict) -> dict:
    body = dict(call["request"])
    body.pop("stream", None)
    return body


def recorded(db: Path, count: int, within: float = 5.0) -> list:  # type: ignore[type-arg]
    """The calls of a capture file once it holds ``count`` (each is written as its answer
    ends, a moment after the client has it)."""
    deadline = time.monotonic() + within
    while True:
        calls = []
        if db.exists():
            with CaptureStore(db, readonly=True) as store:
                calls = store.calls()
        if len(calls) >= count or time.monotonic() > deadline:
            return calls
        time.sleep(0.02)


@pytest.fixture
def served(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Two fake upstreams with the same answers — one called directly, one behind the proxy."""
    started: list[Served] = []

    def make(answers: list[Answer], provider: str) -> tuple[str, str, Path, FakeUpstream]:
        direct = Served(FakeUpstream(list(answers)).app())
        behind = FakeUpstream(list(answers))
        upstream = Served(behind.app())
        db = tmp_path / f"{provider}.db"
        proxy = Served(CaptureProxy(provider, upstream.url, CaptureStore(db)).app())
        started.extend([direct, upstream, proxy])
        return direct.url, proxy.url, db, behind

    yield make
    for server in started:
        server.stop()


def test_openai_sdk_gets_the_same_bytes_through_the_proxy(served) -> None:
    direct_url, proxy_url, db, behind = served(answers_openai(), "openai")
    first, second = openai_calls()
    results = []
    for url in (direct_url, proxy_url):
        client = openai.OpenAI(base_url=f"{url}/v1", api_key=KEY, max_retries=2)
        raw = client.chat.completions.with_raw_response.create(**request_args(first))
        parsed = raw.parse()
        stream_args = {**request_args(second), "stream": True}
        with client.chat.completions.with_streaming_response.create(**stream_args) as streamed:
            streamed_bytes = b"".join(streamed.iter_bytes())
        with pytest.raises(openai.BadRequestError) as bad:
            client.chat.completions.create(**request_args(first))
        retried = client.chat.completions.with_raw_response.create(**request_args(second))
        results.append(
            (
                raw.http_response.content,
                parsed.choices[0].message.tool_calls[0].function.name,
                streamed_bytes,
                bad.value.response.status_code,
                bad.value.response.content,
                retried.http_response.content,
            )
        )
    assert results[0] == results[1]
    assert results[0][1] == "get_user_country"
    assert b"data: [DONE]" in results[0][2]

    calls = recorded(db, 5)
    assert [c.status for c in calls] == [200, 200, 400, 500, 200]  # the retry too
    assert [c.path for c in calls] == ["/v1/chat/completions"] * 5
    assert calls[1].stream and calls[1].response()["choices"][0]["message"]["tool_calls"]
    assert calls[1].response()["usage"] == second["response"]["usage"]
    assert behind.received[0][1] == calls[0].request_body  # the request went out unchanged
    assert KEY.encode() not in db.read_bytes() and b"authorization" not in db.read_bytes().lower()

    session = anatomy_of(db, session=True)
    rows = session.rows()
    assert len(rows) == 5 and rows[0]["reported_input"] == 68 and rows[1]["reported_input"] == 89
    for row in rows[:2]:  # every figure beside the reported one, the difference shown
        assert row["difference"] == row["reported_input"] - row["total"]
        assert abs(row["difference"]) <= 0.1 * row["reported_input"]
    assert rows[2]["reported_input"] is None  # an error answers no usage


def test_anthropic_sdk_gets_the_same_bytes_streaming_and_not(served) -> None:
    call = anthropic_call()
    message = call["response"]
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    answers = [
        Answer.json(message),
        Answer.stream(sse_from_response(message), delay=0.01),
        Answer.json(error, status=529),
        Answer.json(message),
    ]
    direct_url, proxy_url, db, _ = served(answers, "anthropic")
    args = {k: v for k, v in call["request"].items() if k != "stream"}
    results = []
    for url in (direct_url, proxy_url):
        client = anthropic.Anthropic(base_url=url, api_key=KEY, max_retries=1)
        raw = client.messages.with_raw_response.create(**args)
        with client.messages.with_streaming_response.create(**args, stream=True) as streamed:
            streamed_bytes = b"".join(streamed.iter_bytes())
        retried = client.messages.with_raw_response.create(**args)  # 529, retried, then 200
        results.append((raw.http_response.content, streamed_bytes, retried.http_response.content))
    assert results[0] == results[1]
    calls = recorded(db, 4)
    assert [c.status for c in calls] == [200, 200, 529, 200]
    assembled = calls[1].response()
    assert [b["type"] for b in assembled["content"]] == [b["type"] for b in message["content"]]
    assert assembled["content"][0]["text"] == message["content"][0]["text"]
    assert assembled["usage"]["input_tokens"] == message["usage"]["input_tokens"]
    one = anatomy_of(db, call=calls[0].id)
    assert one.reported_input == 566 and one.categories()["thinking"] > 0
    assert one.by_name("tools") and one.cache_read == 0
    assert KEY.encode() not in db.read_bytes()


def test_a_changed_system_prompt_breaks_the_cache_and_the_anatomy_says_why(served) -> None:
    message = anthropic_call()["response"]
    _, proxy_url, db, _ = served([Answer.json(message)], "anthropic")
    client = anthropic.Anthropic(base_url=proxy_url, api_key=KEY, max_retries=0)
    history = [{"role": "user", "content": "What is the largest city in the user country?"}]
    tools = anthropic_call()["request"]["tools"]
    for system in (
        "You are terse. Today is 2026-11-26 09:12.",
        "You are terse. Today is 2026-11-26 09:13.",  # a clock in the prompt
        "You are terse. Today is 2026-11-26 09:13.",  # unchanged: the prefix holds
        "You are verbose. Today is 2026-11-26 09:13.",  # an edit
    ):
        client.messages.create(
            model="claude-sonnet-4-5", max_tokens=64, system=system, messages=history, tools=tools
        )
    recorded(db, 4)
    rows = anatomy_of(db, session=True).rows()
    reasons = [r["cache_break"] for r in rows]
    assert reasons[0] == "" and reasons[2] == ""
    assert reasons[1].startswith("a timestamp") and reasons[3] == "the system prompt changed"
    assert rows[2]["stable_prefix"] == rows[2]["total"]  # the whole request, reusable
    assert rows[3]["stable_prefix"] < rows[2]["stable_prefix"]


def test_killing_the_proxy_mid_stream_leaves_a_readable_file(tmp_path: Path) -> None:
    first, second = openai_calls()
    slow = Answer.stream((b": keep-alive\n\n",) * 40 + sse_from_response(second["response"]), 0.1)
    upstream = Served(FakeUpstream([Answer.json(first["response"]), slow]).app())
    db = tmp_path / "calls.db"
    process = subprocess.Popen(
        [sys.executable, "-m", "ctx_lab.cli", "capture", "--provider", "openai", "--upstream",
         upstream.url, "--port", "0", "--db", str(db)],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        line = process.stderr.readline()  # type: ignore[union-attr]
        port = int(re.search(r"127\.0\.0\.1:(\d+)", line)[1])  # type: ignore[index]
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY, max_retries=0)
        client.chat.completions.create(**request_args(first))
        got: list[bytes] = []

        def stream() -> None:
            try:
                args = {**request_args(second), "stream": True}
                with client.chat.completions.with_streaming_response.create(**args) as r:
                    for chunk in r.iter_bytes():
                        got.append(chunk)
            except Exception:  # the proxy dies under it
                pass

        reader = threading.Thread(target=stream)
        reader.start()
        deadline = time.monotonic() + 10
        while not got and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(10)
        reader.join(10)
    finally:
        if process.poll() is None:
            process.kill()
        upstream.stop()
    assert got, "the stream had begun when the proxy was killed"
    assert is_capture(db)
    with CaptureStore(db, readonly=True) as store:
        calls = store.calls()
    assert len(calls) == 1 and calls[0].status == 200  # the finished call; the one in flight lost
    assert anatomy_of(db).reported_input == 68
