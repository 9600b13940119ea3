"""Conversation invariants as properties over random conversations, and the hardening rows of
the conversation manager: tool pairs never split, the newest user turn never summarized, bad
summarizers never change history, unsavable text refused, malformed histories refused."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctx_lab.conversation import ContextManager, ExtractiveSummarizer, Message, StreamJournal
from ctx_lab.errors import (
    CtxLabError,
    HistoryCorrupted,
    RecentMessagesTooLarge,
    SummarizationNeeded,
    SummarizerError,
    UsageError,
)

Step = tuple[str, int, int]  # (kind, tokens, parallel calls)
steps = st.lists(
    st.tuples(
        st.sampled_from(["user", "assistant", "tools", "tools-pending"]),
        st.integers(20, 900),
        st.integers(1, 3),
    ),
    min_size=1,
    max_size=40,
)


def play(script: list[Step], preserve_recent: int) -> ContextManager:
    manager = ContextManager("gpt-4", counter="bytes/4", preserve_recent=preserve_recent)
    manager.set_system_prompt("You are terse.")
    manager.set_tools([{"name": "search", "description": "find things"}])
    call = 0
    pending: list[str] = []
    for kind, tokens, parallel in script:
        for call_id in pending:  # answer what was left open, in reverse order
            manager.push_message(Message.tool_result(call_id, "late result"), tokens)
        pending = []
        if kind in ("user", "assistant"):
            manager.push_message(Message(kind, f"{kind} text"), tokens)
            continue
        calls = []
        for _ in range(parallel):
            call += 1
            calls.append(f"call-{call}")
            manager.push_message(Message.tool_use(calls[-1], "search", {"q": call}), tokens // 4)
        _prepare(manager)  # the model may summarize while calls are open
        if kind == "tools-pending":
            pending = list(reversed(calls))
        else:
            for call_id in reversed(calls):
                manager.push_message(Message.tool_result(call_id, "result " * 5), tokens)
    return manager


def _prepare(manager: ContextManager):
    try:
        return manager.prepare()
    except SummarizationNeeded:
        try:
            manager.summarize_pending(ExtractiveSummarizer())
        except CtxLabError:
            return None
        return manager.prepare()
    except RecentMessagesTooLarge:
        return None


@settings(max_examples=120, deadline=None)
@given(steps, st.integers(0, 6))
def test_working_context_invariants(script: list[Step], preserve_recent: int) -> None:
    manager = play(script, preserve_recent)
    context = _prepare(manager)
    if context is None:
        return
    messages = context.api_messages()
    assert messages[0].role == "system" and messages[0].content == "You are terse."
    assert context.overhead_tokens > 0  # system prompt and tools are always counted in
    uses = [m.call_id for m in messages if m.role == "tool_use"]
    results = [m.call_id for m in messages if m.role == "tool_result"]
    answered = {
        e.message.call_id for e in manager.history.entries if e.message.role == "tool_result"
    }
    for call_id in results:
        assert call_id in uses, f"tool_result {call_id} without its tool_use"
        assert uses.index(call_id) < len(messages)
    for call_id in uses:
        if call_id in answered:
            assert call_id in results, f"tool_use {call_id} without its tool_result"
    users = [e.id for e in manager.history.entries if e.message.role == "user"]
    originals = {i for s in context.segments if s.kind == "original" for i in s.ids}
    if users:
        assert users[-1] in originals, "the newest user turn was summarized away"


def test_newest_user_turn_is_kept_after_many_tool_messages() -> None:
    manager = ContextManager("gpt-4", counter="bytes/4", preserve_recent=2)
    for i in range(12):
        manager.push_message(Message.user(f"old question {i}"), 400)
    manager.push_message(Message.user("the question that matters"), 300)
    for i in range(6):
        manager.push_message(Message.tool_use(f"c{i}", "search", {}), 50)
        manager.push_message(Message.tool_result(f"c{i}", "r"), 50)
    manager.summarize_pending(ExtractiveSummarizer())
    context = manager.prepare()
    assert "the question that matters" in [m.content for m in context.api_messages()]


def test_a_summary_made_before_results_arrived_never_splits_the_pair() -> None:
    manager = ContextManager("gpt-4", counter="bytes/4", preserve_recent=1)
    for i in range(10):
        manager.push_message(Message.user(f"q{i}"), 300)
    manager.push_message(Message.tool_use("a", "search", {}), 100)
    manager.push_message(Message.tool_use("b", "search", {}), 100)
    # summarize while both calls are open: they must stay out of any summary
    with contextlib.suppress(CtxLabError):
        manager.summarize_pending(ExtractiveSummarizer())
    for summary in manager.history.summaries:
        assert summary.end <= 10
    manager.push_message(Message.tool_result("b", "rb"), 100)
    manager.push_message(Message.tool_result("a", "ra"), 100)
    messages = _prepare(manager).api_messages()
    roles = [(m.role, m.call_id) for m in messages if m.call_id]
    assert roles == [
        ("tool_use", "a"),
        ("tool_use", "b"),
        ("tool_result", "b"),
        ("tool_result", "a"),
    ]


class NoProgress:
    name = "useless"

    def summarize(self, messages, target_tokens):
        return "much longer than what it replaces " * 5000


class ReturnsInt:
    def summarize(self, messages, target_tokens):
        return 42


class Explodes:
    def summarize(self, messages, target_tokens):
        raise RuntimeError("model overloaded")


@pytest.mark.parametrize("summarizer", [NoProgress(), ReturnsInt(), Explodes()])
def test_a_bad_summarizer_never_changes_history(summarizer) -> None:
    manager = ContextManager("gpt-4", counter="bytes/4", preserve_recent=2)
    for i in range(30):
        manager.push_message(Message.user(f"message {i} " + "words " * 20), 300)
    before = json.dumps(manager.to_dict(), sort_keys=True)
    with pytest.raises(CtxLabError) as info:
        manager.summarize_pending(summarizer)
    if not isinstance(summarizer, NoProgress):
        assert isinstance(info.value, SummarizerError)
    assert json.dumps(manager.to_dict(), sort_keys=True) == before


@pytest.mark.parametrize("text", ["\ud83d", "ok \udc00 then", "a\ud800"])
def test_unsavable_text_is_refused_before_it_poisons_anything(text: str, tmp_path: Path) -> None:
    manager = ContextManager("gpt-4", counter="bytes/4")
    with pytest.raises(UsageError, match="surrogate"):
        manager.push_message(Message.user(text))
    manager.push_message(Message.user("fine"))
    manager.save(tmp_path / "h.json")  # still saves
    journal = StreamJournal.open(tmp_path / "j.db")
    active = journal.begin_session("m")
    with pytest.raises(UsageError, match="surrogate"):
        active.append_text(text)
    active.append_text("fine")
    assert active.seal() == "fine"


BAD_FIELDS = [
    ("created_at", 5),
    ("created_at", "2026-01-01T00:00:00"),  # no time zone
    ("created_at", "9999-12-31T23:59:59-12:00"),
    ("message", {"role": "tool_use", "content": "", "call_id": {}, "name": "x"}),
    ("message", {"role": "user", "content": 7}),
    ("message", {"role": "tool_result", "content": "r", "call_id": "c", "is_error": "yes"}),
    (
        "message",
        {
            "role": "tool_use",
            "content": "",
            "call_id": "c",
            "name": "x",
            "arguments": {"q": "\ud800"},
        },
    ),
    ("message", ["user", "hi"]),
    ("message", {"role": ["user"], "content": "hi"}),
]


@pytest.mark.parametrize(("field", "value"), BAD_FIELDS)
def test_a_history_with_wrong_types_is_refused_at_load(tmp_path: Path, field: str, value) -> None:
    manager = ContextManager("gpt-4", counter="bytes/4")
    manager.push_message(Message.user("hello"))
    data = manager.to_dict()
    data["entries"][0][field] = value
    path = tmp_path / "h.json"
    path.write_text(json.dumps(data, default=list))
    with pytest.raises(HistoryCorrupted):
        ContextManager.load(path)


@settings(max_examples=80, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=5),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=12,
    ),
    st.sampled_from(["entries", "summaries", "message", "created_at", "token_count", "summary_id"]),
)
def test_any_history_json_loads_and_prepares_or_is_refused(tmp_path_factory, junk, where) -> None:
    manager = ContextManager("gpt-4", counter="bytes/4")
    manager.push_message(Message.user("hello"), 10)
    manager.push_message(Message.tool_use("c", "search", {"q": 1}), 10)
    manager.push_message(Message.tool_result("c", "r"), 10)
    data = manager.to_dict()
    history = data
    if where in ("entries", "summaries"):
        history[where] = junk
    else:
        history["entries"][1][where] = junk
    path = tmp_path_factory.mktemp("h") / "h.json"
    path.write_text(json.dumps(data, default=str))
    try:
        loaded = ContextManager.load(path)
    except HistoryCorrupted:
        return
    loaded.prepare()
