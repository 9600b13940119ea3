"""The transcript formats, one row each: a format's name (declared in
:data:`ctx_lab.choices.TranscriptFormat`), what recognizes one of its records, and its reader.
Adding a format is one module with its reader and one row here; detection tries the rows in
order on the first records of a file, so a row whose test is narrower comes first."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...choices import TRANSCRIPT_FORMATS, TranscriptFormat
from ._anthropic import looks_anthropic, read_anthropic
from ._claude_code import read_claude_code
from ._cline import is_cline_history, is_cline_ui, read_cline, refuse_ui
from ._codex import is_legacy_meta, is_rollout, read_codex
from ._gemini import is_gemini_session, read_gemini
from ._model import Transcript
from ._openai import read_openai
from ._otlp import is_otlp, read_otlp
from ._pi import is_pi_session, read_pi
from ._read import Record

__all__ = ["READERS", "Reader", "detect", "reader_of"]

DETECT_RECORDS = 50  # how many of a file's first records detection looks at


@dataclass(frozen=True)
class Reader:
    """One transcript format: its name, what recognizes one of its records, its reader."""

    name: TranscriptFormat
    recognizes: Callable[[Any], bool]
    read: Callable[[list[Record]], Transcript]


def _object(test: Callable[[Mapping[str, Any]], bool]) -> Callable[[Any], bool]:
    return lambda record: isinstance(record, Mapping) and bool(test(record))


def _request(test: Callable[[Mapping[str, Any], Any], bool]) -> Callable[[Any], bool]:
    """A test of a recorded API call: the request (the record itself, or its ``request``) and
    the response recorded beside it."""

    def recognizes(record: Any) -> bool:
        if not isinstance(record, Mapping):
            return False
        request = record.get("request", record)
        return isinstance(request, Mapping) and test(request, record.get("response"))

    return recognizes


CLAUDE_CODE_TYPES = ("summary", "file-history-snapshot", "queue-operation", "progress")


def _claude_code(record: Mapping[str, Any]) -> bool:
    return "parentUuid" in record or record.get("type") in CLAUDE_CODE_TYPES


def _responses(request: Mapping[str, Any], _: Any) -> bool:
    return request.get("object") == "response" or ("input" in request and "messages" not in request)


def _messages(request: Mapping[str, Any]) -> bool:
    return "messages" in request or request.get("type") == "message"


def _anthropic(request: Mapping[str, Any], response: Any) -> bool:
    return _messages(request) and bool(looks_anthropic(request, response))


def _chat(record: Any) -> bool:
    if isinstance(record, list):
        return not is_cline_history(record)
    return _request(lambda request, response: _messages(request))(record)


READERS: tuple[Reader, ...] = (
    Reader("otlp", _object(is_otlp), read_otlp),
    Reader("pi", _object(is_pi_session), read_pi),
    Reader("codex", _object(lambda r: is_rollout(r) or is_legacy_meta(r)), read_codex),
    Reader("gemini-cli", _object(is_gemini_session), read_gemini),
    Reader("claude-code", _object(_claude_code), read_claude_code),
    Reader("openai-responses", _request(_responses), read_openai),
    Reader("anthropic-messages", _request(_anthropic), read_anthropic),
    Reader("cline", lambda r: isinstance(r, list) and is_cline_history(r), read_cline),
    Reader("openai-chat", _chat, read_openai),
)
_BY_NAME: dict[str, Reader] = {reader.name: reader for reader in READERS}
assert set(_BY_NAME) == set(TRANSCRIPT_FORMATS), "every declared format has one row"


def reader_of(name: str) -> Reader | None:
    """The row of format ``name`` (None for a name no row has)."""
    return _BY_NAME.get(name)


def detect(rows: list[Record]) -> str | None:
    """The format of the first of a file's first records that a row recognizes (a Cline UI
    log, which holds no model calls, is refused as such); None when no row does."""
    for _, record in rows[:DETECT_RECORDS]:
        if isinstance(record, list) and is_cline_ui(record):
            raise refuse_ui()
        for reader in READERS:
            if reader.recognizes(record):
                return reader.name
    return None
