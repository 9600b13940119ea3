"""Reading untrusted recordings: records from JSON or JSON Lines (split on ``\\n`` only — a
raw U+2028 inside a string is text, not a line end), typed field access, and errors that name
the line and the field."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

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
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip():
            found.append((number, _loads(line, number)))
    return found


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
