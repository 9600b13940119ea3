"""The capture proxy as something to leave running (issue 41): nothing secret at rest, only the
agent may talk to it, forwarded as sent, bounded, and nothing finished lost. Everything runs on
127.0.0.1 against a local fake upstream."""

from __future__ import annotations

import asyncio
import gzip
import http.client
import json
import os
import socket
import sqlite3
import stat
import threading
import time
import tracemalloc
import zlib
from pathlib import Path

import brotli
import pytest
from capture_helpers import message

from ctx_lab.anatomy import CaptureStore
from ctx_lab.capture import Answer, CaptureProxy, FakeUpstream, Served, sse_from_response
from ctx_lab.capture._guard import mask_query, refused_path
from ctx_lab.capture._record import Recorder, _Decoder

MESSAGE = message("hello there")
REQUEST = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 10,
    "messages": [{"role": "user", "content": "hi"}],
}


class Stack:
    """A fake upstream and the proxy in front of it, both on 127.0.0.1."""

    def __init__(self, db: Path, answers: list[Answer], **options: object) -> None:
        self.fake = FakeUpstream(answers)
        self.upstream = Served(self.fake.app())
        prefix = str(options.pop("prefix", ""))
        header_timeout = float(options.pop("header_timeout", 10.0))  # type: ignore[arg-type]
        self.proxy = CaptureProxy(
            "anthropic",
            self.upstream.url + prefix,
            CaptureStore(db),
            **options,  # type: ignore[arg-type]
        )
        self.served = Served(self.proxy.app(), header_timeout=header_timeout)
        self.db = db

    @property
    def port(self) -> int:
        return self.served.port

    def call(
        self, method: str, target: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            sent = {"Content-Type": "application/json"} if body else {}  # as every SDK sends
            connection.request(
                method, target, body=body or None, headers={**sent, **(headers or {})}
            )
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()

    def rows(self) -> list:  # type: ignore[type-arg]
        with CaptureStore(self.db, readonly=True) as store:
            return store.calls()

    def stop(self) -> None:
        self.served.stop()
        self.upstream.stop()


@pytest.fixture
def stack(tmp_path: Path):  # type: ignore[no-untyped-def]
    made: list[Stack] = []

    def make(answers: list[Answer] | None = None, **options: object) -> Stack:
        made.append(
            Stack(tmp_path / f"calls{len(made)}.db", answers or [Answer.json(MESSAGE)], **options)
        )
        return made[-1]

    yield make
    for one in made:
        one.stop()


# -- nothing secret at rest ------------------------------------------------------------------


def test_credential_query_parameters_are_masked_everywhere(stack) -> None:  # type: ignore[no-untyped-def]
    s = stack()
    secrets = ["S1-sekrit", "S2-sekrit", "S3-sekrit", "S4-sekrit", "S5-sekrit"]
    target = (
        f"/v1/messages?key={secrets[0]}&api_key={secrets[1]}&beta=true&access_token={secrets[2]}"
        f"&x-goog-api-key={secrets[3]}&client_secret={secrets[4]}"
    )
    status, _, _ = s.call("POST", target, json.dumps(REQUEST).encode())
    assert status == 200
    assert s.fake.received[0][0] == target  # the upstream gets the keys: it needs them
    [row] = s.rows()
    assert row.path == (
        "/v1/messages?key=***&api_key=***&beta=true&access_token=***&x-goog-api-key=***"
        "&client_secret=***"
    )
    s.stop()
    stored = b"".join(p.read_bytes() for p in s.db.parent.glob(s.db.name + "*"))
    assert not any(secret.encode() in stored for secret in secrets)


@pytest.mark.parametrize(
    ("target", "masked"),
    [
        (
            "/v1/x?sig=abc&signature=d&password=e&secret=f&token=g",
            "/v1/x?sig=***&signature=***&password=***&secret=***&token=***",
        ),
        ("/v1/x?MyKey=1&session_token=2&keyring=3", "/v1/x?MyKey=***&session_token=***&keyring=3"),
        ("/v1/x?api%5Fkey=1&flag", "/v1/x?api%5Fkey=***&flag"),
        ("/v1/x", "/v1/x"),
        # issue 62: names by pattern, bracketed and ;-separated forms, by position, by shape
        ("/cb?code=abc&state=1", "/cb?code=***&state=1"),
        (
            "/o?X-Amz-Signature=ab&X-Amz-Credential=cd&X-Goog-Signature=ef",
            "/o?X-Amz-Signature=***&X-Amz-Credential=***&X-Goog-Signature=***",
        ),
        ("/v1/x?auth=u:p&key[]=k1&key[]=k2", "/v1/x?auth=***&key[]=***&key[]=***"),
        ("/v1/x?a=1;token=t;b=2", "/v1/x?a=1;token=***;b=2"),
        ("/v1/x;token=t/y", "/v1/x;token=***/y"),
        ("/api_key/abcdef/v1", "/api_key/***/v1"),
        ("/v1/sk-ant-api03-0123456789abcdef/x", "/v1/***/x"),
        (
            "/v1beta/models/g:generateContent?q=AIzaSyA0123456789abcdefghijklmnopqrstuv",
            "/v1beta/models/g:generateContent?q=***",
        ),
    ],
)
def test_mask_query(target: str, masked: str) -> None:
    assert mask_query(target) == masked


def test_the_capture_file_and_its_journal_are_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        store = CaptureStore(tmp_path / "calls.db")
        store.record(started="t", provider="openai", method="POST", path="/", request_body=b"{}",
                     request_bytes=2, response_body=b"{}", response_bytes=2)  # fmt: skip
        files = sorted(tmp_path.iterdir())
        assert {f.name for f in files} >= {"calls.db", "calls.db-wal", "calls.db-shm"}
        for found in files:
            assert stat.S_IMODE(found.stat().st_mode) == 0o600, found.name
        store.close()
        loose = tmp_path / "old.db"
        loose.write_bytes(b"")
        loose.chmod(0o644)
        CaptureStore(loose).close()
        assert stat.S_IMODE(loose.stat().st_mode) == 0o600
    finally:
        os.umask(old)


# -- only the agent may talk to it --------------------------------------------------------------


def test_a_foreign_origin_is_refused_and_never_forwarded(stack) -> None:  # type: ignore[no-untyped-def]
    s = stack()
    status, _, body = s.call(
        "POST",
        "/v1/messages",
        json.dumps(REQUEST).encode(),
        {"Origin": "https://evil.example", "Content-Type": "text/plain"},
    )
    assert status == 403 and b"Origin" in body
    assert s.fake.received == [] and s.rows() == []


def test_an_allowed_origin_passes(stack) -> None:  # type: ignore[no-untyped-def]
    s = stack(allow_origins=["http://localhost:3000"])
    status, _, _ = s.call(
        "POST", "/v1/messages", json.dumps(REQUEST).encode(), {"Origin": "http://localhost:3000"}
    )
    assert status == 200 and len(s.rows()) == 1
    assert s.call("POST", "/v1/messages", b"{}", {"Origin": "http://localhost:3001"})[0] == 403


def test_a_rebound_host_is_refused(stack) -> None:  # type: ignore[no-untyped-def]
    s = stack()
    status, _, _ = s.call("GET", "/v1/models", headers={"Host": f"rebind.evil.example:{s.port}"})
    assert status == 403
    assert s.call("GET", "/v1/models", headers={"Host": f"127.0.0.1:{s.port + 1}"})[0] == 403
    assert s.fake.received == [] and s.rows() == []
    assert s.call("GET", "/v1/models", headers={"Host": f"localhost:{s.port}"})[0] == 200
    assert s.call("GET", "/v1/models", headers={"Host": f"127.0.0.1:{s.port}"})[0] == 200


# -- forwarded as sent ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target",
    [
        "/%2e%2e/%2e%2e/tenant-b/v1/x",
        "/v1/../x",
        "/v1/./x",
        "/v1/%2E/x",
        "/v1/..%2Fx",
        "/v1/..%5cx",
    ],
)
def test_dot_segments_are_refused(stack, target: str) -> None:  # type: ignore[no-untyped-def]
    s = stack(prefix="/tenant-a")
    assert s.call("GET", target)[0] == 400
    assert s.fake.received == [] and s.rows() == []


def test_paths_go_upstream_exactly_as_received_under_the_prefix(stack) -> None:  # type: ignore[no-untyped-def]
    s = stack(prefix="/tenant-a")
    for target in ("/a%zz", "/v1/messages?x=%2F&y=a+b", "/v1/%E2%9C%93/odd%20name"):
        assert s.call("GET", target)[0] == 200
    assert [path for path, _ in s.fake.received] == [
        "/tenant-a/a%zz",
        "/tenant-a/v1/messages?x=%2F&y=a+b",
        "/tenant-a/v1/%E2%9C%93/odd%20name",
    ]
    assert refused_path("/v1/..") and refused_path("/%2e%2e") and refused_path("/v1/a..b") is None


# -- bounded ------------------------------------------------------------------------------------


def test_a_large_request_is_streamed_whole_and_recorded_cut(stack) -> None:  # type: ignore[no-untyped-def]
    s = stack(max_body=1024)
    body = json.dumps({**REQUEST, "pad": "x" * 3_000_000}).encode()
    assert s.call("POST", "/v1/messages", body, {"Content-Type": "application/json"})[0] == 200
    assert s.fake.received[0][1] == body
    [row] = s.rows()
    assert row.request_bytes == len(body) and row.request_truncated
    assert row.request_body == body[:1024]


def _bomb(size: int, encoding: str) -> bytes:
    zeros = b"\0" * size
    if encoding == "gzip":
        return gzip.compress(zeros, 9)
    if encoding == "deflate":
        return zlib.compress(zeros, 9)
    return bytes(brotli.compress(zeros, quality=5))


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br"])
def test_the_record_of_a_compression_bomb_stops_at_max_body(encoding: str) -> None:
    data = _bomb(200 * 1024 * 1024, encoding)
    decoder = _Decoder(encoding, 1024 * 1024)
    tracemalloc.start()
    for start in range(0, len(data), 16384):
        decoder.feed(data[start : start + 16384])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    body, size, cut = decoder.body()
    assert len(body) == 1024 * 1024 and cut and size == len(data)
    assert peak < 8 * 1024 * 1024


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br"])
def test_a_compressed_answer_is_recorded_decoded(encoding: str) -> None:
    text = json.dumps(MESSAGE).encode()
    packed = {"gzip": gzip.compress, "deflate": zlib.compress}.get(encoding, brotli.compress)(text)
    decoder = _Decoder(encoding, 1 << 20)
    for start in range(0, len(packed), 7):
        decoder.feed(packed[start : start + 7])
    assert decoder.body() == (text, len(text), False)


def test_a_compressed_answer_passes_through_compressed_and_is_recorded_decoded(stack) -> None:  # type: ignore[no-untyped-def]
    packed = gzip.compress(json.dumps(MESSAGE).encode())
    s = stack([Answer(200, packed, headers=(("Content-Encoding", "gzip"),))])
    status, headers, body = s.call("POST", "/v1/messages", json.dumps(REQUEST).encode())
    assert status == 200 and body == packed and headers["Content-Encoding"] == "gzip"
    [row] = s.rows()
    assert json.loads(row.response_body) == MESSAGE and not row.response_truncated


def test_calls_beyond_the_cap_are_answered_503(stack) -> None:  # type: ignore[no-untyped-def]
    slow = Answer.stream(sse_from_response(MESSAGE), delay=0.3)
    s = stack([slow], max_concurrent=2)
    results: list[int] = []

    def one() -> None:
        results.append(s.call("POST", "/v1/messages", json.dumps(REQUEST).encode())[0])

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    time.sleep(0.3)
    status, headers, _ = s.call("POST", "/v1/messages", json.dumps(REQUEST).encode())
    for thread in threads:
        thread.join()
    assert status == 503 and headers["Retry-After"] == "1"
    assert sorted(results) == [200, 200] and len(s.rows()) == 2


def test_incomplete_headers_time_out(stack) -> None:  # type: ignore[no-untyped-def]
    s = stack(header_timeout=0.5)
    sockets = []
    for _ in range(50):
        half = socket.create_connection(("127.0.0.1", s.port))
        half.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        sockets.append(half)
    time.sleep(1.5)
    for half in sockets:
        half.settimeout(5)
        assert half.recv(100) == b""  # closed by the proxy
        half.close()
    assert s.call("POST", "/v1/messages", json.dumps(REQUEST).encode())[0] == 200


def _trickle(sock: socket.socket, data: bytes, seconds: float) -> float | None:
    """Send ``data`` a byte at a time over ``seconds``: how long until the proxy had closed
    the connection (a send fails), None when it never did."""
    began = time.monotonic()
    for byte in data:
        try:
            sock.sendall(bytes([byte]))
        except OSError:
            return time.monotonic() - began
        time.sleep(seconds / len(data))
    return None


def test_every_request_on_a_connection_has_a_head_deadline(stack) -> None:  # type: ignore[no-untyped-def]
    """A second request trickled a byte at a time, or led by endless blank lines, is cut at
    the deadline (it held a connection past 150 s when only the first request had one)."""
    s = stack([Answer.json(MESSAGE)] * 3, header_timeout=0.5)
    body = json.dumps(REQUEST).encode()
    head = (b"POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (s.port, len(body)))  # fmt: skip
    for lead in (b"", b"\r\n" * 100):
        with socket.create_connection(("127.0.0.1", s.port)) as sock:
            sock.sendall(head + body)  # the first request, whole and at once
            sock.settimeout(5)
            assert b"200 OK" in sock.recv(65536)
            cut = _trickle(sock, lead + head[:60], 4.0)
            assert cut is not None and cut < 2.5, (lead[:4], cut)
    assert s.call("POST", "/v1/messages", body)[0] == 200  # everyone else is served


# -- nothing finished is lost ---------------------------------------------------------------------


def test_a_client_that_closes_after_the_last_event_made_a_complete_call(stack) -> None:  # type: ignore[no-untyped-def]
    completion = {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
    }
    s = stack([Answer.stream(sse_from_response(completion))])
    with socket.create_connection(("127.0.0.1", s.port)) as raw:
        body = json.dumps({"model": "gpt-4o", "stream": True, "messages": []}).encode()
        raw.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
            % (s.port, len(body), body)
        )
        seen = b""
        while b"[DONE]" not in seen:
            seen += raw.recv(65536)
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    time.sleep(0.3)
    [row] = s.rows()
    assert row.error is None and row.status == 200 and b"[DONE]" in row.response_body


def test_a_row_is_committed_before_the_answer_ends(stack) -> None:  # type: ignore[no-untyped-def]
    s = stack([Answer.json(MESSAGE), Answer.stream(sse_from_response(MESSAGE))])
    for _ in range(2):
        assert s.call("POST", "/v1/messages", json.dumps(REQUEST).encode())[0] == 200
        # no waiting: the row is there the moment the client has the whole answer
        assert len(s.rows()) == s.proxy.calls


class FullDisk:
    """A capture store whose disk is full."""

    def __init__(self) -> None:
        self.calls = 0

    def record_many(self, rows):  # type: ignore[no-untyped-def]
        self.calls += 1
        raise sqlite3.OperationalError("database or disk is full")


def test_a_full_disk_is_said_once_a_minute_and_forwarding_goes_on(tmp_path: Path) -> None:
    said: list[str] = []
    upstream = Served(FakeUpstream([Answer.json(MESSAGE)]).app())
    proxy = CaptureProxy("anthropic", upstream.url, FullDisk(), warn=said.append)  # type: ignore[arg-type]
    served = Served(proxy.app())
    try:
        connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
        for _ in range(5):
            connection.request(
                "POST",
                "/v1/messages",
                body=json.dumps(REQUEST),
                headers={"Content-Type": "application/json"},
            )
            response = connection.getresponse()
            assert response.status == 200 and json.loads(response.read()) == MESSAGE
        connection.close()
    finally:
        served.stop()
        upstream.stop()
    assert said == [
        "ctx-lab capture: not recorded: disk full, 1 call(s) lost so far (forwarding goes on)"
    ]
    assert proxy.recorder is not None and proxy.recorder.lost == 5
    # the stop line counts what was lost, not what was forwarded (it said "5 recorded")
    assert proxy.stop_line() == (
        "ctx-lab capture: stopped; 0 call(s) recorded, 5 forwarded but lost "
        "(their rows could not be written)"
    )


def test_the_recorder_batches_rows_of_calls_that_end_together(tmp_path: Path) -> None:
    store = CaptureStore(tmp_path / "calls.db")
    recorder = Recorder(store)
    row = {"started": "t", "provider": "openai", "method": "POST", "path": "/", "request_body": b"{}",
           "request_bytes": 2, "response_body": b"{}", "response_bytes": 2}  # fmt: skip
    futures = [recorder.submit(dict(row)) for _ in range(500)]
    recorder.close()
    assert all(f.result(5) for f in futures) and store.count() == 500
    store.close()


def test_drain_waits_for_calls_in_flight(stack) -> None:  # type: ignore[no-untyped-def]
    slow = Answer.stream(sse_from_response(MESSAGE), delay=0.1)
    s = stack([slow])
    done: list[int] = []
    thread = threading.Thread(
        target=lambda: done.append(s.call("POST", "/v1/messages", json.dumps(REQUEST).encode())[0])
    )
    thread.start()
    time.sleep(0.2)
    loop = s.served._loop
    assert loop is not None
    finished = asyncio.run_coroutine_threadsafe(s.proxy.drain(10), loop).result(15)
    thread.join()
    assert finished and done == [200] and len(s.rows()) == 1
    status, _, _ = s.call("POST", "/v1/messages", json.dumps(REQUEST).encode())
    assert status == 503 and len(s.rows()) == 1


# -- streams passed as they come (issue 62) ---------------------------------------------------


def _responses_events() -> list[dict]:
    """A Responses API stream as OpenAI's streaming guide shows it (read 2026-12-07:
    https://platform.openai.com/docs/guides/streaming-responses): the first event's response
    object carries ``"error": null``, which a byte search took for the end of the answer."""
    response = {"id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-5.5",
                "status": "in_progress", "output": [], "error": None, "incomplete_details": None,
                "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}  # fmt: skip
    done = {**response, "status": "completed", "output": [
        {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
         "content": [{"type": "output_text", "text": "hi", "annotations": []}]}],
        "usage": {"input_tokens": 5, "output_tokens": 1, "total_tokens": 6,
                  "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}}}  # fmt: skip
    return [
        {"type": "response.created", "response": response, "sequence_number": 0},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0,
         "content_index": 0, "delta": "hi", "sequence_number": 1, "logprobs": []},
        {"type": "response.completed", "response": done, "sequence_number": 2},
    ]  # fmt: skip


def _sse(event: dict) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def test_a_responses_stream_reaches_the_client_event_by_event(tmp_path: Path) -> None:
    """The official openai SDK streams through the proxy: its first event arrives while the
    upstream is still waiting to send the rest (it was held until the stream was complete)."""
    import openai
    from aiohttp import web

    events = _responses_events()
    release = threading.Event()
    finished = threading.Event()

    async def respond(request: web.Request) -> web.StreamResponse:
        await request.read()
        answer = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await answer.prepare(request)
        await answer.write(_sse(events[0]))
        for _ in range(1000):  # until the client has seen the first event (10 s at most)
            if release.is_set():
                break
            await asyncio.sleep(0.01)
        for event in events[1:]:
            await answer.write(_sse(event))
        await answer.write_eof()
        finished.set()
        return answer

    app = web.Application()
    app.router.add_post("/v1/responses", respond)
    upstream = Served(app)
    proxy = CaptureProxy("openai", upstream.url, CaptureStore(tmp_path / "calls.db"))
    served = Served(proxy.app())
    try:
        client = openai.OpenAI(base_url=f"{served.url}/v1", api_key="sk-test", max_retries=0)
        began = time.monotonic()
        stream = client.responses.create(model="gpt-5.5", input="hi", stream=True)
        first = next(iter(stream))
        assert first.type == "response.created" and not finished.is_set()
        assert time.monotonic() - began < 5
        release.set()
        rest = [event.type for event in stream]
        assert rest == ["response.output_text.delta", "response.completed"]
        with CaptureStore(tmp_path / "calls.db", readonly=True) as store:
            [row] = store.calls()
        assert b"response.completed" in row.response_body and row.error is None
    finally:
        release.set()
        served.stop()
        upstream.stop()


def test_what_waits_after_the_last_event_is_bounded() -> None:
    from ctx_lab.capture._sse import EventGate, ends_answer

    assert ends_answer(b'event: message_stop\ndata: {"type": "message_stop"}\n\n')
    assert ends_answer(b"data: [DONE]\n\n")
    assert ends_answer(b'data: {"error": {"message": "overloaded"}}\n\n')
    assert not ends_answer(b'data: {"type": "response.created", "response": {"error": null}}\n\n')
    assert not ends_answer(b'data: {"text": "message_stop [DONE] \\"error\\""}\n\n')
    gate = EventGate(limit=1000)
    assert gate.feed(b'data: {"a": 1}\n') == b""  # not complete yet
    assert gate.feed(b"\ndata: [DO") == b'data: {"a": 1}\n\n'
    assert gate.feed(b"NE]\n\n") == b"" and gate.ended  # the last event waits
    written = sum(len(gate.feed(b"x" * 100)) for _ in range(100))
    assert written >= 9000 and len(gate.held) <= 1000  # bounded, not the whole tail held
    huge = EventGate(limit=1000)
    assert len(huge.feed(b"data: " + b"y" * 5000)) == 5006  # too large to judge: passed on


def test_what_another_site_makes_a_browser_send_is_refused(stack) -> None:  # type: ignore[no-untyped-def]
    """An ``<img>`` or a form on another site carries no ``Origin``: the browser's
    ``Sec-Fetch-Site`` says so, and a model's route takes only JSON."""
    s = stack([Answer.json(MESSAGE)] * 4)
    image = s.call("GET", "/v1/models", headers={"Sec-Fetch-Site": "cross-site"})
    assert image[0] == 403 and b"Sec-Fetch-Site" in image[2]
    form = s.call("POST", "/v1/messages", b"a=1",
                  {"Content-Type": "application/x-www-form-urlencoded"})  # fmt: skip
    assert form[0] == 403 and b"JSON body" in form[2]
    plain = s.call("POST", "/v1/chat/completions", b"{}", {"Content-Type": "text/plain"})
    assert plain[0] == 403
    assert s.fake.received == [] and s.rows() == []  # never forwarded, never recorded
    mine = s.call("GET", "/v1/models", headers={"Sec-Fetch-Site": "same-origin"})
    assert mine[0] == 200
    assert s.call("POST", "/v1/messages", json.dumps(REQUEST).encode())[0] == 200
