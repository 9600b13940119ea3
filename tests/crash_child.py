"""A child process for the crash tests: streams deltas into a journal, records tool results,
saves a growing history, creates cursor keys or writes files atomically — acknowledging each
durable step on stdout — until it is killed."""

from __future__ import annotations

import sys
import time


def stream(db: str, count: int) -> None:
    from ctx_lab.conversation._journal import StreamJournal

    journal = StreamJournal.open(db)
    active = journal.begin_session("child-model")
    for i in range(count):
        active.append_text(f"<{i}>")
        print(i, flush=True)  # acknowledged only after the append returned
    active.append_done()
    print("done", flush=True)
    time.sleep(60)


def history(path: str, count: int) -> None:
    from ctx_lab.conversation import ContextManager, Message

    manager = ContextManager("gpt-4o", counter="bytes/4")
    for i in range(count):
        manager.push_message(Message.user(f"message {i} " + "x" * 2000), 600)
        manager.save(path)
        print(i, flush=True)
    time.sleep(60)


def tools(db: str, count: int) -> None:
    from ctx_lab.conversation._tool_journal import ToolCall, ToolJournal, ToolResult

    journal = ToolJournal.open(db)
    calls = [ToolCall(f"c{i}", "search", {"i": i}) for i in range(count)]
    batch = journal.begin_batch("child-model", "checking", calls)
    print("batch", flush=True)
    for i in range(count):
        journal.record_result(batch, ToolResult(f"c{i}", f"result {i} " + "r" * 500))
        print(i, flush=True)
    time.sleep(60)


def cursor_key(base: str, count: int) -> None:
    import os

    from ctx_lab.read._cursor import user_cursor_secret

    for i in range(count):
        os.environ["XDG_CACHE_HOME"] = f"{base}/{i}"
        print(i, user_cursor_secret().hex(), flush=True)
    time.sleep(60)


def atomic(path: str, count: int) -> None:
    from ctx_lab.files import write_atomic

    for i in range(count):
        write_atomic(path, f"version {i}\n" + "x" * 200_000)
        print(i, flush=True)
    time.sleep(60)


if __name__ == "__main__":
    mode, target, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    modes = {
        "stream": stream,
        "history": history,
        "tools": tools,
        "cursor_key": cursor_key,
        "atomic": atomic,
    }
    modes[mode](target, n)
