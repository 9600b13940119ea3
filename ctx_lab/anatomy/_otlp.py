"""A session's anatomy as OpenTelemetry traces (``anatomy FILE --session --format otlp``):
OTLP/JSON (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding: ids in hex,
64-bit integers as strings) written by hand — no OpenTelemetry SDK at run time.

One span per call, named ``chat MODEL`` (kind CLIENT), with the GenAI semantic conventions'
attributes (``gen_ai.operation.name``, ``gen_ai.provider.name``, ``gen_ai.request.model``, the
usage ``gen_ai.usage.input_tokens`` — cache included, as the conventions say — ``output_tokens``,
``cache_read.input_tokens``, ``cache_creation.input_tokens``; the content
``gen_ai.system_instructions``, ``gen_ai.tool.definitions``, ``gen_ai.input.messages``,
``gen_ai.output.messages``) and the composition in ``ctx_lab.context.*``: tokens by category,
the counter and whether it is exact, the window, the reported input beside the count, and (for a
recorded session) the cache model's predicted read and write beside the reported ones, with the
cause of a miss. Each item of at least :data:`LARGE_ITEM` tokens is an event. Reading the export
(:mod:`ctx_lab.recordings.transcripts`) gives the same session, hence the same anatomy.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from .. import otel_names as otel
from .._version import __version__
from ..recordings.transcripts import Transcript, to_genai
from ._piece import CATEGORIES

__all__ = ["LARGE_ITEM", "otlp_chunks", "otlp_traces", "transcript_spans"]

LARGE_ITEM = 1_000  # tokens: an item this large is an event of its span
_CLIENT = 3  # SpanKind.SPAN_KIND_CLIENT
_PROVIDERS = {"codex": "openai", "openai-chat": "openai", "openai-responses": "openai",
              "gemini-cli": "gcp.gemini"}  # fmt: skip


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list | tuple):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    return {"stringValue": str(value)}


def _attributes(items: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in items.items() if v is not None]


def _hex(text: str, size: int) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=size).hexdigest()


def _nanos(timestamp: str | None) -> int:
    if not timestamp:
        return 0
    try:
        return int(datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp() * 1e9)
    except ValueError:
        return 0


def _usage(usage: Any) -> dict[str, Any]:
    if usage is None:
        return {}
    return {
        otel.USAGE_INPUT_TOKENS: usage.reported_input,
        otel.USAGE_OUTPUT_TOKENS: usage.output_tokens,
        otel.USAGE_CACHE_READ: usage.cache_read_input_tokens,
        otel.USAGE_CACHE_CREATION: usage.cache_creation_input_tokens,
        otel.USAGE_REASONING_OUTPUT: usage.reasoning_tokens or None,
        otel.USAGE_CACHE_WRITE_1H: usage.cache_write_1h or None,
        otel.USAGE_CLAIM: "billed",  # ctx_lab/claims.py: the recording's own usage
    }


def _composition(anatomy: Any) -> dict[str, Any]:
    categories = anatomy.categories()
    made: dict[str, Any] = {f"{otel.CONTEXT_TOKENS_PREFIX}{c}": categories.get(c, 0)
                            for c in CATEGORIES}  # fmt: skip
    made.update({
        otel.CONTEXT_TOTAL: anatomy.total,
        otel.CONTEXT_COUNTER: anatomy.counter,
        otel.CONTEXT_EXACT: anatomy.exact,
        otel.CONTEXT_WINDOW: anatomy.window,
        otel.CONTEXT_REPORTED_INPUT: anatomy.reported_input,
        otel.CONTEXT_CACHE_READ_REPORTED: anatomy.cache_read,
        otel.CONTEXT_CACHE_WRITE_REPORTED: anatomy.cache_write,
        otel.CONTEXT_CLAIM: "estimated",  # the composition is counted (ctx_lab/claims.py)
    })  # fmt: skip
    return made


def _events(anatomy: Any, start: int) -> list[dict[str, Any]]:
    return [
        {"timeUnixNano": str(start), "name": otel.CONTEXT_ITEM_EVENT,
         "attributes": _attributes({otel.ITEM_CATEGORY: i.category,
                                    otel.ITEM_NAME: i.name, otel.ITEM_TOKENS: i.tokens,
                                    otel.ITEM_EXACT: i.exact})}
        for i in anatomy.items if i.tokens >= LARGE_ITEM
    ]  # fmt: skip


def _span(source: str, index: int, model: str | None, begin: int, attrs: dict[str, Any],
          anatomy: Any) -> dict[str, Any]:  # fmt: skip
    """One call's span: ``attrs`` with the composition of its ``anatomy``."""
    named = {otel.OPERATION_NAME: "chat", **attrs, **_composition(anatomy)}
    return {
        "traceId": _hex(f"ctx-lab:{source}", 16), "spanId": _hex(f"ctx-lab:{source}:{index}", 8),
        "name": f"chat {model or 'unknown'}", "kind": _CLIENT,
        "startTimeUnixNano": str(begin), "endTimeUnixNano": str(begin),
        "attributes": _attributes(named), "events": _events(anatomy, begin), "status": {},
    }  # fmt: skip


def _content(system: str, tools: Sequence[Any], sent: Sequence[Any], answer: Sequence[Any],
             reasoning: Sequence[str] = ()) -> dict[str, Any]:  # fmt: skip
    """The GenAI conventions' content attributes."""
    instructions = [{"type": "text", "content": system}] if system else None
    return {
        otel.SYSTEM_INSTRUCTIONS: _json(instructions) if instructions else None,
        otel.TOOL_DEFINITIONS: _json(list(tools)) if tools else None,
        otel.INPUT_MESSAGES: _json(to_genai(sent)),
        otel.OUTPUT_MESSAGES: _json(to_genai(answer, reasoning)),
    }


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _traces(
    spans: list[dict[str, Any]],
    source: str,
    format: str,
    version: str = "",
    window: int | None = None,
    content: str | None = None,
) -> dict[str, Any]:
    resource: dict[str, Any] = {"service.name": "ctx-lab", otel.TRANSCRIPT_FORMAT: format,
                                otel.TRANSCRIPT_SOURCE: source,
                                otel.CONTENT_MODE: content}  # fmt: skip
    if version:
        resource[otel.TRANSCRIPT_AGENT_VERSION] = version
    if window:  # the window the agent said it sized calls by (Codex)
        resource[otel.TRANSCRIPT_AGENT_WINDOW] = window
    return {"resourceSpans": [{
        "resource": {"attributes": _attributes(resource)},
        "scopeSpans": [{"scope": {"name": "ctx_lab", "version": __version__}, "spans": spans}],
    }]}  # fmt: skip


def otlp_traces(
    transcript: Transcript, calls: Sequence[Any], source: str, content: str = "delta"
) -> dict[str, Any]:
    """``transcript``'s calls that have an anatomy in ``calls`` (by call index) as one
    OTLP/JSON ``ExportTraceServiceRequest`` (see the module docstring); ``content`` says what
    each span carries of the messages (:data:`ctx_lab.choices.OtlpContent`)."""
    spans = list(transcript_spans(transcript, calls, source, content))
    return _traces(spans, source, transcript.format, transcript.agent_version,
                   transcript.agent_window, content)  # fmt: skip


def otlp_chunks(
    transcript: Transcript, calls: Sequence[Any], source: str, content: str = "delta"
) -> Iterator[str]:
    """:func:`otlp_traces` as one line of JSON, written a span at a time: nothing holds the
    whole export (the OTLP file exporter's shape, one object a line)."""
    head = _traces([], source, transcript.format, transcript.agent_version,
                   transcript.agent_window, content)  # fmt: skip
    text = _dumps(head)
    cut = text.rindex('"spans":[]') + len('"spans":[')
    yield text[:cut]
    for number, span in enumerate(transcript_spans(transcript, calls, source, content)):
        yield ("," if number else "") + _dumps(span)
    yield text[cut:] + "\n"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def transcript_spans(
    transcript: Transcript, calls: Sequence[Any], source: str, content: str = "delta"
) -> Iterator[dict[str, Any]]:
    """A span per call of ``calls``, made one at a time. ``delta``: a span carries the messages
    its input adds to what the span it links to held (``ctx_lab.input.delta``, and how many it
    carried, ``ctx_lab.input.carried``), the system prompt and tools only when they change —
    each message once, as the conventions' content attributes would repeat it in every span;
    ``full``: the conventions' ``gen_ai.input.messages`` (the whole input, every span);
    ``none``: no content (usage, composition, the cache's prediction)."""
    provider = _PROVIDERS.get(transcript.format, "anthropic")
    thinking: dict[int, list[str]] = {}
    for index, text in transcript.thinking:
        thinking.setdefault(index, []).append(text)
    by_number = {c.index + 1: c for c in transcript.calls}
    predicted = _predicted(transcript)
    after = _afters(transcript)
    linked: tuple[str, int, int] | None = None  # the previous span: id, first message, answer end
    for anatomy in calls:
        call = by_number[anatomy.call]
        start, end = transcript.sent_range(call)
        span_id = _hex(f"ctx-lab:{source}:{call.index}", 8)
        answer = transcript.messages[end : call.context]
        if content == "full":
            made = _content(transcript.system, transcript.tools, transcript.messages[start:end],
                            answer, thinking.get(call.index, ()))  # fmt: skip
        elif content == "delta":
            carried = 0
            if linked is not None and linked[1] == start:
                carried = max(min(end, linked[2]) - start, 0)
            made = {
                **_delta(transcript, start + carried, end, carried, first=linked is None),
                otel.OUTPUT_MESSAGES: _json(to_genai(answer, thinking.get(call.index, ()))),
            }
        else:
            made = {}
        attrs = {
            otel.PROVIDER_NAME: provider,
            otel.REQUEST_MODEL: call.model,
            **_usage(call.usage),
            **made,
            otel.CALL_INDEX: call.index,
            otel.CALL_TIMESTAMP: call.timestamp,
            otel.CALL_COMPACTED: call.compacted or None,
            **(_kept_apart(transcript, call, start, end, after) if content != "none" else {}),
            **predicted.get(call.index, {}),
        }  # fmt: skip
        span = _span(source, call.index, call.model, _nanos(call.timestamp), attrs, anatomy)
        if content == "delta" and linked is not None:
            span["links"] = [{"traceId": span["traceId"], "spanId": linked[0]}]
        linked = (span_id, start, call.context)
        yield span


def _delta(
    transcript: Transcript, begin: int, end: int, carried: int, first: bool
) -> dict[str, Any]:
    """A delta span's input: the messages new since the linked span; the system prompt and
    tools on the first span (a recording holds one of each)."""
    made: dict[str, Any] = {
        otel.INPUT_CARRIED: carried,
        otel.INPUT_DELTA: _json(to_genai(transcript.messages[begin:end])),
    }
    if first:
        system = transcript.system
        made[otel.SYSTEM_INSTRUCTIONS] = (
            _json([{"type": "text", "content": system}]) if system else None
        )
        made[otel.TOOL_DEFINITIONS] = _json(list(transcript.tools)) if transcript.tools else None
    return made


def _afters(transcript: Transcript) -> dict[int, int]:
    """Per call index, where the messages after its answer that no later call was sent end
    (the next call's first message when it starts a new run, else its own answer's end)."""
    calls = sorted(transcript.calls, key=lambda c: c.index)
    found: dict[int, int] = {}
    for number, call in enumerate(calls):
        upto = len(transcript.messages)
        if number + 1 < len(calls):
            begin = transcript.sent_range(calls[number + 1])[0]
            upto = begin if begin >= call.context else call.context
        found[call.index] = upto
    return found


def _kept_apart(
    transcript: Transcript, call: Any, start: int, end: int, afters: dict[int, int]
) -> dict[str, Any]:
    """What a call's input and answer do not carry but the session holds, so that reading
    the export gives the same session: the messages after its answer that no later call was
    sent (before a compaction, or at the end), and which of its input are a recorded
    compaction's summary (offsets in its input)."""
    after = transcript.messages[call.context : afters[call.index]]
    summaries = [p - start for p in transcript.recorded_summaries if start <= p < end]
    return {
        otel.CALL_AFTER: _json(to_genai(after)) if after else None,
        otel.CALL_RECORDED_SUMMARIES: summaries or None,
    }


def _predicted(transcript: Transcript) -> dict[int, dict[str, Any]]:
    """Per call index, the cache model's prediction beside the reported split
    (``ctx-lab cache``: the providers' rules on the recorded sizes); nothing where the session
    cannot be simulated."""
    from ..errors import CtxLabError
    from ..recordings import simulate_cache

    try:
        if any(c.usage for c in transcript.calls):
            report = simulate_cache(transcript, sizes="usage")
        else:
            report = simulate_cache(transcript, sizes="counts")
    except (CtxLabError, ValueError):
        return {}
    return {
        c.call - 1: {
            otel.CONTEXT_CACHE_READ_PREDICTED: c.cache_read,
            otel.CONTEXT_CACHE_WRITE_PREDICTED: c.cache_write,
            otel.CONTEXT_CACHE_MISS_CAUSE: c.miss_cause,
        }
        for c in report.calls
    }


def otlp_body_traces(bodies: Sequence[Any], calls: Sequence[Any], source: str) -> dict[str, Any]:
    """Recorded request bodies (a request file's, a capture file's: ``(call id, body,
    response, provider, notes)``) with their anatomies as OTLP/JSON: the conventions' content
    as the body reads, and the body and response themselves in ``ctx_lab.request.body`` and
    ``ctx_lab.response.body``, so that reading the export takes them apart the same way."""
    by_id = {b[0]: b for b in bodies}
    spans = []
    for anatomy in calls:
        call_id, body, response, provider, notes = by_id[anatomy.call]
        model = str(body.get("model") or anatomy.model or "")
        attrs = {
            otel.PROVIDER_NAME: provider or ("openai" if anatomy.format.startswith("openai")
                                                 else "anthropic"),
            otel.REQUEST_MODEL: model or None,
            **_read_body(body, response),
            otel.CALL_INDEX: call_id,
            otel.CALL_PROVIDER: provider or None,
            otel.CALL_NOTES: list(notes) or None,
            otel.REQUEST_BODY: _json(body),
            otel.RESPONSE_BODY: _json(response) if response is not None else None,
        }  # fmt: skip
        spans.append(_span(source, call_id, model, 0, attrs, anatomy))
    return _traces(spans, source, "otlp")


def _read_body(body: Any, response: Any) -> dict[str, Any]:
    """A body's usage and content as the transcript readers read a request and its response
    (nothing where they cannot)."""
    from ..errors import CtxLabError
    from ..recordings.transcripts import read_records

    try:
        read = read_records([(1, {"request": body, "response": response})])
    except (CtxLabError, ValueError, TypeError):
        return {}
    if not read.calls:
        return {}
    call = read.calls[0]
    start, end = read.sent_range(call)
    return {
        **_usage(call.usage),
        **_content(read.system, read.tools, read.messages[start:end],
                   read.messages[end:call.context]),
    }  # fmt: skip
