"""Reading untrusted recordings: records from JSON or JSON Lines (split on ``\\n`` only — a
raw U+2028 inside a string is text, not a line end), typed field access, and errors that name
the line and the field."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, AnyStr

from ...errors import TranscriptError, UsageError
from ...validate import parse_whole_number, whole_number

Record = tuple[int, Any]

# A bound on nesting that JSON parsing and content walks accept (real recordings nest < 20).
MAX_DEPTH = 64
MAX_TOKENS = 10**12  # more tokens than any call ever billed: the field is not a count


def records(text: str) -> list[Record]:
    """``(line number, parsed value)`` of a JSON document or JSON Lines text."""
    stripped = text.strip()
    if not stripped:
        raise TranscriptError("the transcript is empty")
    if stripped[0] in "[{":
        try:
            return [(1, _loads(stripped, 1))]
        except TranscriptError:
            if "\n" not in stripped:
                raise
    found = []
    for number, line in enumerate(_lines(text), 1):
        if line.strip():
            found.append((number, _unread_dropped(_loads(line, number))))
    return found


# What a record carries that no reader reads, dropped as each line is parsed (a long session's
# records are all held while its tree is walked): Claude Code's ``toolUseResult`` repeats a
# tool's result beside the message's own ``tool_result`` block (a quarter of a long session's
# bytes, held for the whole read otherwise)
UNREAD_FIELDS = ("toolUseResult",)
# Claude Code's bookkeeping on every line of a session (a record with ``parentUuid`` and
# ``sessionId``) that no reader reads — the working directory, the session and request ids, the
# git branch, the tool ids of a progress line — and, by kind, a progress line's ``data`` (a
# hook's, a command's or a sub-agent's output) and a file-history snapshot: on the 217-call
# session ae4a77f8 they are half its lines' parsed size. Such a record is kept as a smaller
# dictionary of what is read.
CLAUDE_CODE_UNREAD = frozenset(
    {
        *UNREAD_FIELDS,
        "cwd",
        "sessionId",
        "slug",
        "gitBranch",
        "userType",
        "requestId",
        "toolUseID",
        "parentToolUseID",
        "sourceToolAssistantUUID",
        "sourceToolUseID",
        "thinkingMetadata",
        "permissionMode",
        "todos",
    }
)
CLAUDE_CODE_UNREAD_OF_KIND = {"progress": "data", "file-history-snapshot": "snapshot"}


def _unread_dropped(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    kind = value.get("type")
    if ("parentUuid" in value and "sessionId" in value) or kind == "file-history-snapshot":
        also = CLAUDE_CODE_UNREAD_OF_KIND.get(kind) if isinstance(kind, str) else None
        return {k: v for k, v in value.items() if k not in CLAUDE_CODE_UNREAD and k != also}
    for name in UNREAD_FIELDS:
        value.pop(name, None)
    return value


def _lines(text: AnyStr) -> Iterator[AnyStr]:
    """The lines of ``text`` or of bytes (split on ``\\n`` only), one at a time: never a list
    of them all beside the records being made."""
    newline = "\n" if isinstance(text, str) else b"\n"
    start = 0
    while True:
        end = text.find(newline, start)
        if end < 0:
            yield text[start:]
            return
        yield text[start:end]
        start = end + 1


def byte_records(data: bytes) -> list[Record] | None:
    """``(line number, parsed value)`` of JSON Lines in UTF-8 ``data``, each line decoded on
    its own (never the whole file as one string); None when ``data`` is not that — a BOM, one
    JSON document over several lines, undecodable bytes — for :func:`records` on its text."""
    if data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return None
    found: list[Record] = []
    try:
        for number, line in enumerate(_lines(data), 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                if not found:  # the first line is not a whole value: one document, or not JSON
                    return None
                raise
            found.append((number, _unread_dropped(value)))
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError, RecursionError):
        return None  # the text path says what is wrong, and where
    return found or None


def _byte_lines(data: bytes) -> Iterator[bytes]:
    start = 0
    while True:
        end = data.find(b"\n", start)
        if end < 0:
            yield data[start:]
            return
        yield data[start:end]
        start = end + 1


def _loads(text: str, number: int) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise TranscriptError(f"line {number} is not JSON: {exc.msg}") from None
    except ValueError as exc:  # a number past Python's digit limit (4,300 digits)
        raise TranscriptError(
            f"line {number}: a number too long to read ({str(exc)[:60]})"
        ) from None
    except RecursionError:
        raise TranscriptError(f"line {number}: JSON nested too deeply") from None


def count(value: Any, name: str) -> int:
    """A token count: an integer ≥ 0 (a JSON number, or digits as text); missing is 0.
    Checked by :mod:`ctx_lab.validate`, refused as a :class:`TranscriptError` naming the field."""
    if value is None:
        return 0
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    try:
        number = (
            parse_whole_number(value, f"field {name}")
            if isinstance(value, str)
            else whole_number(value, f"field {name}")
        )
    except UsageError as exc:
        raise TranscriptError(str(exc)) from None
    if number > MAX_TOKENS:
        raise TranscriptError(f"field {name}: {number:,} is not a plausible token count")
    return number


def mapping(value: Any, name: str) -> Mapping[str, Any]:
    """``value`` when it is a JSON object."""
    if not isinstance(value, Mapping):
        raise TranscriptError(f"field {name}: expected an object, got {type(value).__name__}")
    return value


def text_field(value: Any, name: str, default: str = "") -> str:
    """A string field (missing → ``default``)."""
    if value is None:
        return default
    if not isinstance(value, str):
        raise TranscriptError(f"field {name}: expected a string, got {type(value).__name__}")
    return value


def list_field(value: Any, name: str) -> list[Any]:
    """A list field (missing → empty)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise TranscriptError(f"field {name}: expected a list, got {type(value).__name__}")
    return value


@contextmanager
def located(number: int) -> Iterator[None]:
    """Errors raised while reading line ``number`` become :class:`TranscriptError` naming it."""
    try:
        yield
    except TranscriptError as exc:
        message = str(exc)
        if message.startswith("line "):
            raise
        raise type(exc)(f"line {number}: {message}") from None
    except UsageError as exc:  # a value a message refuses (lone surrogates, missing ids)
        raise TranscriptError(f"line {number}: {exc}") from None
    except KeyError as exc:
        raise TranscriptError(f"line {number}: missing field {exc}") from None
    except (TypeError, AttributeError, ValueError, IndexError) as exc:
        raise TranscriptError(f"line {number}: unexpected shape ({exc})") from None
    except RecursionError:
        raise TranscriptError(f"line {number}: nested too deeply") from None
