"""Cline (and its fork Roo Code) task exports: ``api_conversation_history.json`` in the task's
folder is a JSON array of the Anthropic-style messages Cline sends — ``{"role", "content":
[blocks]}``, assistant messages with ``modelInfo.modelId`` — read here as one session: each
assistant message is one call, sent everything before it.

Cline answers a tool call with text, not a ``tool_result`` block: the next user message holds,
in the order of the calls, ``[NAME for 'ARG'] Result:…`` (or ``Tool [NAME] was not executed
because…``) text blocks. Each such block is paired with its call, so tool calls and results stay
pairs as in the other formats; other text (``<environment_details>`` …) stays the user's.

Cline's per-message ``metrics.tokens`` are its own bookkeeping (their meaning is not documented
as the provider's usage), so calls carry no reported usage and the transcript says so.
``ui_messages.json`` beside it holds the chat panel's ``say``/``ask`` events, no request: it is
refused, naming the file to read instead.

Checked on real exports committed to public repositories (hand counts in the closing notes of
the work that added this reader): 94 messages, 47 tool calls (46 answered; the last one,
``attempt_completion``, ends the task) and 72 messages, 38 calls (one assistant message with
four calls, three answered ``was not executed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...conversation import Message
from ...errors import TranscriptError
from ._blocks import anthropic_turn, images_in
from ._model import Call, Transcript
from ._read import Record, located, mapping

__all__ = ["is_cline_history", "is_cline_ui", "read_cline"]

_ANTHROPIC_BLOCKS = ("tool_use", "tool_result", "thinking", "redacted_thinking")
NO_USAGE = (
    "Cline's export records no provider usage (its metrics.tokens are Cline's own bookkeeping): "
    "calls carry no reported input"
)


def is_cline_history(record: Any) -> bool:
    """Whether a JSON array is Cline's ``api_conversation_history.json``: user and assistant
    messages whose content holds Anthropic blocks, or assistant messages with ``modelInfo``."""
    if not isinstance(record, list) or not record:
        return False
    items = [m for m in record[:200] if isinstance(m, Mapping)]
    if len(items) != len(record[:200]) or any(
        m.get("role") not in ("user", "assistant") for m in items
    ):
        return False
    if any(isinstance(m.get("modelInfo"), Mapping) for m in items):
        return True
    return any(
        isinstance(b, Mapping) and b.get("type") in _ANTHROPIC_BLOCKS
        for m in items
        if isinstance(m.get("content"), list)
        for b in m["content"]
    )


def is_cline_ui(record: Any) -> bool:
    """Whether a JSON array is Cline's ``ui_messages.json`` (``ts`` and ``say``/``ask``)."""
    if not isinstance(record, list) or not record:
        return False
    head = record[:50]
    return all(
        isinstance(m, Mapping) and "ts" in m and m.get("type") in ("say", "ask") for m in head
    )


def refuse_ui() -> TranscriptError:
    """The error for a ``ui_messages.json``."""
    return TranscriptError(
        "looks like a Cline task's ui_messages.json (the chat panel's say/ask events, no "
        "request): ctx_lab reads a Cline task from api_conversation_history.json beside it"
    )


def _answers(pending: list[tuple[str, str]], block: Any) -> str | None:
    """The id of the call ``block`` answers (the oldest unanswered one, by its name)."""
    if not pending or not isinstance(block, Mapping) or block.get("type") != "text":
        return None
    text = block.get("text")
    name = pending[0][1]
    if isinstance(text, str) and (text.startswith(f"[{name}") or text.startswith(f"Tool [{name}]")):
        return pending.pop(0)[0]
    return None


def _user_blocks(content: Any, pending: list[tuple[str, str]]) -> Any:
    """The user's content with the text answering each pending call made a ``tool_result``."""
    if not isinstance(content, list):
        return content
    out = []
    for block in content:
        call_id = _answers(pending, block)
        if call_id is None:
            out.append(block)
        else:
            out.append({"type": "tool_result", "tool_use_id": call_id, "content": block["text"]})
    return out


def _calls_in(content: Any) -> list[tuple[str, str]]:
    if not isinstance(content, list):
        return []
    return [
        (str(b.get("id", "")), str(b.get("name", "")))
        for b in content
        if isinstance(b, Mapping) and b.get("type") == "tool_use"
    ]


def read_cline(rows: list[Record]) -> Transcript:
    """A Cline ``api_conversation_history.json`` as a transcript (one call per assistant
    message)."""
    number, record = rows[-1]
    messages: list[Message] = []
    calls: list[Call] = []
    thinking: list[tuple[int, str]] = []
    images = 0
    pending: list[tuple[str, str]] = []
    with located(number):
        if not isinstance(record, list):
            raise TranscriptError("a Cline export is a JSON array of messages")
        for position, item in enumerate(record):
            item = mapping(item, f"[{position}]")
            role, content = item.get("role"), item.get("content", "")
            images += images_in(content)
            if role == "assistant":
                prompt = len(messages)
                turn, thoughts = anthropic_turn("assistant", content)
                messages.extend(turn)
                thinking.extend((len(calls), t) for t in thoughts if t)
                info = item.get("modelInfo")
                model = info.get("modelId") if isinstance(info, Mapping) else None
                model = model if isinstance(model, str) and model else None
                calls.append(
                    Call(
                        index=len(calls),
                        context=len(messages),
                        model=model,
                        timestamp=None,
                        usage=None,
                        prompt=prompt,
                    )
                )
                pending = _calls_in(content)
            elif role == "user":
                turn, _ = anthropic_turn("user", _user_blocks(content, pending))
                messages.extend(turn)
                pending = []
    return Transcript(
        "cline",
        tuple(messages),
        tuple(calls),
        images=images,
        warnings=(NO_USAGE,),
        thinking=tuple(thinking),
    )
