"""Anthropic Messages requests as pieces: the tool definitions (and the tool-use system prompt
Anthropic adds), the system blocks, every content block — text, tool use and results (named by
the tool that was called), thinking, images and documents — with their cache breakpoints."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..tokens import MESSAGE_OVERHEAD, image_tokens, pdf_tokens
from ._piece import Piece, _list, _memory_name, _text, _tool_piece, _user_text

__all__ = ["anthropic_pieces"]

# -- Anthropic Messages -----------------------------------------------------------------------


# Anthropic adds a system prompt of its own when tools are given (its pricing page: 346 tokens
# with tool_choice auto or none, 313 with any or a named tool, for current Claude models)
_TOOL_PROMPT = {"auto": 346, "none": 346, "any": 313, "tool": 313}


def anthropic_pieces(body: Mapping[str, Any], mcp: set[str]) -> list[Piece]:
    """The pieces of an Anthropic Messages request body."""
    out: list[Piece] = []
    tools = _list(body.get("tools"), "tools")
    for tool in tools:
        breakpoint = "cache_control" in tool
        piece = _tool_piece(str(tool.get("name", "")), tool, mcp, breakpoint)
        out.append(Piece(piece.category, piece.name, piece.text, -1, breakpoint=breakpoint,
                         rendered=True, note=piece.note))  # fmt: skip
    if tools:
        choice = body.get("tool_choice")
        kind = str(choice.get("type", "auto")) if isinstance(choice, Mapping) else "auto"
        out.append(Piece("tool_prompt", "tool use", "", -1, fixed=_TOOL_PROMPT.get(kind, 346),
                         note="Anthropic's tool use system prompt (documented size)"))  # fmt: skip
    system = body.get("system")
    if isinstance(system, str) and system:
        out.append(Piece("system", "", system, -1))
    elif isinstance(system, list):
        for block in system:
            if isinstance(block, Mapping) and block.get("type", "text") == "text":
                text = str(block.get("text", ""))
                category = "memory" if _memory_name(text) else "system"
                out.append(
                    Piece(
                        category,
                        _memory_name(text) or "",
                        text,
                        -1,
                        breakpoint="cache_control" in block,
                    )
                )
    names: dict[str, str] = {}
    for index, message in enumerate(_list(body.get("messages"), "messages")):
        role = str(message.get("role", ""))
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks or ():
            if isinstance(block, Mapping):
                out.extend(_anthropic_block(block, role, index, names))
        out.append(Piece("framing", role, role, index, extra=MESSAGE_OVERHEAD, rendered=True,
                         note="message framing (ctx_lab's estimate)"))  # fmt: skip
    return out


def _anthropic_block(
    block: Mapping[str, Any], role: str, index: int, names: dict[str, str]
) -> list[Piece]:
    kind = block.get("type")
    cached = "cache_control" in block
    if kind == "text":
        text = str(block.get("text", ""))
        if role == "assistant":
            return [Piece("assistant", "", text, index, breakpoint=cached)]
        return [_user_text(text, index, cached)]
    if kind == "tool_use":
        name = str(block.get("name", ""))
        names[str(block.get("id", ""))] = name
        text = f"{name}\n{_text(block.get('input', {}))}"
        return [Piece("tool_call", name, text, index, breakpoint=cached)]
    if kind == "tool_result":
        name = names.get(str(block.get("tool_use_id", "")), "")
        content = block.get("content", "")
        if isinstance(content, str):
            return [Piece("tool_result", name, content, index, breakpoint=cached)]
        out = []
        for part in content or ():
            if not isinstance(part, Mapping):
                continue
            if part.get("type") == "text":
                out.append(Piece("tool_result", name, str(part.get("text", "")), index))
            elif part.get("type") in ("image", "document"):
                out.extend(_anthropic_block(part, role, index, names))
        if cached and out:
            out[-1] = Piece(
                category=out[-1].category,
                name=out[-1].name,
                text=out[-1].text,
                message=index,
                fixed=out[-1].fixed,
                breakpoint=True,
            )
        return out
    if kind in ("thinking", "redacted_thinking"):
        text = str(block.get("thinking", block.get("data", "")))
        return [Piece("thinking", "", text, index, note=str(kind))]
    if kind == "image":
        tokens, note = image_tokens("anthropic", block.get("source", {}))
        return [Piece("image", "", "", index, fixed=tokens, breakpoint=cached, note=note)]
    if kind == "document":
        tokens, note = pdf_tokens("anthropic", block)
        return [Piece("document", "", "", index, fixed=tokens, breakpoint=cached, note=note)]
    return []
