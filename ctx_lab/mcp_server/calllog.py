"""The record of what an MCP server served: one JSON line per tool call — when, which
connection, the tool, its arguments, whether it failed, the text the agent received and that
text's token count — loadable as a DataFrame and replayable as a conversation."""

from __future__ import annotations

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

__all__ = ["CALL_LOG_COLUMNS", "CallLog", "call_log_messages", "load_call_log"]

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


class CallLog:
    """Appends one line per tool call to ``path`` (created if missing); each line is written
    whole with one ``write`` on a file opened for appending, so concurrent connections and a
    killed server leave only complete lines."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        counter: str = "o200k",
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.path = Path(path)
        if not self.path.parent.is_dir():
            raise CtxLabError(f"cannot log to {self.path}: its directory does not exist")
        self.counter = get_counter(counter)
        self.clock = clock or utc_now
        self._lock = threading.Lock()
        self._calls = 0

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
                "result": text,
            }
            line = json.dumps(record, ensure_ascii=False) + "\n"
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)
        return record


def _records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    from ..files import read_text

    records = []
    for number, line in enumerate(read_text(Path(path)).splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise CtxLabError(f"{path}: line {number} is not JSON: {exc.msg}") from None
    return records


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
