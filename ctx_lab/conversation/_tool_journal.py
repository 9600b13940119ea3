"""``ToolJournal``: a batch of tool calls and their results, durable in SQLite so a crash in the
middle of a batch can be resumed (design: conversation-context-manager.md, "Tool Journal")."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import JournalBusy, JournalError
from ._history import format_time
from ._journal import SqliteJournal, _Transaction

__all__ = ["RecoveredToolBatch", "ToolCall", "ToolJournal", "ToolResult"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS tool_batches (
    batch_id INTEGER PRIMARY KEY,
    model_name TEXT NOT NULL,
    assistant_text TEXT NOT NULL,
    committed INTEGER DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tool_calls (
    batch_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    tool_call_id TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    arguments_json TEXT NOT NULL,
    PRIMARY KEY (batch_id, seq)
);
CREATE TABLE IF NOT EXISTS tool_results (
    batch_id INTEGER NOT NULL,
    tool_call_id TEXT NOT NULL,
    content TEXT NOT NULL,
    is_error INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (batch_id, tool_call_id)
);
"""


@dataclass(frozen=True)
class ToolCall:
    """A tool call: its id, the tool and the arguments (the raw string when not valid JSON)."""

    id: str
    name: str
    arguments: Any


@dataclass(frozen=True)
class ToolResult:
    """A tool's answer to one call."""

    call_id: str
    content: str
    is_error: bool = False


@dataclass(frozen=True)
class RecoveredToolBatch:
    """An uncommitted batch: calls in sequence order, results in call order."""

    batch_id: int
    model_name: str
    assistant_text: str
    calls: list[ToolCall]
    results: list[ToolResult]

    @property
    def pending_calls(self) -> list[ToolCall]:
        """Calls without a result yet (what a resumed batch still has to run)."""
        done = {r.call_id for r in self.results}
        return [c for c in self.calls if c.id not in done]


def _arguments(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


class ToolJournal(SqliteJournal):
    """Tool batches on one SQLite database (it may share the file with the stream journal)."""

    SCHEMA = SCHEMA

    def _open_batch(self) -> int | None:
        row = self.db.execute(
            "SELECT batch_id FROM tool_batches WHERE committed = 0 ORDER BY batch_id LIMIT 1"
        ).fetchone()
        return None if row is None else int(row[0])

    def _new_batch(self, model_name: str, assistant_text: str) -> int:
        existing = self._open_batch()
        if existing is not None:
            raise JournalBusy(
                f"tool batch {existing} is not committed; recover() it, then commit_batch or "
                "discard_batch"
            )
        cursor = self.db.execute(
            "INSERT INTO tool_batches (model_name, assistant_text, committed, created_at) "
            "VALUES (?, ?, 0, ?)",
            (model_name, assistant_text, format_time(self.clock())),
        )
        return int(cursor.lastrowid or 0)

    def _check(self, batch_id: int) -> None:
        row = self.db.execute(
            "SELECT committed FROM tool_batches WHERE batch_id = ?", (batch_id,)
        ).fetchone()
        if row is None or row[0]:
            raise JournalError(f"no open tool batch {batch_id}")

    def begin_batch(self, model_name: str, assistant_text: str, calls: Sequence[ToolCall]) -> int:
        """Record a complete batch of calls at once; returns its id."""
        with self._lock, _Transaction(self.db):
            batch = self._new_batch(model_name, assistant_text)
            self.db.executemany(
                "INSERT INTO tool_calls "
                "(batch_id, seq, tool_call_id, tool_name, arguments_json) VALUES (?, ?, ?, ?, ?)",
                [
                    (
                        batch,
                        seq,
                        c.id,
                        c.name,
                        c.arguments if isinstance(c.arguments, str) else json.dumps(c.arguments),
                    )
                    for seq, c in enumerate(calls)
                ],
            )
            return batch

    def begin_streaming_batch(self, model_name: str) -> int:
        """Start a batch whose calls and text arrive while streaming."""
        with self._lock, _Transaction(self.db):
            return self._new_batch(model_name, "")

    def record_call_start(self, batch_id: int, seq: int, tool_call_id: str, tool_name: str) -> None:
        """A call begins streaming (its arguments follow with :meth:`append_call_args`)."""
        with self._lock:
            self._check(batch_id)
            self.db.execute(
                "INSERT INTO tool_calls "
                "(batch_id, seq, tool_call_id, tool_name, arguments_json) VALUES (?, ?, ?, ?, '')",
                (batch_id, seq, tool_call_id, tool_name),
            )

    def append_call_args(self, batch_id: int, tool_call_id: str, delta: str) -> None:
        """Append a fragment of a call's JSON arguments."""
        with self._lock:
            self._check(batch_id)
            changed = self.db.execute(
                "UPDATE tool_calls SET arguments_json = arguments_json || ? "
                "WHERE batch_id = ? AND tool_call_id = ?",
                (delta, batch_id, tool_call_id),
            ).rowcount
            if not changed:
                raise JournalError(f"no call {tool_call_id!r} in batch {batch_id}")

    def update_assistant_text(self, batch_id: int, assistant_text: str) -> None:
        """Replace the batch's assistant text (it grows while streaming)."""
        with self._lock:
            self._check(batch_id)
            self.db.execute(
                "UPDATE tool_batches SET assistant_text = ? WHERE batch_id = ?",
                (assistant_text, batch_id),
            )

    def record_result(self, batch_id: int, result: ToolResult) -> None:
        """Persist one call's result (a repeat replaces it)."""
        with self._lock:
            self._check(batch_id)
            self.db.execute(
                "INSERT OR REPLACE INTO tool_results "
                "(batch_id, tool_call_id, content, is_error, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (
                    batch_id,
                    result.call_id,
                    result.content,
                    int(result.is_error),
                    format_time(self.clock()),
                ),
            )

    def _delete(self, batch_id: int) -> None:
        with self._lock, _Transaction(self.db):
            for table in ("tool_results", "tool_calls", "tool_batches"):
                self.db.execute(f"DELETE FROM {table} WHERE batch_id = ?", (batch_id,))

    def commit_batch(self, batch_id: int) -> None:
        """The batch reached the history: remove it from the journal."""
        self._delete(batch_id)

    def discard_batch(self, batch_id: int) -> None:
        """Throw the batch away."""
        self._delete(batch_id)

    def recover(self) -> RecoveredToolBatch | None:
        """The open batch with its calls and results, or None."""
        with self._lock:
            batch = self._open_batch()
            if batch is None:
                return None
            model, text = self.db.execute(
                "SELECT model_name, assistant_text FROM tool_batches WHERE batch_id = ?", (batch,)
            ).fetchone()
            calls = [
                ToolCall(cid, name, _arguments(args))
                for cid, name, args in self.db.execute(
                    "SELECT tool_call_id, tool_name, arguments_json FROM tool_calls "
                    "WHERE batch_id = ? ORDER BY seq",
                    (batch,),
                )
            ]
            stored = {
                cid: ToolResult(cid, content, bool(err))
                for cid, content, err in self.db.execute(
                    "SELECT tool_call_id, content, is_error FROM tool_results WHERE batch_id = ?",
                    (batch,),
                )
            }
            ordered = [stored.pop(c.id) for c in calls if c.id in stored]
            ordered += [stored[k] for k in sorted(stored)]  # results for unknown calls go last
            return RecoveredToolBatch(batch, model, text, calls, ordered)

    def open_batches(self) -> int:
        """How many batches are not committed."""
        return int(
            self.db.execute("SELECT COUNT(*) FROM tool_batches WHERE committed = 0").fetchone()[0]
        )
