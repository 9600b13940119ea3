"""The capture file: every call a recording proxy forwarded, in SQLite (WAL, ``synchronous=FULL``
— the crash journal's durability), one row committed when its call ends, so a crash loses at
most the call in flight. Credentials never reach it: request headers are not stored at all.

A streamed answer is stored as it arrived (the Server-Sent Events bytes) and assembled here into
the one response object the provider would have sent unstreamed (Anthropic Messages events,
OpenAI Chat Completions chunks, OpenAI Responses events), from which usage is read. Bodies over
a limit are stored cut, and flagged.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import CtxLabError, InputFileError
from ..files import entry_kind

__all__ = [
    "CAPTURE_LIMIT",
    "CaptureStore",
    "CapturedCall",
    "assemble_stream",
    "is_capture",
]

CAPTURE_LIMIT = 16 * 1024 * 1024  # bytes of one body kept in the file (more: cut and flagged)
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
    """Whether ``path`` is an SQLite file holding captured calls."""
    try:
        with open(path, "rb") as handle:
            if handle.read(16) != _MAGIC:
                return False
    except OSError:
        return False
    try:
        db = sqlite3.connect(f"file:{os.fspath(path)}?mode=ro", uri=True, timeout=5)
        try:
            found = db.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='capture_meta'"
            ).fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return False
    return found is not None


@dataclass(frozen=True)
class CapturedCall:
    """One forwarded call as stored: the request body (JSON when it was), the response body as
    it came (SSE text when ``stream``), and what the proxy saw of it."""

    id: int
    started: str
    duration_ms: float | None
    provider: str
    method: str
    path: str
    status: int | None
    stream: bool
    request_body: bytes
    request_bytes: int
    request_truncated: bool
    response_body: bytes
    response_bytes: int
    response_truncated: bool
    error: str | None

    def request(self) -> dict[str, Any] | None:
        """The request body as JSON (None when it is not, or was cut)."""
        return _json(self.request_body)

    def response(self) -> dict[str, Any] | None:
        """The response as one object (a stream assembled), or None."""
        if self.stream:
            return assemble_stream(self.response_body.decode("utf-8", "replace"), self.provider)
        return _json(self.response_body)


def _json(data: bytes) -> dict[str, Any] | None:
    try:
        found = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


class CaptureStore:
    """A capture file, opened for appending (the proxy) or reading (``readonly``)."""

    def __init__(self, path: str | os.PathLike[str], *, readonly: bool = False) -> None:
        from ..conversation._journal import connect, connect_readonly

        self.path = os.fspath(path)
        kind = entry_kind(path)
        if kind not in ("file", "missing"):
            raise InputFileError(f"{self.path}: not a regular file ({kind}); no capture written")
        if readonly and kind == "missing":
            raise InputFileError(f"{self.path}: no such capture file")
        try:
            self.db = connect_readonly(path) if readonly else connect(path)
            if not readonly:
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

    def record(
        self,
        *,
        started: str,
        duration_ms: float,
        provider: str,
        method: str,
        path: str,
        status: int | None,
        stream: bool,
        request_body: bytes,
        request_bytes: int,
        response_body: bytes,
        response_bytes: int,
        error: str | None = None,
    ) -> int:
        """Store one finished call (bodies over :data:`CAPTURE_LIMIT` cut and flagged); its id."""
        with self._lock:
            cursor = self.db.execute(
                "INSERT INTO calls (started, duration_ms, provider, method, path, status, "
                "stream, request_body, request_bytes, request_truncated, response_body, "
                "response_bytes, response_truncated, error) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    started,
                    duration_ms,
                    provider,
                    method,
                    path,
                    status,
                    int(stream),
                    request_body[:CAPTURE_LIMIT],
                    request_bytes,
                    int(request_bytes > len(request_body[:CAPTURE_LIMIT])),
                    response_body[:CAPTURE_LIMIT],
                    response_bytes,
                    int(response_bytes > len(response_body[:CAPTURE_LIMIT])),
                    error,
                ),
            )
            return int(cursor.lastrowid or 0)

    def calls(self, since: int = 0, limit: int = 10_000) -> list[CapturedCall]:
        """The stored calls with an id above ``since``, oldest first (at most ``limit``)."""
        try:
            rows = self.db.execute(
                "SELECT id, started, duration_ms, provider, method, path, status, stream, "
                "request_body, request_bytes, request_truncated, response_body, response_bytes, "
                "response_truncated, error FROM calls WHERE id > ? ORDER BY id LIMIT ?",
                (since, limit),
            ).fetchall()
        except sqlite3.Error as exc:
            raise CtxLabError(f"{self.path}: not a capture file ({exc})") from None
        return [_row(r) for r in rows]

    def count(self) -> int:
        """How many calls the file holds."""
        return int(self.db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])


def _row(r: tuple[Any, ...]) -> CapturedCall:
    return CapturedCall(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        r[6],
        bool(r[7]),
        bytes(r[8] or b""),
        r[9],
        bool(r[10]),
        bytes(r[11] or b""),
        r[12],
        bool(r[13]),
        r[14],
    )


# -- streams, assembled -----------------------------------------------------------------------


def _events(text: str) -> Iterator[tuple[str, Any]]:
    """``(event name, data as JSON)`` of each Server-Sent Event (data that is not JSON, such as
    ``[DONE]``, left out)."""
    for block in text.replace("\r\n", "\n").split("\n\n"):
        name, data = "", []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip())
        if not data:
            continue
        try:
            yield name, json.loads("\n".join(data))
        except ValueError:
            continue


def assemble_stream(text: str, provider: str) -> dict[str, Any] | None:
    """The one response object a stream stands for (None when it holds none)."""
    events = list(_events(text))
    if not events:
        return None
    kinds = {data.get("type") for _, data in events if isinstance(data, Mapping)}
    if "message_start" in kinds:
        return _anthropic(events)
    if "response.completed" in kinds or any(str(k).startswith("response.") for k in kinds if k):
        for _, data in reversed(events):
            if isinstance(data, Mapping) and isinstance(data.get("response"), Mapping):
                return dict(data["response"])
        return None
    return _chat(events)


def _anthropic(events: list[tuple[str, Any]]) -> dict[str, Any] | None:
    message: dict[str, Any] | None = None
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, str] = {}
    for _, data in events:
        if not isinstance(data, Mapping):
            continue
        kind = data.get("type")
        if kind == "message_start" and isinstance(data.get("message"), Mapping):
            message = dict(data["message"])
        elif kind == "content_block_start":
            blocks[int(data.get("index", 0))] = dict(data.get("content_block") or {})
        elif kind == "content_block_delta":
            index = int(data.get("index", 0))
            delta = data.get("delta") or {}
            block = blocks.setdefault(index, {"type": "text", "text": ""})
            dtype = delta.get("type")
            if dtype == "text_delta":
                block["text"] = block.get("text", "") + str(delta.get("text", ""))
            elif dtype == "thinking_delta":
                block["thinking"] = block.get("thinking", "") + str(delta.get("thinking", ""))
            elif dtype == "signature_delta":
                block["signature"] = str(delta.get("signature", ""))
            elif dtype == "input_json_delta":
                partial[index] = partial.get(index, "") + str(delta.get("partial_json", ""))
        elif kind == "message_delta" and message is not None:
            message.update({k: v for k, v in (data.get("delta") or {}).items()})
            usage = dict(message.get("usage") or {})
            usage.update(data.get("usage") or {})
            message["usage"] = usage
    if message is None:
        return None
    for index, text in partial.items():
        try:
            blocks[index]["input"] = json.loads(text) if text else {}
        except ValueError:
            blocks[index]["input"] = text
    message["content"] = [blocks[i] for i in sorted(blocks)]
    return message


def _chat(events: list[tuple[str, Any]]) -> dict[str, Any] | None:
    first: dict[str, Any] | None = None
    text: dict[int, str] = {}
    calls: dict[int, dict[int, dict[str, Any]]] = {}
    finish: dict[int, Any] = {}
    usage = None
    for _, data in events:
        if not isinstance(data, Mapping) or "choices" not in data:
            continue
        first = first or dict(data)
        if data.get("usage"):
            usage = data["usage"]
        for choice in data.get("choices") or ():
            index = int(choice.get("index", 0))
            delta = choice.get("delta") or {}
            if delta.get("content"):
                text[index] = text.get(index, "") + str(delta["content"])
            for call in delta.get("tool_calls") or ():
                slot = calls.setdefault(index, {}).setdefault(
                    int(call.get("index", 0)),
                    {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
                )
                slot["id"] = call.get("id") or slot["id"]
                function = call.get("function") or {}
                slot["function"]["name"] += str(function.get("name") or "")
                slot["function"]["arguments"] += str(function.get("arguments") or "")
            if choice.get("finish_reason"):
                finish[index] = choice["finish_reason"]
    if first is None:
        return None
    choices = []
    for index in sorted(set(text) | set(calls) | set(finish)):
        message: dict[str, Any] = {"role": "assistant", "content": text.get(index)}
        if index in calls:
            message["tool_calls"] = [calls[index][k] for k in sorted(calls[index])]
        choices.append({"index": index, "message": message, "finish_reason": finish.get(index)})
    first.update({"object": "chat.completion", "choices": choices, "usage": usage})
    return first
