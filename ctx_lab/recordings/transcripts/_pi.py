"""Pi coding agent sessions (``~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl``, pi-mono's
``packages/coding-agent/docs/session.md``): a ``session`` header, then entries — ``message``
(``user``, ``assistant``, ``toolResult``, ``bashExecution``, ``custom`` …), ``compaction``,
``model_change``, ``thinking_level_change`` … Version 1 files are linear; versions 2 and 3 link
entries into a tree by ``id``/``parentId``, and the session is the path from the last entry back
to the root.

Each assistant message is one call with pi's ``usage`` (``input`` is the uncached input for
every provider — pi subtracts OpenAI's cached tokens — plus ``cacheRead`` and ``cacheWrite``).
A ``compaction`` entry is where pi replaced the history by its ``summary``; the next request
holds the summary, then the messages from the first kept entry (``firstKeptEntryIndex`` in
version 1, ``firstKeptEntryId`` later) up to the compaction, then what follows — so those kept
messages come again after the summary here, as they were sent.

Checked on pi-mono's own recorded sessions (MIT; ``packages/coding-agent/test/fixtures/``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...conversation import Message
from ._blocks import image_text
from ._model import Call, Transcript, Usage
from ._read import Record, count, located

__all__ = ["is_pi_session", "read_pi"]


def is_pi_session(record: Any) -> bool:
    """Whether a record is a pi session's header line."""
    return (
        isinstance(record, Mapping)
        and record.get("type") == "session"
        and "cwd" in record
        and isinstance(record.get("id"), str)
    )


def _path(rows: list[Record]) -> list[tuple[int, Mapping[str, Any]]]:
    """The entries of the session in order: the tree path to the last entry (versions 2 and
    3), or every entry (version 1), each with its index in the file."""
    entries = [(i, r) for i, (_, r) in enumerate(rows) if isinstance(r, Mapping) and i > 0]
    if not any("parentId" in r for _, r in entries):
        return entries
    by_id = {r["id"]: (i, r) for i, r in entries if isinstance(r.get("id"), str)}
    leaf = next((e for e in reversed(entries) if isinstance(e[1].get("id"), str)), None)
    path: list[tuple[int, Mapping[str, Any]]] = []
    seen: set[str] = set()
    while leaf is not None and leaf[1]["id"] not in seen:
        seen.add(leaf[1]["id"])
        path.append(leaf)
        parent = leaf[1].get("parentId")
        leaf = by_id.get(parent) if isinstance(parent, str) else None
    return path[::-1]


def _text(content: Any) -> tuple[str, int]:
    """A message's text and how many images it held."""
    if isinstance(content, str):
        return content, 0
    parts: list[str] = []
    images = 0
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif block.get("type") == "image":
            images += 1
            parts.append(image_text(block))
    return "\n".join(parts), images


def _usage(usage: Any) -> Usage | None:
    if not isinstance(usage, Mapping):
        return None
    made = Usage(
        count(usage.get("input"), "usage.input"),
        count(usage.get("output"), "usage.output"),
        count(usage.get("cacheWrite"), "usage.cacheWrite"),
        count(usage.get("cacheRead"), "usage.cacheRead"),
    )
    return made if made.reported_input else None  # an aborted call reports nothing


class _Reader:
    """The session's messages and calls as the entries go by."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.calls: list[Call] = []
        self.thinking: list[tuple[int, str]] = []
        self.images = 0
        self.compactions: list[int] = []
        self.at_entry: dict[Any, int] = {}  # entry index or id → its first message position

    def message(self, entry: Mapping[str, Any]) -> None:
        message = entry.get("message")
        if not isinstance(message, Mapping):
            return
        role = message.get("role")
        text, images = _text(message.get("content"))
        self.images += images
        if role == "assistant":
            self._assistant(message)
        elif role == "toolResult":
            self.messages.append(
                Message.tool_result(
                    str(message.get("toolCallId", "")), text, bool(message.get("isError", False))
                )
            )
        elif role == "bashExecution":  # the user ran a shell command; pi sends it as user text
            command, output = message.get("command", ""), message.get("output", "")
            self.messages.append(Message.user(f"$ {command}\n{output}"))
        elif text or role == "user":
            self.messages.append(Message.user(text))

    def _assistant(self, message: Mapping[str, Any]) -> None:
        prompt = len(self.messages)
        content = message.get("content")
        blocks = [b for b in content if isinstance(b, Mapping)] if isinstance(content, list) else []
        text = "\n".join(
            b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)
        )
        if text:
            self.messages.append(Message.assistant(text))
        for block in blocks:
            if block.get("type") == "toolCall":
                self.messages.append(
                    Message.tool_use(
                        str(block.get("id", "")), str(block.get("name", "")), block.get("arguments")
                    )
                )
            elif block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
                self.thinking.append((len(self.calls), block["thinking"]))
        model = message.get("model")
        self.calls.append(
            Call(
                index=len(self.calls),
                context=len(self.messages),
                model=model if isinstance(model, str) and model else None,
                timestamp=None,
                usage=_usage(message.get("usage")),
                prompt=prompt,
            )
        )

    def compaction(self, entry: Mapping[str, Any], kept: list[Message]) -> None:
        summary = entry.get("summary")
        self.compactions.append(len(self.messages))
        self.messages.append(Message.user(summary if isinstance(summary, str) else "[compaction]"))
        self.messages.extend(kept)


def read_pi(rows: list[Record]) -> Transcript:
    """A pi session as a transcript."""
    reader = _Reader()
    skipped: dict[str, int] = {}
    for index, entry in _path(rows):
        with located(rows[index][0]):
            kind = entry.get("type")
            reader.at_entry[index] = len(reader.messages)
            if isinstance(entry.get("id"), str):
                reader.at_entry[entry["id"]] = len(reader.messages)
            if kind == "message":
                reader.message(entry)
            elif kind == "compaction":
                first = entry.get("firstKeptEntryId", entry.get("firstKeptEntryIndex"))
                start = reader.at_entry.get(first, len(reader.messages))
                last = reader.compactions[-1] + 1 if reader.compactions else 0
                reader.compaction(entry, reader.messages[max(start, last) :])
            else:
                skipped[str(kind)] = skipped.get(str(kind), 0) + 1
    warnings = []
    if any(c.usage is None for c in reader.calls):
        gone = sum(1 for c in reader.calls if c.usage is None)
        warnings.append(f"{gone} call(s) report no usage (aborted or failed)")
    return Transcript(
        "pi",
        tuple(reader.messages),
        tuple(reader.calls),
        compactions=tuple(reader.compactions),
        recorded_summaries=tuple(reader.compactions),
        images=reader.images,
        warnings=tuple(warnings),
        skipped=tuple(sorted(skipped.items())),
        thinking=tuple(reader.thinking),
    )
