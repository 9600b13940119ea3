"""The whole-number check every count, limit and budget goes through (Python values, CLI flags
and REST query values alike)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .errors import UsageError

__all__ = [
    "choice",
    "json_document",
    "parse_whole_number",
    "savable_data",
    "savable_text",
    "shown",
    "whole_number",
]


def shown(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for messages about untrusted values."""
    text = repr(value) if not isinstance(value, dict | list | tuple | set) else type(value).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


def whole_number(value: Any, name: str, minimum: int = 0, maximum: int | None = None) -> int:
    """``value`` if it is an ``int`` ≥ ``minimum`` (``bool`` is not) and, with ``maximum``, at
    most that; else :class:`UsageError`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise UsageError(f"{name} must be a whole number ≥ {minimum}, got {shown(value)}")
    if value < minimum:
        raise UsageError(f"{name} must be a whole number ≥ {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise UsageError(f"{name} must be at most {maximum:,}, got {shown(value)}")
    return value


def savable_text(value: Any, name: str) -> str:
    """``value`` if it is a string that can be saved as UTF-8 (no unpaired surrogates)."""
    if not isinstance(value, str):
        raise UsageError(f"{name} must be text, got {type(value).__name__}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UsageError(
            f"{name} holds an unpaired surrogate (U+{ord(value[exc.start]):04X} at {exc.start}); "
            "it could never be saved — decode the source text with errors='replace'"
        ) from None
    return value


MAX_DATA_DEPTH = 64


def savable_data(value: Any, name: str, _depth: int = 0) -> Any:
    """``value`` if it is JSON data that can be saved: objects with text keys, arrays, text
    without unpaired surrogates, finite numbers, booleans and null, nested at most 64 deep."""
    if _depth > MAX_DATA_DEPTH:
        raise UsageError(f"{name} is nested more than {MAX_DATA_DEPTH} levels deep")
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise UsageError(f"{name} holds {value}, which JSON cannot save")
        return value
    if isinstance(value, str):
        return savable_text(value, name)
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            savable_data(item, f"{name}[{i}]", _depth + 1)
        return value
    if isinstance(value, dict):
        for key, item in value.items():
            savable_text(key, f"a key of {name}")
            savable_data(item, f"{name}[{key!r}]", _depth + 1)
        return value
    raise UsageError(f"{name} must be JSON data, got {type(value).__name__}")


def parse_whole_number(text: str, name: str) -> int:
    """A whole number ≥ 0 written as text (``1_000`` and ``1,000`` are accepted)."""
    cleaned = text.strip().replace(",", "").replace("_", "")
    if not cleaned.lstrip("-").isdigit() or len(cleaned) > 18:
        raise UsageError(f"{name} {shown(text)} is not a whole number")
    if cleaned.startswith("-"):
        raise UsageError(f"{name} {text.strip()} is negative; use a number ≥ 0")
    return int(cleaned)


def choice(value: str, choices: Iterable[str], name: str) -> str:
    """``value`` if it is one of ``choices``, else :class:`UsageError` listing them."""
    allowed = list(choices)
    if value not in allowed:
        listed = ", ".join(repr(c) for c in allowed)
        raise UsageError(f"{name}: invalid choice {shown(value)} (choose from {listed})")
    return value


def json_document(text: str) -> Any:
    """``json.loads`` without the constants JSON has not (``NaN``, ``Infinity``): a
    ``ValueError`` for them, as for any text that is not JSON."""
    import json

    return json.loads(text, parse_constant=_not_a_number)


def _not_a_number(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")
