"""A request's parts, in the order the provider reads them: each a :class:`Piece` with its
category, a name (the tool's, the memory file's), its text (or a fixed token cost, for images
and documents), and whether a cache breakpoint ends it.

Three request bodies are read — OpenAI Chat Completions (``messages``, ``tools``), OpenAI
Responses (``instructions``, ``input``, ``tools``) and Anthropic Messages (``system``,
``messages``, ``tools``, ``cache_control``) — and a recorded transcript's messages (which carry
no system prompt or tool definitions when the agent did not record them). Memory and
instruction files are recognised by what agents write around them: Claude Code's
``Contents of …/CLAUDE.md`` reminder, Codex's ``# AGENTS.md instructions for …`` message, a
ctx-lab packet's ``# Context Packet`` heading. MCP tools are the ``mcp__<server>__<tool>``
names Claude Code gives them (and any name given in ``mcp_tools``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import UsageError
from ..tokens import MESSAGE_OVERHEAD, image_tokens, pdf_tokens, sized_image_tokens
from ._piece import (
    CATEGORIES,
    FORMATS,
    Piece,
    _list,
    _text,
    _tool_kind,
    _tool_piece,
    _user_text,
)

__all__ = [
    "CATEGORIES",
    "FORMATS",
    "Piece",
    "SessionPieces",
    "detect_format",
    "message_pieces",
    "pieces_of",
    "pieces_of_transcript",
]


def detect_format(body: Mapping[str, Any]) -> str:
    """Which request body this is (from its fields)."""
    if "input" in body or "instructions" in body:
        return "openai-responses"
    messages = body.get("messages")
    if messages is not None and not isinstance(messages, list):
        raise UsageError("messages must be a list")
    if "system" in body or any(
        isinstance(m, Mapping) and isinstance(m.get("content"), list)
        and any(isinstance(b, Mapping) and b.get("type") in ("tool_use", "tool_result", "thinking")
                for b in m["content"])
        for m in messages or ()
    ):  # fmt: skip
        return "anthropic-messages"
    tools = body.get("tools") or ()
    if isinstance(tools, list) and any(
        isinstance(t, Mapping) and "input_schema" in t for t in tools
    ):
        return "anthropic-messages"
    if messages is not None:
        return "openai-chat"
    raise UsageError(
        "not a request body: expected Chat Completions (messages), Responses (input) or "
        "Messages (system/messages) fields"
    )


def pieces_of(
    body: Mapping[str, Any], format: str | None = None, mcp_tools: Iterable[str] = ()
) -> tuple[str, list[Piece]]:
    """``(format, pieces)`` of a request body."""
    if not isinstance(body, Mapping):
        raise UsageError("a request body must be a JSON object")
    chosen = format or detect_format(body)
    mcp = set(mcp_tools)
    try:
        return chosen, _pieces(body, chosen, mcp)
    except (TypeError, AttributeError, ValueError) as exc:  # a field of the wrong shape
        raise UsageError(f"malformed {chosen} request body ({type(exc).__name__}: {exc})") from None


def _pieces(body: Mapping[str, Any], chosen: str, mcp: set[str]) -> list[Piece]:
    if chosen == "openai-chat":
        return _chat(body, mcp)
    if chosen == "openai-responses":
        return _responses(body, mcp)
    if chosen == "anthropic-messages":
        from ._anthropic import anthropic_pieces

        return anthropic_pieces(body, mcp)
    raise UsageError(f"format must be one of {', '.join(FORMATS)}, not {chosen!r}")


# -- OpenAI Chat Completions ------------------------------------------------------------------


# OpenAI's rendering of function definitions, as its cookbook counts them ("How to count tokens
# with tiktoken"): per function 7, per property list 3, per property 3, an enum -3 and 3 an
# item, 12 at the end, plus the tokens of "name:description" and "key:type:description" lines;
# per message 3 (1 more with a name), and 3 priming the reply.
_FUNCTION, _PROPERTIES, _PROPERTY, _ENUM, _ENUM_ITEM, _FUNCTIONS_END = 7, 3, 3, -3, 3, 12
_PER_MESSAGE, _PER_NAME, _REPLY = 3, 1, 3


def _openai_tool(tool: Mapping[str, Any], mcp: set[str]) -> Piece:
    """A function definition as OpenAI renders it (see the constants above)."""
    function = tool.get("function", tool)
    function = function if isinstance(function, Mapping) else {}
    name = str(function.get("name", ""))
    description = str(function.get("description") or "").removesuffix(".")
    lines = [f"{name}:{description}"]
    extra = _FUNCTION
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
    if isinstance(properties, Mapping) and properties:
        extra += _PROPERTIES
        for key, rule in properties.items():
            rule = rule if isinstance(rule, Mapping) else {}
            extra += _PROPERTY
            enum = rule.get("enum")
            if isinstance(enum, list):
                extra += _ENUM + _ENUM_ITEM * len(enum)
                lines.extend(str(v) for v in enum)
            kind = rule.get("type", "")
            text = str(rule.get("description") or "").removesuffix(".")
            lines.append(f"{key}:{kind}:{text}")
    category, server = _tool_kind(name, mcp)
    note = server or "OpenAI's function rendering (the cookbook's rule)"
    return Piece(category, name, "\n".join(lines), -1, extra=extra, rendered=True,
                 note=note)  # fmt: skip


def _chat(body: Mapping[str, Any], mcp: set[str]) -> list[Piece]:
    out: list[Piece] = []
    tools = _list(body.get("tools"), "tools")
    out.extend(_openai_tool(tool, mcp) for tool in tools)
    if tools:
        out.append(Piece("framing", "tools", "", -1, extra=_FUNCTIONS_END, rendered=True,
                         note="the end of the function definitions"))  # fmt: skip
    names: dict[str, str] = {}
    for index, message in enumerate(_list(body.get("messages"), "messages")):
        role = str(message.get("role", ""))
        content = message.get("content")
        if role in ("system", "developer"):
            out.extend(Piece("system", "", t, index) for t in _chat_texts(content))
        elif role == "user":
            out.extend(_chat_content(content, index, "user"))
        elif role == "assistant":
            out.extend(Piece("assistant", "", t, index) for t in _chat_texts(content))
            for call in message.get("tool_calls") or ():
                if isinstance(call, Mapping):
                    function = call.get("function") or {}
                    name = str(function.get("name", ""))
                    names[str(call.get("id", ""))] = name
                    arguments = function.get("arguments", "")
                    out.append(Piece("tool_call", name, f"{name}\n{_text(arguments)}", index))
        elif role in ("tool", "function"):
            name = names.get(str(message.get("tool_call_id", "")), str(message.get("name", "")))
            out.extend(Piece("tool_result", name, t, index) for t in _chat_texts(content))
        named = _PER_NAME if message.get("name") else 0
        out.append(Piece("framing", role, role, index, extra=_PER_MESSAGE - 1 + named,
                         rendered=True, note="message framing"))  # fmt: skip
    out.append(Piece("framing", "reply", "", -1, extra=_REPLY, rendered=True,
                     note="priming the reply"))  # fmt: skip
    return out


def _chat_texts(content: Any) -> list[str]:
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    return [
        str(part.get("text", ""))
        for part in content
        if isinstance(part, Mapping) and part.get("type") in ("text", "input_text", "output_text")
    ]


def _chat_content(content: Any, index: int, role: str) -> list[Piece]:
    if isinstance(content, str) or content is None:
        return [_user_text(content or "", index)]
    out = []
    for part in content:
        if not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if kind in ("text", "input_text"):
            out.append(_user_text(str(part.get("text", "")), index))
        elif kind in ("image_url", "input_image"):
            image = part.get("image_url", part)
            url = image.get("url", "") if isinstance(image, Mapping) else str(image)
            detail = image.get("detail", "auto") if isinstance(image, Mapping) else "auto"
            tokens, note = image_tokens("openai", str(url), str(detail))
            out.append(Piece("image", "", "", index, fixed=tokens, note=note))
        elif kind in ("file", "input_file"):
            tokens, note = pdf_tokens("openai", part)
            out.append(Piece("document", "", "", index, fixed=tokens, note=note))
    return out


# -- OpenAI Responses -------------------------------------------------------------------------


def _responses(body: Mapping[str, Any], mcp: set[str]) -> list[Piece]:
    out: list[Piece] = []
    for tool in _list(body.get("tools"), "tools"):
        if isinstance(tool, Mapping):
            name = str(tool.get("name") or tool.get("server_label") or tool.get("type", ""))
            if tool.get("type") == "mcp":
                out.append(Piece("mcp_tools", name, _text(tool), -1, rendered=True, note=name))
            elif tool.get("type", "function") == "function":
                out.append(_openai_tool(tool, mcp))
            else:
                out.append(_tool_piece(name, tool, mcp))
    instructions = body.get("instructions")
    if instructions:
        out.append(Piece("system", "", _text(instructions), -1))
    items = body.get("input", [])
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    names: dict[str, str] = {}
    for index, item in enumerate(_list(items, "input")):
        kind = item.get("type", "message")
        if kind == "message" or ("role" in item and kind not in ("function_call",)):
            role = str(item.get("role", "user"))
            content = item.get("content")
            if role in ("system", "developer"):
                out.extend(Piece("system", "", t, index) for t in _chat_texts(content))
            elif role == "assistant":
                out.extend(Piece("assistant", "", t, index) for t in _chat_texts(content))
            else:
                out.extend(_chat_content(content, index, role))
            out.append(Piece("framing", role, role, index, extra=_PER_MESSAGE - 1, rendered=True,
                             note="message framing"))  # fmt: skip
        elif kind in ("function_call", "custom_tool_call"):
            name = str(item.get("name", ""))
            names[str(item.get("call_id", ""))] = name
            arguments = item.get("arguments", item.get("input", ""))
            out.append(Piece("tool_call", name, f"{name}\n{_text(arguments)}", index))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            name = names.get(str(item.get("call_id", "")), "")
            out.append(Piece("tool_result", name, _text(item.get("output", "")), index))
        elif kind == "reasoning":
            summary = item.get("summary") or []
            text = "\n".join(
                str(s.get("text", "")) for s in summary if isinstance(s, Mapping)
            ) or str(item.get("encrypted_content", ""))
            out.append(Piece("thinking", "", text, index, note="reasoning item sent back"))
    return out


# -- recorded transcripts ---------------------------------------------------------------------


def _placeholder_images(text: str, index: int, provider: str) -> list[Piece]:
    """One image piece per image a transcript replaced by its placeholder, priced by its size
    when the recording held its bytes, else by the rule for an unknown size."""
    from ..recordings.transcripts import image_marks

    out = []
    for size in image_marks(text) if isinstance(text, str) else []:
        tokens, how = sized_image_tokens(provider, size)
        note = how if size is not None else f"{how}; the recording keeps no image"
        out.append(Piece("image", "", "", index, fixed=tokens, note=note))
    return out


def pieces_of_transcript(
    messages: Sequence[Any],
    system: str = "",
    tools: Sequence[Any] = (),
    thinking: Sequence[str] = (),
    mcp_tools: Iterable[str] = (),
    provider: str = "anthropic",
) -> list[Piece]:
    """The pieces of a recorded call from a transcript's messages (and, where the recording
    has them, its system prompt, tool definitions and the reasoning sent back). An image the
    recording held (a user's, or one inside a tool result) is a piece of its own, priced by
    ``provider``'s documented rule — for its size, when the recording kept its bytes."""
    out = _head_pieces(system, tools, set(mcp_tools))
    names: dict[str, str] = {}
    for index, message in enumerate(messages):
        out.extend(message_pieces(message, index, names, provider))
    out.extend(Piece("thinking", "", t, len(messages), note="reasoning") for t in thinking)
    return out


def _head_pieces(system: str, tools: Sequence[Any], mcp: set[str]) -> list[Piece]:
    """The tool definitions, then the system prompt: what every call of a recording starts with."""
    out: list[Piece] = []
    for tool in tools:
        name = tool.get("name") if isinstance(tool, Mapping) else None
        if name is None and isinstance(tool, Mapping):
            function = tool.get("function")
            name = function.get("name") if isinstance(function, Mapping) else ""
        out.append(_tool_piece(str(name or ""), tool, mcp))
    if system:
        out.append(Piece("system", "", system, -1))
    return out


def message_pieces(message: Any, index: int, names: dict[str, str], provider: str) -> list[Piece]:
    """The pieces of one transcript message at position ``index`` of the call; ``names`` maps
    the tool calls seen so far to their tools (a tool result is named by its call's)."""
    out: list[Piece] = []
    role = message.role
    if role == "system":
        out.append(Piece("system", "", message.content, index))
    elif role == "user":
        out.append(_user_text(message.content, index))
    elif role == "assistant":
        out.append(Piece("assistant", "", message.content, index))
    elif role == "tool_use":
        names[message.call_id or ""] = message.name or ""
        text = f"{message.name}\n{_text(message.arguments)}"
        out.append(Piece("tool_call", message.name or "", text, index))
    elif role == "tool_result":
        name = names.get(message.call_id or "", "")
        out.append(Piece("tool_result", name, message.content, index))
    if role in ("user", "tool_result"):
        out.extend(_placeholder_images(message.content, index, provider))
    out.append(Piece("framing", role, role, index, extra=MESSAGE_OVERHEAD, rendered=True,
                     note="message framing (ctx_lab's estimate)"))  # fmt: skip
    return out


class SessionPieces:
    """The pieces of a recorded session's calls, made incrementally: each message's pieces are
    made once and shared by every later call that sends it again (from the same first
    message), so a session's anatomy costs each call its own growth, not its whole history.
    ``of(messages, start, end)`` equals ``pieces_of_transcript(messages[start:end], …)``."""

    def __init__(self, system: str, tools: Sequence[Any], provider: str) -> None:
        self.provider = provider
        self.head = _head_pieces(system, tools, set())
        # per first message sent (a compaction starts a new run): pieces made, tool names seen
        self._runs: dict[int, tuple[list[list[Piece]], dict[str, str]]] = {}

    def of(self, messages: Sequence[Any], start: int, end: int) -> list[Piece]:
        """The pieces of a call that sends ``messages[start:end]``."""
        made, names = self._runs.setdefault(start, ([], {}))
        while len(made) < end - start:
            index = len(made)
            made.append(message_pieces(messages[start + index], index, names, self.provider))
        out = list(self.head)
        for chunk in made[: end - start]:
            out.extend(chunk)
        return out
