"""The capture file: every call a recording proxy forwarded, in SQLite (WAL, ``synchronous=FULL``
— the crash journal's durability), created readable by its owner only. Rows are committed in
batches (:meth:`CaptureStore.record_many`) before the proxy releases the end of each answer, so
a crash loses only calls in flight. Request headers are never stored.

Read back (``readonly``), a file is untrusted: it is opened by its path (never a URI built from
its name), read-only; ``calls`` must be a plain table with the declared columns (a view or a
generated column could make any read endless or huge); bodies are cut in SQL; only the rows asked
for are read (the newest first, or by id); and every query ends within the capture query limit
with :class:`~ctx_lab.errors.LimitExceeded`. A streamed answer is stored as it arrived and
assembled by :mod:`._stream` when read.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import CtxLabError, InputFileError, LimitExceeded, TranscriptError, from_os_error
from ..files import entry_kind
from ..limits import LIMITS, limit
from ._capture_rows import (
    _COLUMNS,
    _INSERT,
    CAPTURE_LIMIT,
    CapturedCall,
    _row,
    _select,
    _values,
    _whole,
)

__all__ = [
    "CAPTURE_LIMIT",
    "CaptureStore",
    "CapturedCall",
    "capture_transcript",
    "is_capture",
]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started TEXT NOT NULL,
    duration_ms REAL,
    provider TEXT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    status INTEGER,
    stream INTEGER NOT NULL DEFAULT 0,
    request_body BLOB,
    request_bytes INTEGER NOT NULL DEFAULT 0,
    request_truncated INTEGER NOT NULL DEFAULT 0,
    response_body BLOB,
    response_bytes INTEGER NOT NULL DEFAULT 0,
    response_truncated INTEGER NOT NULL DEFAULT 0,
    error TEXT
);
CREATE TABLE IF NOT EXISTS capture_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO capture_meta (key, value) VALUES ('format', 'ctx-lab-capture-1');
"""
_MAGIC = b"SQLite format 3\x00"


def is_capture(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a regular SQLite file holding a capture's marker table (a FIFO or
    device is never opened)."""
    if entry_kind(path) != "file":
        return False
    try:
        with open(path, "rb") as handle:
            if handle.read(16) != _MAGIC:
                return False
    except OSError:
        return False
    try:
        reader = _Guarded(path)
        try:
            found = reader.query(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='capture_meta'"
            )
        finally:
            reader.close()
    except (sqlite3.Error, CtxLabError):
        return False
    return bool(found)


def _open_readonly(path: str | os.PathLike[str]) -> sqlite3.Connection:
    """A read-only connection to the file at ``path`` (opened by path: see
    :func:`~ctx_lab.conversation._journal.connect_readonly`)."""
    from ..conversation import connect_readonly

    try:
        return connect_readonly(path)
    except CtxLabError as exc:
        raise CtxLabError(f"{os.fspath(path)}: not a capture file ({exc})") from None


class _Guarded:
    """A read-only connection whose every query ends within the capture query limit (a
    progress handler interrupts it; the caller gets :class:`LimitExceeded` naming the limit)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.db = _open_readonly(path)
        self.seconds = float(limit("capture_query_seconds"))
        self.until = time.monotonic() + self.seconds
        self.db.set_progress_handler(self._tick, 1_000)

    def _tick(self) -> int:
        return 1 if time.monotonic() > self.until else 0

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """All rows of one query, or a typed error (never a hang, never a traceback)."""
        self.until = time.monotonic() + self.seconds
        try:
            return self.db.execute(sql, tuple(params)).fetchall()
        except sqlite3.OperationalError as exc:
            if "interrupt" in str(exc):
                raise LimitExceeded(
                    f"{self.path}: a query of the capture file ran past "
                    f"{LIMITS['capture_query_seconds'].describe()}"
                ) from None
            raise CtxLabError(f"{self.path}: not a readable capture file ({exc})") from None
        except (sqlite3.Error, OverflowError, MemoryError) as exc:
            raise CtxLabError(f"{self.path}: not a readable capture file ({exc})") from None

    def check_schema(self) -> None:
        """``calls`` must be a plain table with the declared columns (a view, or a generated
        column, could make any read endless or huge)."""
        kinds = self.query("SELECT type FROM sqlite_master WHERE name = 'calls'")
        if [k for (k,) in kinds] != ["table"]:
            raise CtxLabError(f"{self.path}: not a capture file (calls is not a table)")
        columns = self.query("PRAGMA table_xinfo(calls)")
        names = {str(c[1]) for c in columns if not c[6]}  # hidden: generated or virtual
        generated = [str(c[1]) for c in columns if c[6]]
        missing = [c for c in _COLUMNS if c not in names and c not in generated]
        if missing or generated:
            what = f"generated {generated[0]}" if generated else f"missing {', '.join(missing)}"
            raise CtxLabError(f"{self.path}: not a capture file (calls: {what})")
        ids = [c for c in columns if c[1] == "id"]
        if not ids or str(ids[0][2]).upper() != "INTEGER" or ids[0][5] != 1:
            raise CtxLabError(f"{self.path}: not a capture file (calls.id is not its row id)")

    def close(self) -> None:
        self.db.close()


class CaptureStore:
    """A capture file, opened for appending (the proxy) or reading (``readonly``: by path,
    read-only, its schema checked, every query within a deadline, bodies cut in SQL)."""

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        from ..conversation import connect

        self.path = os.fspath(path)
        self.readonly = readonly
        kind = entry_kind(path)
        if kind not in ("file", "missing"):
            raise InputFileError(f"{self.path}: not a regular file ({kind}); no capture written")
        if readonly and kind == "missing":
            raise InputFileError(f"{self.path}: no such capture file")
        self._reader: _Guarded | None = None
        try:
            if readonly:
                self._reader = _Guarded(path)
                self._reader.check_schema()
                self.db = self._reader.db
            else:
                _create_private(path)
                self.db = connect(path)
                self.db.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise CtxLabError(f"{self.path}: not a capture file ({exc})") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the file."""
        self.db.close()

    def __enter__(self) -> CaptureStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def record(self, **fields: Any) -> int:
        """Store one finished call (bodies over :data:`CAPTURE_LIMIT` cut and flagged); its id."""
        return self.record_many([fields])[0]

    def record_many(self, calls: Sequence[Mapping[str, Any]]) -> list[int]:
        """Store finished calls in one transaction (one fsync for all); their ids."""
        ids: list[int] = []
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                for fields in calls:
                    cursor = self.db.execute(_INSERT, _values(fields))
                    ids.append(int(cursor.lastrowid or 0))
                self.db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
                raise
        return ids

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if self._reader is not None:
            return self._reader.query(sql, params)
        try:
            return self.db.execute(sql, tuple(params)).fetchall()
        except sqlite3.Error as exc:
            raise CtxLabError(f"{self.path}: not a capture file ({exc})") from None

    def calls(
        self, since: int = 0, limit: int | None = None, *, body_limit: int | None = None
    ) -> list[CapturedCall]:
        """The stored calls with an id above ``since``, oldest first (the first ``limit``)."""
        cap = _body_cap(body_limit)
        rows = self._query(
            f"SELECT {_select(cap)} FROM calls WHERE id > ? ORDER BY id LIMIT ?",
            (since, -1 if limit is None else max(0, limit)),
        )
        return [_row(r, cap) for r in rows]

    def latest(
        self, last: int | None = None, *, body_limit: int | None = None
    ) -> list[CapturedCall]:
        """The newest ``last`` calls (all when None), oldest first: only those rows are read."""
        if last is None:
            return self.calls(body_limit=body_limit)
        cap = _body_cap(body_limit)
        rows = self._query(
            f"SELECT {_select(cap)} FROM calls ORDER BY id DESC LIMIT ?", (max(0, last),)
        )
        return [_row(r, cap) for r in reversed(rows)]

    def ids(self, last: int | None = None) -> list[tuple[int, str, int]]:
        """``(id, started, request_bytes)`` of the newest ``last`` calls, oldest first — what
        tells a call already seen, read without any body."""
        rows = self._query(
            "SELECT id, started, request_bytes FROM calls ORDER BY id DESC LIMIT ?",
            (-1 if last is None else max(0, last),),
        )
        return [(int(r[0]), str(r[1]), _whole(r[2]) or 0) for r in reversed(rows)]

    def by_ids(self, ids: Sequence[int], *, body_limit: int | None = None) -> list[CapturedCall]:
        """The calls with these ids, oldest first (ids not stored are left out)."""
        cap = _body_cap(body_limit)
        found: list[CapturedCall] = []
        wanted = sorted(set(ids))
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            rows = self._query(
                f"SELECT {_select(cap)} FROM calls WHERE id IN ({', '.join('?' * len(part))}) "
                "ORDER BY id",
                part,
            )
            found += [_row(r, cap) for r in rows]
        return found

    def call(self, call_id: int, *, body_limit: int | None = None) -> CapturedCall | None:
        """The call with id ``call_id``, or None."""
        cap = _body_cap(body_limit)
        rows = self._query(f"SELECT {_select(cap)} FROM calls WHERE id = ?", (call_id,))
        return _row(rows[0], cap) if rows else None

    def count(self) -> int:
        """How many calls the file holds."""
        return int(self._query("SELECT COUNT(*) FROM calls")[0][0])


def _create_private(path: str | os.PathLike[str]) -> None:
    """Create the capture file readable by its owner only (SQLite gives its ``-wal`` and
    ``-shm`` the file's mode); an existing one is made so too."""
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o600)
    except OSError as exc:
        raise from_os_error(exc) from None
    try:
        if os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


def _body_cap(body_limit: int | None) -> int:
    return max(0, body_limit if body_limit is not None else limit("capture_body"))


def capture_transcript(path: str | os.PathLike[str], format: str = "auto") -> Any:
    """A capture file as one recorded session (for ``replay`` and ``calibrate``): each captured
    model request with its response (a stream assembled) is one call; the conversation is the
    last request's. A capture is the one recording that holds the system prompt and the tool
    definitions as they were sent."""
    from ..recordings.transcripts import read_records

    with CaptureStore(path, readonly=True) as store:
        rows = [
            (call.id, {"request": body, "response": call.response()})
            for call in store.calls()
            if (body := call.request()) is not None and call.method == "POST"
        ]
    if not rows:
        raise TranscriptError(f"{os.fspath(path)}: the capture holds no model request")
    return read_records(rows, format, os.fspath(path))
