"""``StreamJournal``: every streamed delta is durable in SQLite before it is shown, so a crash
mid-answer loses nothing (design: conversation-context-manager.md, "Stream Journal").

File databases use WAL with ``synchronous=FULL``: when ``append_text`` returns, the delta
survives a crash of the process. Step ids start at 1 and survive reopening.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Self

from ..clock import utc_now
from ..errors import JournalBusy, JournalError
from ..files import real_path
from ..validate import savable_text
from ._history import format_time

__all__ = [
    "ActiveJournal",
    "Complete",
    "Errored",
    "Incomplete",
    "JournalStats",
    "RecoveredStep",
    "RecoveredStream",
    "SqliteJournal",
    "StreamJournal",
    "connect",
    "connect_readonly",
]

SCHEMA = """
CREATE TABLE IF NOT EXISTS stream_journal (
    step_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    event_type TEXT NOT NULL,
    content TEXT NOT NULL,
    created_at TEXT NOT NULL,
    sealed INTEGER DEFAULT 0,
    PRIMARY KEY(step_id, seq)
);
CREATE INDEX IF NOT EXISTS idx_journal_unsealed ON stream_journal(sealed) WHERE sealed = 0;
CREATE TABLE IF NOT EXISTS step_counter (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    next_step_id INTEGER NOT NULL DEFAULT 1
);
CREATE TABLE IF NOT EXISTS step_metadata (
    step_id INTEGER PRIMARY KEY,
    model_name TEXT,
    committed INTEGER DEFAULT 0,
    created_at TEXT NOT NULL
);
INSERT OR IGNORE INTO step_counter (id, next_step_id) VALUES (1, 1);
"""


def connect(path: str | os.PathLike[str] | None) -> sqlite3.Connection:
    """An autocommit connection; WAL and ``synchronous=FULL`` for files."""
    target = ":memory:" if path is None else str(path)
    try:
        db = sqlite3.connect(target, isolation_level=None, check_same_thread=False, timeout=30)
        if path is not None:
            db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
    except sqlite3.Error as exc:
        raise JournalError(f"cannot open journal {target}: {exc}") from None
    return db


def connect_readonly(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A read-only connection (for inspecting a journal or a capture without changing it).
    The URI comes from :meth:`Path.as_uri`, which escapes every ``%``, ``?`` and ``#`` of the
    name: a file's name can never add URI parameters or point at another file."""
    uri = real_path(path).as_uri() + "?mode=ro"
    try:
        return sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=30)
    except sqlite3.Error as exc:
        raise JournalError(f"cannot open journal {path}: {exc}") from None


@dataclass(frozen=True)
class RecoveredStep:
    """A step recovery found: its id, the text of its deltas, the last sequence number."""

    step_id: int
    partial_text: str
    last_seq: int
    model_name: str | None = None


@dataclass(frozen=True)
class Complete(RecoveredStep):
    """The stream ended (``done``) but was not committed to history."""


@dataclass(frozen=True)
class Incomplete(RecoveredStep):
    """The stream stopped mid-flight (a crash): the deltas persisted so far."""


@dataclass(frozen=True)
class Errored(RecoveredStep):
    """The stream ended with an error (an error event wins over done)."""

    error: str = ""


RecoveredStream = Complete | Errored | Incomplete


@dataclass(frozen=True)
class JournalStats:
    """Row counts and the step in flight (None when no session is active)."""

    total_entries: int
    sealed_entries: int
    unsealed_entries: int
    current_step_id: int | None


class SqliteJournal:
    """A journal on one SQLite database (file or in memory); subclasses give the schema."""

    SCHEMA = ""

    def __init__(
        self,
        db: sqlite3.Connection,
        clock: Callable[[], datetime] | None = None,
        path: str = ":memory:",
        create_schema: bool = True,
    ) -> None:
        self.db = db
        self.path = path
        self.clock = clock or utc_now
        self._lock = threading.RLock()
        if create_schema:
            db.executescript(self.SCHEMA)

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], clock: Callable[[], datetime] | None = None
    ) -> Self:
        """Open (or create) the journal in a database file."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        return cls(connect(path), clock, str(path))

    @classmethod
    def open_in_memory(cls, clock: Callable[[], datetime] | None = None) -> Self:
        """A journal in memory (tests; no WAL)."""
        return cls(connect(None), clock)

    def close(self) -> None:
        """Close the database."""
        self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class StreamJournal(SqliteJournal):
    """The stream journal on one SQLite database (file or in memory)."""

    SCHEMA = SCHEMA

    def __init__(
        self,
        db: sqlite3.Connection,
        clock: Callable[[], datetime] | None = None,
        path: str = ":memory:",
        create_schema: bool = True,
    ) -> None:
        super().__init__(db, clock, path, create_schema)
        self.active_step: int | None = None

    # -- sessions ---------------------------------------------------------------------------

    def _recoverable_steps(self) -> list[int]:
        rows = self.db.execute(
            "SELECT step_id FROM step_metadata WHERE committed = 0 "
            "UNION SELECT DISTINCT step_id FROM stream_journal ORDER BY 1"
        ).fetchall()
        return [int(r[0]) for r in rows]

    def begin_session(self, model_name: str) -> ActiveJournal:
        """Start streaming a new step; :class:`JournalBusy` while one is active or recoverable."""
        with self._lock:
            if self.active_step is not None:
                raise JournalBusy(f"cannot begin a session: step {self.active_step} is streaming")
            pending = self._recoverable_steps()
            if pending:
                raise JournalBusy(
                    f"cannot begin a session: step {pending[0]} is recoverable; call recover() and "
                    "then seal_unsealed/commit_and_prune_step or discard_step (recover_into does "
                    "all of it)"
                )
            with self._transaction():
                (step,) = self.db.execute(
                    "SELECT next_step_id FROM step_counter WHERE id = 1"
                ).fetchone()
                self.db.execute(
                    "UPDATE step_counter SET next_step_id = ? WHERE id = 1", (step + 1,)
                )
                self.db.execute(
                    "INSERT INTO step_metadata (step_id, model_name, committed, created_at) "
                    "VALUES (?, ?, 0, ?)",
                    (step, model_name, format_time(self.clock())),
                )
            self.active_step = int(step)
            return ActiveJournal(self, int(step), model_name)

    def _transaction(self) -> _Transaction:
        return _Transaction(self.db)

    def _append(self, step_id: int, seq: int, event: str, content: str) -> None:
        with self._lock:
            if self.active_step != step_id:
                raise JournalError(f"step {step_id} is not the active session")
            self.db.execute(
                "INSERT INTO stream_journal "
                "(step_id, seq, event_type, content, created_at, sealed) "
                "VALUES (?, ?, ?, ?, ?, 0)",
                (step_id, seq, event, content, format_time(self.clock())),
            )

    def _text(self, step_id: int) -> str:
        rows = self.db.execute(
            "SELECT content FROM stream_journal "
            "WHERE step_id = ? AND event_type = 'text_delta' ORDER BY seq",
            (step_id,),
        ).fetchall()
        return "".join(r[0] for r in rows)

    # -- recovery ---------------------------------------------------------------------------

    def recover(self) -> RecoveredStream | None:
        """The oldest step not yet committed to history, or None."""
        with self._lock:
            steps = [s for s in self._recoverable_steps() if s != self.active_step]
            if not steps:
                return None
            step = steps[0]
            meta = self.db.execute(
                "SELECT model_name FROM step_metadata WHERE step_id = ?", (step,)
            ).fetchone()
            model = meta[0] if meta else None
            events = self.db.execute(
                "SELECT seq, event_type, content FROM stream_journal "
                "WHERE step_id = ? ORDER BY seq",
                (step,),
            ).fetchall()
            text = "".join(c for _, kind, c in events if kind == "text_delta")
            last = int(events[-1][0]) if events else 0
            errors = [c for _, kind, c in events if kind == "error"]
            if errors:
                return Errored(step, text, last, model, errors[0])
            if any(kind == "done" for _, kind, _ in events):
                return Complete(step, text, last, model)
            return Incomplete(step, text, last, model)

    def seal_unsealed(self, step_id: int) -> str:
        """Mark the step's rows sealed; returns its text."""
        with self._lock:
            self.db.execute("UPDATE stream_journal SET sealed = 1 WHERE step_id = ?", (step_id,))
            return self._text(step_id)

    def discard_unsealed(self, step_id: int) -> int:
        """Delete the step's unsealed rows (and its metadata when nothing is left); the count."""
        with self._lock, self._transaction():
            deleted = self.db.execute(
                "DELETE FROM stream_journal WHERE step_id = ? AND sealed = 0", (step_id,)
            ).rowcount
            left = self.db.execute(
                "SELECT COUNT(*) FROM stream_journal WHERE step_id = ?", (step_id,)
            ).fetchone()[0]
            if not left:
                self.db.execute("DELETE FROM step_metadata WHERE step_id = ?", (step_id,))
            if self.active_step == step_id:
                self.active_step = None
            return int(deleted)

    def commit_and_prune_step(self, step_id: int) -> int:
        """After the history was saved: mark committed and delete the step (one transaction)."""
        with self._lock, self._transaction():
            self.db.execute("UPDATE step_metadata SET committed = 1 WHERE step_id = ?", (step_id,))
            deleted = self.db.execute(
                "DELETE FROM stream_journal WHERE step_id = ?", (step_id,)
            ).rowcount
            self.db.execute("DELETE FROM step_metadata WHERE step_id = ?", (step_id,))
            if self.active_step == step_id:
                self.active_step = None
            return int(deleted)

    def discard_step(self, step_id: int) -> int:
        """Delete the step entirely; the number of journal rows deleted."""
        with self._lock, self._transaction():
            deleted = self.db.execute(
                "DELETE FROM stream_journal WHERE step_id = ?", (step_id,)
            ).rowcount
            self.db.execute("DELETE FROM step_metadata WHERE step_id = ?", (step_id,))
            if self.active_step == step_id:
                self.active_step = None
            return int(deleted)

    def stats(self) -> JournalStats:
        """Counts of rows, sealed and unsealed, and the active step."""
        with self._lock:
            total, sealed = self.db.execute(
                "SELECT COUNT(*), COALESCE(SUM(sealed), 0) FROM stream_journal"
            ).fetchone()
            return JournalStats(int(total), int(sealed), int(total) - int(sealed), self.active_step)


class _Transaction:
    """BEGIN IMMEDIATE … COMMIT, rolled back on error."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        self.db.execute("ROLLBACK" if kind is not None else "COMMIT")


class ActiveJournal:
    """Proof that a stream is in flight: append (durably, before display), then seal or discard."""

    def __init__(self, journal: StreamJournal, step_id: int, model_name: str) -> None:
        self.journal = journal
        self.step_id = step_id
        self.model_name = model_name
        self._next_seq = 1
        self._closed = False

    def _append(self, event: str, content: str) -> None:
        if self._closed:
            raise JournalError(f"step {self.step_id} is already sealed or discarded")
        savable_text(content, "the journal entry")
        self.journal._append(self.step_id, self._next_seq, event, content)
        self._next_seq += 1

    def append_text(self, content: str) -> None:
        """Persist a text delta; it is durable when this returns."""
        self._append("text_delta", content)

    def append_done(self) -> None:
        """Persist the end of the stream."""
        self._append("done", "")

    def append_error(self, message: str) -> None:
        """Persist a stream error."""
        self._append("error", message)

    def seal(self) -> str:
        """Seal the step and return its text (the deltas in order). Commit it after saving."""
        if self._closed:
            raise JournalError(f"step {self.step_id} is already sealed or discarded")
        self._closed = True
        text = self.journal.seal_unsealed(self.step_id)
        self.journal.active_step = None
        return text

    def discard(self) -> int:
        """Throw the step away; the number of rows deleted."""
        if self._closed:
            raise JournalError(f"step {self.step_id} is already sealed or discarded")
        self._closed = True
        return self.journal.discard_step(self.step_id)
