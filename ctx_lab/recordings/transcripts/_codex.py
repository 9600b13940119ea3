"""Codex CLI and Codex Desktop rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl``).

Each line is ``{"timestamp", "type", "payload"}``: ``session_meta`` (``base_instructions.text``
is the system prompt), ``turn_context`` (the ``model`` of the turn), ``response_item`` (the
Responses API items the model was sent and produced: messages, reasoning, function and custom
tool calls and their outputs), ``event_msg`` (UI events; ``token_count`` carries usage:
``info.total_token_usage`` grows by one model call and ``info.last_token_usage`` is that call's
``input_tokens`` — cached and written included — ``cached_input_tokens``,
``cache_write_input_tokens`` (newer Codex), ``output_tokens`` and ``reasoning_output_tokens``;
a ``token_count`` whose total did not change repeats the last one)
and ``compacted`` (``message``, and ``replacement_history``: the items the model sees from then
on). A call's answer is the output items since the previous call.

The 2025 (pre-envelope) rollouts are read too: a first line ``{"id", "timestamp",
"instructions", "git"}``, then bare response items and ``{"record_type": "state"}`` markers.
They, and envelope files written before ``token_count`` carried usage, have no usage: each run
of output items between inputs is then one call, without usage.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...conversation import Message
from ._blocks import images_in
from ._model import Call, Transcript, Usage
from ._openai import OUTPUT_ITEMS, response_item
from ._read import Record, count, list_field, located, mapping, text_field

ROLLOUT_KINDS = ("session_meta", "turn_context", "response_item", "event_msg", "compacted")


def is_rollout(record: Any) -> bool:
    """Whether a parsed line is a Codex rollout line (the envelope, or a 2025 state marker)."""
    return isinstance(record, Mapping) and (
        (record.get("type") in ROLLOUT_KINDS and isinstance(record.get("payload"), Mapping))
        or record.get("record_type") == "state"
    )


def is_legacy_meta(record: Any) -> bool:
    """Whether a parsed line is the first line of a 2025 rollout."""
    return (
        isinstance(record, Mapping)
        and "type" not in record
        and "id" in record
        and "timestamp" in record
        and ("instructions" in record or "git" in record)
    )


def _envelope(record: Any, first: bool) -> tuple[str, Mapping[str, Any]] | None:
    """``(kind, payload)`` of a line in either era; None for a line that is not one."""
    if not isinstance(record, Mapping):
        return None
    if record.get("type") in ROLLOUT_KINDS and isinstance(record.get("payload"), Mapping):
        return str(record["type"]), record["payload"]
    if record.get("record_type") == "state":
        return "state", record
    if first and is_legacy_meta(record):
        return "session_meta", record
    kind = record.get("type")
    if isinstance(kind, str) and (
        kind == "message" or kind in OUTPUT_ITEMS or kind.endswith("_output")
    ):
        return "response_item", record
    return None


def _usage(info: Mapping[str, Any]) -> Usage:
    last = mapping(info.get("last_token_usage"), "info.last_token_usage")
    total_input = count(last.get("input_tokens"), "last_token_usage.input_tokens")
    cached = min(
        count(last.get("cached_input_tokens"), "last_token_usage.cached_input_tokens"),
        total_input,
    )
    # written to the cache (GPT-5.6 and later bill it at 1.25x input), inside input_tokens as
    # the cached tokens are: 51,599 input = 36,339 cached + 15,248 written + 12 fresh in a real
    # `codex exec --json` usage line quoted by a public test (read 2026-12-07)
    written = min(
        count(last.get("cache_write_input_tokens", 0), "last_token_usage.cache_write_input_tokens"),
        total_input - cached,
    )
    return Usage(
        total_input - cached - written,
        count(last.get("output_tokens"), "last_token_usage.output_tokens"),
        written,
        cached,
        count(last.get("reasoning_output_tokens"), "last_token_usage.reasoning_output_tokens"),
    )


def _run_call(index: int, start: int, end: int, model: str | None, record: Any) -> Call:
    stamp = record.get("timestamp") if isinstance(record, Mapping) else None
    return Call(
        index=index,
        context=end,
        model=model,
        timestamp=stamp if isinstance(stamp, str) else None,
        usage=None,
        prompt=start,
    )


@dataclass
class _Rollout:
    """What the stages of :func:`read_codex` share, line by line."""

    system: str = ""
    model: str | None = None
    messages: list[Message] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    compactions: list[int] = field(default_factory=list)
    summaries: list[int] = field(default_factory=list)
    thinking: list[tuple[int, str]] = field(default_factory=list)
    version: str = ""  # session_meta.cli_version
    window: int | None = None  # the last token_count's model_context_window
    skipped: Counter[str] = field(default_factory=Counter)
    pending_reasoning: list[str] = field(default_factory=list)
    answer_start: int | None = None  # where the current call's output items began
    run_start: int | None = None  # the same, for files without token counts
    last_total: Any = None
    images: int = 0
    unknown: int = 0
    runs: list[Call] = field(default_factory=list)  # calls from runs of output, without usage


def _session_meta(state: _Rollout, payload: Mapping[str, Any]) -> None:
    version = payload.get("cli_version")
    if isinstance(version, str):
        state.version = version[:40]
    instructions = payload.get("base_instructions")
    if isinstance(instructions, Mapping):
        state.system = text_field(instructions.get("text"), "base_instructions.text")
    elif isinstance(payload.get("instructions"), str):
        state.system = payload["instructions"]


def _compacted(state: _Rollout, payload: Mapping[str, Any]) -> None:
    """A compaction: its replacement history (or its message) is what the model sees next."""
    messages = state.messages
    state.compactions.append(len(messages))
    history = list_field(payload.get("replacement_history"), "replacement_history")
    if history:
        for item in history:
            for message in response_item(mapping(item, "replacement_history[]"))[1]:
                state.summaries.append(len(messages))
                messages.append(message)
    else:
        summary = text_field(payload.get("message"), "compacted.message")
        state.summaries.append(len(messages))
        messages.append(Message.user(summary))
    state.answer_start = None


def _response_item(state: _Rollout, payload: Mapping[str, Any], record: Any) -> None:
    """One item of the conversation; runs of model output are calls when no usage is kept."""
    item_kind = payload.get("type", "message")
    is_output = item_kind in OUTPUT_ITEMS or (
        item_kind == "message" and payload.get("role") == "assistant"
    )
    at = len(state.messages)
    if not is_output and state.run_start is not None:
        state.runs.append(_run_call(len(state.runs), state.run_start, at, state.model, record))
        state.run_start = None
    if is_output and state.run_start is None:
        state.run_start = at
    if is_output and state.answer_start is None:
        state.answer_start = at
    state.images += images_in(payload.get("content"))
    text, produced, reasoning = response_item(payload)
    if text:  # developer/system messages: instructions sent with every call
        state.system = "\n\n".join(s for s in (state.system, text) if s)
    state.messages.extend(produced)
    if reasoning is not None:  # encrypted reasoning too: the next call is sent it, unread
        state.pending_reasoning.append(reasoning)
    if not produced and reasoning is None and not text:
        state.skipped[f"response_item:{item_kind}"] += 1


def _token_count(state: _Rollout, payload: Mapping[str, Any], record: Any) -> None:
    """A ``token_count`` event closes a call (a repeated total is the same call)."""
    event = payload.get("type")
    if event != "token_count" or not isinstance(payload.get("info"), Mapping):
        state.skipped[f"event_msg:{event}"] += 1
        return
    info = payload["info"]
    if info.get("model_context_window") is not None:  # the window Codex sized the call by
        state.window = count(info.get("model_context_window"), "info.model_context_window") or None
    total = info.get("total_token_usage")
    if total == state.last_total:
        state.skipped["event_msg:token_count (repeated)"] += 1
        return
    state.last_total = total
    prompt = state.answer_start if state.answer_start is not None else len(state.messages)
    state.calls.append(
        Call(
            index=len(state.calls),
            context=len(state.messages),
            model=state.model,
            timestamp=text_field(record.get("timestamp"), "timestamp") or None,
            usage=_usage(info),
            prompt=prompt,
        )
    )
    state.thinking.extend((len(state.calls) - 1, t) for t in state.pending_reasoning)
    state.pending_reasoning = []
    state.answer_start = None


def _line(state: _Rollout, record: Any, first: bool) -> None:
    found = _envelope(record, first)
    if found is None:
        state.unknown += 1
        return
    kind, payload = found
    if kind == "state":
        state.skipped["state"] += 1
    elif kind == "session_meta":
        _session_meta(state, payload)
    elif kind == "turn_context":
        state.model = text_field(payload.get("model"), "turn_context.model") or state.model
    elif kind == "compacted":
        _compacted(state, payload)
    elif kind == "response_item":
        _response_item(state, payload, record)
    else:  # event_msg
        _token_count(state, payload, record)


def read_codex(rows: list[Record]) -> Transcript:
    """A Codex rollout as a :class:`Transcript` (see the module docstring)."""
    state = _Rollout()
    for position, (number, record) in enumerate(rows):
        with located(number):
            _line(state, record, position == 0)
    if state.run_start is not None:
        state.runs.append(
            _run_call(len(state.runs), state.run_start, len(state.messages), state.model, None)
        )
    warnings = (
        [f"{state.unknown} lines that are not rollout lines skipped"] if state.unknown else []
    )
    calls = state.calls
    if not calls and state.runs:
        calls = state.runs
        warnings.append("no token counts recorded: one call per run of model output, no usage")
    if state.thinking:
        warnings.append(
            f"{len(state.thinking)} reasoning items kept apart (encrypted reasoning is not counted)"
        )
    if state.compactions:
        warnings.append(
            f"{len(state.compactions)} recorded compactions: the model saw their replacement "
            "history from then on"
        )
    return Transcript(
        "codex",
        tuple(state.messages),
        tuple(calls),
        state.system,
        compactions=tuple(state.compactions),
        recorded_summaries=tuple(state.summaries),
        unknown_lines=state.unknown,
        images=state.images,
        warnings=tuple(warnings),
        skipped=tuple(sorted(state.skipped.items())),
        thinking=tuple(state.thinking),
        agent_version=state.version,
        agent_window=state.window,
    )
