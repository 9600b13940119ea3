"""Gemini CLI session files (``~/.gemini/tmp/<project hash>/chats/session-….json``): one JSON
object ``{sessionId, projectHash, startTime, lastUpdated, messages}`` as Gemini CLI's chat
recording service writes it. A ``user`` message is the user's turn; a ``gemini`` message is one
model call: its ``content`` (text or parts), ``thoughts`` (``subject``/``description``
summaries), ``toolCalls`` (``id``, ``name``, ``args``, ``result`` — parts holding a
``functionResponse``), ``model`` and ``tokens`` (``input`` = the prompt, cached included;
``cached``; ``output``; ``thoughts``; ``tool``; ``total``). ``info``, ``error`` and ``warning``
messages are the CLI's own and not sent to the model."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ...conversation import Message
from ._blocks import images_in, text_of
from ._model import Call, Transcript, Usage
from ._read import Record, count, list_field, located, mapping, text_field


def is_gemini_session(record: Any) -> bool:
    """Whether a parsed document is a Gemini CLI session."""
    return (
        isinstance(record, Mapping)
        and "sessionId" in record
        and isinstance(record.get("messages"), list)
    )


def _usage(tokens: Mapping[str, Any]) -> Usage:
    prompt = count(tokens.get("input"), "tokens.input")
    cached = min(count(tokens.get("cached"), "tokens.cached"), prompt)
    thoughts = count(tokens.get("thoughts"), "tokens.thoughts")
    output = count(tokens.get("output"), "tokens.output")
    return Usage(prompt - cached, output + thoughts, 0, cached, thoughts)


def read_gemini(rows: list[Record]) -> Transcript:
    """A Gemini CLI session as a :class:`Transcript` (see the module docstring)."""
    number, document = rows[-1]
    messages: list[Message] = []
    calls: list[Call] = []
    thinking: list[tuple[int, str]] = []
    skipped: Counter[str] = Counter()
    images = 0
    with located(number):
        session = mapping(document, "session")
        for position, raw in enumerate(list_field(session.get("messages"), "messages")):
            where = f"messages[{position}]"
            item = mapping(raw, where)
            kind = item.get("type")
            content = item.get("content")
            images += images_in(content)
            if kind == "user":
                messages.append(Message.user(text_of(content)))
                continue
            if kind != "gemini":
                skipped[str(kind)] += 1
                continue
            prompt = len(messages)
            text = text_of(content)
            if text:
                messages.append(Message.assistant(text))
            results: list[Message] = []
            for call in list_field(item.get("toolCalls"), f"{where}.toolCalls"):
                call = mapping(call, f"{where}.toolCalls[]")
                call_id = text_field(call.get("id"), f"{where}.toolCalls[].id")
                messages.append(
                    Message.tool_use(
                        call_id, text_field(call.get("name"), "toolCalls[].name"), call.get("args")
                    )
                )
                results.append(Message.tool_result(call_id, text_of(call.get("result"))))
            tokens = item.get("tokens")
            calls.append(
                Call(
                    index=len(calls),
                    context=len(messages),
                    model=text_field(item.get("model"), f"{where}.model") or None,
                    timestamp=text_field(item.get("timestamp"), f"{where}.timestamp") or None,
                    usage=_usage(mapping(tokens, f"{where}.tokens")) if tokens else None,
                    prompt=prompt,
                )
            )
            for thought in list_field(item.get("thoughts"), f"{where}.thoughts"):
                thought = mapping(thought, f"{where}.thoughts[]")
                summary = "\n".join(
                    text_field(thought.get(key), f"thoughts[].{key}")
                    for key in ("subject", "description")
                    if thought.get(key)
                )
                if summary:
                    thinking.append((len(calls) - 1, summary))
            messages.extend(results)  # the results are input for the next call
    warnings = []
    if skipped:
        warnings.append(
            f"{sum(skipped.values())} messages the CLI wrote for itself (info, error) left out"
        )
    if thinking:
        warnings.append(f"{len(thinking)} thought summaries kept apart")
    return Transcript(
        "gemini-cli",
        tuple(messages),
        tuple(calls),
        images=images,
        warnings=tuple(warnings),
        skipped=tuple(sorted(skipped.items())),
        thinking=tuple(thinking),
    )
