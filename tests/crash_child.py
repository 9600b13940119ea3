"""A child process for the crash tests: streams deltas into a journal, or saves a growing
history, acknowledging each durable step on stdout, until it is killed."""

from __future__ import annotations

import sys
import time


def stream(db: str, count: int) -> None:
    from ctx_lab.conversation.journal import StreamJournal

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


if __name__ == "__main__":
    mode, target, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    (stream if mode == "stream" else history)(target, n)
