"""Recorded sessions: Claude Code JSONL (chains, side-chains, compactions, parallel tool calls,
images), OpenAI Chat Completions logs and Anthropic Messages request/response JSON, into one
Transcript and from there into a ContextManager with every tool pair intact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctx_lab.errors import TranscriptError
from ctx_lab.recordings.transcripts import IMAGE_PLACEHOLDER, Usage, load_transcript

MODEL = "claude-sonnet-4-5-20250929"


def line(**record) -> str:  # type: ignore[no-untyped-def]
    return json.dumps(record)


def claude_code_session(path: Path) -> Path:
    usage = {
        "input_tokens": 12,
        "output_tokens": 40,
        "cache_creation_input_tokens": 900,
        "cache_read_input_tokens": 15000,
    }
    rows = [
        line(type="summary", summary="Fix the flaky test", leafUuid="a4"),
        line(
            type="user",
            uuid="u1",
            parentUuid=None,
            isSidechain=False,
            timestamp="2026-06-01T10:00:00Z",
            message={"role": "user", "content": "Fix the flaky test"},
        ),
        line(
            type="assistant",
            uuid="a1",
            parentUuid="u1",
            isSidechain=False,
            timestamp="2026-06-01T10:00:05Z",
            message={
                "model": MODEL,
                "role": "assistant",
                "type": "message",
                "content": [
                    {"type": "thinking", "thinking": "look first", "signature": "x"},
                    {"type": "text", "text": "Reading both files."},
                    {"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "a.py"}},
                    {"type": "tool_use", "id": "t2", "name": "Read", "input": {"path": "b.py"}},
                ],
                "usage": usage,
            },
        ),
        line(
            type="user",
            uuid="u2",
            parentUuid="a1",
            isSidechain=False,
            message={
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "def a(): ..."},
                    {
                        "type": "tool_result",
                        "tool_use_id": "t2",
                        "content": [{"type": "text", "text": "def b(): ..."}],
                    },
                ],
            },
        ),
        line(
            type="assistant",
            uuid="s1",
            parentUuid="u2",
            isSidechain=True,
            message={"model": MODEL, "role": "assistant", "content": "sub-agent work"},
        ),
        line(
            type="assistant",
            uuid="dead",
            parentUuid="u2",
            isSidechain=False,
            message={
                "model": MODEL,
                "role": "assistant",
                "content": [{"type": "text", "text": "abandoned branch"}],
            },
        ),
        line(
            type="system",
            uuid="c1",
            parentUuid="u2",
            subtype="compact_boundary",
            compactMetadata={"trigger": "auto", "preTokens": 160000},
        ),
        line(
            type="user",
            uuid="u3",
            parentUuid="c1",
            isCompactSummary=True,
            message={"role": "user", "content": "Summary: the test races on a shared tmp dir."},
        ),
        line(
            type="user",
            uuid="u4",
            parentUuid="u3",
            message={
                "role": "user",
                "content": [
                    {"type": "text", "text": "Here is the failure"},
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"},
                    },
                ],
            },
        ),
        line(
            type="assistant",
            uuid="a4",
            parentUuid="u4",
            timestamp="2026-06-01T10:09:00Z",
            message={
                "model": MODEL,
                "role": "assistant",
                "content": [{"type": "text", "text": "Use tmp_path."}],
                "usage": usage,
            },
        ),
        line(type="weird-new-kind", uuid="w1"),
    ]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_claude_code_session(tmp_path: Path) -> None:
    t = load_transcript(claude_code_session(tmp_path / "s.jsonl"))
    assert t.format == "claude-code" and t.models == (MODEL,)
    roles = [m.role for m in t.messages]
    assert roles == [
        "user",
        "assistant",
        "tool_use",
        "tool_use",
        "tool_result",
        "tool_result",
        "user",
        "user",
        "assistant",
    ]
    texts = " ".join(m.content for m in t.messages)
    assert "abandoned branch" not in texts and "sub-agent work" not in texts
    assert "look first" not in texts  # thinking is not context
    assert t.messages[5].content == "def b(): ..."
    assert IMAGE_PLACEHOLDER in t.messages[7].content and t.images == 1
    assert t.compactions == (6,) and t.sidechain_lines == 1 and t.unknown_lines == 1
    assert len(t.calls) == 2 and t.calls[0].usage is not None
    assert t.calls[0].usage.reported_input == 12 + 900 + 15000
    assert t.calls[0].context == 4 and t.calls[1].timestamp == "2026-06-01T10:09:00Z"


def test_into_a_manager_with_tool_pairs_intact(tmp_path: Path) -> None:
    t = load_transcript(claude_code_session(tmp_path / "s.jsonl"))
    manager = t.to_manager(counter="bytes/4")
    assert manager.model == MODEL
    kept = manager.prepare().api_messages(include_system=False)
    calls = [m.call_id for m in kept if m.role == "tool_use"]
    results = [m.call_id for m in kept if m.role == "tool_result"]
    assert calls == results == ["t1", "t2"]
    assert len(manager.tool_units()) >= 1


def test_openai_log_of_requests_and_responses(tmp_path: Path) -> None:
    first = {
        "request": {
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Weather?"},
                        {"type": "image_url", "image_url": {"url": "data:"}},
                    ],
                },
            ],
            "tools": [{"type": "function", "function": {"name": "weather", "parameters": {}}}],
        },
        "response": {
            "choices": [
                {
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
                            },
                        ],
                    }
                }
            ],
            "usage": {
                "prompt_tokens": 80,
                "completion_tokens": 12,
                "prompt_tokens_details": {"cached_tokens": 64},
            },
        },
    }
    second = {
        "request": {
            "model": "gpt-4o",
            "messages": [
                *first["request"]["messages"],
                first["response"]["choices"][0]["message"],
                {"role": "tool", "tool_call_id": "c1", "content": "3 °C, rain"},
            ],
        },
        "response": {
            "choices": [{"message": {"role": "assistant", "content": "Cold and wet."}}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 5},
        },
    }
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    t = load_transcript(path)
    assert t.format == "openai-chat" and t.system == "You are terse."
    assert [m.role for m in t.messages] == ["user", "tool_use", "tool_result", "assistant"]
    assert t.messages[1].arguments == {"city": "Oslo"}
    assert t.calls[0].usage == Usage(16, 12, 0, 64) and t.calls[1].usage.reported_input == 120
    assert len(t.calls) == 2 and t.images == 1 and len(t.tools) == 1
    bare = load_transcript(second["request"]["messages"])
    assert bare.format == "openai-chat" and bare.calls[0].usage is None


def test_anthropic_request_and_response(tmp_path: Path) -> None:
    exchange = {
        "request": {
            "model": MODEL,
            "system": [{"type": "text", "text": "Be careful."}],
            "tools": [{"name": "bash", "input_schema": {"type": "object"}}],
            "messages": [
                {"role": "user", "content": "List files"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": "b1", "name": "bash", "input": {"cmd": "ls"}}
                    ],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "b1", "content": "a.py"}],
                },
            ],
        },
        "response": {
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [{"type": "text", "text": "One file: a.py"}],
            "usage": {"input_tokens": 300, "output_tokens": 9},
        },
    }
    path = tmp_path / "exchange.json"
    path.write_text(json.dumps(exchange, indent=2))
    t = load_transcript(path)
    assert t.format == "anthropic-messages" and t.system == "Be careful."
    assert [m.role for m in t.messages] == ["user", "tool_use", "tool_result", "assistant"]
    assert t.calls[0].usage.input_tokens == 300 and t.calls[0].model == MODEL
    manager = t.to_manager(counter="bytes/4")
    assert manager.overhead_tokens() > 0  # system prompt and tool definitions reserved


def test_malformed_inputs_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type": "user", "uuid": "u", "parentUuid": null}\n{"type": "assi\n')
    with pytest.raises(TranscriptError, match="line 2 is not JSON"):
        load_transcript(path)
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(TranscriptError, match="empty"):
        load_transcript(tmp_path / "empty.jsonl")
    with pytest.raises(TranscriptError, match="not a transcript"):
        load_transcript({"hello": "world"})
    with pytest.raises(TranscriptError, match="unknown format"):
        load_transcript([], format="cursor")
