"""A capture file's rows: the columns of ``calls``, a stored call (:class:`CapturedCall`), and
the conversions between the two (bodies cut at the limits, every field checked on the way out,
since a file read back may hold anything)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._stream import assemble_stream_noted

__all__ = ["CAPTURE_LIMIT", "CapturedCall"]

CAPTURE_LIMIT = 16 * 1024 * 1024  # bytes of one body kept in the file (more: cut and flagged)
_COLUMNS = (
    "id", "started", "duration_ms", "provider", "method", "path", "status", "stream",
    "request_body", "request_bytes", "request_truncated", "response_body", "response_bytes",
    "response_truncated", "error",
)  # fmt: skip
_BODIES = ("request_body", "response_body")


def _select(cap: int) -> str:
    """The columns of a call, each body cut in SQL at ``cap`` bytes (with its stored length)."""
    shown = []
    for column in _COLUMNS:
        if column in _BODIES:
            shown.append(f"substr(CAST({column} AS BLOB), 1, {int(cap)})")
            shown.append(f"length(CAST({column} AS BLOB))")
        else:
            shown.append(column)
    return ", ".join(shown)


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
        return self.assembled()[0]

    def assembled(self) -> tuple[dict[str, Any] | None, list[str]]:
        """The response as one object, and notes on what assembling it skipped."""
        if self.stream:
            text = self.response_body.decode("utf-8", "replace")
            return assemble_stream_noted(text, self.provider)
        return _json(self.response_body), []


def _json(data: bytes) -> dict[str, Any] | None:
    try:
        found = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


_INSERT = (
    "INSERT INTO calls (started, duration_ms, provider, method, path, status, stream, "
    "request_body, request_bytes, request_truncated, response_body, response_bytes, "
    "response_truncated, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _values(fields: Mapping[str, Any]) -> tuple[Any, ...]:
    # memoryviews: a body is cut at the limit without another copy of it
    request_body = memoryview(fields.get("request_body") or b"")[:CAPTURE_LIMIT]
    response_body = memoryview(fields.get("response_body") or b"")[:CAPTURE_LIMIT]
    request_bytes = int(fields.get("request_bytes") or 0)
    response_bytes = int(fields.get("response_bytes") or 0)
    return (
        fields["started"],
        fields.get("duration_ms"),
        fields["provider"],
        fields["method"],
        fields["path"],
        fields.get("status"),
        int(bool(fields.get("stream"))),
        request_body,
        request_bytes,
        int(bool(fields.get("request_truncated")) or request_bytes > len(request_body)),
        response_body,
        response_bytes,
        int(bool(fields.get("response_truncated")) or response_bytes > len(response_body)),
        fields.get("error"),
    )


def _row(r: tuple[Any, ...], cap: int) -> CapturedCall:
    """A row of :func:`_select`: the bodies come cut at ``cap`` with their stored lengths."""
    request_cut = (_whole(r[9]) or 0) > cap
    response_cut = (_whole(r[13]) or 0) > cap
    return CapturedCall(
        id=int(r[0]),
        started=str(r[1]),
        duration_ms=_number(r[2]),
        provider=str(r[3]),
        method=str(r[4]),
        path=str(r[5]),
        status=_whole(r[6]),
        stream=bool(r[7]),
        request_body=_bytes(r[8]),
        request_bytes=_whole(r[10]) or 0,
        request_truncated=bool(r[11]) or request_cut,
        response_body=_bytes(r[12]),
        response_bytes=_whole(r[14]) or 0,
        response_truncated=bool(r[15]) or response_cut,
        error=None if r[16] is None else str(r[16])[:2000],
    )


def _bytes(value: Any) -> bytes:
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    return b"" if value is None else str(value).encode("utf-8", "replace")


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and math.isfinite(value) else None
