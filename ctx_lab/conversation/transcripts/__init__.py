"""Recorded sessions as transcripts: ``load_transcript(path_or_obj)`` reads a Claude Code
session, a Codex CLI/Desktop rollout, a Gemini CLI session, an OpenAI Chat Completions or
Responses API request/log, or an Anthropic Messages request/response, and returns one
:class:`Transcript` — messages in order (tool calls and their results as separate messages that
stay paired), the system prompt and tool definitions, each model call with its
provider-reported usage, compaction events, reasoning kept apart, and what was skipped by kind.

The shapes come from the providers' SDK types (``anthropic.types.Message``, ``Usage`` with
``iterations`` and ``compaction`` blocks; OpenAI's ``ChatCompletion``, ``Response`` and their
request bodies), Gemini CLI's chat recording types, and the session files the agents write,
checked on real files that public projects commit. Every malformed input is a
:class:`~ctx_lab.errors.TranscriptError` naming the file, the line and the field; JSON Lines are
split on ``\\n`` only. An image becomes a placeholder that keeps its size when the recording
holds its bytes (``[image 800×600]``, else :data:`IMAGE_PLACEHOLDER`); replay and anatomy price
each by the model's provider rule (:func:`ctx_lab.tokens.sized_image_tokens`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...errors import TranscriptError
from ...packed import read_unpacked_text
from ._anthropic import looks_anthropic, read_anthropic
from ._claude_code import read_claude_code
from ._cline import is_cline_history, is_cline_ui, read_cline, refuse_ui
from ._codex import is_legacy_meta, is_rollout, read_codex
from ._gemini import is_gemini_session, read_gemini
from ._genai import from_genai, to_genai
from ._model import (
    IMAGE_PLACEHOLDER,
    NO_USAGE,
    Call,
    Transcript,
    Usage,
    image_marks,
    image_placeholder,
    images_cost,
)
from ._openai import read_openai
from ._otlp import is_otlp, read_otlp
from ._otlp_bodies import otlp_bodies
from ._pi import is_pi_session, read_pi
from ._read import Record, records

__all__ = [
    "FORMATS",
    "IMAGE_PLACEHOLDER",
    "NO_USAGE",
    "Call",
    "Transcript",
    "Usage",
    "from_genai",
    "image_marks",
    "image_placeholder",
    "images_cost",
    "load_transcript",
    "otlp_bodies",
    "read_records",
    "records",
    "to_genai",
]

FORMATS = (
    "claude-code",
    "codex",
    "gemini-cli",
    "openai-chat",
    "openai-responses",
    "anthropic-messages",
    "cline",
    "pi",
    "otlp",
)

_READERS = {
    "claude-code": read_claude_code,
    "codex": read_codex,
    "gemini-cli": read_gemini,
    "openai-chat": read_openai,
    "openai-responses": read_openai,
    "anthropic-messages": read_anthropic,
    "cline": read_cline,
    "pi": read_pi,
    "otlp": read_otlp,
}


def _detect(rows: list[Record]) -> str:
    for _, record in rows[:50]:
        if isinstance(record, list):
            if is_cline_ui(record):
                raise refuse_ui()
            return "cline" if is_cline_history(record) else "openai-chat"
        if not isinstance(record, Mapping):
            continue
        if is_otlp(record):
            return "otlp"
        if is_pi_session(record):
            return "pi"
        if is_rollout(record) or is_legacy_meta(record):
            return "codex"
        if is_gemini_session(record):
            return "gemini-cli"
        if "parentUuid" in record or record.get("type") in (
            "summary",
            "file-history-snapshot",
            "queue-operation",
            "progress",
        ):
            return "claude-code"
        request = record.get("request", record)
        if isinstance(request, Mapping):
            if request.get("object") == "response" or (
                "input" in request and "messages" not in request
            ):
                return "openai-responses"
            if "messages" in request or request.get("type") == "message":
                return "anthropic-messages" if looks_anthropic(request) else "openai-chat"
    likely = _likely(rows)
    if likely:
        raise TranscriptError(likely)
    raise TranscriptError(
        f"not a transcript ctx_lab knows ({', '.join(FORMATS)}): no recognizable record"
    )


AIDER_HISTORY = "# aider chat started at"


def _refuse_known_text(text: str) -> None:
    """Session files of agents ctx_lab does not read, refused by name before JSON parsing."""
    if text.lstrip("\ufeff \n").startswith(AIDER_HISTORY):
        raise TranscriptError(
            "looks like aider's Markdown chat history (.aider.chat.history.md): it holds the "
            "chat as Markdown, without the requests sent or any usage, and ctx_lab does not read "
            "it; record aider's calls with ctx-lab capture instead (aider takes --openai-api-base "
            "or ANTHROPIC_BASE_URL)"
        )


_OPENCODE_EVENTS = ("step_start", "step_finish", "text", "tool_use", "reasoning", "error")


def _likely(rows: list[Record]) -> str:
    """What the records look like, when recognisably some other agent's file that ctx_lab does
    not read (said by name, never read as an empty session)."""
    for _, record in rows[:5]:
        if not isinstance(record, Mapping):
            continue
        if "ts" in record and record.get("type") in ("say", "ask"):
            return "looks like Cline's ui_messages.json; read api_conversation_history.json"
        session = record.get("sessionID")
        if isinstance(session, str) and session.startswith("ses_"):
            if record.get("type") in _OPENCODE_EVENTS:
                return (
                    "looks like OpenCode's `opencode run --format json` event stream, which "
                    "ctx_lab does not read: record OpenCode's calls with ctx-lab capture"
                )
            return (
                "looks like one file of OpenCode's storage (a session is spread over a file "
                "per message and part), which ctx_lab does not read: record OpenCode's calls "
                "with ctx-lab capture"
            )
    return ""


def read_records(rows: list[Record], format: str = "auto", source: str = "") -> Transcript:
    """Already-parsed records — ``(line number, record)`` pairs, as :func:`records` gives them
    or a capture file's calls as ``{"request", "response"}`` objects — as one transcript."""
    if format != "auto" and format not in _READERS:
        raise TranscriptError(f"unknown format {format!r}; use auto or one of {', '.join(FORMATS)}")
    if not rows:
        raise TranscriptError(f"{source or 'transcript'}: no records to read")
    try:
        chosen = _detect(rows) if format == "auto" else format
        found = _READERS[chosen](rows)
    except TranscriptError as exc:
        raise type(exc)(f"{source}: {exc}" if source else str(exc)) from None
    except (TypeError, AttributeError, ValueError, OverflowError, RecursionError) as exc:
        raise TranscriptError(
            f"{source or 'transcript'}: a record of an unexpected shape ({type(exc).__name__})"
        ) from None
    if not found.messages and not found.calls:
        raise TranscriptError(
            f"{source or 'transcript'}: read as {chosen} but it holds no messages"
        )
    return replace(found, source=source) if source else found


def load_transcript(
    source: str | os.PathLike[str] | Mapping[str, Any] | list[Any], format: str = "auto"
) -> Transcript:
    """Read a recorded session from a file (JSON or JSON Lines, plain or gzip-packed, within
    the recording limit) or an already-parsed object. ``format`` is ``auto`` (detected) or
    one of :data:`FORMATS`.
    Every malformed input raises :class:`TranscriptError` naming the file, line and field."""
    if format != "auto" and format not in _READERS:
        raise TranscriptError(f"unknown format {format!r}; use auto or one of {', '.join(FORMATS)}")
    label = "" if isinstance(source, Mapping | list) else os.fspath(source)
    try:
        if isinstance(source, Mapping | list):
            rows: list[Record] = [(1, source)]
        else:
            text = read_unpacked_text(Path(source).expanduser(), kind="recording")
            _refuse_known_text(text)
            rows = records(text)
        chosen = _detect(rows) if format == "auto" else format
        found = _READERS[chosen](rows)
        if not found.messages and not found.calls:  # (a usage-only trace has calls)
            raise TranscriptError(
                f"read as {chosen} but it holds no messages: "
                f"{_likely(rows) or 'not a session ctx_lab can replay'} "
                f"(formats read: {', '.join(FORMATS)})"
            )
    except TranscriptError as exc:
        if label and not str(exc).startswith(label):
            raise type(exc)(f"{label}: {exc}") from None
        raise
    except RecursionError:
        raise TranscriptError(f"{label or 'transcript'}: nested too deeply") from None
    except (TypeError, AttributeError, ValueError, OverflowError) as exc:
        # a field of a shape no reader expects (``{"messages": 5}``): refused, typed
        raise TranscriptError(
            f"{label or 'transcript'}: a record of an unexpected shape ({type(exc).__name__}: "
            f"{str(exc)[:200]})"
        ) from None
    return replace(found, source=label) if label else found
