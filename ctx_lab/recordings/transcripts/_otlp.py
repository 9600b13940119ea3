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
ctx_lab's own export by default writes each message once: a span's ``ctx_lab.input.delta`` is
what its input adds to the span it links to, after ``ctx_lab.input.carried`` of that one's.
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

from ... import otel_names as otel
from ...conversation import Message
from ...errors import InvalidRecording, LimitExceeded, TranscriptError
from ...limits import LIMITS
from ...validate import shown
from ._genai import from_genai, genai_text
from ._model import Call, Transcript, Usage
from ._otlp_conventions import flat, from_events, indexed
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
    carried: int | None = None  # a delta span: the leading messages the linked span held


_EVENTS = otel.MESSAGE_EVENTS
_DETAILS = otel.OPERATION_DETAILS_EVENT


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
    if found and all(isinstance(s.attrs.get(otel.CALL_INDEX), int) for s in found):
        # ctx_lab's own export numbers its calls: their order, whatever a call's time (a
        # recording may leave a call without one)
        found.sort(key=lambda s: s.attrs[otel.CALL_INDEX])
    else:
        found.sort(key=lambda s: (s.start, s.attrs.get(otel.CALL_INDEX, 0)))
    return found


def _is_llm(attrs: Mapping[str, Any]) -> bool:
    return (
        attrs.get(otel.OPERATION_NAME) in _LLM_OPERATIONS
        or attrs.get(otel.OI_SPAN_KIND) == "LLM"
        or attrs.get(otel.OI_REQUEST_TYPE) in ("chat", "completion")
        or otel.INPUT_MESSAGES in attrs
        or otel.USAGE_INPUT_TOKENS in attrs
    )


def _content(span: _Span) -> None:
    """The span's input, answer, system prompt and tools, in whichever convention it holds."""
    a = span.attrs
    if otel.INPUT_MESSAGES in a or otel.INPUT_DELTA in a:
        if otel.INPUT_MESSAGES in a:
            span.messages, _ = from_genai(a[otel.INPUT_MESSAGES])
        else:  # ctx_lab's delta export: what is new since the linked span (read_otlp joins)
            span.messages, _ = from_genai(a[otel.INPUT_DELTA])
            span.carried = _carried(a.get(otel.INPUT_CARRIED))
        if otel.OUTPUT_MESSAGES in a:
            span.answer, span.reasoning = from_genai(a[otel.OUTPUT_MESSAGES])
        system = a.get(otel.SYSTEM_INSTRUCTIONS)
        if system:
            parts = json.loads(system) if isinstance(system, str) else system
            span.system = "\n".join(genai_text(p.get("content")) for p in parts
                                    if isinstance(p, Mapping))  # fmt: skip
        tools = a.get(otel.TOOL_DEFINITIONS)
        if tools:
            span.tools = tuple(json.loads(tools) if isinstance(tools, str) else tools)
    elif any(k.startswith(otel.OI_INPUT_MESSAGES_PREFIX) for k in a):
        span.messages = flat(indexed(a, otel.OI_INPUT_MESSAGES_PREFIX), "message.")
        span.answer = flat(indexed(a, otel.OI_OUTPUT_MESSAGES_PREFIX), "message.")
        schemas = [t.get("tool.json_schema") for t in indexed(a, otel.OI_TOOLS_PREFIX)]
        span.tools = tuple(json.loads(s) if isinstance(s, str) else s for s in schemas if s)
    elif any(k.startswith(otel.PROMPT_PREFIX) for k in a):
        span.messages = flat(indexed(a, otel.PROMPT_PREFIX), "")
        span.answer = flat(indexed(a, otel.COMPLETION_PREFIX), "")
    elif span.events:
        span.messages, span.answer = from_events(span.events)
    if span.messages is not None and not span.system:
        system = [m for m in span.messages if m.role == "system"]
        if system:
            span.system = "\n".join(m.content for m in system)
            span.messages = [m for m in span.messages if m.role != "system"]


def _usage(a: Mapping[str, Any]) -> Usage | None:
    total = _first(a, otel.USAGE_INPUT_TOKENS, otel.USAGE_PROMPT_TOKENS,
                   otel.OI_TOKENS_PROMPT)  # fmt: skip
    output = _first(a, otel.USAGE_OUTPUT_TOKENS, otel.USAGE_COMPLETION_TOKENS,
                    otel.OI_TOKENS_COMPLETION)  # fmt: skip
    if total is None and output is None:
        return None
    read = _first(a, otel.USAGE_CACHE_READ,
                  otel.USAGE_CACHE_READ_OLD,
                  otel.OI_TOKENS_CACHE_READ) or 0  # fmt: skip
    written = _first(a, otel.USAGE_CACHE_CREATION,
                     otel.USAGE_CACHE_CREATION_OLD,
                     otel.OI_TOKENS_CACHE_WRITE) or 0  # fmt: skip
    total = total or 0
    # the conventions count the cache inside the input; an instrumentation that passes
    # Anthropic's own input_tokens (the cache apart) reports less than the cache alone
    fresh = total - read - written if total >= read + written else total
    return Usage(
        input_tokens=fresh,
        output_tokens=output or 0,
        cache_creation_input_tokens=written,
        cache_read_input_tokens=read,
        reasoning_tokens=_first(a, otel.USAGE_REASONING_OUTPUT) or 0,
        cache_write_1h=_first(a, otel.USAGE_CACHE_WRITE_1H) or 0,
    )


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
    asked = a.get(otel.REQUEST_MODEL)
    if not asked and isinstance(a.get(otel.OI_INVOCATION_PARAMETERS), str):
        try:
            asked = json.loads(a[otel.OI_INVOCATION_PARAMETERS]).get("model")
        except (ValueError, AttributeError):
            asked = None
    found = asked or a.get(otel.RESPONSE_MODEL) or a.get(otel.OI_MODEL_NAME)
    return str(found) if found else None


def _timestamp(span: _Span) -> str | None:
    given = span.attrs.get(otel.CALL_TIMESTAMP)
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
    after = attrs.get(otel.CALL_AFTER)
    if isinstance(after, str | list) and after:
        messages.extend(from_genai(after)[0])
    offsets = attrs.get(otel.CALL_RECORDED_SUMMARIES)
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
            if span.carried is not None:  # a delta: the messages it carried, then its own
                if span.carried > len(held):
                    raise InvalidRecording(
                        f"a span carries {span.carried:,} messages from the one it links to, "
                        f"which held {len(held):,}"
                    )
                sent = held[: span.carried] + sent
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
        calls.append(
            Call(
                index=index,
                context=len(messages),
                model=model,
                timestamp=_timestamp(span),
                usage=_usage(span.attrs),
                prompt=prompt,
                compacted=bool(span.attrs.get(otel.CALL_COMPACTED)),
            )
        )
        _kept_apart(span.attrs, messages, segment, summaries)
    warnings = []
    if bare:
        warnings.append(f"{bare} of {len(spans)} calls have no content in the trace (usage only)")
    resource = spans[0].resource if spans else {}
    return Transcript(
        format=str(resource.get(otel.TRANSCRIPT_FORMAT) or "otlp"),
        messages=tuple(messages),
        calls=tuple(calls),
        system=system,
        tools=tools,
        compactions=tuple(compactions),
        recorded_summaries=tuple(summaries),
        warnings=tuple(warnings),
        thinking=tuple(thinking),
        agent_version=str(resource.get(otel.TRANSCRIPT_AGENT_VERSION) or "")[:40],
        agent_window=_window(resource.get(otel.TRANSCRIPT_AGENT_WINDOW)),
    )


def _carried(value: Any) -> int:
    """A delta span's count of carried messages (a non-negative integer)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise InvalidRecording(f"{otel.INPUT_CARRIED} is {shown(value, 40)}: not a count")


def _window(value: Any) -> int | None:
    """The agent's window an export carried (a positive integer, else none)."""
    if isinstance(value, str) and value.isdigit() and len(value) <= 12:
        value = int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
