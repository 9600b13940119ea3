"""Replaying recorded sessions against models, and calibrating an estimate from their usage:
deterministic rows, summarization when a model's window fills, tool pairs never split, prices
with prompt caching, reported vs counted, a known factor recovered within its band, and the
``model`` counter using the stored calibration."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from paths import REPO

from ctx_lab.conversation import ContextManager, Message
from ctx_lab.errors import CalibrationError, TranscriptError, UsageError
from ctx_lab.recordings import ReplaySettings, load_transcript
from ctx_lab.recordings.calibration._calibrate import calibrate
from ctx_lab.recordings.replay._replay import (
    REPLAY_COLUMNS,
    ReplayReport,
    plot_replay,
    replay_report,
)
from ctx_lab.tokens import (
    Calibration,
    find_calibration,
    get_counter,
    resolve_counter,
    save_calibration,
)

SESSIONS = REPO / "ctx_lab" / "examples" / "sessions"
CODING = SESSIONS / "coding-session.jsonl"
CHAT = SESSIONS / "support-chat.jsonl"
WORDS = "parse token budget window model call result file line error retry index".split()


@pytest.fixture(scope="module")
def coding():
    return load_transcript(CODING)


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CTX_LAB_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "config"


def openai_log(path: Path, factor: float, calls: int = 40, seed: int = 3) -> Path:
    """Chat Completions request/response pairs whose usage is ``factor`` × ctx_lab's bytes/4
    count of the request, ±3 %."""
    rng = random.Random(seed)
    messages: list[dict] = [{"role": "system", "content": "Be brief. " * 20}]
    manager = ContextManager("x", counter="bytes/4")
    manager.set_system_prompt(messages[0]["content"])
    counted = manager.overhead_tokens()
    lines = []
    for _ in range(calls):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(30, 300)))
        messages.append({"role": "user", "content": text})
        counted += manager.count(Message.user(text))
        reported = round(counted * factor * rng.uniform(0.97, 1.03))
        answer = {"role": "assistant", "content": " ".join(rng.choice(WORDS) for _ in range(40))}
        lines.append(
            json.dumps(
                {
                    "request": {"model": "claude-test", "messages": list(messages)},
                    "response": {
                        "choices": [{"message": answer}],
                        "usage": {"prompt_tokens": reported, "completion_tokens": 50},
                    },
                }
            )
        )
        messages.append(answer)
        counted += manager.count(Message.assistant(answer["content"]))
    path.write_text("\n".join(lines) + "\n")
    return path


# -- transcripts as the replay reads them ---------------------------------------------------------


def test_bundled_session_has_what_real_sessions_have(coding) -> None:
    assert coding.format == "claude-code" and len(coding.calls) > 250
    assert coding.compactions and coding.recorded_summaries == coding.compactions
    assert coding.sidechain_lines == 6 and coding.images == 1
    # one response written as several lines (one per content block) is one call
    raw = [json.loads(line) for line in CODING.read_text().splitlines()]
    ids = [r["message"]["id"] for r in raw if r.get("type") == "assistant" and "id" in r["message"]]
    assert len(ids) > len(set(ids)) and len(coding.calls) == len(set(ids))
    # parallel tool calls: a call whose answer holds several tool uses
    assert any(
        sum(m.role == "tool_use" for m in coding.messages[c.sent_end : c.context]) > 1
        for c in coding.calls
    )
    first_after = coding.compaction_calls()[0]
    start, end = coding.sent_range(coding.calls[first_after])
    assert start == coding.compactions[0] and end > start
    assert coding.sent_range(coding.calls[first_after - 1])[0] == 0


def test_split_lines_and_client_error_messages(tmp_path: Path) -> None:
    usage = {"input_tokens": 5, "output_tokens": 9, "cache_read_input_tokens": 100}
    rows = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"content": "hi"}},
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "message": {
                "id": "msg_1",
                "model": "claude-haiku-4-5",
                "content": [{"type": "text", "text": "Reading."}],
                "usage": usage,
            },
        },
        {
            "type": "assistant",
            "uuid": "a2",
            "parentUuid": "a1",
            "message": {
                "id": "msg_1",
                "model": "claude-haiku-4-5",
                "content": [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}],
                "usage": {**usage, "output_tokens": 30},
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "parentUuid": "a2",
            "message": {"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]},
        },
        {
            "type": "assistant",
            "uuid": "e1",
            "parentUuid": "u2",
            "isApiErrorMessage": True,
            "message": {"model": "<synthetic>", "content": [{"type": "text", "text": "API Error"}]},
        },
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    t = load_transcript(path)
    assert len(t.calls) == 1 and t.calls[0].prompt == 1 and t.calls[0].context == 3
    assert t.calls[0].usage is not None and t.calls[0].usage.output_tokens == 30
    assert "API Error" not in " ".join(m.content for m in t.messages)


# -- replay ----------------------------------------------------------------------------------------


def test_replay_is_deterministic_and_tidy(coding) -> None:
    first = replay_report(coding, ["claude-sonnet-4-5", "gpt-4o", "gpt-4.1"])
    again = replay_report(coding, ["claude-sonnet-4-5", "gpt-4o", "gpt-4.1"])
    assert first.to_dict() == again.to_dict()
    frame = first.frame()
    assert list(frame.columns) == REPLAY_COLUMNS
    assert len(frame) == 3 * len(coding.calls)
    assert ReplayReport.from_dict(json.loads(first.to_json())).to_dict() == first.to_dict()
    summary = {s["model"]: s for s in first.summary()}
    # one counter (o200k), two windows: 128k fills, a million never needs summarizing
    assert summary["gpt-4.1"]["first_summarization"] is None
    assert summary["gpt-4o"]["first_summarization"] is not None
    # Claude counts with its built-in estimate (about 1.3 tokens per o200k token on this
    # text), so its 200k window is not "later" than gpt-4o's 128k by construction; it
    # summarizes at most once per time it fills, never before the session has grown
    claude = summary["claude-sonnet-4-5"]["first_summarization"]
    assert claude is None or claude > 1
    assert first.recorded_compactions == tuple(c + 1 for c in coding.compaction_calls())


def test_replay_pauses_the_collector_only_while_it_runs(coding, monkeypatch) -> None:
    import gc
    import importlib

    module = importlib.import_module(
        "ctx_lab.recordings.replay._replay"
    )  # paused by ctx_lab.collector

    seen: list[bool] = []
    real = module.replay_model

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "replay_model", spy)
    assert gc.isenabled()
    replay_report(coding, ["gpt-4o", "gpt-4.1"])
    assert seen == [False, False] and gc.isenabled()
    gc.disable()  # a caller that had it off keeps it off
    try:
        replay_report(coding, ["gpt-4o"])
        assert not gc.isenabled()
    finally:
        gc.enable()
    monkeypatch.setattr(module, "replay_model", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        replay_report(coding, ["gpt-4o"])
    assert gc.isenabled()


def test_context_never_exceeds_the_budget_and_summaries_replace_history(coding) -> None:
    report = replay_report(coding, "gpt-4o")  # a 128k window: the session outgrows it
    for row in report.rows:
        assert row["headroom"] == row["budget"] - row["context_tokens"]
        if not row["event"] or row["event"].startswith("summarized"):
            assert row["context_tokens"] <= row["budget"]
    summarized = [r for r in report.rows if r["summarized_tokens"]]
    assert summarized and all(r["needed_summarization"] for r in summarized)
    assert all(r["excess_tokens"] > 0 for r in summarized)
    last = report.rows[-1]
    assert last["history_tokens"] > last["budget"] >= last["context_tokens"]
    assert last["summaries"] >= len(summarized)
    assert report.counters[0]["counter"] == "o200k" and report.counters[0]["exact"]


def test_a_window_too_small_for_the_current_task_says_so(coding) -> None:
    """An 8k model: the newest user turn (the task prompt, dozens of tool calls back) is never
    summarized away, so the recent messages alone exceed the budget — reported, not hidden."""
    report = replay_report(coding, "gpt-4")
    events = {r["event"] for r in report.rows if r["event"]}
    assert any("exceed the budget" in e or "cannot fit" in e for e in events)
    assert any(r["headroom"] < 0 for r in report.rows)


def test_no_tool_pair_is_split_after_summarizing(coding) -> None:
    manager = coding.to_manager("gpt-4o", counter="o200k")
    from ctx_lab.conversation import ExtractiveSummarizer

    manager.summarize_pending(ExtractiveSummarizer("o200k"))
    assert manager.history.summaries
    kept = manager.prepare().api_messages(include_system=False)
    uses = [m.call_id for m in kept if m.role == "tool_use"]
    results = [m.call_id for m in kept if m.role == "tool_result"]
    assert sorted(uses) == sorted(results)


def test_prices_with_and_without_prompt_caching(coding) -> None:
    cached = replay_report(coding, "claude-sonnet-4-5", counter="bytes/4")
    plain = replay_report(
        coding, "claude-sonnet-4-5", counter="bytes/4", settings=ReplaySettings(caching=False)
    )
    for row in cached.rows[1:50]:
        if not row["summarized_tokens"]:
            assert row["cached_tokens"] > 0
        assert row["input_cost_usd"] == round(row["new_tokens"] * 3.75 / 1e6, 6)
        assert row["cached_cost_usd"] == round(row["cached_tokens"] * 0.3 / 1e6, 6)
    assert all(r["cached_tokens"] == 0 for r in plain.rows)
    total = lambda report: sum(r["cost_usd"] for r in report.rows)  # noqa: E731
    assert total(cached) < total(plain) / 3
    unknown = replay_report(coding, "llama-3-70b", counter="bytes/4")  # no prices
    assert all(r["cost_usd"] is None for r in unknown.rows)
    assert unknown.summary()[0]["cost_usd"] is None


def test_reported_beside_counted(coding, tmp_path: Path) -> None:
    report = replay_report(coding, "claude-sonnet-4-5", counter="bytes/4")
    row = report.rows[10]
    call = coding.calls[10]
    assert call.usage is not None and row["reported_input"] == call.usage.reported_input
    assert row["reported_cached"] == call.usage.cache_read_input_tokens
    assert 0 < row["counted_input"] < row["reported_input"]
    request = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}
    bare = load_transcript(request)
    assert replay_report(bare, "gpt-4o").rows[0]["reported_input"] is None


def test_replay_needs_calls_and_models(tmp_path: Path) -> None:
    no_model = load_transcript({"messages": [{"role": "user", "content": "hi"}]})
    with pytest.raises(UsageError, match="names no model"):
        replay_report(no_model)
    assert replay_report(no_model, "gpt-4o").rows  # a messages list is one call


def test_plot_replay_marks_budgets_summaries_and_compactions(coding) -> None:
    import matplotlib

    matplotlib.use("Agg")
    fig = plot_replay(replay_report(coding, ["gpt-4o", "gpt-4.1"]).frame())
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert {"gpt-4o", "gpt-4.1", "gpt-4o: summarized", "recorded compaction"} <= set(labels)
    assert ax.get_ylabel() == "context tokens"


# -- calibration -----------------------------------------------------------------------------------


def test_calibration_recovers_a_known_factor(tmp_path: Path) -> None:
    log = openai_log(tmp_path / "log.jsonl", 1.31)
    fitted = calibrate([log], "bytes/4", "claude-test", save=False)
    assert fitted.method == "ratio" and fitted.calls == 40
    assert fitted.low <= 1.31 <= fitted.high and abs(fitted.ratio - 1.31) < 0.02
    assert fitted.high - fitted.low < 0.1
    assert fitted.describe().startswith("claude-test: calibrated bytes/4 ×1.3")


def test_growth_calibration_sees_through_an_unrecorded_system_prompt(coding) -> None:
    """The bundled session reports 14,800 hidden tokens plus bytes/4 × 1.24 (per message
    0.9–1.1): growth recovers both; a plain ratio is biased by the hidden prompt."""
    growth = calibrate([coding], "bytes/4", "claude-sonnet-4-5", save=False)
    assert growth.method == "growth" and growth.low <= 1.24 <= growth.high
    assert abs(growth.ratio - 1.24) < 0.03 and abs(growth.overhead - 14_800) < 1_500
    ratio = calibrate([coding], "bytes/4", "claude-sonnet-4-5", method="ratio", save=False)
    assert ratio.ratio > 1.4
    # asked for by name, the ratio is what counts (and what the summary line says)
    assert ratio.counter_name == f"bytes/4*{ratio.ratio:g}" and ratio.growth_band is None
    assert f"×{ratio.ratio:.2f} [" in ratio.describe()
    assert growth.counter_name.startswith("bytes/4*{") and growth.growth_band is not None


def test_calibration_errors(tmp_path: Path, coding) -> None:
    with pytest.raises(CalibrationError, match="no calls of gpt-4o"):
        calibrate([coding], "bytes/4", "gpt-4o", save=False)
    with pytest.raises(UsageError, match="not 'model'"):
        calibrate([coding], "model", save=False)
    mixed = [coding, openai_log(tmp_path / "l.jsonl", 1.2, calls=40)]
    picked = calibrate(mixed, "bytes/4", save=False)  # the model of most calls, said so
    assert picked.model == "claude-sonnet-4-5-20250929"
    assert any("claude-test (40)" in w and "--model" in w for w in picked.warnings)
    (tmp_path / "bad.jsonl").write_text('{"messages": []}\n{oops\n')
    with pytest.raises(TranscriptError, match="line 2"):
        calibrate([tmp_path / "bad.jsonl"], save=False)


def test_model_counter_uses_the_stored_calibration(tmp_path: Path, config: Path) -> None:
    before = resolve_counter("model", "claude-test-20260101", "bytes/4")
    assert before.name == "bytes/4" and before.calibration is None
    fitted = calibrate(
        [openai_log(tmp_path / "log.jsonl", 1.31)], "bytes/4", "claude-test", save=True
    )
    assert fitted.saved_to == str(config / "calibrations.json")
    choice = resolve_counter("model", "anthropic/claude-test-20260101", "bytes/4")
    # one session cannot show a class fit beats one ratio on sessions it did not see: every
    # class shares the pooled ratio, and the band is in-sample (said)
    prose = next(c for c in fitted.classes if c.klass == "prose")
    assert all(c.pooled for c in fitted.classes if c.klass != "thinking")
    assert fitted.growth_band is not None and "in-sample" in fitted.band_how
    assert choice.name.startswith("bytes/4*{prose:") and not choice.exact
    assert "calibrated bytes/4 ×1.3" in choice.note and "40 calls" in choice.note
    assert "90 % band ±" in choice.note and "in-sample" in choice.note
    assert "per content class" not in choice.note and "upper edge" not in choice.note
    counter = get_counter(choice.name)
    text = "a sentence of about forty bytes of text."
    assert counter.count(text) == round(get_counter("bytes/4").count(text) * prose.ratio)
    # exact tokenizers are never replaced by a calibration
    save_calibration(
        Calibration(model="gpt-4o", base="bytes/4", ratio=1.1, low=1.0, high=1.2, calls=9), config
    )
    assert resolve_counter("model", "gpt-4o", "bytes/4").name == "o200k"
    # payloads name the calibration used
    from ctx_lab import commands

    packet = commands.packet(example=True, model="claude-test-2").payload()
    # a budget counts at the band's upper edge, and says so
    assert packet["counter"] == fitted.counter_for(budget=True) and not packet["exact"]
    assert (
        packet["counter"].startswith(f"bytes/4*{{prose:{prose.ratio:g},")
        and ",z:" in packet["counter"]
    )
    assert any("calibrated" in w and "upper edge" in w for w in packet["warnings"])


def test_damaged_calibrations_file_falls_back_with_a_note(config: Path) -> None:
    config.mkdir(parents=True)
    (config / "calibrations.json").write_text("{not json")
    choice = resolve_counter("model", "claude-sonnet-4-5", "bytes/4")
    assert choice.name == "bytes/4" and "unreadable" in choice.note
    save_calibration(
        Calibration(
            model="claude-sonnet-4-5", base="bytes/4", ratio=1.2, low=1.1, high=1.3, calls=50
        )
    )
    assert find_calibration("claude-sonnet-4-5-20250929") is not None


def test_scaled_counter_names(config: Path) -> None:
    assert get_counter("o200k*1.5").count("hello world") == 3
    with pytest.raises(UsageError, match="factor"):
        get_counter("bytes/4*0")
    with pytest.raises(UsageError):
        get_counter("nope*2")


# -- the commands ---------------------------------------------------------------------------------


def test_cli_replay_and_calibrate(run_cli, tmp_path: Path, config: Path) -> None:
    code, out, err = run_cli("replay", str(CHAT), "--model", "gpt-4.1-mini", "--model", "gpt-4")
    assert code == 0 and "gpt-4.1-mini" in out and "first summarization" in out
    code, out, _ = run_cli("replay", str(CHAT), "--format", "csv")
    assert code == 0 and out.splitlines()[0] == ",".join(REPLAY_COLUMNS)
    assert len(out.splitlines()) == 1 + len(load_transcript(CHAT).calls)
    target = tmp_path / "r.json"
    code, _, _ = run_cli("replay", str(CHAT), "--format", "json", "-o", str(target))
    assert code == 0 and json.loads(target.read_text())["format"] == "openai-chat"
    code, out, _ = run_cli("calibrate", str(CHAT), "--counter", "o200k")
    assert code == 0 and "gpt-4.1-mini: calibrated o200k ×1.00" in out
    assert not (config / "calibrations.json").exists()
    code, out, _ = run_cli("calibrate", str(CODING), "--model", "claude-sonnet-4-5", "--save")
    assert code == 0 and (config / "calibrations.json").exists()
    code, _, err = run_cli("replay", str(CODING), "--model", "claude-sonnet-4-5")
    assert code == 0 and "calibrated bytes/4 ×1.2" in err and "90 % band" in err
    (tmp_path / "bad.jsonl").write_text('{"messages": []}\n{oops\n')
    code, _, err = run_cli("replay", str(tmp_path / "bad.jsonl"))
    assert code == 1 and "line 2 is not JSON" in err and "Traceback" not in err
    code, _, err = run_cli("replay", str(CHAT), "--preserve-recent", "-1")
    assert code == 2


@pytest.mark.parametrize("model", ["gpt-4", "gpt-4o"])
def test_reused_selections_agree_with_selecting_at_every_call(model, monkeypatch) -> None:
    """Replay reuses its last exact selection while only appends happen (and a tool result
    answers a call after the summarized history); selecting afresh at every call gives the
    same context, state and summaries on every call."""
    from bench.workloads import agent_session
    from ctx_lab.recordings.replay import _replay_model as _replay

    session = agent_session(400, result_words=(50, 400))
    fast = replay_report(session, [model], counter="bytes/4").rows
    monkeypatch.setattr(_replay, "_still_holds", lambda *args: False)
    exact = replay_report(session, [model], counter="bytes/4").rows
    keys = ("context_tokens", "needed_summarization", "summaries", "summarized_tokens")
    assert [tuple(r[k] for k in keys) for r in fast] == [tuple(r[k] for k in keys) for r in exact]
    assert any(r["summaries"] for r in fast)  # the replay did summarize


LONG = REPO.parent / "shared" / "real-data" / "transcripts" / "marot__spotter" / "long"


@pytest.mark.parametrize(
    "name", ["8463c716-a2ea-4c14-9efa-87158ebd9f20", "ae4a77f8-aedd-4bc1-888f-c94edc91af04"]
)
def test_a_recorded_compaction_is_the_summary_of_what_came_before(name: str) -> None:
    """The agent's own compaction summary stands for every message before it: the newest real
    user prompt (summarized there) no longer holds the whole session as 'recent', so the long
    sessions fit on gpt-4o without a call over the budget (57 were, silently, before)."""
    transcript = load_transcript(LONG / f"{name}.jsonl")
    assert transcript.recorded_summaries
    report = replay_report(transcript, ["gpt-4o", "claude-sonnet-4-5", "gpt-4.1"])
    compacted = transcript.compaction_calls()[0]
    for model in report.models:
        rows = [r for r in report.rows if r["model"] == model]
        assert not [r for r in rows if r["over_budget"]], model
        after = [r for r in rows if r["call"] > compacted]
        assert after and all(r["summaries"] >= 1 for r in after)  # the recorded summary
    for summary in report.summary():
        rows = [r for r in report.rows if r["model"] == summary["model"]]
        assert summary["summarizations"] == rows[-1]["summaries"] - 1  # made, not recorded
        assert summary["over_budget_calls"] == 0


def test_calls_over_the_budget_are_flagged_and_counted_in_a_warning(coding) -> None:
    """An 8k model cannot hold the task prompt and its recent tool calls: every such call is
    flagged in the rows, and one warning per model counts them with the worst headroom."""
    report = replay_report(coding, "gpt-4")
    over = [r for r in report.rows if r["headroom"] < 0]
    assert over and all(r["over_budget"] for r in over)
    assert not [r for r in report.rows if r["over_budget"] and r["headroom"] >= 0]
    [summary] = report.summary()
    worst = min(report.rows, key=lambda r: r["headroom"])
    assert summary["over_budget_calls"] == len(over)
    assert (summary["worst_headroom"], summary["worst_call"]) == (worst["headroom"], worst["call"])
    warning = f"gpt-4: {len(over)} of {len(report.rows)} calls over the budget"
    assert any(w.startswith(warning) for w in report.warnings), report.warnings
    assert f"{len(over)} (worst {worst['headroom']:+,} at call {worst['call']})" in report.to_text()
    made = report.rows[-1]["summaries_made"]
    assert summary["summarizations"] == made <= summary["calls_needing_summary"]


def test_a_summarized_user_turn_is_not_held_as_recent() -> None:
    """Selection keeps the newest user turn unless a summary already stands for it."""
    manager = ContextManager("gpt-4", counter="bytes/4")
    manager.push_message(Message.user("the task " * 200))
    for i in range(30):
        manager.push_message(Message.assistant(f"step {i} " * 150))
    assert manager.usage_status().state == "recent_too_large"
    from ctx_lab.conversation._working import SummarizationScope

    manager.complete_summarization(SummarizationScope(0, 20), "what happened so far", "test")
    assert manager.usage_status().state != "recent_too_large"


def test_calibrate_goes_on_past_a_file_it_cannot_read(tmp_path: Path) -> None:
    """Over several files, one that is not a transcript is left out and named (replay does the
    same); a single bad file is still its own error."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    fitted = calibrate([bad, empty, CODING], "bytes/4", "claude-sonnet-4-5")
    [left_out] = [w for w in fitted.warnings if "could not be read" in w]
    assert left_out.startswith("2 file(s) could not be read") and "line 1 is not JSON" in left_out
    assert fitted.transcripts == 1
    with pytest.raises(TranscriptError, match="line 1 is not JSON"):
        calibrate([bad], "bytes/4", "claude-sonnet-4-5")
    with pytest.raises(TranscriptError, match="none of the 2 files could be read"):
        calibrate([bad, empty], "bytes/4", "claude-sonnet-4-5")
