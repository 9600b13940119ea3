"""Streamed answers assembled into the one response object the provider would have sent
unstreamed: Anthropic Messages events, OpenAI Chat Completions chunks, OpenAI Responses events.

Any shape is accepted: an event whose fields are not what the provider documents (an index that
is not a small non-negative int, a delta that is not an object …) is skipped and counted in the
notes; text is gathered in lists and joined once, so assembly is linear in the stream.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["assemble_stream", "assemble_stream_noted"]

_MAX_INDEX = 10_000  # content blocks, choices or tool calls of one answer
_SHAPE = "not the documented shape"  # why an event is skipped


def _index(value: Any) -> int:
    if value is None:
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < _MAX_INDEX:
        return value
    raise ValueError(_SHAPE)


def _object(value: Any) -> Mapping[str, Any]:
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return value
    raise ValueError(_SHAPE)


def _string(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    raise ValueError(_SHAPE)


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
        except (ValueError, RecursionError):
            continue


def assemble_stream(text: str, provider: str) -> dict[str, Any] | None:
    """The one response object a stream stands for (None when it holds none)."""
    return assemble_stream_noted(text, provider)[0]


def assemble_stream_noted(text: str, provider: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The response a stream stands for, and notes on what was skipped (events that do not
    have the documented shape)."""
    events = [(n, d) for n, d in _events(text) if isinstance(d, Mapping)]
    if not events:
        return None, []
    kinds = {d.get("type") for _, d in events}
    if "message_start" in kinds:
        found, skipped = _anthropic(events)
    elif any(isinstance(k, str) and k.startswith("response.") for k in kinds):
        found, skipped = _responses(events)
    else:
        found, skipped = _chat(events)
    notes = [f"{skipped} stream event(s) without the documented shape were skipped"]
    return found, notes if skipped else []


def _responses(events: list[tuple[str, Any]]) -> tuple[dict[str, Any] | None, int]:
    for _, data in reversed(events):
        if isinstance(data.get("response"), Mapping):
            return dict(data["response"]), 0
    return None, 0


class _Blocks:
    """Content blocks by index, their texts gathered as lists (joined once at the end)."""

    def __init__(self) -> None:
        self.blocks: dict[int, dict[str, Any]] = {}
        self.parts: dict[tuple[int, str], list[str]] = {}

    def start(self, index: int, block: Mapping[str, Any]) -> None:
        self.blocks[index] = dict(block)
        for key in ("text", "thinking"):
            if isinstance(block.get(key), str) and block[key]:
                self.parts[(index, key)] = [block[key]]

    def add(self, index: int, key: str, text: str) -> None:
        self.blocks.setdefault(index, {"type": "text"} if key == "text" else {})
        self.parts.setdefault((index, key), []).append(text)

    def content(self) -> list[dict[str, Any]]:
        for (index, key), parts in self.parts.items():
            joined = "".join(parts)
            if key == "partial_json":
                try:
                    self.blocks[index]["input"] = json.loads(joined) if joined else {}
                except (ValueError, RecursionError):
                    self.blocks[index]["input"] = joined
            else:
                self.blocks[index][key] = joined
        return [self.blocks[i] for i in sorted(self.blocks)]


def _anthropic(events: list[tuple[str, Any]]) -> tuple[dict[str, Any] | None, int]:
    message: dict[str, Any] | None = None
    blocks = _Blocks()
    skipped = 0
    for _, data in events:
        try:
            message = _anthropic_event(data, message, blocks)
        except (TypeError, ValueError, AttributeError, OverflowError):
            skipped += 1
    if message is None:
        return None, skipped
    message["content"] = blocks.content()
    return message, skipped


_DELTA_KEYS = {
    "text_delta": ("text", "text"),
    "thinking_delta": ("thinking", "thinking"),
    "input_json_delta": ("partial_json", "partial_json"),
}


def _anthropic_event(
    data: Mapping[str, Any], message: dict[str, Any] | None, blocks: _Blocks
) -> dict[str, Any] | None:
    kind = data.get("type")
    if kind == "message_start":
        return dict(_object(data.get("message")))
    if kind == "content_block_start":
        blocks.start(_index(data.get("index")), _object(data.get("content_block")))
    elif kind == "content_block_delta":
        index = _index(data.get("index"))
        delta = _object(data.get("delta"))
        dtype = delta.get("type")
        if dtype in _DELTA_KEYS:
            field_name, key = _DELTA_KEYS[str(dtype)]
            blocks.add(index, key, _string(delta.get(field_name)))
        elif dtype == "signature_delta":
            blocks.blocks.setdefault(index, {})["signature"] = _string(delta.get("signature"))
    elif kind == "message_delta" and message is not None:
        delta = _object(data.get("delta"))
        usage = dict(_object(message.get("usage")))
        usage.update(_object(data.get("usage")))
        message.update(delta)
        message["usage"] = usage
    return message


def _chat(events: list[tuple[str, Any]]) -> tuple[dict[str, Any] | None, int]:
    state = _ChatState()
    skipped = 0
    for _, data in events:
        if "choices" not in data:
            continue
        try:
            state.take(data)
        except (TypeError, ValueError, AttributeError, OverflowError):
            skipped += 1
    return state.result(), skipped


class _ChatState:
    """Chat Completions chunks gathered: text and tool-call parts as lists per choice."""

    def __init__(self) -> None:
        self.first: dict[str, Any] | None = None
        self.text: dict[int, list[str]] = {}
        self.calls: dict[int, dict[int, dict[str, Any]]] = {}
        self.finish: dict[int, Any] = {}
        self.usage: Any = None

    def take(self, data: Mapping[str, Any]) -> None:
        choices = data.get("choices") or []
        if not isinstance(choices, list):
            raise ValueError(_SHAPE)
        for choice in choices:
            choice = _object(choice)
            index = _index(choice.get("index"))
            delta = _object(choice.get("delta"))
            content = _string(delta.get("content"))
            tool_calls = delta.get("tool_calls") or []
            if not isinstance(tool_calls, list):
                raise ValueError(_SHAPE)
            if content:
                self.text.setdefault(index, []).append(content)
            for call in tool_calls:
                self._tool_call(index, _object(call))
            if choice.get("finish_reason"):
                self.finish[index] = choice["finish_reason"]
        if self.first is None:
            self.first = dict(data)
        if data.get("usage"):
            self.usage = data["usage"]

    def _tool_call(self, index: int, call: Mapping[str, Any]) -> None:
        slot = self.calls.setdefault(index, {}).setdefault(
            _index(call.get("index")), {"id": "", "type": "function", "name": [], "arguments": []}
        )
        slot["id"] = _string(call.get("id")) or slot["id"]
        function = _object(call.get("function"))
        slot["name"].append(_string(function.get("name")))
        slot["arguments"].append(_string(function.get("arguments")))

    def result(self) -> dict[str, Any] | None:
        if self.first is None:
            return None
        choices = []
        for index in sorted(set(self.text) | set(self.calls) | set(self.finish)):
            text = self.text.get(index)
            message: dict[str, Any] = {
                "role": "assistant",
                "content": "".join(text) if text else None,
            }
            if index in self.calls:
                message["tool_calls"] = [
                    {
                        "id": slot["id"],
                        "type": "function",
                        "function": {
                            "name": "".join(slot["name"]),
                            "arguments": "".join(slot["arguments"]),
                        },
                    }
                    for _, slot in sorted(self.calls[index].items())
                ]
            choices.append(
                {"index": index, "message": message, "finish_reason": self.finish.get(index)}
            )
        found = dict(self.first)
        found.update({"object": "chat.completion", "choices": choices, "usage": self.usage})
        return found
