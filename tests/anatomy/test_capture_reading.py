"""Capture files read back safely (issue 41): opened by path, read-only, the schema checked,
bodies cut in SQL, only the rows asked for read, every query within a deadline — and anatomy
that never chokes on what a stream or a name holds."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest
from capture_helpers import message
from paths import REPO

from ctx_lab import commands
from ctx_lab.anatomy import CaptureStore, anatomy_of, assemble_stream
from ctx_lab.anatomy._names import claude_md_name, mcp_server
from ctx_lab.anatomy._stream import assemble_stream_noted
from ctx_lab.capture import sse_from_response
from ctx_lab.errors import CtxLabError, InputFileError, LimitExceeded, UsageError

MESSAGE = message("hello")


def request(text: str = "hi", tools: list | None = None) -> bytes:  # type: ignore[type-arg]
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": text}],
    }
    if tools:
        body["tools"] = tools
    return json.dumps(body).encode()


def row(body: bytes = b"", response: bytes = b"", stream: bool = False) -> dict:  # type: ignore[type-arg]
    return {
        "started": "2026-01-01T00:00:00+00:00",
        "provider": "anthropic",
        "method": "POST",
        "path": "/v1/messages",
        "status": 200,
        "stream": stream,
        "request_body": body or request(),
        "request_bytes": len(body or request()),
        "response_body": response or json.dumps(MESSAGE).encode(),
        "response_bytes": len(response or json.dumps(MESSAGE).encode()),
    }


def capture(path: Path, rows: list[dict]) -> Path:  # type: ignore[type-arg]
    with CaptureStore(path) as store:
        store.record_many(rows)
    return path


def test_a_name_with_escapes_is_opened_as_itself(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    capture(
        tmp_path / "outside.db", [row(request(tools=[{"name": "secret_tool", "input_schema": {}}]))]
    )
    tricky = root / "..%2foutside.db"
    tricky.write_bytes((tmp_path / "outside.db").read_bytes()[:100])  # not a capture
    outside = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(CtxLabError) as refused:
        anatomy_of(tricky)
    assert "secret_tool" not in str(refused.value)
    rwc = root / "x.db%3Fmode%3Drwc"
    rwc.write_bytes(b"SQLite format 3\x00" + b"\0" * 100)
    with pytest.raises(CtxLabError):
        anatomy_of(rwc)
    assert sorted(p.name for p in tmp_path.iterdir()) == outside  # nothing made outside root
    assert not (root / "x.db?mode=rwc").exists()
    escaped = capture(root / "calls %3F#1.db", [row()])
    assert anatomy_of(escaped).call == 1


def _hostile(path: Path, calls_sql: str) -> Path:
    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE capture_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO capture_meta VALUES ('format', 'ctx-lab-capture-1');" + calls_sql
    )
    db.close()
    return path


COLUMNS = (
    "id INTEGER PRIMARY KEY, started TEXT, duration_ms REAL, provider TEXT, method TEXT, "
    "path TEXT, status INTEGER, stream INTEGER, request_body BLOB, request_bytes INTEGER, "
    "request_truncated INTEGER, response_body BLOB, response_bytes INTEGER, "
    "response_truncated INTEGER, error TEXT"
)


def test_a_view_that_never_ends_is_refused_at_once(tmp_path: Path) -> None:
    endless = _hostile(
        tmp_path / "view.db",
        "CREATE VIEW calls AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
        "SELECT i AS id, 't' AS started, 0 AS duration_ms, 'anthropic' AS provider, 'POST' AS "
        "method, '/' AS path, 200 AS status, 0 AS stream, zeroblob(250000000) AS request_body, 0 "
        "AS request_bytes, 0 AS request_truncated, x'' AS response_body, 0 AS response_bytes, 0 "
        "AS response_truncated, NULL AS error FROM n;",
    )
    began = time.monotonic()
    with pytest.raises(CtxLabError, match="calls is not a table"):
        anatomy_of(endless, session=True)
    assert time.monotonic() - began < 2


def test_a_generated_column_is_refused(tmp_path: Path) -> None:
    columns = COLUMNS.replace(
        "request_body BLOB", "request_body BLOB GENERATED ALWAYS AS (zeroblob(250000000)) VIRTUAL"
    )
    generated = _hostile(tmp_path / "gen.db", f"CREATE TABLE calls ({columns});")
    with pytest.raises(CtxLabError, match="generated request_body"):
        CaptureStore(generated, readonly=True)
    missing = _hostile(tmp_path / "missing.db", "CREATE TABLE calls (id INTEGER PRIMARY KEY);")
    with pytest.raises(CtxLabError, match="missing started"):
        CaptureStore(missing, readonly=True)


def test_every_query_has_a_deadline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTX_LAB_MAX_CAPTURE_QUERY_SECONDS", "1")
    store = CaptureStore(capture(tmp_path / "calls.db", [row()]), readonly=True)
    began = time.monotonic()
    with pytest.raises(LimitExceeded, match="CTX_LAB_MAX_CAPTURE_QUERY_SECONDS"):
        store._query(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n"
        )
    assert time.monotonic() - began < 3
    store.close()


def test_bodies_are_cut_in_sql(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big = request("x" * 5000)
    path = capture(tmp_path / "calls.db", [row(big)])
    with CaptureStore(path, readonly=True) as store:
        [call] = store.calls(body_limit=1000)
    assert call.request_body == big[:1000] and call.request_truncated
    assert call.request_bytes == len(big)
    monkeypatch.setenv("CTX_LAB_MAX_CAPTURE_BODY_BYTES", "1000")
    with pytest.raises(UsageError, match="not a model request"):  # cut: not JSON, and said
        anatomy_of(path)


def test_past_10000_calls_the_latest_is_the_latest(tmp_path: Path) -> None:
    path = capture(tmp_path / "calls.db", [row(request(f"call {i}")) for i in range(10_050)])
    assert anatomy_of(path).call == 10_050
    session = anatomy_of(path, session=True, last=5)
    assert [c.call for c in session.calls] == list(range(10_046, 10_051))


def test_a_poll_reads_only_the_calls_it_has_not_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = capture(tmp_path / "calls.db", [row(request(f"call {i}")) for i in range(30)])
    anatomy_of(path, session=True, last=20)
    read: list[list[int]] = []
    original = CaptureStore.by_ids

    def spy(self, ids, **kw):  # type: ignore[no-untyped-def]
        read.append(sorted(ids))
        return original(self, ids, **kw)

    monkeypatch.setattr(CaptureStore, "by_ids", spy)
    with CaptureStore(path) as store:
        store.record(**row(request("new")))
    session = anatomy_of(path, session=True, last=20)
    assert read == [[31]] and session.calls[-1].call == 31


MALFORMED = [
    {"type": "content_block_delta", "index": "x", "delta": {"type": "text_delta", "text": "a"}},
    {"type": "content_block_delta", "index": 1e308, "delta": {"type": "text_delta", "text": "a"}},
    {"type": "content_block_delta", "index": 0, "delta": [1, 2]},
    {"type": "content_block_start", "index": 0, "content_block": [1, 2]},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": [1]},
    {"type": "content_block_delta", "index": -1, "delta": {"type": "text_delta", "text": 5}},
    {
        "type": "content_block_delta",
        "index": True,
        "delta": {"type": "input_json_delta", "partial_json": {}},
    },
]


def _sse(events: list[dict]) -> str:  # type: ignore[type-arg]
    return "".join(f"event: {e.get('type', 'x')}\ndata: {json.dumps(e)}\n\n" for e in events)


def test_malformed_anthropic_events_are_skipped_and_noted() -> None:
    good = b"".join(sse_from_response(MESSAGE)).decode()
    head, _, tail = good.partition("event: message_stop")
    text = head + _sse(MALFORMED) + "event: message_stop" + tail
    found, notes = assemble_stream_noted(text, "anthropic")
    assert found is not None and found["content"][0]["text"] == "hello"
    assert notes == [f"{len(MALFORMED)} stream event(s) without the documented shape were skipped"]


@pytest.mark.parametrize(
    "chunk",
    [
        {"choices": ["x"]},
        {"choices": [{"index": "x", "delta": {"content": "a"}}]},
        {"choices": [{"index": 1e999, "delta": {}}]},
        {"choices": [{"index": 0, "delta": [1, 2]}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": "y"}]}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": "no"}}]},
        {"choices": 5},
        {"choices": [{"index": 0, "delta": {"content": {"a": 1}}}]},
    ],
)
def test_malformed_chat_chunks_are_skipped(chunk: dict) -> None:  # type: ignore[type-arg]
    start = {
        "id": "c",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": "ok"}}],
    }
    text = f"data: {json.dumps(start)}\n\ndata: {json.dumps(chunk)}\n\ndata: [DONE]\n\n"
    found, notes = assemble_stream_noted(text, "openai")
    assert found is not None and found["choices"][0]["message"]["content"] == "ok"
    assert notes


def test_a_capture_of_malformed_streams_reads_with_warnings(tmp_path: Path) -> None:
    good = b"".join(sse_from_response(MESSAGE)).decode()
    bad = _sse([{"type": "message_start", "message": [1]}, *MALFORMED]) + good
    path = capture(tmp_path / "calls.db", [row(response=bad.encode(), stream=True)])
    anatomy = anatomy_of(path)
    assert any("without the documented shape" in w for w in anatomy.warnings)
    assert anatomy.reported_input == 12


def test_a_big_stream_assembles_in_linear_time() -> None:
    pieces = [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "word " * 20},
        }
    ] * 120_000
    text = _sse(
        [
            {"type": "message_start", "message": {"id": "m", "usage": {}}},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            *pieces,
        ]
    )
    assert len(text) > 12 * 1024 * 1024
    began = time.monotonic()
    found = assemble_stream(text, "anthropic")
    assert found is not None and len(found["content"][0]["text"]) == 100 * 120_000
    assert time.monotonic() - began < 5


def test_names_and_memory_markers_are_matched_in_linear_time() -> None:
    began = time.monotonic()
    assert claude_md_name("Contents of " + "a" * 1_000_000) is None
    assert claude_md_name(("Contents of " + "a" * 50) * 20_000) is None
    assert mcp_server("mcp__x" + "__" * 500_000) == "x"
    assert mcp_server("mcp__" + "a_" * 500_000) is None
    assert time.monotonic() - began < 1
    assert (
        claude_md_name("Contents of /home/u/proj/CLAUDE.md (project instructions)") == "CLAUDE.md"
    )
    assert claude_md_name("Contents of /a/b.md/c/NOTES.md,") == "b.md"
    assert mcp_server("mcp__github__create_issue") == "github"
    assert mcp_server("mcp___x__y") is None and mcp_server("mcp__x__") is None


def test_server_side_compaction_and_server_tools_are_named(tmp_path: Path) -> None:
    compacted = {
        **MESSAGE,
        "content": [{"type": "compaction", "content": "summary"}, {"type": "text", "text": "ok"}],
        "usage": {
            "input_tokens": 181,
            "output_tokens": 3,
            "iterations": [
                {"type": "compaction", "input_tokens": 56000, "output_tokens": 900},
                {"type": "message", "input_tokens": 181, "output_tokens": 3},
            ],
        },
    }
    tools = {
        **MESSAGE,
        "content": [
            {"type": "server_tool_use", "id": "s1", "name": "code_execution", "input": {}},
            {"type": "code_execution_tool_result", "tool_use_id": "s1", "content": {}},
            {"type": "text", "text": "done"},
        ],
        "usage": {
            "input_tokens": 4700,
            "output_tokens": 3,
            "server_tool_use": {"code_execution_requests": 1},
        },
    }
    rows = [
        row(response=b"".join(sse_from_response(compacted)), stream=True),
        row(response=json.dumps(compacted).encode()),
        row(response=b"".join(sse_from_response(tools)), stream=True),
        row(response=json.dumps(tools).encode()),
    ]
    path = capture(tmp_path / "calls.db", rows)
    for call in (1, 2):
        warnings = anatomy_of(path, call=call).warnings
        assert any("compacted this request's history on its side" in w for w in warnings), call
    for call in (3, 4):
        warnings = anatomy_of(path, call=call).warnings
        assert any("server tools (code_execution ×1)" in w for w in warnings), call


def test_special_files_are_refused_unopened(tmp_path: Path) -> None:
    fifo = tmp_path / "calls.fifo"
    os.mkfifo(fifo)
    began = time.monotonic()
    with pytest.raises(InputFileError, match="not a regular file"):
        anatomy_of(fifo)
    assert time.monotonic() - began < 2


REAL = REPO.parent / "shared" / "real-data" / "transcripts" / "pydantic__pydantic-ai"


def _captured_from(path: Path, rows: list[tuple[dict, dict]], provider: str) -> Path:
    """A capture file holding real recorded calls, stored as the proxy stores them (a streamed
    answer as its events)."""
    from ctx_lab.capture import sse_from_response

    made = []
    for i, (request, response) in enumerate(rows):
        body = json.dumps(request).encode()
        stream = i % 2 == 1
        answer = b"".join(sse_from_response(response)) if stream else json.dumps(response).encode()
        made.append({**row(body, answer, stream), "provider": provider})
    return capture(path, made)


def test_replay_calibrate_and_anatomy_take_a_capture_file_as_a_session(tmp_path: Path) -> None:
    from ctx_lab.cli import main

    lines = [
        json.loads(x) for x in (REAL / "test_openai_tool_output.jsonl").read_text().splitlines()
    ]
    openai_db = _captured_from(
        tmp_path / "openai.db", [(x["request"], x["response"]) for x in lines], "openai"
    )
    report = commands.replay(openai_db, model=["gpt-4o"])
    assert report.format == "openai-chat" and [r["reported_input"] for r in report.rows] == [68, 89]
    session = anatomy_of(openai_db, session=True)
    assert [c.reported_input for c in session.calls] == [68, 89]
    call = json.loads((REAL / "test_anthropic_tool_with_thinking.json").read_text())
    anthropic_db = _captured_from(
        tmp_path / "anthropic.db", [(call["request"], call["response"])] * 3, "anthropic"
    )
    transcript = commands_session(anthropic_db)
    assert transcript.format == "anthropic-messages" and len(transcript.calls) == 3
    assert all(c.usage and c.usage.reported_input == 566 for c in transcript.calls)
    # too few calls to fit, but read as a session: not "line 1 is not JSON"
    assert main(["calibrate", str(anthropic_db), "--model", "claude-sonnet-4-5"]) == 1


def commands_session(path: Path):  # type: ignore[no-untyped-def]
    from ctx_lab.commands._conversation import session_of

    return session_of(path)


def test_a_session_longer_than_the_anatomy_cache_keeps_every_call(tmp_path: Path) -> None:
    """4,200 captured calls, more than the 4,096 anatomies kept between polls: every one is in
    the session (the first 104 were reported as "not model requests" before)."""
    db = tmp_path / "long.db"
    rows = []
    for i in range(4_200):
        body = json.dumps(
            {"model": "gpt-4o", "messages": [{"role": "user", "content": f"call {i}"}]}
        ).encode()
        answer = json.dumps({"usage": {"prompt_tokens": 9, "completion_tokens": 1}}).encode()
        rows.append({"started": f"2026-01-01T00:00:{i % 60:02d}+00:00", "provider": "openai",
                     "method": "POST", "path": "/v1/chat/completions", "status": 200,
                     "request_body": body, "request_bytes": len(body), "response_body": answer,
                     "response_bytes": len(answer)})  # fmt: skip
    with CaptureStore(db) as store:
        store.record_many(rows)
    session = anatomy_of(db, session=True)
    assert len(session.calls) == 4_200
    assert not any("not model requests" in w for w in session.warnings)
    assert [c.call for c in session.calls[:2]] == [1, 2]


def test_only_claude_code_s_own_requests_get_its_window_framing(tmp_path: Path) -> None:
    """A plain SDK loop on the Messages API is not Claude Code: its window view has the
    model's window with the output reserve and counting margin, no autocompact buffer. A
    request whose system prompt is Claude Code's (its identity line, or 2.1's billing block)
    gets the 200k window and the buffer."""
    plain = json.loads(request("summarize this"))
    claude_code = {
        **plain,
        "system": [
            {"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.62.023; "
             "cc_entrypoint=cli; cch=00000;"},
            {"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude."},
        ],
    }  # fmt: skip
    made = capture(
        tmp_path / "calls.db",
        [row(json.dumps(plain).encode()), row(json.dumps(claude_code).encode())],
    )
    session = anatomy_of(made, session=True)
    sdk, agent = session.calls
    assert sdk.autocompact_at is None
    keys = {b.key for b in sdk.window_view()}
    assert "autocompact" not in keys and {"reserve", "margin"} <= keys
    assert agent.autocompact_at == agent.window - 33_000
    assert "autocompact" in {b.key for b in agent.window_view()}
