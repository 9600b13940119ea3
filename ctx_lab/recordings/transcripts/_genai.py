"""Messages in OpenTelemetry's GenAI semantic conventions (``gen_ai.input.messages``,
``gen_ai.output.messages``, ``gen_ai.system_instructions``:
https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/, JSON schemas
gen-ai-input-messages.json / gen-ai-output-messages.json, read 2026-11) — one home for both
directions: ctx_lab's export writes them, the OTLP reader reads them, whoever wrote them.

A message is ``{"role", "parts": [...]}``; a part is ``text`` (``content``), ``tool_call``
(``id``, ``name``, ``arguments`` — JSON text parsed, as every reader here parses OpenAI's),
``tool_call_response`` (``id``, ``response``), ``reasoning``
(``content``) or another type (an image, a file: kept as a placeholder naming it). ctx_lab
writes one part per message and, where a message of its own carries more than the convention
has room for (a tool result's error flag or tool name), an ``x-ctx-lab`` object beside
``parts`` — any reader may ignore it; the round trip is exact with it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ...conversation import Message
from ._blocks import arguments_of

__all__ = ["EXTRA", "from_genai", "genai_text", "to_genai"]

EXTRA = "x-ctx-lab"
_ROLE = {"system": "system", "user": "user", "assistant": "assistant", "tool_use": "assistant",
         "tool_result": "tool"}  # fmt: skip


def to_genai(messages: Iterable[Message], reasoning: Sequence[str] = ()) -> list[dict[str, Any]]:
    """``messages`` as GenAI messages, one part each; ``reasoning``: thinking text the last
    assistant turn produced, as ``reasoning`` parts of a message of its own (first)."""
    out: list[dict[str, Any]] = []
    if reasoning:
        parts = [{"type": "reasoning", "content": text} for text in reasoning]
        out.append({"role": "assistant", "parts": parts})
    for message in messages:
        out.append(_one(message))
    return out


def _one(message: Message) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if message.role == "tool_use":
        part: dict[str, Any] = {"type": "tool_call", "id": message.call_id,
                                "name": message.name, "arguments": message.arguments}  # fmt: skip
        if message.content:
            extra["content"] = message.content
    elif message.role == "tool_result":
        part = {"type": "tool_call_response", "id": message.call_id, "response": message.content}
        if message.is_error:
            extra["is_error"] = True
        if message.name:
            extra["name"] = message.name
    else:
        part = {"type": "text", "content": message.content}
        if message.name:
            extra["name"] = message.name
    made: dict[str, Any] = {"role": _ROLE[message.role], "parts": [part]}
    if extra:
        made[EXTRA] = extra
    return made


def genai_text(value: Any) -> str:
    """A part's content or a tool response as text (JSON for anything not a string)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def from_genai(messages: Any) -> tuple[list[Message], list[str]]:
    """GenAI messages (a list, or its JSON text) as ctx_lab's messages, a part each; and the
    reasoning text found in them (kept apart, as transcripts keep thinking)."""
    if isinstance(messages, str):
        messages = json.loads(messages)
    if not isinstance(messages, list):
        raise ValueError("GenAI messages must be a list")
    found: list[Message] = []
    reasoning: list[str] = []
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        role = str(message.get("role") or "user")
        given = message.get(EXTRA)
        extra: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        parts = message.get("parts")
        if not isinstance(parts, list):  # an older shape: {"role", "content"}
            parts = [{"type": "text", "content": message.get("content")}]
        for part in parts:
            if isinstance(part, Mapping):
                _part(role, part, extra, found, reasoning)
    return found, reasoning


def _part(role: str, part: Mapping[str, Any], extra: Mapping[str, Any], found: list[Message],
          reasoning: list[str]) -> None:  # fmt: skip
    kind = part.get("type")
    if kind == "reasoning":
        reasoning.append(genai_text(part.get("content")))
    elif kind == "tool_call":
        found.append(Message("tool_use", str(extra.get("content") or ""),
                             str(part.get("id") or f"call_{len(found)}"),
                             str(part.get("name") or "tool"),
                             arguments_of(part.get("arguments"))))  # fmt: skip
    elif kind == "tool_call_response":
        found.append(Message("tool_result", genai_text(part.get("response")),
                             str(part.get("id") or f"call_{len(found)}"),
                             _name(extra), is_error=extra.get("is_error") is True))  # fmt: skip
    elif kind == "text":
        who = role if role in ("system", "user", "assistant") else "user"
        found.append(Message(who, genai_text(part.get("content")), name=_name(extra)))
    else:  # an image, audio, a file: what it is, not its bytes
        found.append(Message(role if role in ("user", "assistant") else "user",
                             f"[{kind or 'part'}]"))  # fmt: skip


def _name(extra: Mapping[str, Any]) -> str | None:
    name = extra.get("name")
    return str(name) if name else None
