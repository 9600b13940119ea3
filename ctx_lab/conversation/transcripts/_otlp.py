"""OpenTelemetry traces as a session: OTLP/JSON (the OTLP exporters' and the collector's file
format — one ``{"resourceSpans": …}`` object, or one per line), every span of an LLM call a
call. Three ways of writing a call's content are read:

- the GenAI semantic conventions: ``gen_ai.input.messages``, ``gen_ai.output.messages``,
  ``gen_ai.system_instructions``, ``gen_ai.tool.definitions`` (:mod:`._genai`); usage
  ``gen_ai.usage.input_tokens`` (which "SHOULD include all types of input tokens, including
  cached tokens"), ``gen_ai.usage.output_tokens``, ``gen_ai.usage.cache_read.input_tokens``,
  ``gen_ai.usage.cache_creation.input_tokens``, ``gen_ai.usage.reasoning.output_tokens``;
- OpenInference's flattened ``llm.input_messages.N.message.*`` / ``llm.output_messages.N…``
  with ``llm.token_count.*`` and ``llm.model_name``;
- OpenLLMetry's ``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*`` with
  ``gen_ai.usage.prompt_tokens`` / ``completion_tokens`` / ``cache_read_input_tokens`` /
  ``cache_creation_input_tokens``;
- the content as an event rather than on the span: the current conventions' log record
  ``gen_ai.client.inference.operation.details`` (``resourceLogs``, linked by span id; its
  attributes are the span's content attributes), and the older form (semantic conventions up to
  1.30): one log record or span event per message — ``gen_ai.system.message``,
  ``gen_ai.user.message``, ``gen_ai.assistant.message``, ``gen_ai.tool.message`` — and
  ``gen_ai.choice`` per answer, the content in its body.

A span without content (Claude Code's and Codex's own telemetry, an instrumentation with
content capture off) is a call with usage only, and the transcript says how many there are.
Each span's input is the whole request, so the history is rebuilt from them: a span whose
input extends the one before adds what is new; one that does not starts a segment (a
compaction, recorded where it happened). ctx_lab's own export (``anatomy --format otlp``)
carries the original format, timestamps and call numbers in ``ctx_lab.*`` attributes and reads
back into the same transcript.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ...errors import InvalidRecording, LimitExceeded, TranscriptError
from ...limits import LIMITS
from ...validate import shown
from .._messages import Message
from ._blocks import arguments_of
from ._genai import from_genai, genai_text
from ._model import Call, Transcript, Usage
from ._read import Record, count

__all__ = ["attributes", "is_otlp", "read_otlp"]

_LLM_OPERATIONS = {"chat", "text_completion", "generate_content"}


def is_otlp(record: Any) -> bool:
    """An OTLP/JSON traces (or logs) object."""
    return isinstance(record, Mapping) and (
        isinstance(record.get("resourceSpans"), list)
        or isinstance(record.get("resourceLogs"), list)
    )


def attribute_value(value: Any) -> Any:
    """An OTLP/JSON ``AnyValue`` as a Python value."""
    if not isinstance(value, Mapping):
        return None
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:  # an int64, as a JSON number or a decimal string
        found = _int64(value["intValue"])  # past int64: kept as text, which no count accepts
        return found if found is not None else str(value["intValue"])[:40]
    if "arrayValue" in value:
        return [attribute_value(v) for v in value["arrayValue"].get("values", [])]
    if "kvlistValue" in value:
        return attributes(value["kvlistValue"].get("values", []))
    return None


def _int64(value: Any) -> int | None:
    """An OTLP ``intValue`` (a 64-bit integer); None for anything else (a 4,000-digit string:
    ``int()`` of it is refused or slow)."""
    if isinstance(value, str) and 0 < len(value) <= 20 and value.lstrip("-").isdigit():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63:
        return value
    return None


def attributes(items: Any) -> dict[str, Any]:
    """OTLP/JSON ``KeyValue`` list as a dict."""
    if not isinstance(items, list):
        return {}
    return {str(i["key"]): attribute_value(i.get("value")) for i in items
            if isinstance(i, Mapping) and "key" in i}  # fmt: skip


@dataclass
class _Span:
    attrs: dict[str, Any]
    resource: dict[str, Any]
    start: int
    events: list[tuple[str, Any]] = field(default_factory=list)  # the older form's messages
    messages: list[Message] | None = None  # the input, None when the span holds no content
    answer: list[Message] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    system: str = ""
    tools: tuple[Any, ...] = ()


_EVENTS = ("gen_ai.system.message", "gen_ai.user.message", "gen_ai.assistant.message",
           "gen_ai.tool.message", "gen_ai.choice")  # fmt: skip
_DETAILS = "gen_ai.client.inference.operation.details"


def _log_events(rows: list[Record]) -> dict[str, list[tuple[int, str, Any]]]:
    """The older form's log records by the span they belong to: ``(time, name, body)``."""
    found: dict[str, list[tuple[int, str, Any]]] = {}
    for _, record in rows:
        if not isinstance(record, Mapping) or not isinstance(record.get("resourceLogs"), list):
            continue
        for resource_logs in record["resourceLogs"]:
            for scope in resource_logs.get("scopeLogs", []):
                for log in scope.get("logRecords", []):
                    name = log.get("eventName") or attributes(log.get("attributes")).get(
                        "event.name")  # fmt: skip
                    if (name in _EVENTS or name == _DETAILS) and log.get("spanId"):
                        body = (attributes(log.get("attributes")) if name == _DETAILS
                                else attribute_value(log.get("body")))  # fmt: skip
                        found.setdefault(str(log["spanId"]), []).append(
                            (int(log.get("timeUnixNano") or 0), str(name), body)
                        )
    return found


def _spans(rows: list[Record]) -> list[_Span]:
    found = []
    logs = _log_events(rows)
    for _, record in rows:
        if not is_otlp(record) or not isinstance(record.get("resourceSpans"), list):
            continue
        for resource_spans in record["resourceSpans"]:
            resource = attributes((resource_spans.get("resource") or {}).get("attributes"))
            scopes = resource_spans.get("scopeSpans") or resource_spans.get(
                "instrumentationLibrarySpans", []
            )
            for scope in scopes:
                for span in scope.get("spans", []):
                    attrs = attributes(span.get("attributes"))
                    if _is_llm(attrs):
                        start = int(span.get("startTimeUnixNano") or 0)
                        events = [
                            (
                                int(e.get("timeUnixNano") or 0),
                                str(e.get("name")),
                                attributes(e.get("attributes")),
                            )
                            for e in span.get("events", [])
                            if e.get("name") in _EVENTS
                        ]
                        for _, name, body in logs.get(str(span.get("spanId")), []):
                            if name == _DETAILS and isinstance(body, dict):
                                attrs = {**body, **attrs}  # the content the span left out
                        events += [e for e in logs.get(str(span.get("spanId")), [])
                                   if e[1] != _DETAILS]  # fmt: skip
                        events.sort(key=lambda e: e[0])
                        found.append(_Span(attrs, resource, start,
                                           [(name, body) for _, name, body in events]))  # fmt: skip
    if found and all(isinstance(s.attrs.get("ctx_lab.call.index"), int) for s in found):
        # ctx_lab's own export numbers its calls: their order, whatever a call's time (a
        # recording may leave a call without one)
        found.sort(key=lambda s: s.attrs["ctx_lab.call.index"])
    else:
        found.sort(key=lambda s: (s.start, s.attrs.get("ctx_lab.call.index", 0)))
    return found


def _is_llm(attrs: Mapping[str, Any]) -> bool:
    return (
        attrs.get("gen_ai.operation.name") in _LLM_OPERATIONS
        or attrs.get("openinference.span.kind") == "LLM"
        or attrs.get("llm.request.type") in ("chat", "completion")
        or "gen_ai.input.messages" in attrs
        or "gen_ai.usage.input_tokens" in attrs
    )


def _content(span: _Span) -> None:
    """The span's input, answer, system prompt and tools, in whichever convention it holds."""
    a = span.attrs
    if "gen_ai.input.messages" in a:
        span.messages, _ = from_genai(a["gen_ai.input.messages"])
        if "gen_ai.output.messages" in a:
            span.answer, span.reasoning = from_genai(a["gen_ai.output.messages"])
        system = a.get("gen_ai.system_instructions")
        if system:
            parts = json.loads(system) if isinstance(system, str) else system
            span.system = "\n".join(genai_text(p.get("content")) for p in parts
                                    if isinstance(p, Mapping))  # fmt: skip
        tools = a.get("gen_ai.tool.definitions")
        if tools:
            span.tools = tuple(json.loads(tools) if isinstance(tools, str) else tools)
    elif any(k.startswith("llm.input_messages.") for k in a):
        span.messages = _flat(_indexed(a, "llm.input_messages."), "message.")
        span.answer = _flat(_indexed(a, "llm.output_messages."), "message.")
        schemas = [t.get("tool.json_schema") for t in _indexed(a, "llm.tools.")]
        span.tools = tuple(json.loads(s) if isinstance(s, str) else s for s in schemas if s)
    elif any(k.startswith("gen_ai.prompt.") for k in a):
        span.messages = _flat(_indexed(a, "gen_ai.prompt."), "")
        span.answer = _flat(_indexed(a, "gen_ai.completion."), "")
    elif span.events:
        span.messages, span.answer = _from_events(span.events)
    if span.messages is not None and not span.system:
        system = [m for m in span.messages if m.role == "system"]
        if system:
            span.system = "\n".join(m.content for m in system)
            span.messages = [m for m in span.messages if m.role != "system"]


def _indexed(attrs: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """``prefix.N.rest = value`` attributes as a list of ``{rest: value}`` by N."""
    found: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if key.startswith(prefix):
            number, _, rest = key[len(prefix) :].partition(".")
            if number.isdigit() and rest:
                found.setdefault(int(number), {})[rest] = value
    return [found[n] for n in sorted(found)]


def _flat(items: list[dict[str, Any]], inner: str) -> list[Message]:
    """Flattened messages (OpenInference with ``inner="message."``, OpenLLMetry with "")."""
    out: list[Message] = []
    for item in items:
        role = str(item.get(f"{inner}role") or "user")
        content = genai_text(item.get(f"{inner}content"))
        calls = _indexed(item, f"{inner}tool_calls.")
        if role == "tool":
            call_id = str(item.get(f"{inner}tool_call_id") or f"call_{len(out)}")
            out.append(Message("tool_result", content, call_id))
            continue
        if content or not calls:
            out.append(Message(role if role in ("system", "user", "assistant") else "user",
                               content))  # fmt: skip
        for number, call in enumerate(calls):
            name = call.get("tool_call.function.name") or call.get("name") or "tool"
            arguments = call.get("tool_call.function.arguments", call.get("arguments"))
            call_id = call.get("tool_call.id") or call.get("id") or f"call_{len(out)}_{number}"
            out.append(Message("tool_use", "", str(call_id), str(name), arguments_of(arguments)))
    return out


def _from_events(events: list[tuple[str, Any]]) -> tuple[list[Message], list[Message]]:
    """The older form's messages (the request's) and choices (the answer's)."""
    sent: list[Message] = []
    answer: list[Message] = []
    for name, body in events:
        body = body if isinstance(body, Mapping) else {}
        if name == "gen_ai.choice":
            message = body.get("message")
            answer += _event_message("assistant", message if isinstance(message, Mapping) else {})
        else:
            sent += _event_message(name.split(".")[1], body)
    return sent, answer


def _event_message(role: str, body: Mapping[str, Any]) -> list[Message]:
    content = genai_text(body.get("content"))
    if role == "tool":
        return [Message("tool_result", content, str(body.get("id") or "call"))]
    out = [Message(role if role in ("system", "user") else "assistant", content)] if (
        content or not body.get("tool_calls")) else []  # fmt: skip
    for number, call in enumerate(body.get("tool_calls") or []):
        if isinstance(call, Mapping):
            given = call.get("function")
            function: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
            out.append(Message("tool_use", "", str(call.get("id") or f"call_{number}"),
                               str(function.get("name") or "tool"),
                               arguments_of(function.get("arguments"))))  # fmt: skip
    return out


def _usage(a: Mapping[str, Any]) -> Usage | None:
    total = _first(a, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens",
                   "llm.token_count.prompt")  # fmt: skip
    output = _first(a, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens",
                    "llm.token_count.completion")  # fmt: skip
    if total is None and output is None:
        return None
    read = _first(a, "gen_ai.usage.cache_read.input_tokens",
                  "gen_ai.usage.cache_read_input_tokens",
                  "llm.token_count.prompt_details.cache_read") or 0  # fmt: skip
    written = _first(a, "gen_ai.usage.cache_creation.input_tokens",
                     "gen_ai.usage.cache_creation_input_tokens",
                     "llm.token_count.prompt_details.cache_write") or 0  # fmt: skip
    total = total or 0
    # the conventions count the cache inside the input; an instrumentation that passes
    # Anthropic's own input_tokens (the cache apart) reports less than the cache alone
    fresh = total - read - written if total >= read + written else total
    return Usage(fresh, output or 0, written, read,
                 _first(a, "gen_ai.usage.reasoning.output_tokens") or 0,
                 _first(a, "ctx_lab.usage.cache_write_1h") or 0)  # fmt: skip


def _first(a: Mapping[str, Any], *keys: str) -> int | None:
    """The first of ``keys`` the span has, as a token count (:func:`._read.count`'s rule);
    anything else is an :class:`~ctx_lab.errors.InvalidRecording` naming the attribute."""
    for key in keys:
        value = a.get(key)
        if value is None:
            continue
        try:
            return count(value, key)
        except TranscriptError as exc:
            raise InvalidRecording(
                f"{key} is {shown(value, 40)}: not a token count ({exc})"
            ) from None
    return None


def _model(a: Mapping[str, Any]) -> str | None:
    """The model the call asked for (as every other reader here takes it from the request),
    else the one that answered."""
    asked = a.get("gen_ai.request.model")
    if not asked and isinstance(a.get("llm.invocation_parameters"), str):
        try:
            asked = json.loads(a["llm.invocation_parameters"]).get("model")
        except (ValueError, AttributeError):
            asked = None
    found = asked or a.get("gen_ai.response.model") or a.get("llm.model_name")
    return str(found) if found else None


def _timestamp(span: _Span) -> str | None:
    given = span.attrs.get("ctx_lab.call.timestamp")
    if given:
        return str(given)
    if not span.start:
        return None
    moment = datetime.fromtimestamp(span.start / 1e9, UTC)
    return moment.isoformat().replace("+00:00", "Z")


def _kept_apart(
    attrs: Mapping[str, Any], messages: list[Message], segment: int, summaries: dict[int, None]
) -> None:
    """ctx_lab's own export: the messages after a call's answer that no later call was sent,
    and which of its input were a recorded compaction's summary (offsets from the segment's
    start)."""
    after = attrs.get("ctx_lab.call.after")
    if isinstance(after, str | list) and after:
        messages.extend(from_genai(after)[0])
    offsets = attrs.get("ctx_lab.call.recorded_summaries")
    if isinstance(offsets, list):
        for offset in offsets:
            if isinstance(offset, int) and 0 <= segment + offset < len(messages):
                summaries[segment + offset] = None


def read_otlp(rows: list[Record]) -> Transcript:
    """The LLM spans of OTLP/JSON traces as one transcript (see the module docstring)."""
    spans = _spans(rows)
    rule = LIMITS["recording_calls"]
    if len(spans) > rule.value():
        raise LimitExceeded(f"{len(spans):,} LLM spans, over {rule.describe()}")
    messages: list[Message] = []
    compactions: list[int] = []
    calls: list[Call] = []
    thinking: list[tuple[int, str]] = []
    system, tools, segment, bare = "", (), 0, 0
    summaries: dict[int, None] = {}  # positions of recorded compaction summaries, in order
    for span in spans:
        _content(span)
        if span.messages is None:
            bare += 1
        else:
            sent = span.messages
            held = messages[segment:]
            if sent[: len(held)] == held:
                messages.extend(sent[len(held) :])
            else:  # not an extension of the history so far: a compaction (or an edit)
                segment = len(messages)
                compactions.append(segment)
                messages.extend(sent)
            system, tools = span.system or system, span.tools or tools
        prompt = len(messages)
        messages.extend(span.answer)
        index = len(calls)
        thinking.extend((index, text) for text in span.reasoning)
        model = _model(span.attrs)
        calls.append(Call(index, len(messages), model, _timestamp(span),
                          _usage(span.attrs), prompt,
                          bool(span.attrs.get("ctx_lab.call.compacted"))))  # fmt: skip
        _kept_apart(span.attrs, messages, segment, summaries)
    warnings = []
    if bare:
        warnings.append(f"{bare} of {len(spans)} calls have no content in the trace (usage only)")
    resource = spans[0].resource if spans else {}
    return Transcript(
        str(resource.get("ctx_lab.transcript.format") or "otlp"), tuple(messages), tuple(calls),
        system, tools, tuple(compactions), tuple(summaries), warnings=tuple(warnings),
        thinking=tuple(thinking),
        agent_version=str(resource.get("ctx_lab.transcript.agent_version") or "")[:40],
        agent_window=_window(resource.get("ctx_lab.transcript.agent_window")),
    )  # fmt: skip


def _window(value: Any) -> int | None:
    """The agent's window an export carried (a positive integer, else none)."""
    if isinstance(value, str) and value.isdigit() and len(value) <= 12:
        value = int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
