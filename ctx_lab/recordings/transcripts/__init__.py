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
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ...choices import TRANSCRIPT_FORMATS
from ...errors import TranscriptError
from ...files import decode_text
from ...packed import read_unpacked_bytes
from ._cassette import cassette_records, is_cassette
from ._formats import detect, reader_of
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
from ._otlp_bodies import otlp_bodies
from ._read import Record, byte_records, records

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
    "recording_rows",
    "records",
    "to_genai",
]

FORMATS = TRANSCRIPT_FORMATS  # declared once in ctx_lab.choices


def _read(name: str, rows: list[Record]) -> Transcript:
    reader = reader_of(name)
    assert reader is not None  # the name was checked, or detected
    return reader.read(rows)


def _detect(rows: list[Record]) -> str:
    found = detect(rows)
    if found is not None:
        return found
    likely = _likely(rows)
    if likely:
        raise TranscriptError(likely)
    raise TranscriptError(
        f"not a transcript ctx_lab knows ({', '.join(FORMATS)}): no recognizable record"
    )


def recording_rows(path: str | os.PathLike[str]) -> list[Record]:
    """The records of a recording file — JSON, JSON Lines or a YAML cassette, plain or
    gzip-packed, within the recording limit — with a VCR cassette's model calls as
    ``{"request", "response"}`` records."""
    return _unpacked_cassette(_file_rows(path), os.fspath(path))[0]


def _file_rows(path: str | os.PathLike[str]) -> list[Record]:
    """The records of a file as written (a cassette still one record)."""
    label = os.fspath(path)
    data = read_unpacked_bytes(Path(path).expanduser(), kind="recording")
    _refuse_known_text(data[:4096].decode("utf-8", "ignore"))
    if not label.removesuffix(".gz").endswith((".yaml", ".yml")):
        found = byte_records(data)  # JSON Lines in UTF-8: decoded a line at a time
        if found is not None:
            return found
    text = decode_text(data, label, [])
    del data
    return _cassette_yaml(text, label) or records(text)


def _cassette_yaml(text: str, label: str) -> list[Record]:
    """A YAML cassette's rows (``.yaml``/``.yml``, gzip-packed or not), parsed and checked;
    else none."""
    name = label.removesuffix(".gz")
    if not name.endswith((".yaml", ".yml")):
        return []
    from ...cassettes import parse_recorded

    return [(1, parse_recorded(text, name))]


def _unpacked_cassette(rows: list[Record], label: str) -> tuple[list[Record], Counter[str]]:
    """A VCR cassette's model calls as request/response records; other rows as they are."""
    if len(rows) != 1 or not is_cassette(rows[0][1]):
        return rows, Counter()
    found, left = cassette_records(rows[0][1], label or "cassette")
    if not found:
        raise TranscriptError(
            "a VCR cassette without a model call answered as JSON"
            + (f" ({_left_note(left)})" if left else "")
            + (
                "; a streamed answer is read from a capture file (ctx-lab capture assembles "
                "streams)"
                if any("event stream" in kind for kind in left)
                else ""
            )
        )
    return found, left


def _left_note(left: Counter[str]) -> str:
    return "cassette interactions left out — " + "; ".join(
        f"{kind}: {n}" for kind, n in sorted(left.items())
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
    if format != "auto" and reader_of(format) is None:
        raise TranscriptError(f"unknown format {format!r}; use auto or one of {', '.join(FORMATS)}")
    if not rows:
        raise TranscriptError(f"{source or 'transcript'}: no records to read")
    try:
        chosen = _detect(rows) if format == "auto" else format
        found = _read(chosen, rows)
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
    if format != "auto" and reader_of(format) is None:
        raise TranscriptError(f"unknown format {format!r}; use auto or one of {', '.join(FORMATS)}")
    label = "" if isinstance(source, Mapping | list) else os.fspath(source)
    try:
        if isinstance(source, Mapping | list):
            rows: list[Record] = [(1, source)]
        else:
            rows = _file_rows(source)
        rows, left = _unpacked_cassette(rows, label)
        chosen = _detect(rows) if format == "auto" else format
        found = _read(chosen, rows)
        if left:
            found = replace(found, warnings=(*found.warnings, _left_note(left)))
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
