"""``python -m ctx_lab.conversation DIR``: example inputs for the commands that read what a program
wrote — ``chat.json`` (a conversation saved by ``ContextManager.save()``, for ``ctx-lab
history``) and ``stream.db`` (a crash journal whose answer never finished, for ``ctx-lab journal``)
— made the same on every run and every day (a step clock), for the docs' examples and for
trying the commands."""

from __future__ import annotations

import sys
from pathlib import Path

DELTAS = (
    "Idempotency keys ",
    "stop retries ",
    "from double-billing: ",
    "keep each key ",
    "for 48 hours",
)


def write_chat(path: Path) -> None:
    """Ten messages to gpt-4, the first three over what its window can keep."""
    from . import ContextManager, Message, step_clock

    manager = ContextManager("gpt-4", clock=step_clock())
    for i in range(10):
        manager.push_message(Message.user(f"message {i}: " + "idempotency " * 60), token_count=500)
    manager.save(path)


def write_stream_journal(path: Path) -> None:
    """A stream journal whose step was cut off after five deltas (as a crash leaves it)."""
    from . import StreamJournal, step_clock

    with StreamJournal.open(path, clock=step_clock()) as journal:
        active = journal.begin_session("gpt-4o")
        for delta in DELTAS:
            active.append_text(delta)


def main(argv: list[str] | None = None) -> int:
    """Write the example files into the folder given (made if missing)."""
    args = sys.argv[1:] if argv is None else argv
    if args in (["-h"], ["--help"]):
        print(f"usage: python -m ctx_lab.conversation DIR\n\n{__doc__}")
        return 0
    if len(args) != 1 or args[0].startswith("-"):  # a flag is never a folder to write into
        print("usage: python -m ctx_lab.conversation DIR", file=sys.stderr)
        return 2
    folder = Path(args[0])
    folder.mkdir(parents=True, exist_ok=True)
    for name, write in (("chat.json", write_chat), ("stream.db", write_stream_journal)):
        target = folder / name
        if target.exists():
            print(f"{target} exists: left as it is", file=sys.stderr)
            continue
        write(target)
        print(target)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
