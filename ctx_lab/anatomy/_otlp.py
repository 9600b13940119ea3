"""A session's anatomy as OpenTelemetry traces (``anatomy FILE --session --format otlp``):
OTLP/JSON (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding: ids in hex,
64-bit integers as strings) written by hand — no OpenTelemetry SDK at run time.

One span per call, named ``chat MODEL`` (kind CLIENT), with the GenAI semantic conventions'
attributes (``gen_ai.operation.name``, ``gen_ai.provider.name``, ``gen_ai.request.model``, the
usage ``gen_ai.usage.input_tokens`` — cache included, as the conventions say — ``output_tokens``,
``cache_read.input_tokens``, ``cache_creation.input_tokens``; the content
``gen_ai.system_instructions``, ``gen_ai.tool.definitions``, ``gen_ai.input.messages``,
``gen_ai.output.messages``) and the composition in ``ctx_lab.context.*``: tokens by category,
the counter and whether it is exact, the window, the reported input beside the count. Each item
of at least :data:`LARGE_ITEM` tokens is an event. Reading the export
(:mod:`ctx_lab.conversation.transcripts`) gives the same session, hence the same anatomy.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from .._version import __version__
from ..conversation.transcripts import Transcript, to_genai
from ._pieces import CATEGORIES

__all__ = ["LARGE_ITEM", "otlp_traces"]

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
        "gen_ai.usage.input_tokens": usage.reported_input,
        "gen_ai.usage.output_tokens": usage.output_tokens,
        "gen_ai.usage.cache_read.input_tokens": usage.cache_read_input_tokens,
        "gen_ai.usage.cache_creation.input_tokens": usage.cache_creation_input_tokens,
        "gen_ai.usage.reasoning.output_tokens": usage.reasoning_tokens or None,
        "ctx_lab.usage.cache_write_1h": usage.cache_write_1h or None,
    }


def _composition(anatomy: Any) -> dict[str, Any]:
    categories = anatomy.categories()
    made: dict[str, Any] = {f"ctx_lab.context.tokens.{c}": categories.get(c, 0)
                            for c in CATEGORIES}  # fmt: skip
    made.update({
        "ctx_lab.context.total": anatomy.total,
        "ctx_lab.context.counter": anatomy.counter,
        "ctx_lab.context.exact": anatomy.exact,
        "ctx_lab.context.window": anatomy.window,
        "ctx_lab.context.reported_input": anatomy.reported_input,
        "ctx_lab.context.cache_read.reported": anatomy.cache_read,
        "ctx_lab.context.cache_write.reported": anatomy.cache_write,
    })  # fmt: skip
    return made


def _events(anatomy: Any, start: int) -> list[dict[str, Any]]:
    return [
        {"timeUnixNano": str(start), "name": "ctx_lab.context.item",
         "attributes": _attributes({"ctx_lab.item.category": i.category,
                                    "ctx_lab.item.name": i.name, "ctx_lab.item.tokens": i.tokens,
                                    "ctx_lab.item.exact": i.exact})}
        for i in anatomy.items if i.tokens >= LARGE_ITEM
    ]  # fmt: skip


def otlp_traces(transcript: Transcript, calls: Sequence[Any], source: str) -> dict[str, Any]:
    """``transcript``'s calls that have an anatomy in ``calls`` (by call index) as one
    OTLP/JSON ``ExportTraceServiceRequest`` (see the module docstring)."""
    trace = _hex(f"ctx-lab:{source}", 16)
    provider = _PROVIDERS.get(transcript.format, "anthropic")
    thinking: dict[int, list[str]] = {}
    for index, text in transcript.thinking:
        thinking.setdefault(index, []).append(text)
    system = [{"type": "text", "content": transcript.system}] if transcript.system else None
    spans = []
    by_index = {c.index: c for c in transcript.calls}
    for anatomy in calls:
        call = by_index[anatomy.call]
        start, end = transcript.sent_range(call)
        begin = _nanos(call.timestamp)
        attrs = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": provider,
            "gen_ai.request.model": call.model,
            **_usage(call.usage),
            "gen_ai.system_instructions": json.dumps(system, ensure_ascii=False)
            if system else None,
            "gen_ai.tool.definitions": json.dumps(list(transcript.tools), ensure_ascii=False)
            if transcript.tools else None,
            "gen_ai.input.messages": json.dumps(to_genai(transcript.messages[start:end]),
                                                ensure_ascii=False),
            "gen_ai.output.messages": json.dumps(
                to_genai(transcript.messages[end:call.context], thinking.get(call.index, ())),
                ensure_ascii=False),
            "ctx_lab.call.index": call.index,
            "ctx_lab.call.timestamp": call.timestamp,
            "ctx_lab.call.compacted": call.compacted or None,
            **_composition(anatomy),
        }  # fmt: skip
        spans.append({
            "traceId": trace, "spanId": _hex(f"ctx-lab:{source}:{call.index}", 8),
            "name": f"chat {call.model or 'unknown'}", "kind": _CLIENT,
            "startTimeUnixNano": str(begin), "endTimeUnixNano": str(begin),
            "attributes": _attributes(attrs), "events": _events(anatomy, begin),
            "status": {},
        })  # fmt: skip
    resource = {"service.name": "ctx-lab", "ctx_lab.transcript.format": transcript.format,
                "ctx_lab.transcript.source": source}  # fmt: skip
    return {"resourceSpans": [{
        "resource": {"attributes": _attributes(resource)},
        "scopeSpans": [{"scope": {"name": "ctx_lab", "version": __version__}, "spans": spans}],
    }]}  # fmt: skip
