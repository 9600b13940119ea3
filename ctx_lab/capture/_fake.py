"""A stand-in for a provider's API on 127.0.0.1, for demos and tests of the capture proxy: it
answers each request with the next of its canned answers — a JSON body, a Server-Sent Events
stream sent event by event, or an error — and keeps the requests it was sent. Canned answers
can be real recorded responses; :func:`sse_from_response` turns one into the stream the
provider would have sent for ``stream: true``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Answer", "FakeUpstream", "send", "sse_from_response"]


@dataclass(frozen=True)
class Answer:
    """One canned answer: ``status`` and ``body`` (JSON bytes), or ``events`` (each one SSE
    event, sent ``delay`` seconds apart); ``headers`` are added to the response."""

    status: int = 200
    body: bytes = b""
    events: tuple[bytes, ...] = ()
    delay: float = 0.0
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def json(cls, data: Any, status: int = 200) -> Answer:
        """A JSON answer."""
        return cls(status, json.dumps(data).encode())

    @classmethod
    def stream(cls, events: Iterable[bytes], delay: float = 0.0) -> Answer:
        """A Server-Sent Events answer."""
        return cls(200, b"", tuple(events), delay)


def _event(name: str | None, data: Any) -> bytes:
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def _anthropic_delta(block: Mapping[str, Any]) -> dict[str, Any] | None:
    kind = block.get("type")
    if kind == "text":
        return {"type": "text_delta", "text": block.get("text", "")}
    if kind == "thinking":
        return {"type": "thinking_delta", "thinking": block.get("thinking", "")}
    if kind == "tool_use":
        return {"type": "input_json_delta", "partial_json": json.dumps(block.get("input", {}))}
    return None


def _anthropic_stream(response: Mapping[str, Any]) -> tuple[bytes, ...]:
    usage = dict(response.get("usage", {}))
    start = {**response, "content": [], "usage": {**usage, "output_tokens": 1}}
    events = [_event("message_start", {"type": "message_start", "message": start})]
    empty = {"text": {"type": "text", "text": ""}, "thinking": {"type": "thinking", "thinking": ""}}
    for index, block in enumerate(response.get("content", [])):
        kind = block.get("type")
        opening = empty.get(kind, {**block, "input": {}} if kind == "tool_use" else block)
        events.append(
            _event(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": opening},
            )
        )
        deltas = [_anthropic_delta(block)]
        if kind == "thinking" and block.get("signature"):
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        for delta in deltas:
            if delta is not None:
                events.append(
                    _event(
                        "content_block_delta",
                        {"type": "content_block_delta", "index": index, "delta": delta},
                    )
                )
        events.append(_event("content_block_stop", {"type": "content_block_stop", "index": index}))
    delta = {"stop_reason": response.get("stop_reason"), "stop_sequence": None}
    ending = {
        "type": "message_delta",
        "delta": delta,
        "usage": {"output_tokens": usage.get("output_tokens", 0)},
    }
    events.append(_event("message_delta", ending))
    events.append(_event("message_stop", {"type": "message_stop"}))
    return tuple(events)


def _chunk(base: Mapping[str, Any], index: int, delta: Any, finish: Any = None) -> dict[str, Any]:
    choice = {"index": index, "delta": delta, "finish_reason": finish}
    return {**base, "object": "chat.completion.chunk", "choices": [choice]}


def sse_from_response(response: Mapping[str, Any]) -> tuple[bytes, ...]:
    """The events a provider streams for ``response`` (an Anthropic message or an OpenAI chat
    completion), in the providers' documented event shapes."""
    if response.get("type") == "message":
        return _anthropic_stream(response)
    chunks = []
    base = {k: response[k] for k in ("id", "created", "model") if k in response}
    for choice in response.get("choices", []):
        message = choice.get("message", {})
        index = choice.get("index", 0)
        if message.get("content"):
            chunks.append(_chunk(base, index, {"role": "assistant", "content": message["content"]}))
        for n, call in enumerate(message.get("tool_calls") or []):
            chunks.append(_chunk(base, index, {"tool_calls": [{**call, "index": n}]}))
        chunks.append(_chunk(base, index, {}, choice.get("finish_reason")))
    if response.get("usage"):
        tail = {
            **base,
            "object": "chat.completion.chunk",
            "choices": [],
            "usage": response["usage"],
        }
        chunks.append(tail)
    return (*(_event(None, c) for c in chunks), b"data: [DONE]\n\n")


@dataclass
class FakeUpstream:
    """Answers requests with ``answers`` in turn (the last one again when they run out) and
    keeps each request's path and query as received and its body in ``received``."""

    answers: Sequence[Answer]
    received: list[tuple[str, bytes]] = field(default_factory=list)

    def app(self) -> Any:
        """The aiohttp application."""
        from aiohttp import web

        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self.handle)
        return app

    async def handle(self, request: Any) -> Any:
        """The next canned answer."""
        body = await request.read()
        self.received.append((request.raw_path, body))
        answer = self.answers[min(len(self.received) - 1, len(self.answers) - 1)]
        return await send(request, answer)


async def send(request: Any, answer: Answer) -> Any:
    """Write ``answer`` to an aiohttp ``request``: a JSON response, or its events one by one."""
    from aiohttp import web

    if not answer.events:
        return web.Response(
            status=answer.status,
            body=answer.body,
            content_type="application/json",
            headers=dict(answer.headers),
        )
    response = web.StreamResponse(status=answer.status, headers=dict(answer.headers))
    response.content_type = "text/event-stream"
    await response.prepare(request)
    for event in answer.events:
        await response.write(event)
        if answer.delay:
            await asyncio.sleep(answer.delay)
    await response.write_eof()
    return response
