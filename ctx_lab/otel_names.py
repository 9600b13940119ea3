"""The names of the span attributes and events ctx_lab writes and reads, declared once for the
OTLP writer (``anatomy/_otlp.py``) and readers (``recordings/transcripts/_otlp*.py``).

OpenTelemetry's GenAI semantic conventions (https://opentelemetry.io/docs/specs/semconv/gen-ai/,
the attribute registry's ``gen_ai`` namespace), with the older spellings traces still carry
(``gen_ai.usage.prompt_tokens``, indexed ``gen_ai.prompt.N`` attributes and per-message events);
OpenInference's (https://github.com/Arize-ai/openinference, ``llm.*``); and ctx_lab's own
(``ctx_lab.*``: what a trace of a recorded session needs beyond the conventions).
"""

from __future__ import annotations

# -- OpenTelemetry GenAI semantic conventions ----------------------------------------------------
OPERATION_NAME = "gen_ai.operation.name"
PROVIDER_NAME = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
TOOL_DEFINITIONS = "gen_ai.tool.definitions"
USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens"
USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
USAGE_CACHE_READ = "gen_ai.usage.cache_read.input_tokens"
USAGE_CACHE_CREATION = "gen_ai.usage.cache_creation.input_tokens"
USAGE_REASONING_OUTPUT = "gen_ai.usage.reasoning.output_tokens"
OPERATION_DETAILS_EVENT = "gen_ai.client.inference.operation.details"
# older spellings, read only
USAGE_PROMPT_TOKENS = "gen_ai.usage.prompt_tokens"
USAGE_COMPLETION_TOKENS = "gen_ai.usage.completion_tokens"
USAGE_CACHE_READ_OLD = "gen_ai.usage.cache_read_input_tokens"
USAGE_CACHE_CREATION_OLD = "gen_ai.usage.cache_creation_input_tokens"
PROMPT_PREFIX = "gen_ai.prompt."
COMPLETION_PREFIX = "gen_ai.completion."
MESSAGE_EVENTS = (
    "gen_ai.system.message",
    "gen_ai.user.message",
    "gen_ai.assistant.message",
    "gen_ai.tool.message",
    "gen_ai.choice",
)
CHOICE_EVENT = "gen_ai.choice"

# -- OpenInference --------------------------------------------------------------------------------
OI_SPAN_KIND = "openinference.span.kind"
OI_MODEL_NAME = "llm.model_name"
OI_INVOCATION_PARAMETERS = "llm.invocation_parameters"
OI_INPUT_MESSAGES_PREFIX = "llm.input_messages."
OI_OUTPUT_MESSAGES_PREFIX = "llm.output_messages."
OI_TOOLS_PREFIX = "llm.tools."
OI_TOKENS_PROMPT = "llm.token_count.prompt"
OI_TOKENS_COMPLETION = "llm.token_count.completion"
OI_TOKENS_CACHE_READ = "llm.token_count.prompt_details.cache_read"
OI_TOKENS_CACHE_WRITE = "llm.token_count.prompt_details.cache_write"
OI_REQUEST_TYPE = "llm.request.type"

# -- ctx_lab's own ---------------------------------------------------------------------------------
TRANSCRIPT_FORMAT = "ctx_lab.transcript.format"
TRANSCRIPT_SOURCE = "ctx_lab.transcript.source"
TRANSCRIPT_AGENT_VERSION = "ctx_lab.transcript.agent_version"
TRANSCRIPT_AGENT_WINDOW = "ctx_lab.transcript.agent_window"
CONTENT_MODE = "ctx_lab.content.mode"  # resource: delta, full or none (choices.OtlpContent)
INPUT_DELTA = "ctx_lab.input.delta"  # delta: the input's messages new since the linked span
INPUT_CARRIED = "ctx_lab.input.carried"  # delta: how many leading messages the linked one held
CALL_INDEX = "ctx_lab.call.index"
CALL_TIMESTAMP = "ctx_lab.call.timestamp"
CALL_COMPACTED = "ctx_lab.call.compacted"
CALL_AFTER = "ctx_lab.call.after"
CALL_RECORDED_SUMMARIES = "ctx_lab.call.recorded_summaries"
CALL_PROVIDER = "ctx_lab.call.provider"
CALL_NOTES = "ctx_lab.call.notes"
REQUEST_BODY = "ctx_lab.request.body"
RESPONSE_BODY = "ctx_lab.response.body"
USAGE_CACHE_WRITE_1H = "ctx_lab.usage.cache_write_1h"
USAGE_CLAIM = "ctx_lab.usage.claim"
CONTEXT_TOKENS_PREFIX = "ctx_lab.context.tokens."
CONTEXT_TOTAL = "ctx_lab.context.total"
CONTEXT_COUNTER = "ctx_lab.context.counter"
CONTEXT_EXACT = "ctx_lab.context.exact"
CONTEXT_WINDOW = "ctx_lab.context.window"
CONTEXT_REPORTED_INPUT = "ctx_lab.context.reported_input"
CONTEXT_CACHE_READ_REPORTED = "ctx_lab.context.cache_read.reported"
CONTEXT_CACHE_WRITE_REPORTED = "ctx_lab.context.cache_write.reported"
CONTEXT_CACHE_READ_PREDICTED = "ctx_lab.context.cache_read.predicted"
CONTEXT_CACHE_WRITE_PREDICTED = "ctx_lab.context.cache_write.predicted"
CONTEXT_CACHE_MISS_CAUSE = "ctx_lab.context.cache_miss.cause"
CONTEXT_CLAIM = "ctx_lab.context.claim"
CONTEXT_ITEM_EVENT = "ctx_lab.context.item"
ITEM_CATEGORY = "ctx_lab.item.category"
ITEM_NAME = "ctx_lab.item.name"
ITEM_TOKENS = "ctx_lab.item.tokens"
ITEM_EXACT = "ctx_lab.item.exact"
