"""Server-Sent Events as the proxy relays them: the stream cut into events at its blank lines (the
SSE framing of the HTML standard: an event ends at an empty line, ``\\n``, ``\\r\\n`` or ``\\r``),
each event passed on as soon as it is complete — except the event that ends the answer and what
follows it, which wait until the call is committed (so a client that has the whole answer finds
its row). What ends an answer is read from the event's own fields, never by searching bytes:
Anthropic's ``message_stop`` and ``error`` events, OpenAI Chat Completions' ``data: [DONE]`` and a
top-level ``error``, the Responses API's ``response.completed``/``failed``/``incomplete`` and
``error``. (A Responses stream's first event carries ``"error": null`` inside its response
object: it does not end anything.)

Bounded: an event still incomplete past ``limit`` bytes is passed on as it is (it cannot be
judged), and what waits after the last event is passed on past ``limit`` too.

Sources (read 2026-12-07): Anthropic's last event is ``message_stop`` (the official SDK's
``anthropic/types/raw_message_stop_event.py``, anthropic 2.12.0) and a failure after the stream
began is an ``error`` event (its ``anthropic/_streaming.py`` raises on ``sse.event == "error"``);
OpenAI's SDK stops at ``data: [DONE]`` and raises on an ``error`` event or a top-level
``error`` (``openai/_streaming.py``, openai 3.57.0); the Responses events and their ``type``
(https://platform.openai.com/docs/guides/streaming-responses).
"""

from __future__ import annotations

import json
import re

__all__ = ["EventGate", "ends_answer"]

LAST_TYPES = frozenset({"message_stop", "error", "response.completed", "response.failed",
                        "response.incomplete"})  # fmt: skip
_BOUNDARY = re.compile(rb"\r\n\r\n|\n\n|\r\r|\r\n\n|\n\r\n")
_JUDGED = 1 << 20  # an event's data read as JSON up to this size (the last events are small)


def ends_answer(event: bytes) -> bool:
    """Whether this complete event is the one that ends the answer (see the module docstring)."""
    data: list[bytes] = []
    for line in event.splitlines():
        field, _, value = line.partition(b":")
        value = value[1:] if value.startswith(b" ") else value
        if field == b"event" and value.decode("utf-8", "replace").strip() in LAST_TYPES:
            return True
        if field == b"data":
            data.append(value)
    payload = b"\n".join(data).strip()
    if payload == b"[DONE]":
        return True
    if not payload.startswith(b"{") or len(payload) > _JUDGED:
        return False
    try:
        found = json.loads(payload)
    except ValueError:
        return False
    if not isinstance(found, dict):
        return False
    return found.get("type") in LAST_TYPES or found.get("error") is not None


class EventGate:
    """Feeds a stream's chunks and says what may go to the client now; ``held`` is what waits
    for the call's commit (the last event and what follows it)."""

    def __init__(self, limit: int) -> None:
        self.limit = max(limit, 1)
        self.pending = bytearray()  # the event not yet complete
        self.held = bytearray()
        self.ended = False

    def feed(self, chunk: bytes) -> bytes:
        """The bytes of ``chunk`` (and of earlier ones) that may be written now."""
        if self.ended:
            self.held += chunk
            return self._overflow()
        start = max(0, len(self.pending) - 3)  # a boundary may straddle two chunks
        if _BOUNDARY.search(bytes(self.pending[start:]) + chunk) is None:  # still one event
            self.pending += chunk
            if len(self.pending) <= self.limit:
                return b""
            large = bytes(self.pending)  # an event too large to judge: passed on as is
            self.pending.clear()
            return large
        data = bytes(self.pending) + chunk
        out = bytearray()
        cut = 0
        for found in _BOUNDARY.finditer(data, start):
            event = data[cut : found.end()]
            cut = found.end()
            if ends_answer(event):
                self.ended = True
                self.held += data[cut - len(event) :]
                self.pending.clear()
                return bytes(out) + self._overflow()
            out += event
        self.pending = bytearray(data[cut:])
        if len(self.pending) > self.limit:  # an event too large to judge: passed on as is
            out += self.pending
            self.pending.clear()
        return bytes(out)

    def rest(self) -> bytes:
        """Everything not yet written, at the end of the stream."""
        left = bytes(self.pending + self.held)
        self.pending.clear()
        self.held.clear()
        return left

    def _overflow(self) -> bytes:
        """Past ``limit``, what waits is passed on (bounded memory beats the commit order)."""
        if len(self.held) <= self.limit:
            return b""
        out = bytes(self.held)
        self.held.clear()
        return out
