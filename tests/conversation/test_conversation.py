"""ContextManager: the design's must-hold cases, tool units, summaries, models, usage, save/load."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ctx_lab.conversation import (
    SUMMARY_PREFIX,
    ContextManager,
    ContextUsage,
    Expanding,
    Message,
    NoChange,
    Shrinking,
)
from ctx_lab.conversation._simulate import step_clock
from ctx_lab.errors import HistoryCorrupted, RecentMessagesTooLarge, SummarizationNeeded
from ctx_lab.tokens import count_tokens


def manager(
    sizes: list[int] | None = None, model: str = "unknown-model", **options
) -> ContextManager:
    m = ContextManager(model, clock=step_clock(), **options)
    for i, size in enumerate(sizes or []):
        m.push_message(Message.user(f"message {i}"), size)
    return m


def test_ids_and_default_budget() -> None:
    m = manager([10, 10, 10])
    assert [e.id for e in m.history.entries] == [0, 1, 2]
    assert m.effective_budget() == 3892 and m.limits.source == "default"


def test_ten_by_500_needs_summarization() -> None:
    with pytest.raises(SummarizationNeeded) as info:
        manager([500] * 10).prepare()
    assert info.value.messages_to_summarize == [0, 1, 2]
    assert info.value.excess_tokens == 1108


@pytest.mark.parametrize(
    ("sizes", "expected"),
    [([1000] * 4, (4000, 3892, 4)), ([1300] * 3, (3900, 3892, 3))],
)
def test_recent_messages_too_large(sizes, expected) -> None:
    with pytest.raises(RecentMessagesTooLarge) as info:
        manager(sizes).prepare()
    e = info.value
    assert (e.required_tokens, e.budget_tokens, e.message_count) == expected


def test_exact_fit_is_fine() -> None:
    assert manager([973] * 4).prepare().tokens == 3892


def test_summarize_then_fit_then_expand() -> None:
    m = manager([500] * 10)
    pending = m.prepare_summarization([0, 1, 2])
    assert (pending.original_tokens, pending.target_tokens) == (1500, 225)
    assert (pending.scope.start, pending.scope.end) == (0, 3)
    m.complete_summarization(pending.scope, "They discussed the plan.", "test", token_count=100)
    ctx = m.prepare()
    assert [s.kind for s in ctx.segments] == ["summary"] + ["original"] * 7
    assert ctx.segments[0].ids == (0, 1, 2) and ctx.tokens == 3600
    messages = ctx.api_messages()
    assert messages[0] == Message.system(f"{SUMMARY_PREFIX}\nThey discussed the plan.")
    adaptation = m.switch_model("claude-sonnet-4")
    assert adaptation == Expanding(3892, 129_200, 3)
    assert (
        all(s.kind == "original" for s in m.prepare().segments) and len(m.prepare().segments) == 10
    )


def test_mixed_sizes() -> None:
    with pytest.raises(SummarizationNeeded) as info:
        manager([100, 100, 1700, 100, 500, 500, 500, 500]).prepare()
    assert info.value.messages_to_summarize == [0, 1] and info.value.excess_tokens == 108


def test_summary_that_fits_uses_originals_when_they_fit() -> None:
    m = manager([300] * 10)
    pending = m.prepare_summarization(range(5))
    m.complete_summarization(pending.scope, "summary", "t", token_count=2000)
    segments = m.prepare().segments
    assert len(segments) == 10 and all(s.kind == "original" for s in segments)


def test_summary_kept_even_when_newer_block_needs_marking() -> None:
    m = manager([400] * 4)
    pending = m.prepare_summarization([0, 1])
    m.complete_summarization(pending.scope, "early", "t", token_count=64)
    for i in range(9):
        m.push_message(Message.user(f"later {i}"), 400)
    with pytest.raises(SummarizationNeeded) as info:
        m.prepare()
    assert 0 not in info.value.messages_to_summarize  # the old summary is not redone


def test_summary_tokens_and_message_tokens() -> None:
    m = manager()
    call = Message.tool_use("c1", "search", {"q": "pagination", "k": 3})
    expected = (
        count_tokens('search\n{"k":3,"q":"pagination"}', "cl100k")
        + count_tokens("assistant", "cl100k")
        + 4
    )
    assert m.count(call) == expected
    assert (
        m.count(Message.tool_result("c1", "found it")) == count_tokens("found it", "cl100k") + 1 + 4
    )
    m.push_message(Message.user("hello"))
    m.push_message(Message.assistant("hi"))
    pending = m.prepare_summarization([0, 1])
    m.complete_summarization(pending.scope, "greetings", "t")
    s = m.history.summaries[0]
    assert (
        s.token_count
        == count_tokens(f"{SUMMARY_PREFIX}\ngreetings", "cl100k")
        + count_tokens("system", "cl100k")
        + 4
    )
    assert s.original_tokens == sum(e.token_count for e in m.history.entries)


def test_parallel_tool_calls_are_never_split() -> None:
    m = manager(preserve_recent=2)
    m.push_message(Message.user("q"), 100)  # 0
    m.push_message(Message.tool_use("a", "f", {}), 100)  # 1
    m.push_message(Message.tool_use("b", "g", {}), 100)  # 2
    m.push_message(Message.tool_result("a", "ra"), 1700)  # 3
    m.push_message(Message.tool_result("b", "rb"), 1700)  # 4
    m.push_message(Message.assistant("answer"), 300)  # 5
    m.push_message(Message.user("thanks"), 300)  # 6
    assert m.tool_units() == [(1, 4)]
    with pytest.raises(SummarizationNeeded) as info:
        m.prepare()
    marked = info.value.messages_to_summarize
    assert marked == [0, 1, 2, 3, 4]  # the unit does not fit and is marked whole
    pending = m.prepare_summarization([3])
    assert (pending.scope.start, pending.scope.end) == (1, 5)  # widened to the whole unit
    m2 = manager(preserve_recent=2)
    for message, size in [
        (Message.user("q"), 10),
        (Message.tool_use("a", "f", {}), 10),
        (Message.tool_result("a", "r"), 10),
        (Message.user("next"), 10),
    ]:
        m2.push_message(message, size)
    m2.push_message(Message.tool_use("z", "h", {}), 10)
    m2.push_message(Message.tool_result("z", "r"), 10)
    m2.push_message(Message.assistant("done"), 10)
    ctx = m2.prepare()
    assert [s.ids[0] for s in ctx.segments] == list(range(7))
    m3 = manager(preserve_recent=1)
    m3.push_message(Message.tool_use("x", "h", {}), 10)
    m3.push_message(Message.tool_result("x", "r"), 10)
    assert m3._select(m3.message_budget()).recent_start == 0  # recent set extended backwards


def test_prepare_summarization_widens_to_existing_summary() -> None:
    m = manager([100] * 10)
    first = m.prepare_summarization([2, 3, 4])
    m.complete_summarization(first.scope, "s", "t", token_count=64)
    widened = m.prepare_summarization([4, 5, 6, 8])
    assert (widened.scope.start, widened.scope.end) == (2, 7)
    m.complete_summarization(widened.scope, "wider", "t", token_count=64)
    assert m.history.orphaned_summaries() == [0]
    assert m.prepare_summarization([]) is None
    with pytest.raises(ValueError):
        m.prepare_summarization([99])


def test_target_clamped() -> None:
    m = manager([10, 10, 100_000, 10, 10, 10, 10])
    assert m.prepare_summarization([0]).target_tokens == 64
    assert m.prepare_summarization([2]).target_tokens == 2048


def test_empty_summary_never_replaces_history() -> None:
    m = manager([500] * 10)
    pending = m.prepare_summarization([0, 1, 2])
    with pytest.raises(ValueError):
        m.complete_summarization(pending.scope, "   ", "t")
    assert m.history.summaries == []


def test_switch_model_variants() -> None:
    m = manager([500] * 6)
    assert m.switch_model("llama-3") == NoChange(3892)
    m2 = manager([3000] * 6, model="gpt-4o")
    shrink = m2.switch_model("gpt-4")
    assert isinstance(shrink, Shrinking) and shrink.needs_summarization
    m3 = manager([100] * 4, model="gpt-4o")
    assert m3.switch_model("gpt-4") == Shrinking(106_036, 3892, False)


def test_output_limit_system_prompt_and_tools() -> None:
    m = manager([100])
    m.set_output_limit(1024)
    assert m.effective_budget() == (8192 - 1024) - (8192 - 1024) // 20
    m.set_system_prompt("You are terse.")
    m.set_tools([{"name": "search", "parameters": {"type": "object"}}])
    overhead = m.overhead_tokens()
    assert overhead > 0 and m.message_budget() == m.effective_budget() - overhead
    ctx = m.prepare()
    assert ctx.api_messages()[0] == Message.system("You are terse.")
    assert ctx.usage().used_tokens == 100 + overhead


def test_usage_format_and_severity() -> None:
    assert ContextUsage(used_tokens=950, budget_tokens=3892).format_compact() == "950 / 3.9k (24%)"
    assert (
        ContextUsage(used_tokens=2100, budget_tokens=200_000).format_compact() == "2.1k / 200k (1%)"
    )
    assert (
        ContextUsage(
            used_tokens=50_000, budget_tokens=200_000, summarized_segments=2
        ).format_compact()
        == "50k / 200k (25%) [2S]"
    )
    assert (
        ContextUsage(used_tokens=1_500_000, budget_tokens=2_000_000).format_compact()
        == "1.5M / 2M (75%)"
    )
    # bad from 90 %: ctx_lab.severity, the one rule for paging budgets and the gauge
    assert [
        ContextUsage(used_tokens=u, budget_tokens=100).severity() for u in (0, 69, 70, 90, 91)
    ] == [0, 0, 1, 2, 2]
    priced = manager([1000], model="gpt-4o").usage()
    assert priced.estimated_cost() == pytest.approx(1000 * 2.5 / 1_000_000)
    bundle = priced._repr_mimebundle_()
    assert bundle["application/vnd.ctx-lab.usage+json"]["severity"] == "ok"
    assert "data-ctx-severity" in bundle["text/html"]


def test_usage_status_states() -> None:
    assert manager([10]).usage_status().state == "ready"
    assert manager([500] * 10).usage_status().state == "needs_summarization"
    status = manager([1000] * 4).usage_status()
    assert status.state == "recent_too_large" and status.usage.used_tokens == 4000


def test_step_ids_and_rollback() -> None:
    m = manager()
    first = m.push_message_with_step_id(Message.assistant("a"), 7)
    assert m.has_step_id(7) and not m.has_step_id(8)
    second = m.push_message(Message.user("b"))
    assert m.rollback_last_message(first) is None
    assert m.rollback_last_message(second) == Message.user("b") and len(m.history) == 1


def test_save_load_round_trip(tmp_path: Path) -> None:
    m = manager([500] * 10)
    m.set_system_prompt("sys")
    pending = m.prepare_summarization([0, 1, 2])
    m.complete_summarization(pending.scope, "summary text", "test-model", token_count=100)
    m.push_message(Message.tool_use("c", "f", {"x": 1}), 50)
    m.push_message(Message.tool_result("c", "ok", is_error=True), 50)
    path = tmp_path / "h.json"
    m.save(path)
    data = json.loads(path.read_text())
    assert data["format_version"] == 1 and data["model"] == "unknown-model"
    assert data["entries"][0]["created_at"].endswith("Z")
    assert data["summaries"][0]["covers"] == {"start": 0, "end": 3}
    loaded = ContextManager.load(path)
    assert loaded.history == m.history
    assert loaded.prepare().segments == m.prepare().segments
    assert ContextManager.load(path, model="gpt-4o").model == "gpt-4o"
    assert [p.name for p in tmp_path.iterdir()] == ["h.json"]


def corrupt(tmp_path: Path, change) -> Path:
    m = manager([500] * 6)
    pending = m.prepare_summarization([0, 1])
    m.complete_summarization(pending.scope, "s", "t", token_count=10)
    data = m.to_dict()
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        (lambda d: d["entries"][2].update(id=7), "entry 2 has id 7"),
        (lambda d: d.update(next_message_id=99), "next_message_id"),
        (lambda d: d.update(next_summary_id=3), "next_summary_id"),
        (lambda d: d["summaries"][0]["covers"].update(end=40), "beyond"),
        (lambda d: d["summaries"][0]["covers"].update(start=1, end=1), "empty range"),
        (lambda d: d["entries"][3].update(summary_id=0), "entry 3 points to summary 0"),
        (lambda d: d["entries"][1].update(summary_id=None), "entry 1 points to None"),
        (lambda d: d["entries"][0].update(summary_id=5), "missing summary 5"),
        (lambda d: d["summaries"][0].update(content=""), "summary 0 is empty"),
        (lambda d: d["entries"][0].update(token_count=-1), "token_count"),
        (lambda d: d["entries"][0]["message"].update(role="robot"), "entry 0 is malformed"),
    ],
)
def test_corrupted_histories(tmp_path: Path, change, needle) -> None:
    with pytest.raises(HistoryCorrupted, match=needle):
        ContextManager.load(corrupt(tmp_path, change))


def test_not_json(tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text("{not json")
    with pytest.raises(HistoryCorrupted, match="not JSON"):
        ContextManager.load(bad)


def test_ledger_frame() -> None:
    m = manager([500] * 10)
    frame = m.ledger()
    assert list(frame.columns) == ["id", "role", "tokens", "summary_id", "in_context"]
    assert frame["in_context"].tolist() == [False] * 3 + [True] * 7


def test_clock_is_injectable() -> None:
    fixed = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    m = ContextManager("x", clock=lambda: fixed)
    m.push_message(Message.user("hi"))
    assert m.history.entries[0].created_at == fixed


def test_usage_in_words_spells_out_the_summary_marker() -> None:
    assert ContextUsage(
        used_tokens=50_000, budget_tokens=200_000, summarized_segments=2
    ).describe() == ("50k / 200k (25%), 2 summarized segments in context")
    assert (
        ContextUsage(used_tokens=50_000, budget_tokens=200_000, summarized_segments=1)
        .describe()
        .endswith("1 summarized segment in context")
    )
    assert ContextUsage(used_tokens=950, budget_tokens=3892).describe() == "950 / 3.9k (24%)"
    usage = ContextUsage(used_tokens=50_000, budget_tokens=200_000, summarized_segments=1)
    assert "[1S]" not in usage.to_text() and "[1S]" not in usage.html_body()
    assert usage.to_dict()["compact"].endswith("[1S]")  # the design's terse form stays
    assert usage.to_dict()["described"] == usage.describe()


def test_history_columns_give_back_what_was_pushed() -> None:
    """Entries held as columns give back each entry as pushed: times in UTC, in other zones
    and naive exactly as given, step ids, summary ids (and their replacements) — and a history
    made from a list of entries, or from another history's, resolves as that one did."""
    from datetime import timedelta, timezone

    from ctx_lab.conversation._history import FullHistory, HistoryEntry, Summary

    times = [
        datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC),
        datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=5, minutes=30))),
        datetime(1969, 12, 31, 23, 59, 59, 1, tzinfo=UTC),  # before the epoch
        datetime(2026, 1, 2, 3, 4, 5),  # naive
        datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    ]
    history = FullHistory()
    for i, at in enumerate(times):
        assert history.push(Message.user(f"m{i}"), 10 + i, at, 7 if i == 1 else None) == i
    for i, entry in enumerate(history.entries):
        assert entry.id == i and entry.token_count == 10 + i
        assert entry.created_at == times[i] and entry.created_at.tzinfo is times[i].tzinfo
        assert entry.stream_step_id == (7 if i == 1 else None)
    assert history.has_step_id(7) and not history.has_step_id(8)
    at = times[0]
    history.add_summary(Summary(0, 0, 2, "first", 5, 21, at, "t"))
    history.add_summary(Summary(1, 0, 4, "wider", 6, 46, at, "t"))  # replaces summary 0
    assert [e.summary_id for e in history.entries] == [1, 1, 1, 1, None]
    assert [e.written_summary_id for e in history.entries] == [0, 0, 1, 1, None]
    assert history.entries[-1] == history.entries[4] and history.entries[1:3][0].id == 1

    copied = FullHistory(list(history.entries), list(history.summaries))
    assert copied == history and [e.summary_id for e in copied.entries] == [1, 1, 1, 1, None]
    loaded = FullHistory.from_dict(json.loads(json.dumps(history.to_dict())))
    assert loaded.to_dict() == history.to_dict()  # (a naive time is saved as local time)
    assert [e.created_at for e in loaded.entries if e.id != 3] == times[:3] + times[4:]
    # ids are positions: an entry stands only where its id says, and only the tail goes
    with pytest.raises(ValueError, match="ids are positions"):
        history.entries[0] = history.entries[1]
    with pytest.raises(ValueError, match="ids are positions"):
        history.entries.insert(0, history.entries[0])
    with pytest.raises(ValueError, match="ids are positions"):
        del history.entries[1]
    with pytest.raises(IndexError):
        history.entries[5]
    entry = history.entries[2]
    history.entries[2] = HistoryEntry(2, Message.user("new"), 99, times[3], None, 3, None)
    assert history.entries[2].message == Message.user("new") and history.has_step_id(3)
    assert history.entries[2].created_at == times[3] and history.entries[2].summary_id is None
    history.entries[2] = entry
    del history.entries[3:]
    assert len(history.entries) == 3 and history.entries[-1].id == 2


def test_a_message_costs_the_history_a_few_array_items() -> None:
    """Beyond the messages, the history holds about four 8-byte items per message (was ~200
    bytes: an entry object, its timestamp and its id) — measured by allocation, not time."""
    import tracemalloc
    from datetime import timedelta

    n = 20_000
    messages = [Message.user(f"m{i}") for i in range(n)]
    start = datetime(2026, 1, 1, tzinfo=UTC)
    ticks = iter([start + timedelta(seconds=i) for i in range(n)])
    m = ContextManager("gpt-4o", counter="bytes/4", clock=lambda: next(ticks))
    m.push_message(messages[0], 300)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for message in messages[1:]:
            m.push_message(message, 1_000)
        m.usage_status()
        held = (tracemalloc.get_traced_memory()[0] - before) / (n - 1)
    finally:
        tracemalloc.stop()
    assert held <= 64


def test_token_counts_beyond_a_trillion_are_refused(tmp_path: Path) -> None:
    """A count the 64-bit columns could not hold is a usage error when pushed and a corrupted
    history when loaded — never an overflow traceback."""
    from ctx_lab.errors import UsageError

    m = manager([10])
    with pytest.raises(UsageError, match="token_count must be at most 1,000,000,000,000"):
        m.push_message(Message.user("x"), 10**30)
    with pytest.raises(UsageError, match="at most"):
        m.history.push(Message.user("x"), 2**63, datetime(2026, 1, 1, tzinfo=UTC))
    assert len(m.history) == 1
    m.push_message(Message.user("y"), 10**12)  # the largest allowed
    saved = tmp_path / "h.json"
    m.save(saved)
    data = json.loads(saved.read_text())
    data["entries"][0]["token_count"] = 10**30
    saved.write_text(json.dumps(data))
    with pytest.raises(HistoryCorrupted, match="entry 0 has an invalid token_count"):
        ContextManager.load(saved)
