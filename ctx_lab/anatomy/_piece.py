"""The piece: one part of a request as the provider reads it (:class:`Piece`), the
categories a breakdown lists, and what every format's reader shares to make pieces — the texts,
the memory files and tools recognised by name. :mod:`._pieces` reads the OpenAI bodies and
:mod:`._anthropic` Anthropic's, both from here (neither imports the other back)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..errors import UsageError
from ._names import claude_md_name, mcp_server

__all__ = ["CATEGORIES", "FORMATS", "Piece"]

# the categories, in the order a breakdown lists them
CATEGORIES = (
    "system",
    "tool_prompt",  # what a provider adds when tools are given (Anthropic: tool use system prompt)
    "tools",
    "mcp_tools",
    "memory",
    "user",
    "assistant",
    "tool_call",
    "tool_result",
    "thinking",
    "image",
    "document",
    "framing",
)
FORMATS = ("openai-chat", "openai-responses", "anthropic-messages")
_AGENTS_MD = re.compile(r"#\s*(?P<name>AGENTS\.md) instructions for")
_PACKET = re.compile(r"^#\s*Context Packet\b", re.M)


@dataclass(frozen=True)
class Piece:
    """One part of a request: ``text`` is counted with the request's counter (plus ``extra``)
    unless ``fixed`` gives its cost by the provider's documented rule (an image, a document);
    ``rendered`` marks a text that stands in for what the provider renders itself (message
    framing, tool definitions), so its count is not exact; ``breakpoint`` marks an Anthropic
    ``cache_control`` at its end; ``message`` is the index of the message (or -1 for the system
    prompt and tools) it belongs to."""

    category: str
    name: str
    text: str
    message: int
    fixed: int | None = None
    breakpoint: bool = False
    note: str = ""
    extra: int = 0  # tokens the provider adds around the text (a rule, not a count)
    rendered: bool = False  # the text is ctx_lab's rendering of something the provider hides


def _text(value: Any) -> str:
    return (
        value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    )


def _memory_name(text: str) -> str | None:
    """The memory or instruction file a text carries, if recognisable."""
    found_md = claude_md_name(text)
    if found_md is not None:
        return found_md
    found = _AGENTS_MD.search(text)
    if found:
        return found["name"]
    if _PACKET.search(text):
        return ".context/ packet"
    return None


def _user_text(text: str, message: int, breakpoint: bool = False) -> Piece:
    memory = _memory_of(text)
    if memory is not None:
        return Piece("memory", memory, text, message, breakpoint=breakpoint)
    return Piece("user", "", text, message, breakpoint=breakpoint)


@lru_cache(maxsize=4096)  # a session's calls repeat their history: each text is searched once
def _memory_of(text: str) -> str | None:
    return _memory_name(text)


def _tool_kind(name: str, mcp: set[str]) -> tuple[str, str]:
    """A tool definition's category and note: an MCP server's tool (named by its server) or
    the agent's own."""
    found = mcp_server(name)
    if found is not None or name in mcp:
        return "mcp_tools", found if found is not None else "mcp"
    return "tools", ""


def _tool_piece(name: str, definition: Any, mcp: set[str], breakpoint: bool = False) -> Piece:
    category, note = _tool_kind(name, mcp)
    return Piece(category, name, _text(definition), -1, breakpoint=breakpoint, note=note)


def _list(value: Any, name: str) -> list[Mapping[str, Any]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise UsageError(f"{name} must be a list")
    return [v for v in value if isinstance(v, Mapping)]
