"""A child process for the OpenTelemetry import tests: instruments the official openai SDK with
one real instrumentation package (content capture on), makes the calls of pydantic-ai's real
recorded cassette against ``BASE_URL`` (ctx-lab capture in front of a fake upstream), and
writes the spans as OTLP/JSON — the encoding of OpenTelemetry's own exporter
(``opentelemetry-exporter-otlp-proto-common``), ids in hex as OTLP/JSON has them.

    python otel_child.py {openai-v2|openai-v2-events|openinference|openllmetry} BASE_URL CASSETTE OUT

``openai-v2-events`` is the same package with the content as an event: log records, written
beside the spans as a second OTLP/JSON line (``resourceLogs``).
"""

from __future__ import annotations

import base64
import json
import os
import sys
from pathlib import Path


def _instrument(kind: str, provider: object) -> None:
    if kind == "openai-v2-events":  # the content in a log record, not on the span
        os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "event_only"
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
    elif kind == "openai-v2":  # OpenTelemetry's own, the GenAI conventions' latest attributes
        os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "span_only"
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
    elif kind == "openinference":  # Arize's, llm.input_messages.N.message.*
        from openinference.instrumentation.openai import OpenAIInstrumentor  # type: ignore[no-redef]
    else:  # Traceloop's OpenLLMetry, gen_ai.prompt.N.*
        os.environ["TRACELOOP_TRACE_CONTENT"] = "true"
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor  # type: ignore[no-redef]
    extra = {"logger_provider": _LOGS[0]} if kind.startswith("openai-v2") else {}
    OpenAIInstrumentor().instrument(tracer_provider=provider, **extra)


_LOGS: list[object] = []  # the logger provider and its exporter


def _logs_json(records: object) -> dict:
    from google.protobuf import json_format
    from opentelemetry.exporter.otlp.proto.common._log_encoder import encode_logs

    payload = json_format.MessageToDict(encode_logs(records))
    for resource in payload.get("resourceLogs", []):
        for scope in resource.get("scopeLogs", []):
            for record in scope.get("logRecords", []):
                for key in ("traceId", "spanId"):
                    if key in record:
                        record[key] = base64.b64decode(record[key]).hex()
    return payload


def _otlp_json(spans: object) -> dict:
    from google.protobuf import json_format
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    payload = json_format.MessageToDict(encode_spans(spans))
    for resource in payload["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    return payload


def main() -> None:
    kind, base_url, cassette, out = sys.argv[1:5]
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    logs = InMemoryLogRecordExporter()
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    _LOGS.extend([logger_provider, logs])
    _instrument(kind, provider)
    import openai

    client = openai.OpenAI(base_url=base_url, api_key="sk-test-never-stored", max_retries=0)
    for line in Path(cassette).read_text().splitlines():
        if line.strip():
            body = dict(json.loads(line)["request"])
            body.pop("stream", None)
            client.chat.completions.create(**body)
    provider.force_flush()
    logger_provider.force_flush()
    lines = [json.dumps(_otlp_json(exporter.get_finished_spans()))]
    records = logs.get_finished_logs()
    if records:
        lines.append(json.dumps(_logs_json(records)))
    Path(out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
