"""Content blocks shared by the formats: text of a content value, images, Anthropic turns."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ...conversation import Message
from ...errors import TranscriptError
from ...tokens import source_size
from ._model import image_placeholder
from ._read import MAX_DEPTH, list_field, text_field

IMAGE_KINDS = ("image", "image_url", "input_image", "document", "input_file")
TEXT_KINDS = ("text", "input_text", "output_text", "summary_text")


def image_text(block: Mapping[str, Any]) -> str:
    """The placeholder of an image or document block, with the image's size when its bytes are
    in the recording: Anthropic ``source`` (base64), OpenAI ``image_url`` (a ``data:`` URL),
    Gemini ``inlineData``, Pi's and Claude Code's ``data``/``file`` forms."""
    if block.get("type") in ("document", "input_file"):
        return image_placeholder(None)
    inline = block.get("inlineData")
    if isinstance(inline, Mapping):
        source: Any = {"type": "base64", "data": inline.get("data", "")}
    elif "source" in block:
        source = block["source"]
    elif "image_url" in block:
        url = block["image_url"]
        source = url.get("url", "") if isinstance(url, Mapping) else url
    elif isinstance(block.get("file"), Mapping):
        source = block["file"]
    else:
        source = {"type": "base64", "data": block.get("data", "")}
    return image_placeholder(source_size(source))


def text_of(content: Any, depth: int = 0) -> str:
    """Text of an Anthropic/OpenAI/Gemini content value (a string, a block or a list of
    blocks); images and documents become a placeholder (:func:`image_text`)."""
    if depth > MAX_DEPTH:
        raise TranscriptError("content nested too deeply")
    if isinstance(content, str):
        return content
    if content is None:
        return ""
    if isinstance(content, Mapping):
        content = [content]
    if not isinstance(content, list):
        raise TranscriptError(f"content: expected text or blocks, got {type(content).__name__}")
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, Mapping):
            kind = block.get("type")
            if kind in TEXT_KINDS or (kind is None and "text" in block):
                parts.append(text_field(block.get("text"), "text"))
            elif kind in IMAGE_KINDS or "inlineData" in block or "fileData" in block:
                parts.append(image_text(block))
            elif kind == "tool_result":  # nested (Anthropic user turns): handled by the caller
                continue
            elif "functionResponse" in block:  # Gemini tool output parts
                response = block["functionResponse"]
                value = response.get("response") if isinstance(response, Mapping) else response
                parts.append(value if isinstance(value, str) else json.dumps(value))
    return "\n".join(p for p in parts if p)


def images_in(content: Any, depth: int = 0) -> int:
    """How many images and documents a content value holds (inside tool results too)."""
    if depth > MAX_DEPTH:
        raise TranscriptError("content nested too deeply")
    if not isinstance(content, list):
        return 0
    found = 0
    for block in content:
        if isinstance(block, Mapping):
            if block.get("type") in IMAGE_KINDS or "inlineData" in block:
                found += 1
            elif block.get("type") == "tool_result":
                found += images_in(block.get("content"), depth + 1)
    return found


def arguments_of(raw: Any) -> Any:
    """Tool-call arguments: JSON text parsed when it parses, else kept as ``{"raw": text}``."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            return {"raw": raw}
    return raw


def anthropic_turn(role: str, content: Any) -> tuple[list[Message], list[str]]:
    """Messages of one Anthropic turn — text, then tool calls (assistant) or tool results
    (user), each its own message — and the thinking text apart (a ``compaction`` block is
    read by :func:`compaction_summary`)."""
    if isinstance(content, str):
        return ([Message(role, content)] if content or role == "user" else []), []
    blocks = list_field(content, "message.content")
    out: list[Message] = []
    thinking: list[str] = []
    text = text_of(blocks)
    if text:
        out.append(Message(role, text))
    for block in blocks:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "tool_use" or kind == "server_tool_use":
            out.append(
                Message.tool_use(
                    text_field(block.get("id"), "tool_use.id"),
                    text_field(block.get("name"), "tool_use.name"),
                    block.get("input"),
                )
            )
        elif kind == "tool_result":
            out.append(
                Message.tool_result(
                    text_field(block.get("tool_use_id"), "tool_result.tool_use_id"),
                    text_of(block.get("content", "")),
                    bool(block.get("is_error", False)),
                )
            )
        elif kind in ("thinking", "redacted_thinking"):
            thinking.append(text_field(block.get("thinking"), "thinking.thinking"))
    return out, thinking


def compaction_summary(content: Any) -> str | None:
    """The summary text of a ``compaction`` block in an Anthropic content list, if any."""
    if not isinstance(content, list):
        return None
    for block in content:
        if isinstance(block, Mapping) and block.get("type") == "compaction":
            return text_field(block.get("content"), "compaction.content")
    return None
