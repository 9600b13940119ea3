"""Recorded sessions as transcripts: ``load_transcript(path_or_obj)`` reads a Claude Code
session (JSONL), an OpenAI Chat Completions request or log, or an Anthropic Messages request or
response, and returns one :class:`Transcript` — messages in order (tool calls and their results
as separate messages that stay paired), the system prompt and tool definitions, each model call
with its provider-reported usage, compaction events, and what was left out.

Shapes come from the providers' SDK types (``anthropic.types.Message``, ``MessageParam``,
``Usage``; OpenAI's ``ChatCompletion`` and its request body) and, for Claude Code, the session
files it writes (``type`` user/assistant/summary/system lines, ``parentUuid`` chains,
``isSidechain``, ``message.usage``). Unknown lines are counted, never fatal; a line that is not
JSON raises :class:`TranscriptError` naming the line.

Claude Code replay semantics: the main chain is the ancestors of the last leaf (by
``parentUuid``); side-chains (sub-agents) are left out and counted; a ``compact_boundary``
system line marks a recorded compaction; an image becomes the placeholder ``[image]``, counted
as :data:`IMAGE_TOKENS` tokens by convention (what a typical screenshot costs Claude).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import TranscriptError
from ..files import read_text
from .messages import Message

__all__ = [
    "FORMATS",
    "IMAGE_PLACEHOLDER",
    "IMAGE_TOKENS",
    "Call",
    "Transcript",
    "TranscriptError",
    "Usage",
    "load_transcript",
]

FORMATS = ("claude-code", "openai-chat", "anthropic-messages")
IMAGE_PLACEHOLDER = "[image]"
IMAGE_TOKENS = 1600  # ≈ a 1,000 × 1,000 px screenshot under Anthropic's (w × h / 750) rule


@dataclass(frozen=True)
class Usage:
    """Provider-reported tokens of one call. ``reported_input`` is input + cache creation +
    cache read (Anthropic reports the three apart; OpenAI's prompt tokens include cached)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    @property
    def reported_input(self) -> int:
        """Every input token the call was billed for, cached or not."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    @classmethod
    def from_anthropic(cls, data: Mapping[str, Any]) -> Usage:
        """From an Anthropic ``usage`` object."""
        return cls(
            int(data.get("input_tokens") or 0),
            int(data.get("output_tokens") or 0),
            int(data.get("cache_creation_input_tokens") or 0),
            int(data.get("cache_read_input_tokens") or 0),
        )

    @classmethod
    def from_openai(cls, data: Mapping[str, Any]) -> Usage:
        """From an OpenAI ``usage`` object (cached prompt tokens split out)."""
        prompt = int(data.get("prompt_tokens") or 0)
        details = data.get("prompt_tokens_details") or {}
        cached = int(details.get("cached_tokens") or 0) if isinstance(details, Mapping) else 0
        return cls(prompt - cached, int(data.get("completion_tokens") or 0), 0, cached)

    def to_dict(self) -> dict[str, int]:
        """The four counts."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
        }


@dataclass(frozen=True)
class Call:
    """One model call: ``prompt`` = how many of the transcript's messages came before its answer
    (what it was sent, from the last recorded compaction on), ``context`` = how many there are
    once its answer is in; its model, time and reported usage."""

    index: int
    context: int
    model: str | None = None
    timestamp: str | None = None
    usage: Usage | None = None
    prompt: int | None = None

    @property
    def sent_end(self) -> int:
        """The end of what the call was sent (its ``prompt``; ``context`` when unknown)."""
        return self.context if self.prompt is None else self.prompt


@dataclass(frozen=True)
class Transcript:
    """A recorded session, ready to replay."""

    format: str
    messages: tuple[Message, ...]
    calls: tuple[Call, ...] = ()
    system: str = ""
    tools: tuple[Any, ...] = ()
    compactions: tuple[int, ...] = ()  # message positions where a compaction was recorded
    recorded_summaries: tuple[int, ...] = ()  # positions of the summaries those compactions wrote
    sidechain_lines: int = 0
    unknown_lines: int = 0
    images: int = 0
    warnings: tuple[str, ...] = field(default=())
    source: str = ""  # the file it was read from, as given

    def sent_range(self, call: Call) -> tuple[int, int]:
        """The messages ``[start, end)`` the recorded call was sent: after the last compaction
        recorded before it (the agent's summary stands in for what came earlier)."""
        end = call.sent_end
        start = max((c for c in self.compactions if c <= end), default=0)
        return start, end

    def compaction_calls(self) -> tuple[int, ...]:
        """The calls that were the first after a recorded compaction."""
        found = []
        previous = 0
        for call in self.calls:
            end = call.sent_end
            if any(previous <= c < end for c in self.compactions):
                found.append(call.index)
            previous = max(previous, call.context)
        return tuple(found)

    @property
    def models(self) -> tuple[str, ...]:
        """The models the calls were made with, in first-use order."""
        return tuple(dict.fromkeys(c.model for c in self.calls if c.model))

    def to_manager(self, model: str | None = None, **options: Any) -> Any:
        """A :class:`~ctx_lab.conversation.ContextManager` holding this session's messages for
        ``model`` (default: the first model the session used); the system prompt and tool
        definitions are set as the manager's reserved overhead. ``options`` go to the manager
        (``counter``, ``preserve_recent`` …)."""
        from .manager import ContextManager

        chosen = model or (self.models[0] if self.models else None)
        if chosen is None:
            raise TranscriptError("the transcript names no model: pass one")
        manager = ContextManager(chosen, **options)
        manager.set_system_prompt(self.system or None)
        manager.set_tools(list(self.tools) or None)
        for message in self.messages:
            manager.push_message(message)
        return manager


# -- content blocks -------------------------------------------------------------------------------


def _text_of(content: Any) -> str:
    """Text of an Anthropic/OpenAI content value (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content if isinstance(content, list) else []:
        if isinstance(block, Mapping):
            kind = block.get("type")
            if kind in ("text", "input_text", "output_text"):
                parts.append(str(block.get("text", "")))
            elif kind in ("image", "image_url", "input_image"):
                parts.append(IMAGE_PLACEHOLDER)
            elif kind == "tool_result":  # nested (Anthropic user turns): handled by the caller
                continue
        elif isinstance(block, str):
            parts.append(block)
    return "\n".join(p for p in parts if p)


def _images(content: Any) -> int:
    if not isinstance(content, list):
        return 0
    found = 0
    for block in content:
        if isinstance(block, Mapping):
            if block.get("type") in ("image", "image_url", "input_image"):
                found += 1
            elif block.get("type") == "tool_result":
                found += _images(block.get("content"))
    return found


def _anthropic_messages(role: str, content: Any) -> list[Message]:
    """Messages of one Anthropic turn: text, then tool calls (assistant) or tool results
    (user), each as its own message; thinking blocks are not context for the next call."""
    if isinstance(content, str):
        return [Message(role, content)] if content or role == "user" else []
    out: list[Message] = []
    text = _text_of(content)
    if text:
        out.append(Message(role, text))
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "tool_use":
            out.append(Message.tool_use(str(block["id"]), str(block["name"]), block.get("input")))
        elif block.get("type") == "tool_result":
            result = _text_of(block.get("content", ""))
            out.append(
                Message.tool_result(
                    str(block["tool_use_id"]), result, bool(block.get("is_error", False))
                )
            )
    return out


# -- Claude Code ----------------------------------------------------------------------------------


def _claude_code(records: list[tuple[int, Any]]) -> Transcript:
    by_uuid: dict[str, tuple[int, Mapping[str, Any]]] = {}
    children: set[str] = set()
    order: list[str] = []
    sidechain = unknown = 0
    for number, record in records:
        if not isinstance(record, Mapping):
            unknown += 1
            continue
        kind = record.get("type")
        if kind in ("summary", "file-history-snapshot", "queue-operation"):
            continue  # titles, file snapshots, queue state: not context
        uuid = record.get("uuid")
        if kind not in ("user", "assistant", "system") or not isinstance(uuid, str):
            unknown += 1
            continue
        if record.get("isSidechain"):
            sidechain += 1
            continue
        if record.get("isApiErrorMessage"):  # written by the client, never sent by the API
            continue
        by_uuid[uuid] = (number, record)
        order.append(uuid)
        parent = record.get("parentUuid") or record.get("logicalParentUuid")
        if isinstance(parent, str):
            children.add(parent)
    leaves = [u for u in order if u not in children]
    chain: list[Mapping[str, Any]] = []
    current = leaves[-1] if leaves else None
    seen: set[str] = set()
    while current is not None and current in by_uuid and current not in seen:
        seen.add(current)
        record = by_uuid[current][1]
        chain.append(record)
        parent = record.get("parentUuid") or record.get("logicalParentUuid")
        current = parent if isinstance(parent, str) else None
    chain.reverse()
    messages: list[Message] = []
    calls: list[Call] = []
    compactions: list[int] = []
    summaries: list[int] = []
    images = 0
    last_id: object = None  # the API message id of the last call
    for record in chain:
        kind = record["type"]
        if kind == "system":
            if record.get("subtype") == "compact_boundary":
                compactions.append(len(messages))
            last_id = None
            continue
        message = record.get("message") or {}
        content = message.get("content", "") if isinstance(message, Mapping) else ""
        images += _images(content)
        if record.get("isCompactSummary"):  # the summary Claude Code wrote when it compacted
            summaries.append(len(messages))
            messages.append(Message.user(_text_of(content)))
            last_id = None
            continue
        before = len(messages)
        messages.extend(_anthropic_messages(kind, content))
        if kind != "assistant" or not isinstance(message, Mapping):
            last_id = None
            continue
        usage = message.get("usage")
        found = Usage.from_anthropic(usage) if isinstance(usage, Mapping) else None
        message_id = message.get("id")
        if message_id is not None and message_id == last_id and calls:
            # Claude Code writes one line per content block of a response, each with the same
            # message id and usage: one call whose answer spans those lines
            previous = calls[-1]
            calls[-1] = Call(
                previous.index,
                len(messages),
                previous.model,
                previous.timestamp,
                found or previous.usage,
                previous.prompt,
            )
            continue
        last_id = message_id
        calls.append(
            Call(
                len(calls),
                len(messages),
                message.get("model"),
                record.get("timestamp"),
                found,
                before,
            )
        )
    warnings = []
    if sidechain:
        warnings.append(f"{sidechain} side-chain (sub-agent) lines left out of the main chain")
    if unknown:
        warnings.append(f"{unknown} lines of unknown kinds skipped")
    return Transcript(
        "claude-code",
        tuple(messages),
        tuple(calls),
        compactions=tuple(compactions),
        recorded_summaries=tuple(summaries),
        sidechain_lines=sidechain,
        unknown_lines=unknown,
        images=images,
        warnings=tuple(warnings),
    )


# -- OpenAI Chat Completions ----------------------------------------------------------------------


def _openai_messages(items: Iterable[Any]) -> tuple[str, list[Message], int]:
    system: list[str] = []
    out: list[Message] = []
    images = 0
    for item in items:
        if not isinstance(item, Mapping):
            continue
        role = item.get("role")
        content = item.get("content")
        images += _images(content)
        if role in ("system", "developer"):
            system.append(_text_of(content))
        elif role == "user":
            out.append(Message.user(_text_of(content)))
        elif role == "assistant":
            text = _text_of(content)
            if text:
                out.append(Message.assistant(text))
            for call in item.get("tool_calls") or []:
                function = call.get("function") or {}
                raw = function.get("arguments") or "{}"
                try:
                    arguments = json.loads(raw) if isinstance(raw, str) else raw
                except ValueError:
                    arguments = {"raw": raw}
                out.append(Message.tool_use(str(call["id"]), str(function.get("name")), arguments))
        elif role == "tool":
            out.append(Message.tool_result(str(item.get("tool_call_id")), _text_of(content)))
    return "\n\n".join(s for s in system if s), out, images


def _openai(records: list[tuple[int, Any]]) -> Transcript:
    """A ``messages`` list, a request body, or JSONL request/response pairs (the last request
    holds the whole conversation; each response's ``usage`` belongs to its request)."""
    system = ""
    messages: list[Message] = []
    calls: list[Call] = []
    tools: tuple[Any, ...] = ()
    images = unknown = rewritten = 0
    for _, record in records:
        if isinstance(record, list):
            record = {"messages": record}
        if not isinstance(record, Mapping):
            unknown += 1
            continue
        request = record.get("request", record)
        response = record.get("response")
        if not isinstance(request, Mapping) or "messages" not in request:
            unknown += 1
            continue
        previous = messages
        system, messages, images = _openai_messages(request["messages"])
        prompt = len(messages)
        if messages[: len(previous)] != previous:
            rewritten += 1
        tools = tuple(request.get("tools") or ()) or tools
        usage = (response or {}).get("usage") if isinstance(response, Mapping) else None
        if isinstance(response, Mapping):
            for choice in (response.get("choices") or [])[:1]:
                reply = choice.get("message") if isinstance(choice, Mapping) else None
                if isinstance(reply, Mapping):
                    _, answer, more = _openai_messages([reply])
                    messages = [*messages, *answer]
                    images += more
        calls.append(
            Call(
                len(calls),
                len(messages),
                str(request.get("model")) if request.get("model") else None,
                None,
                Usage.from_openai(usage) if isinstance(usage, Mapping) else None,
                prompt,
            )
        )
    warnings = [f"{unknown} lines of unknown kinds skipped"] if unknown else []
    if rewritten:
        warnings.append(
            f"{rewritten} requests do not extend the one before (history trimmed or another "
            "conversation): the transcript is the last request's conversation"
        )
    return Transcript(
        "openai-chat",
        tuple(messages),
        tuple(calls),
        system,
        tools,
        unknown_lines=unknown,
        images=images,
        warnings=tuple(warnings),
    )


# -- Anthropic Messages ---------------------------------------------------------------------------


def _anthropic(record: Mapping[str, Any]) -> Transcript:
    """A Messages request (``model``, ``system``, ``messages``, ``tools``), optionally with its
    response (``{"request": …, "response": …}``) or a response alone."""
    request = record.get("request", record)
    response = record.get("response")
    if request.get("type") == "message" and "messages" not in request:  # a response alone
        request, response = {"messages": [], "model": request.get("model")}, request
    system_value = request.get("system", "")
    system = _text_of(system_value) if not isinstance(system_value, str) else system_value
    messages: list[Message] = []
    images = 0
    for item in request.get("messages") or []:
        if isinstance(item, Mapping) and item.get("role") in ("user", "assistant"):
            images += _images(item.get("content"))
            messages.extend(_anthropic_messages(str(item["role"]), item.get("content", "")))
    calls: list[Call] = []
    prompt = len(messages)
    if isinstance(response, Mapping):
        messages.extend(_anthropic_messages("assistant", response.get("content", [])))
        usage = response.get("usage")
        calls.append(
            Call(
                0,
                len(messages),
                response.get("model") or request.get("model"),
                None,
                Usage.from_anthropic(usage) if isinstance(usage, Mapping) else None,
                prompt,
            )
        )
    elif request.get("model"):
        calls.append(Call(0, len(messages), request.get("model"), prompt=prompt))
    return Transcript(
        "anthropic-messages",
        tuple(messages),
        tuple(calls),
        system,
        tuple(request.get("tools") or ()),
        images=images,
    )


# -- loading --------------------------------------------------------------------------------------


def _records(text: str) -> list[tuple[int, Any]]:
    stripped = text.strip()
    if not stripped:
        raise TranscriptError("the transcript is empty")
    if stripped[0] in "[{":
        try:
            return [(1, json.loads(stripped))]
        except ValueError:
            pass  # JSON Lines: one object per line
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append((number, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise TranscriptError(f"line {number} is not JSON: {exc.msg}") from None
    return records


def _detect(records: list[tuple[int, Any]]) -> str:
    for _, record in records[:50]:
        if isinstance(record, list):
            return "openai-chat"
        if not isinstance(record, Mapping):
            continue
        if "parentUuid" in record or record.get("type") in ("summary", "file-history-snapshot"):
            return "claude-code"
        request = record.get("request", record)
        if isinstance(request, Mapping):
            if request.get("type") == "message" or "system" in request:
                return "anthropic-messages"
            if "messages" in request:
                blocks = [
                    b
                    for m in request["messages"] or []
                    if isinstance(m, Mapping) and isinstance(m.get("content"), list)
                    for b in m["content"]
                    if isinstance(b, Mapping)
                ]
                anthropic = any(b.get("type") in ("tool_use", "tool_result") for b in blocks)
                return "anthropic-messages" if anthropic else "openai-chat"
    raise TranscriptError(
        f"not a transcript ctx_lab knows ({', '.join(FORMATS)}): no recognizable record"
    )


def load_transcript(
    source: str | os.PathLike[str] | Mapping[str, Any] | list[Any], format: str = "auto"
) -> Transcript:
    """Read a recorded session from a file (JSON or JSON Lines) or an already-parsed object.
    ``format`` is ``auto`` (detected) or one of :data:`FORMATS`. Codex CLI rollout files are not
    read: no public documentation of their format could be found to establish it from."""
    if isinstance(source, Mapping | list):
        records: list[tuple[int, Any]] = [(1, source)]
    else:
        records = _records(read_text(Path(source).expanduser()))
    chosen = _detect(records) if format == "auto" else format
    if chosen == "claude-code":
        found = _claude_code(records)
    elif chosen == "openai-chat":
        found = _openai(records)
    elif chosen == "anthropic-messages":
        record = records[-1][1]
        if not isinstance(record, Mapping):
            raise TranscriptError("an Anthropic Messages transcript is one JSON object")
        found = _anthropic(record)
    else:
        raise TranscriptError(f"unknown format {format!r}; use auto or one of {', '.join(FORMATS)}")
    if isinstance(source, Mapping | list):
        return found
    return replace(found, source=os.fspath(source))
