"""The record of what an MCP server served: one JSON line per tool call — when, which
connection, the tool, its arguments, whether it failed, the text the agent received and that
text's token count — loadable as a DataFrame and replayable as a conversation."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from ..clock import utc_now
from ..errors import CtxLabError
from ..tokens import get_counter

__all__ = [
    "CALL_LOG_COLUMNS",
    "DEFAULT_MAX_LOG_BYTES",
    "CallLog",
    "call_log_messages",
    "load_call_log",
]

CALL_LOG_COLUMNS = [
    "time",
    "connection",
    "call",
    "tool",
    "arguments",
    "is_error",
    "tokens",
    "counter",
    "chars",
    "result",
]


DEFAULT_MAX_LOG_BYTES = 16 * 1024 * 1024  # under the loader's read limit, so it reads it whole
LOG_BACKUPS = 3  # FILE.1 … FILE.3 kept when the log rotates
MAX_LOGGED_RESULT = 64 * 1024  # characters of a result kept in the log (the count is whole)


class CallLog:
    """Appends one line per tool call to ``path`` (created if missing); each line is written
    whole with one ``write`` on a file opened for appending, so concurrent connections and a
    killed server leave only complete lines. When the file would pass ``max_bytes`` it rotates
    (``FILE`` → ``FILE.1`` … ``FILE.3``, the oldest dropped), so the log never grows without
    bound and each file stays loadable; results longer than 64 KiB are logged cut (marked
    ``result_cut``; ``tokens`` and ``chars`` are the whole result's)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        counter: str = "o200k",
        clock: Callable[[], datetime] | None = None,
        max_bytes: int = DEFAULT_MAX_LOG_BYTES,
    ) -> None:
        self.path = Path(path)
        if not self.path.parent.is_dir():
            raise CtxLabError(f"cannot log to {self.path}: its directory does not exist")
        self.counter = get_counter(counter)
        self.clock = clock or utc_now
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._calls = 0

    def _rotate(self) -> None:
        for n in range(LOG_BACKUPS, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{n}")
            newer = self.path if n == 1 else self.path.with_name(f"{self.path.name}.{n - 1}")
            with contextlib.suppress(FileNotFoundError):
                os.replace(newer, older)

    def record(
        self, connection: int, tool: str, arguments: Mapping[str, Any], text: str, is_error: bool
    ) -> dict[str, Any]:
        """Append one call and return the record written."""
        with self._lock:
            self._calls += 1
            record = {
                "time": self.clock().isoformat(),
                "connection": connection,
                "call": self._calls,
                "tool": tool,
                "arguments": dict(arguments),
                "is_error": is_error,
                "tokens": self.counter.count(text),
                "counter": self.counter.name,
                "chars": len(text),
                "result": text[:MAX_LOGGED_RESULT],
            }
            if len(text) > MAX_LOGGED_RESULT:
                record["result_cut"] = True
            line = json.dumps(record, ensure_ascii=False) + "\n"
            try:
                size = self.path.stat().st_size
            except FileNotFoundError:
                size = 0
            if size and size + len(line.encode("utf-8", "surrogatepass")) > self.max_bytes:
                self._rotate()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)
        return record


def _records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    from ..files import read_text

    records = []
    for number, line in enumerate(read_text(Path(path)).split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
            raise CtxLabError(f"{path}: line {number} is not JSON: {reason}") from None
        problem = _record_problem(record)
        if problem:
            raise CtxLabError(f"{path}: line {number} is not a call record: {problem}")
        records.append(record)
    return records


_FIELDS: dict[str, type | tuple[type, ...]] = {
    "time": str,
    "connection": int,
    "call": int,
    "tool": str,
    "arguments": dict,
    "is_error": bool,
    "tokens": int,
    "counter": str,
    "chars": int,
    "result": str,
}


def _record_problem(record: Any) -> str:
    if not isinstance(record, dict):
        return f"a JSON {type(record).__name__}, not an object"
    for key, kind in _FIELDS.items():
        if key not in record:
            return f"no {key!r}"
        value = record[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return f"{key!r} is not {getattr(kind, '__name__', kind)}"
    return ""


def load_call_log(path: str | os.PathLike[str]) -> Any:
    """The log as a pandas DataFrame, one row per call (:data:`CALL_LOG_COLUMNS`)."""
    import pandas as pd

    return pd.DataFrame(_records(path), columns=CALL_LOG_COLUMNS)


def call_log_messages(path: str | os.PathLike[str], connection: int | None = None) -> list[dict]:
    """The calls (all, in order, or one ``connection``'s) as OpenAI Chat Completions messages —
    an assistant tool call and the tool's result each — which
    :func:`ctx_lab.conversation.load_transcript` reads, so the replay and calibration tools see
    exactly what the agent received. (Stateless MCP requests are each a connection of their
    own; stdio and HTTP sessions with a handshake keep one number.)"""
    messages: list[dict[str, Any]] = []
    for record in _records(path):
        if connection is not None and record["connection"] != connection:
            continue
        call_id = f"call_{record['call']}"
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {
                            "name": record["tool"],
                            "arguments": json.dumps(record["arguments"], ensure_ascii=False),
                        },
                    }
                ],
            }
        )
        messages.append({"role": "tool", "tool_call_id": call_id, "content": record["result"]})
    return messages
