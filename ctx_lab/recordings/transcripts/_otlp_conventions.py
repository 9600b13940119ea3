"""The older ways a span carries its messages, read beside the GenAI conventions' own
(``gen_ai.input.messages``): OpenInference's indexed attributes (``llm.input_messages.N.…``),
the flattened ``gen_ai.prompt.N`` attributes and the per-message events."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import otel_names as otel
from ...conversation import Message
from ._blocks import arguments_of
from ._genai import genai_text

__all__ = ["flat", "from_events", "indexed"]


def indexed(attrs: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """``prefix.N.rest = value`` attributes as a list of ``{rest: value}`` by N."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if key.startswith(prefix):
            number, _, rest = key[len(prefix) :].partition(".")
            if number.isdigit() and rest:
                found.setdefault(int(number), {})[rest] = value
    return [found[n] for n in sorted(found)]


def flat(items: list[dict[str, Any]], inner: str) -> list[Message]:
    """Flattened messages (OpenInference with ``inner="message."``, OpenLLMetry with "")."""
    out: list[Message] = []
    for item in items:
        role = str(item.get(f"{inner}role") or "user")
        content = genai_text(item.get(f"{inner}content"))
        calls = indexed(item, f"{inner}tool_calls.")
        if role == "tool":
            call_id = str(item.get(f"{inner}tool_call_id") or f"call_{len(out)}")
            out.append(Message("tool_result", content, call_id))
            continue
        if content or not calls:
            out.append(Message(role if role in ("system", "user", "assistant") else "user",
                               content))  # fmt: skip
        for number, call in enumerate(calls):
            name = call.get("tool_call.function.name") or call.get("name") or "tool"
            arguments = call.get("tool_call.function.arguments", call.get("arguments"))
            call_id = call.get("tool_call.id") or call.get("id") or f"call_{len(out)}_{number}"
            out.append(Message("tool_use", "", str(call_id), str(name), arguments_of(arguments)))
    return out


def from_events(events: list[tuple[str, Any]]) -> tuple[list[Message], list[Message]]:
    """The older form's messages (the request's) and choices (the answer's)."""
    sent: list[Message] = []
    answer: list[Message] = []
    for name, body in events:
        body = body if isinstance(body, Mapping) else {}
        if name == otel.CHOICE_EVENT:
            message = body.get("message")
            answer += _event_message("assistant", message if isinstance(message, Mapping) else {})
        else:
            sent += _event_message(name.split(".")[1], body)
    return sent, answer


def _event_message(role: str, body: Mapping[str, Any]) -> list[Message]:
    content = genai_text(body.get("content"))
    if role == "tool":
        return [Message("tool_result", content, str(body.get("id") or "call"))]
    out = [Message(role if role in ("system", "user") else "assistant", content)] if (
        content or not body.get("tool_calls")) else []  # fmt: skip
    for number, call in enumerate(body.get("tool_calls") or []):
        if isinstance(call, Mapping):
            given = call.get("function")
            function: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
            out.append(Message("tool_use", "", str(call.get("id") or f"call_{number}"),
                               str(function.get("name") or "tool"),
                               arguments_of(function.get("arguments"))))  # fmt: skip
    return out
