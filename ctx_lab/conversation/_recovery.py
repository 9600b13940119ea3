"""The startup protocol and the happy path that tie the stream journal to the history.

``recover_into`` brings every step left in the journal into the conversation (or drops it) and
saves the history before the step is committed and pruned, so running it again changes
nothing. ``stream_into`` persists each delta before yielding it for display.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..display import RichResult, escape, html_table
from ..errors import JournalError, UsageError
from ._journal import Errored, Incomplete, StreamJournal, connect_readonly
from ._manager import ContextManager
from ._messages import Message
from ._tool_journal import ToolJournal

__all__ = [
    "INTERRUPTED_MARKER",
    "JournalReport",
    "RecoveryReport",
    "inspect_journal",
    "recover_into",
    "stream_into",
]

INTERRUPTED_MARKER = "\n\n[response interrupted: recovered from the stream journal]"


@dataclass(frozen=True, kw_only=True)
class RecoveryReport(RichResult):
    """What ``recover_into`` did with each step it found."""

    actions: tuple[dict[str, Any], ...]

    payload_kind = "journal"

    def to_dict(self) -> dict[str, Any]:
        """``{"action": "recover", "steps": [...]}``. Hand-written: the action is a constant of this
        kind, shared with :class:`JournalReport`."""
        return {"action": "recover", "steps": list(self.actions)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RecoveryReport:
        """The inverse of :meth:`to_dict`."""
        return cls(actions=tuple(dict(step) for step in data.get("steps", ())))

    def to_text(self) -> str:
        """One line per step."""
        if not self.actions:
            return "nothing to recover"
        return "\n".join(
            f"step {a['step_id']}: {a['state']} → {a['outcome']} ({a['chars']} chars)"
            for a in self.actions
        )

    def html_body(self) -> str:
        """A table of steps."""
        rows = [[a["step_id"], a["state"], a["outcome"], a["chars"]] for a in self.actions]
        return "<h4>Recovery</h4>" + html_table(
            ["step", "state", "outcome", "chars"], rows, numeric=(0, 3)
        )


def recover_into(
    manager: ContextManager,
    stream_journal: StreamJournal,
    history_path: str | os.PathLike[str],
    incomplete: str = "keep",
) -> RecoveryReport:
    """Recover every uncommitted step: Complete → an assistant message with its step id
    (skipped when the history has it already); Incomplete → kept with a marker or discarded
    (``incomplete="keep"|"discard"``); Errored → discarded. The history is saved before each
    step is committed and pruned."""
    if incomplete not in ("keep", "discard"):
        raise UsageError(f"incomplete must be 'keep' or 'discard', got {incomplete!r}")
    actions: list[dict[str, Any]] = []
    while (found := stream_journal.recover()) is not None:
        state = type(found).__name__.lower()
        text = found.partial_text
        if isinstance(found, Errored) or (
            isinstance(found, Incomplete) and incomplete == "discard"
        ):
            stream_journal.discard_step(found.step_id)
            outcome = "discarded"
        else:
            if isinstance(found, Incomplete):
                text = text + INTERRUPTED_MARKER if text else ""
            if manager.has_step_id(found.step_id):
                outcome = "already in history"
            elif not text:
                outcome = "empty, nothing added"
            else:
                manager.push_message_with_step_id(Message.assistant(text), found.step_id)
                outcome = "appended"
            manager.save(history_path)
            stream_journal.commit_and_prune_step(found.step_id)
        actions.append(
            {"step_id": found.step_id, "state": state, "outcome": outcome, "chars": len(text)}
        )
    return RecoveryReport(actions=tuple(actions))


def stream_into(
    manager: ContextManager,
    journal: StreamJournal,
    deltas: Iterable[str],
    history_path: str | os.PathLike[str],
) -> Iterator[str]:
    """Persist each delta, then yield it for display; at the end seal, append to the history,
    save, and commit. An exception from ``deltas`` is journalled as an error and re-raised."""
    active = journal.begin_session(manager.model)
    try:
        for delta in deltas:
            active.append_text(delta)
            yield delta
    except GeneratorExit:
        raise
    except BaseException as exc:
        active.append_error(f"{type(exc).__name__}: {exc}")
        raise
    active.append_done()
    text = active.seal()
    manager.push_message_with_step_id(Message.assistant(text), active.step_id)
    manager.save(history_path)
    journal.commit_and_prune_step(active.step_id)


@dataclass(frozen=True, kw_only=True)
class JournalReport(RichResult):
    """What a journal database holds (read-only): stream stats and state, tool batches."""

    path: str
    action: str
    stream: dict[str, Any] | None = None
    tools: dict[str, Any] | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    payload_kind = "journal"

    def to_dict(self) -> dict[str, Any]:
        """``{"path", "action", "stream", "tools"}``. Hand-written: one payload kind with
        :class:`RecoveryReport`, told apart by ``action``."""
        return {
            "path": self.path,
            "action": self.action,
            "stream": self.stream,
            "tools": self.tools,
        }

    def to_text(self) -> str:
        """Readable lines for both journals."""
        lines = [f"{self.path}:"]
        if self.stream is None:
            lines.append("  no stream journal")
        elif self.action == "stats":
            s = self.stream
            lines.append(
                f"  stream: {s['total_entries']} entries ({s['sealed_entries']} sealed, "
                f"{s['unsealed_entries']} unsealed), next step {s['next_step_id']}"
            )
        else:
            r = self.stream.get("recoverable")
            if r is None:
                lines.append("  stream: nothing to recover")
            else:
                extra = f", error: {r['error']}" if r.get("error") else ""
                lines.append(
                    f"  stream: step {r['step_id']} is {r['state']} ({r['last_seq']} events, "
                    f"{len(r['partial_text'])} chars, model {r['model_name']}{extra})"
                )
                lines.append(f"  text: {r['partial_text'][:200]!r}")
        if self.tools is None:
            lines.append("  no tool journal")
        elif self.action == "stats":
            lines.append(f"  tools: {self.tools['open_batches']} open batches")
        else:
            b = self.tools.get("recoverable")
            if b is None:
                lines.append("  tools: nothing to recover")
            else:
                lines.append(
                    f"  tools: batch {b['batch_id']} ({b['model_name']}): {len(b['calls'])} calls, "
                    f"{len(b['results'])} results, pending: {', '.join(b['pending']) or 'none'}"
                )
        return "\n".join(lines)

    def html_body(self) -> str:
        """The text form, escaped."""
        return f"<pre data-ctx-journal='{escape(self.action)}'>{escape(self.to_text())}</pre>"


def _tables(db: sqlite3.Connection) -> set[str]:
    return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def inspect_journal(path: str | os.PathLike[str], action: str) -> JournalReport:
    """Read a journal database without changing it (``recover`` or ``stats``); the stream and
    tool journals may share the file or live in separate ones."""
    if not Path(path).is_file():
        raise JournalError(f"{path}: no such journal database")
    db = connect_readonly(path)
    try:
        tables = _tables(db)
        if not tables & {"stream_journal", "tool_batches"}:
            raise JournalError(f"{path}: neither a stream journal nor a tool journal")
        stream = tools = None
        if "stream_journal" in tables:
            journal = StreamJournal(db, path=str(path), create_schema=False)
            row = db.execute("SELECT next_step_id FROM step_counter WHERE id = 1").fetchone()
            found = journal.recover()
            recoverable = None
            if found is not None:
                recoverable = {
                    "state": type(found).__name__.lower(),
                    "error": None,
                    **found.__dict__,
                }
            stream = {
                **journal.stats().__dict__,
                "next_step_id": row[0] if row else 1,
                "recoverable": recoverable,
            }
        if "tool_batches" in tables:
            batch = ToolJournal(db, create_schema=False).recover()
            tools = {
                "open_batches": ToolJournal(db, create_schema=False).open_batches(),
                "recoverable": None
                if batch is None
                else {
                    "batch_id": batch.batch_id,
                    "model_name": batch.model_name,
                    "assistant_text": batch.assistant_text,
                    "calls": [c.__dict__ for c in batch.calls],
                    "results": [r.__dict__ for r in batch.results],
                    "pending": [c.id for c in batch.pending_calls],
                },
            }
    except sqlite3.Error as exc:
        raise JournalError(f"{path}: not a readable journal ({exc})") from None
    finally:
        db.close()
    return JournalReport(path=str(path), action=action, stream=stream, tools=tools)
