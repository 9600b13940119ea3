"""OpenAI recordings: Chat Completions (a ``messages`` list, a request body, JSONL
request/response pairs) and the Responses API (``input`` items, ``output`` items, ``usage``
with ``input_tokens_details.cached_tokens``). Response items are shared with Codex rollouts."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...conversation import Message
from ._blocks import arguments_of, images_in, text_of
from ._model import Call, Transcript, Usage
from ._read import Record, list_field, located, mapping, text_field

# Responses API item types that are the model's own output (they end a call's prompt)
OUTPUT_ITEMS = (
    "reasoning",
    "function_call",
    "custom_tool_call",
    "local_shell_call",
    "web_search_call",
    "file_search_call",
    "computer_call",
    "code_interpreter_call",
    "image_generation_call",
    "mcp_call",
)


def chat_messages(items: Iterable[Any]) -> tuple[str, list[Message], int]:
    """System text, messages and image count of Chat Completions ``messages``."""
    system: list[str] = []
    out: list[Message] = []
    images = 0
    for position, item in enumerate(items):
        item = mapping(item, f"messages[{position}]")
        role = item.get("role")
        content = item.get("content")
        images += images_in(content)
        if role in ("system", "developer"):
            system.append(text_of(content))
        elif role == "user":
            out.append(Message.user(text_of(content)))
        elif role == "assistant":
            text = text_of(content)
            if text:
                out.append(Message.assistant(text))
            for call in list_field(item.get("tool_calls"), "tool_calls"):
                call = mapping(call, "tool_calls[]")
                function = mapping(call.get("function") or {}, "tool_calls[].function")
                out.append(
                    Message.tool_use(
                        text_field(call.get("id"), "tool_calls[].id"),
                        text_field(function.get("name"), "tool_calls[].function.name"),
                        arguments_of(function.get("arguments") or "{}"),
                    )
                )
        elif role == "tool":
            out.append(
                Message.tool_result(
                    text_field(item.get("tool_call_id"), "tool_call_id"), text_of(content)
                )
            )
    return "\n\n".join(s for s in system if s), out, images


def response_item(item: Mapping[str, Any]) -> tuple[str, list[Message], str | None]:
    """One Responses API (or Codex rollout) item: ``(system text, messages, reasoning text)``.
    Unknown item kinds give nothing."""
    kind = item.get("type", "message")
    if kind == "message":
        role = item.get("role")
        text = text_of(item.get("content"))
        if role in ("system", "developer"):
            return text, [], None
        if role == "assistant":
            return "", ([Message.assistant(text)] if text else []), None
        return "", [Message.user(text)], None
    if kind in ("function_call", "custom_tool_call"):
        raw = item.get("arguments") if kind == "function_call" else item.get("input")
        call_id = item.get("call_id") or item.get("id")
        return (
            "",
            [
                Message.tool_use(
                    text_field(call_id, f"{kind}.call_id"),
                    text_field(item.get("name"), f"{kind}.name"),
                    arguments_of(raw),
                )
            ],
            None,
        )
    if kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
        output = item.get("output")
        if isinstance(output, Mapping):  # {"output": "...", "metadata": …}
            output = output.get("output", output)
        text = output if isinstance(output, str) else text_of(output)
        return (
            "",
            [Message.tool_result(text_field(item.get("call_id"), f"{kind}.call_id"), text)],
            None,
        )
    if kind in ("local_shell_call", "web_search_call"):
        call_id = item.get("call_id") or item.get("id") or kind
        action = item.get("action")
        return "", [Message.tool_use(str(call_id), kind, action)], None
    if kind == "reasoning":
        summary = item.get("summary")
        parts = [text_of(summary)] if summary else []
        if item.get("content"):
            parts.append(text_of(item.get("content")))
        return "", [], "\n".join(p for p in parts if p)
    return "", [], None


def _responses_input(value: Any) -> tuple[str, list[Message], int]:
    if isinstance(value, str):
        return "", [Message.user(value)], 0
    system: list[str] = []
    out: list[Message] = []
    images = 0
    for position, item in enumerate(list_field(value, "input")):
        item = mapping(item, f"input[{position}]")
        images += images_in(item.get("content"))
        text, messages, _ = response_item(item)
        if text:
            system.append(text)
        out.extend(messages)
    return "\n\n".join(system), out, images


def is_responses(request: Mapping[str, Any], response: Any) -> bool:
    """Whether a request/response pair is the Responses API's."""
    if isinstance(response, Mapping) and response.get("object") == "response":
        return True
    return "input" in request and "messages" not in request


def _answer(response: Any) -> tuple[list[Message], list[str], int]:
    """What a response answered: its messages, its reasoning, and the images in it (the
    Responses API's output items, or Chat Completions' first choice)."""
    answer: list[Message] = []
    reasoning: list[str] = []
    images = 0
    if isinstance(response, Mapping) and "output" in response:
        for item in list_field(response.get("output"), "output"):
            _, produced, thought = response_item(mapping(item, "output[]"))
            answer += produced
            if thought:
                reasoning.append(thought)
    elif isinstance(response, Mapping):
        for choice in list_field(response.get("choices"), "choices")[:1]:
            reply = mapping(choice, "choices[]").get("message")
            if isinstance(reply, Mapping):
                _, produced, more = chat_messages([reply])
                answer += produced
                images += more
    return answer, reasoning, images


def read_openai(rows: list[Record]) -> Transcript:
    """A ``messages`` list, a request body, a response, or JSONL request/response pairs of
    Chat Completions or the Responses API (the last request holds the whole conversation;
    each response's ``usage`` belongs to its request)."""
    system = ""
    messages: list[Message] = []
    calls: list[Call] = []
    tools: tuple[Any, ...] = ()
    thinking: list[tuple[int, str]] = []
    images = unknown = rewritten = 0
    responses_api = False
    for number, record in rows:
        with located(number):
            if isinstance(record, list):
                record = {"messages": record}
            if not isinstance(record, Mapping):
                unknown += 1
                continue
            request = record.get("request", record)
            response = record.get("response")
            if isinstance(request, Mapping) and request.get("object") == "response":
                request, response = {"input": [], "model": request.get("model")}, request
            if not isinstance(request, Mapping) or not (
                "messages" in request or "input" in request
            ):
                unknown += 1
                continue
            previous = messages
            if is_responses(request, response):
                responses_api = True
                system, messages, images = _responses_input(request.get("input"))
                instructions = text_field(request.get("instructions"), "instructions")
                system = "\n\n".join(s for s in (instructions, system) if s)
            else:
                system, messages, images = chat_messages(
                    list_field(request["messages"], "messages")
                )
            prompt = len(messages)
            if messages[: len(previous)] != previous:
                rewritten += 1
            tools = tuple(list_field(request.get("tools"), "tools")) or tools
            usage = response.get("usage") if isinstance(response, Mapping) else None
            answer, reasoning, more = _answer(response)
            messages = [*messages, *answer]
            images += more
            model = request.get("model") or (
                response.get("model") if isinstance(response, Mapping) else None
            )
            calls.append(
                Call(
                    index=len(calls),
                    context=len(messages),
                    model=text_field(model, "model") or None,
                    timestamp=None,
                    usage=Usage.from_openai(mapping(usage, "usage")) if usage is not None else None,
                    prompt=prompt,
                )
            )
            thinking.extend((len(calls) - 1, t) for t in reasoning)
    warnings = [f"{unknown} lines of unknown kinds skipped"] if unknown else []
    if rewritten:
        warnings.append(
            f"{rewritten} requests do not extend the one before (history trimmed or another "
            "conversation): the transcript is the last request's conversation"
        )
    return Transcript(
        "openai-responses" if responses_api else "openai-chat",
        tuple(messages),
        tuple(calls),
        system,
        tools,
        unknown_lines=unknown,
        images=images,
        warnings=tuple(warnings),
        thinking=tuple(thinking),
    )
