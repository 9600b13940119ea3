"""Stream and tool journals: the design's behaviours, recovery into the conversation, the CLI,
and crash tests with real processes killed by SIGKILL."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from paths import REPO, TESTS

from ctx_lab.conversation import (
    Complete,
    ContextManager,
    Errored,
    Incomplete,
    Message,
    StreamJournal,
    ToolCall,
    ToolJournal,
    ToolResult,
    recover_into,
    stream_into,
)
from ctx_lab.conversation._recovery import INTERRUPTED_MARKER
from ctx_lab.conversation._simulate import step_clock
from ctx_lab.errors import JournalBusy

CHILD = TESTS / "crash_child.py"


@pytest.fixture
def journal() -> StreamJournal:
    return StreamJournal.open_in_memory()


def test_seal_concatenates_text(journal) -> None:
    active = journal.begin_session("m")
    for delta in ("Hello", " ", "World"):
        active.append_text(delta)
    active.append_done()
    assert active.seal() == "Hello World"


def test_done_only_is_empty(journal) -> None:
    active = journal.begin_session("m")
    active.append_done()
    assert active.seal() == ""


def test_crash_after_two_deltas_is_incomplete(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    j = StreamJournal.open(path)
    active = j.begin_session("model-a")
    active.append_text("a")
    active.append_text("b")
    j.close()  # the process "dies" here
    found = StreamJournal.open(path).recover()
    assert found == Incomplete(active.step_id, "ab", 2, "model-a")


def test_complete_and_errored(journal) -> None:
    a = journal.begin_session("m")
    a.append_text("x")
    a.append_done()
    assert journal.recover() is None  # the active step is not "recoverable" from itself
    journal.active_step = None  # simulate a restart
    assert isinstance(journal.recover(), Complete)
    journal.discard_step(a.step_id)
    b = journal.begin_session("m")
    b.append_text("y")
    b.append_done()
    b.append_error("boom")
    journal.active_step = None
    found = journal.recover()
    assert isinstance(found, Errored) and found.error == "boom" and found.partial_text == "y"


def test_sealed_but_uncommitted_blocks_begin(journal) -> None:
    a = journal.begin_session("m")
    a.append_text("t")
    a.append_done()
    a.seal()
    with pytest.raises(JournalBusy, match="recoverable"):
        journal.begin_session("m")
    assert journal.commit_and_prune_step(a.step_id) == 2
    assert journal.recover() is None
    journal.begin_session("m")
    with pytest.raises(JournalBusy, match="streaming"):
        journal.begin_session("m")


def test_discard_unsealed_counts_and_stats(journal) -> None:
    a = journal.begin_session("m")
    for d in "abc":
        a.append_text(d)
    assert journal.stats().unsealed_entries == 3 and journal.stats().current_step_id == a.step_id
    journal.active_step = None
    assert journal.discard_unsealed(a.step_id) == 3
    assert journal.stats().total_entries == 0 and journal.recover() is None


def test_step_counter_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    first = StreamJournal.open(path)
    a = first.begin_session("m")
    a.discard()
    b = first.begin_session("m")
    b.discard()
    first.close()
    assert a.step_id == 1 and b.step_id == 2
    assert StreamJournal.open(path).begin_session("m").step_id == 3


def test_wal_and_synchronous_full(tmp_path: Path) -> None:
    j = StreamJournal.open(tmp_path / "j.db")
    assert j.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert j.db.execute("PRAGMA synchronous").fetchone()[0] == 2


def test_tool_journal_batches() -> None:
    tj = ToolJournal.open_in_memory()
    batch = tj.begin_batch(
        "m",
        "Let me look.",
        [ToolCall("c1", "read", {"path": "a"}), ToolCall("c2", "grep", {"q": "x"})],
    )
    tj.record_result(batch, ToolResult("c2", "found", False))
    tj.record_result(batch, ToolResult("c1", "boom", True))
    found = tj.recover()
    assert [c.id for c in found.calls] == ["c1", "c2"] and found.calls[0].arguments == {"path": "a"}
    assert [r.call_id for r in found.results] == ["c1", "c2"] and found.results[0].is_error
    with pytest.raises(JournalBusy):
        tj.begin_streaming_batch("m")
    tj.commit_batch(batch)
    assert tj.recover() is None
    streaming = tj.begin_streaming_batch("m")
    tj.record_call_start(streaming, 0, "s1", "search")
    tj.append_call_args(streaming, "s1", '{"q": ')
    tj.append_call_args(streaming, "s1", '"pdf"}')
    tj.record_call_start(streaming, 1, "s2", "broken")
    tj.append_call_args(streaming, "s2", '{"unfinished": ')
    tj.update_assistant_text(streaming, "Searching…")
    found = tj.recover()
    assert found.assistant_text == "Searching…"
    assert (
        found.calls[0].arguments == {"q": "pdf"} and found.calls[1].arguments == '{"unfinished": '
    )
    assert [c.id for c in found.pending_calls] == ["s1", "s2"]
    tj.discard_batch(streaming)
    assert tj.recover() is None


def test_recover_into_is_idempotent(tmp_path: Path) -> None:
    db, history = tmp_path / "j.db", tmp_path / "history.json"
    manager = ContextManager("gpt-4o", clock=step_clock())
    manager.push_message(Message.user("question"))
    manager.save(history)
    j = StreamJournal.open(db)
    a = j.begin_session("gpt-4o")
    a.append_text("The answer ")
    a.append_text("is 42.")
    a.append_done()
    j.close()  # crash before sealing
    j = StreamJournal.open(db)
    manager = ContextManager.load(history)
    report = recover_into(manager, j, history)
    assert report.actions[0]["outcome"] == "appended"
    assert ContextManager.load(history).history.entries[-1].message == Message.assistant(
        "The answer is 42."
    )
    before = history.read_text()
    again = recover_into(ContextManager.load(history), j, history)
    assert again.actions == () and history.read_text() == before and j.recover() is None


def test_recover_into_after_save_before_commit(tmp_path: Path) -> None:
    db, history = tmp_path / "j.db", tmp_path / "h.json"
    manager = ContextManager("gpt-4o", clock=step_clock())
    j = StreamJournal.open(db)
    a = j.begin_session("gpt-4o")
    a.append_text("saved")
    a.append_done()
    a.seal()
    manager.push_message_with_step_id(Message.assistant("saved"), a.step_id)
    manager.save(history)  # crash here, before commit_and_prune_step
    report = recover_into(ContextManager.load(history), j, history)
    assert report.actions[0]["outcome"] == "already in history"
    assert len(ContextManager.load(history).history) == 1


def test_incomplete_policies_and_errored(tmp_path: Path) -> None:
    for policy, expected in (("keep", "half" + INTERRUPTED_MARKER), ("discard", None)):
        db, history = tmp_path / f"{policy}.db", tmp_path / f"{policy}.json"
        j = StreamJournal.open(db)
        a = j.begin_session("m")
        a.append_text("half")
        j.close()
        manager = ContextManager("gpt-4o")
        recover_into(manager, StreamJournal.open(db), history, incomplete=policy)
        messages = [e.message.content for e in manager.history.entries]
        assert messages == ([expected] if expected else [])
    j = StreamJournal.open(tmp_path / "err.db")
    a = j.begin_session("m")
    a.append_text("partial")
    a.append_error("connection reset")
    j.close()
    manager = ContextManager("gpt-4o")
    report = recover_into(manager, StreamJournal.open(tmp_path / "err.db"), tmp_path / "e.json")
    assert report.actions[0]["outcome"] == "discarded" and len(manager.history) == 0


def test_stream_into_happy_path_and_error(tmp_path: Path) -> None:
    manager = ContextManager("gpt-4o")
    j = StreamJournal.open(tmp_path / "j.db")
    shown = list(stream_into(manager, j, ["Hel", "lo"], tmp_path / "h.json"))
    assert shown == ["Hel", "lo"] and manager.history.entries[-1].message.content == "Hello"
    assert j.stats().total_entries == 0 and manager.has_step_id(1)

    def failing():
        yield "par"
        raise ConnectionError("dropped")

    with pytest.raises(ConnectionError):
        list(stream_into(manager, j, failing(), tmp_path / "h.json"))
    j.active_step = None
    found = j.recover()
    assert isinstance(found, Errored) and found.partial_text == "par" and "dropped" in found.error


def test_journal_cli(run_cli, tmp_path: Path) -> None:
    db = tmp_path / "both.db"
    j = StreamJournal.open(db)
    a = j.begin_session("gpt-4o")
    a.append_text("hello")
    j.close()
    tj = ToolJournal.open(db)
    batch = tj.begin_batch("gpt-4o", "checking", [ToolCall("c1", "read", {"p": 1})])
    tj.close()
    code, out, _ = run_cli("journal", "recover", str(db))
    assert code == 0 and "step 1 is incomplete" in out and "batch 1" in out and "pending: c1" in out
    code, out, _ = run_cli("journal", "stats", str(db), "--format", "json")
    data = json.loads(out)
    assert data["stream"]["unsealed_entries"] == 1 and data["tools"]["open_batches"] == 1
    assert StreamJournal.open(db).recover() is not None  # inspecting changed nothing
    code, _, err = run_cli("journal", "stats", str(tmp_path / "missing.db"))
    assert code == 1 and "no such journal" in err
    (tmp_path / "plain.db").write_bytes(b"not sqlite at all" * 10)
    code, _, err = run_cli("journal", "recover", str(tmp_path / "plain.db"))
    assert code == 1 and "Traceback" not in err
    assert batch == 1


def _spawn(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, str(CHILD), *args], stdout=subprocess.PIPE, text=True, env=env
    )


@pytest.mark.slow
@pytest.mark.parametrize("run", range(20))
def test_sigkill_mid_stream_loses_no_acknowledged_delta(tmp_path: Path, run: int) -> None:
    rng = random.Random(run)
    db = tmp_path / "stream.db"
    total = 200
    child = _spawn("stream", str(db), str(total))
    stop_after = rng.randint(0, total - 1)
    acked = -1
    assert child.stdout is not None
    for line in child.stdout:
        if line.strip() == "done":
            break
        acked = int(line)
        if acked >= stop_after:
            break
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    found = StreamJournal.open(db).recover()
    assert found is not None
    expected_prefix = "".join(f"<{i}>" for i in range(acked + 1))
    assert found.partial_text.startswith(expected_prefix)
    # nothing but the next deltas, in order, may follow
    count = found.partial_text.count("<")
    assert found.partial_text == "".join(f"<{i}>" for i in range(count))
    assert found.last_seq >= acked + 1


@pytest.mark.slow
@pytest.mark.parametrize("run", range(8))
def test_sigkill_while_saving_history_leaves_old_or_new(tmp_path: Path, run: int) -> None:
    rng = random.Random(1000 + run)
    path = tmp_path / "history.json"
    child = _spawn("history", str(path), "400")
    assert child.stdout is not None
    stop_after = rng.randint(0, 30)
    acked = -1
    for line in child.stdout:
        acked = int(line)
        if acked >= stop_after:
            break
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    loaded = ContextManager.load(path)  # never corrupt
    assert len(loaded.history) >= acked + 1
