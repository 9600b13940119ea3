"""Anthropic Messages recordings: a request (``model``, ``system``, ``messages``, ``tools``),
optionally with its response (``{"request": …, "response": …}``), or a response alone.

Server-side context management: a ``compaction`` block in the request's messages means the
provider dropped everything before it and sent its summary instead (the transcript marks a
compaction there), and a response whose ``usage.iterations`` holds a ``compaction`` entry
compacted while answering; such a call is marked ``compacted``. Its context is the last
``message`` iteration's input."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...conversation import Message
from ._blocks import anthropic_turn, compaction_summary, images_in, text_of
from ._model import Call, Transcript, Usage
from ._read import Record, list_field, located, mapping, text_field


def read_anthropic(rows: list[Record]) -> Transcript:
    """Anthropic Messages records as a transcript: the last request's conversation, with one
    call per request/response record (a log of calls, or a capture file's)."""
    calls_in = [row for row in rows if _is_call(row[1])]
    if len(calls_in) <= 1:
        return _read_one((calls_in or rows)[-1])
    parts = [_read_one(row) for row in calls_in]
    calls: list[Call] = []
    thinking: list[tuple[int, str]] = []
    rewritten = 0
    previous: tuple[Message, ...] = ()
    for part in parts:
        if part.messages[: len(previous)] != previous:
            rewritten += 1
        previous = part.messages
        for call in part.calls:
            thinking.extend(
                (len(calls), text) for index, text in part.thinking if index == call.index
            )
            calls.append(replace(call, index=len(calls)))
    last = parts[-1]
    warnings = list(dict.fromkeys(w for p in parts for w in p.warnings))
    if rewritten:
        warnings.append(
            f"{rewritten} requests do not extend the one before (history compacted or another "
            "conversation): the transcript is the last request's conversation"
        )
    return replace(last, calls=tuple(calls), thinking=tuple(thinking), warnings=tuple(warnings))


def _is_call(record: Any) -> bool:
    """Whether a record is a request (with or without its response) or a response alone."""
    if not isinstance(record, Mapping):
        return False
    request = record.get("request", record)
    return isinstance(request, Mapping) and (
        "messages" in request or request.get("type") == "message"
    )


def _read_one(row: Record) -> Transcript:
    """One request (with its response, when recorded) as a transcript."""
    number, record = row
    with located(number):
        record = mapping(record, "record")
        request = mapping(record.get("request", record), "request")
        response = record.get("response")
        if request.get("type") == "message" and "messages" not in request:  # a response alone
            request, response = {"messages": [], "model": request.get("model")}, request
        system_value = request.get("system", "")
        system = system_value if isinstance(system_value, str) else text_of(system_value)
        messages: list[Message] = []
        compactions: list[int] = []
        summaries: list[int] = []
        thinking: list[str] = []
        images = 0
        compacted = False
        for position, item in enumerate(list_field(request.get("messages"), "messages")):
            item = mapping(item, f"messages[{position}]")
            role = item.get("role")
            if role not in ("user", "assistant"):
                continue
            content = item.get("content", "")
            images += images_in(content)
            summary = compaction_summary(content)
            if summary is not None:
                compacted = True
                compactions.append(len(messages))
                summaries.append(len(messages))
                messages.append(Message.user(summary or "[compaction]"))
            turn, thoughts = anthropic_turn(str(role), content)
            messages.extend(turn)
            thinking.extend(thoughts)  # an earlier turn's reasoning, sent back in a tool loop
        calls: list[Call] = []
        prompt = len(messages)
        if isinstance(response, Mapping):
            turn, thoughts = anthropic_turn("assistant", response.get("content", []))
            messages.extend(turn)
            thinking.extend(thoughts)
            usage = response.get("usage")
            usage_map = mapping(usage, "usage") if usage is not None else None
            iterations = usage_map.get("iterations") if usage_map is not None else None
            if isinstance(iterations, list) and any(
                isinstance(it, Mapping) and it.get("type") == "compaction" for it in iterations
            ):
                compacted = True
            calls.append(
                Call(
                    index=0,
                    context=len(messages),
                    model=text_field(response.get("model") or request.get("model"), "model")
                    or None,
                    timestamp=None,
                    usage=Usage.from_anthropic(usage_map) if usage_map is not None else None,
                    prompt=prompt,
                    compacted=compacted,
                )
            )
        elif request.get("model"):
            calls.append(
                Call(0, len(messages), text_field(request.get("model"), "model"), prompt=prompt)
            )
    warnings = []
    if compacted:
        warnings.append(
            "the provider compacted this request's history on its side: its usage does not "
            "measure the messages before the compaction (left out of calibration)"
        )
    return Transcript(
        "anthropic-messages",
        tuple(messages),
        tuple(calls),
        system,
        tuple(list_field(request.get("tools"), "tools")),
        compactions=tuple(compactions),
        recorded_summaries=tuple(summaries),
        images=images,
        warnings=tuple(warnings),
        thinking=tuple((0, t) for t in thinking if t),
    )


def looks_anthropic(request: Mapping[str, Any], response: Any = None) -> bool:
    """Whether a request body uses Anthropic's content blocks: its fields (``system``; Amazon
    Bedrock's ``anthropic_version``, which its Anthropic bodies carry instead of ``model``), its
    blocks, or the answer recorded beside it (a ``message`` object)."""
    if request.get("type") == "message" or "system" in request or "anthropic_version" in request:
        return True
    if isinstance(response, Mapping) and response.get("type") == "message":
        return True
    messages = request.get("messages")
    blocks = [
        b
        for m in (messages if isinstance(messages, list) else [])
        if isinstance(m, Mapping) and isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, Mapping)
    ]
    return any(b.get("type") in ("tool_use", "tool_result", "compaction") for b in blocks)
