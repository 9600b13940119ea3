"""The anatomy on real recorded sessions (../shared/real-data/transcripts: categories that sum to
the counted total, the reported-vs-counted difference per call where usage is recorded, call
counts as COUNTS.md has them by hand), the providers' documented media rules, and hostile
request bodies."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from paths import REPO

from ctx_lab.anatomy import (
    CATEGORIES,
    anatomy_of,
    assemble_stream,
    cache_break,
    pieces_of,
    request_anatomy,
)
from ctx_lab.capture import sse_from_response
from ctx_lab.commands import invoke
from ctx_lab.errors import UsageError
from ctx_lab.recordings.transcripts import load_transcript
from ctx_lab.tokens import image_size, image_tokens

REAL = REPO.parent / "shared" / "real-data" / "transcripts"
# calls per file, counted by hand (COUNTS.md)
SESSIONS = {
    "marot__spotter/short.jsonl": 1,
    "marot__spotter/subagent.jsonl": 12,
    "marot__spotter/tool_heavy.jsonl": 4,
    "pydantic__pydantic-ai/test_openai_tool_output.jsonl": 2,
    "pydantic__pydantic-ai/test_anthropic_tool_with_thinking.json": 1,
}


@pytest.mark.parametrize("name", sorted(SESSIONS))
def test_real_sessions_add_up_and_show_the_reported_difference(name: str) -> None:
    session = anatomy_of(REAL / name, session=True)
    assert len(session.calls) == SESSIONS[name]
    for call, row in zip(session.calls, session.rows(), strict=True):
        assert sum(call.categories().values()) == call.total == row["total"]
        assert sum(i.tokens for i in call.items) == call.total
        assert set(call.categories()) <= set(CATEGORIES)
        if call.reported_input is not None:  # where usage is recorded, the difference is shown
            assert row["difference"] == call.reported_input - call.total
        payload = call.to_dict()
        assert payload["free"] == payload["limit"] - payload["used"]


def test_claude_code_sessions_name_tool_results_by_their_tool() -> None:
    session = anatomy_of(REAL / "marot__spotter" / "tool_heavy.jsonl", session=True)
    last = session.calls[-1]
    assert {"WebSearch", "Bash"} <= set(last.by_name("tool_result"))
    assert last.cache_read is not None and last.reported_input > last.total  # no system/tools
    assert any("no system prompt or tool definitions" in w for w in last.warnings)
    # Claude Code 2.1 (the file's version) compacts 33,000 tokens short of its 200k window
    assert load_transcript(REAL / "marot__spotter" / "tool_heavy.jsonl").agent_version >= "2.1"
    assert last.autocompact_at == last.window - 33_000 == 167_000
    rows = session.rows()
    assert [r["replayed"] is not None for r in rows] == [True] * len(rows)
    assert session.largest(1)[0]["name"] == "WebSearch"


def test_recorded_api_calls_come_within_a_tenth_of_the_reported_input() -> None:
    openai_file = REAL / "pydantic__pydantic-ai" / "test_openai_tool_output.jsonl"
    rows = anatomy_of(openai_file, session=True).rows()
    assert [r["reported_input"] for r in rows] == [68, 89]
    assert all(abs(r["difference"]) <= 0.1 * r["reported_input"] for r in rows)
    thinking = anatomy_of(REAL / "pydantic__pydantic-ai" / "test_anthropic_tool_with_thinking.json")
    assert thinking.reported_input == 566 and not thinking.exact  # no Claude tokenizer here
    assert thinking.categories()["thinking"] > 0
    assert any(i.name == "tool use" and i.tokens == 346 for i in thinking.items)


def test_every_surface_gives_the_same_anatomy() -> None:
    path = REAL / "marot__spotter" / "short.jsonl"
    cli = json.loads(invoke(["anatomy", str(path), "--format", "json"]).result.render("json"))
    assert cli == anatomy_of(path).to_dict()
    csv = invoke(["anatomy", str(path), "--session", "--format", "csv"]).result.render("csv")
    assert csv.splitlines()[0].startswith("call,model,total")


def _png(width: int, height: int) -> bytes:
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + header
    return (
        b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + chunk + struct.pack(">I", zlib.crc32(chunk))
    )


def test_images_cost_what_the_providers_document() -> None:
    png = base64.b64encode(_png(1000, 1000)).decode()
    assert image_size(base64.b64decode(png)) == (1000, 1000)
    tokens, how = image_tokens("anthropic", {"type": "base64", "data": png})
    assert tokens == 1334 and "w × h / 750" in how  # 1000 × 1000 / 750
    large, _ = image_tokens(
        "anthropic", {"type": "base64", "data": base64.b64encode(_png(4000, 3000)).decode()}
    )
    assert 1500 <= large <= 1600  # scaled to the documented maximum
    assert image_tokens("openai", f"data:image/png;base64,{png}", "low")[0] == 85
    assert (
        image_tokens("openai", f"data:image/png;base64,{png}")[0] == 85 + 170 * 4
    )  # 768² → 4 tiles
    unknown, note = image_tokens("anthropic", {"type": "url", "url": "https://x/y.png"})
    assert unknown == 1600 and "unknown size" in note


def test_responses_bodies_mcp_tools_and_memory_files() -> None:
    body = {
        "model": "gpt-4.1",
        "instructions": "Be brief.",
        "tools": [
            {"type": "function", "name": "lookup", "description": "Find.", "parameters": {}},
            {"type": "mcp", "server_label": "github", "server_url": "https://x"},
        ],
        "input": [
            {"role": "user", "content": "# AGENTS.md instructions for /repo\n\nUse uv."},
            {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
            {"type": "function_call", "name": "lookup", "call_id": "c1", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "found"},
        ],
    }
    made = request_anatomy(body)
    assert made.format == "openai-responses"
    assert made.by_name("memory") and "AGENTS.md" in made.by_name("memory")
    assert made.by_name("mcp_tools") == {"github": made.by_name("mcp_tools")["github"]}
    assert made.by_name("tool_result") == {"lookup": made.by_name("tool_result")["lookup"]}
    claude = {
        "model": "claude-sonnet-4-5",
        "tools": [
            {"name": "mcp__git__status", "input_schema": {}},
            {"name": "Read", "input_schema": {}},
        ],
        "messages": [{"role": "user", "content": "Contents of /repo/CLAUDE.md (project)\n\nRules"}],
    }
    anatomy = request_anatomy(claude)
    assert set(anatomy.by_name("mcp_tools")) == {"mcp__git__status"}
    assert set(anatomy.by_name("memory")) == {"CLAUDE.md"}


def test_a_reordered_tool_list_is_named_as_the_break() -> None:
    tools = [{"name": n, "input_schema": {"type": "object"}} for n in ("a", "b")]
    messages = [{"role": "user", "content": "hi"}]
    before = request_anatomy({"model": "claude-sonnet-4-5", "tools": tools, "messages": messages})
    after = request_anatomy(
        {"model": "claude-sonnet-4-5", "tools": tools[::-1], "messages": messages}
    )
    assert cache_break(before, after) == "the tool list was reordered"
    grown = request_anatomy(
        {
            "model": "claude-sonnet-4-5",
            "tools": tools,
            "messages": [*messages, {"role": "assistant", "content": "ok"}],
        }
    )
    assert cache_break(before, grown) == ""


def test_streams_assemble_into_the_response_they_stand_for() -> None:
    call = json.loads(
        (REAL / "pydantic__pydantic-ai" / "test_anthropic_tool_with_thinking.json").read_text()
    )
    message = call["response"]
    text = b"".join(sse_from_response(message)).decode()
    assembled = assemble_stream(text, "anthropic")
    assert assembled["content"] == message["content"] and assembled["usage"]["output_tokens"] == 126
    lines = (
        (REAL / "pydantic__pydantic-ai" / "test_openai_tool_output.jsonl").read_text().splitlines()
    )
    completion = json.loads(lines[1])["response"]
    chat = assemble_stream(b"".join(sse_from_response(completion)).decode(), "openai")
    assert (
        chat["choices"][0]["message"]["tool_calls"]
        == completion["choices"][0]["message"]["tool_calls"]
    )
    assert chat["usage"] == completion["usage"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
bodies = st.fixed_dictionaries(
    {},
    optional={
        "model": st.text(max_size=10),
        "messages": json_values,
        "input": json_values,
        "system": json_values,
        "tools": json_values,
        "instructions": json_values,
    },
)


@given(bodies)
def test_hostile_bodies_are_pieces_or_a_usage_error(body: dict) -> None:
    try:
        _, pieces = pieces_of(body)
    except UsageError:
        return
    assert all(p.category in CATEGORIES for p in pieces)


def test_an_image_inside_a_tool_result_is_counted(tmp_path: Path) -> None:
    """A screenshot a tool returned (Claude Code writes it inside the tool_result) is an image
    piece priced by the provider's rule for an image of unknown size (the transcript keeps no
    image), not a 7-character placeholder."""
    records = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s",
         "message": {"role": "user", "content": "take a screenshot"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
         "message": {"id": "m1", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "tool_use", "id": "t1", "name": "screenshot", "input": {}}],
                     "usage": {"input_tokens": 10, "output_tokens": 5}}},
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                     "content": [{"type": "image", "source": {"type": "base64",
                                 "media_type": "image/png", "data": "iVBORw0KGgo="}}]}]}},
        {"type": "assistant", "uuid": "a2", "parentUuid": "u2", "sessionId": "s",
         "message": {"id": "m2", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": "done"}],
                     "usage": {"input_tokens": 1700, "output_tokens": 5}}},
    ]  # fmt: skip
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    made = anatomy_of(path)
    assert made.to_dict()["categories"]["image"] == 1600
    [image] = [i for i in made.items if i.category == "image"]
    assert "the recording keeps no image" in image.note


def test_an_image_with_its_bytes_is_priced_for_its_size_everywhere(tmp_path: Path) -> None:
    """When the recording keeps the image's bytes (Claude Code writes them base64 inside the
    tool_result), the placeholder keeps its size; anatomy prices it by Anthropic's rule, and
    replay adds each model's provider rule to the call that carried it."""
    from ctx_lab.recordings import replay_report
    from ctx_lab.recordings.transcripts import images_cost, load_transcript

    png = base64.b64encode(_png(800, 600)).decode()
    records = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s",
         "message": {"role": "user", "content": "take a screenshot"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s",
         "message": {"id": "m1", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "tool_use", "id": "t1", "name": "screenshot", "input": {}}],
                     "usage": {"input_tokens": 10, "output_tokens": 5}}},
        {"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                     "content": [{"type": "image", "source": {"type": "base64",
                                 "media_type": "image/png", "data": png}}]}]}},
        {"type": "assistant", "uuid": "a2", "parentUuid": "u2", "sessionId": "s",
         "message": {"id": "m2", "role": "assistant", "model": "claude-sonnet-4-5",
                     "content": [{"type": "text", "text": "done"}],
                     "usage": {"input_tokens": 700, "output_tokens": 5}}},
    ]  # fmt: skip
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    transcript = load_transcript(path)
    [result] = [m for m in transcript.messages if m.role == "tool_result"]
    assert result.content == "[image 800×600]"
    made = anatomy_of(path)
    assert made.to_dict()["categories"]["image"] == 640  # ceil(800 × 600 / 750)
    [image] = [i for i in made.items if i.category == "image"]
    assert image.note == "800×600 px: w × h / 750 (Anthropic)"
    assert images_cost(result, "claude-sonnet-4-5") == 640
    assert images_cost(result, "gpt-4o") == 85 + 170 * 4  # 2 × 2 tiles of 512
    assert images_cost(result, "gemini-2.0-flash") == 258 * 2  # 2 × 1 tiles of 768
    report = replay_report(transcript, models=["claude-sonnet-4-5", "gpt-4o"], counter="bytes/4")
    rows = {row["model"]: row["context_tokens"] for row in report.rows}  # each model's last call
    assert rows["claude-sonnet-4-5"] - rows["gpt-4o"] == 640 - 765  # only the image differs


def test_one_calls_csv_is_a_row_per_item() -> None:
    """``anatomy FILE --format csv`` for one call: its items as CSV, not the text table."""
    import csv
    import io

    path = REAL / "marot__spotter" / "tool_heavy.jsonl"
    result = invoke(["anatomy", str(path)]).result
    rows = list(csv.DictReader(io.StringIO(result.render("csv"))))
    assert len(rows) == len(result.items) and rows[0].keys() >= {"category", "name", "tokens"}
    assert sum(int(r["tokens"]) for r in rows) == result.total


def test_a_timestamp_in_an_openai_system_message_is_named_as_such() -> None:
    """Chat Completions keep the system prompt in message 0 (role ``system``): a changed date
    there is "a timestamp … in the system prompt", not an edited history."""
    from ctx_lab.anatomy import diff_calls, request_anatomy

    def body(day: str) -> dict:
        return {"model": "gpt-4o", "messages": [
            {"role": "system", "content": f"You are helpful. Today is 2026-11-{day}."},
            {"role": "user", "content": "hello"}]}  # fmt: skip

    before, after = request_anatomy(body("27")), request_anatomy(body("28"))
    texts = ["You are helpful. Today is 2026-11-27.", "You are helpful. Today is 2026-11-28."]
    assert diff_calls(before, after, texts).cache_break == (
        "a timestamp (or other number) in the system prompt changed"
    )
    edited = request_anatomy({**body("27"), "messages": [
        {"role": "system", "content": "You are terse."}, {"role": "user", "content": "hello"}]})  # fmt: skip
    assert diff_calls(before, edited, [texts[0], "You are terse."]).cache_break == (
        "the system prompt changed"
    )
