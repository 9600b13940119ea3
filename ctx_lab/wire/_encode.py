"""Encoding: a declared dataclass as its JSON-ready dict."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from ._declare import _plan
from ._fast import builtins, fast_fields, is_plain


def encode_value(value: Any) -> Any:
    """Any value as JSON-ready builtins (a declared object by :func:`to_wire`)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, enum.Enum):
        return value.value
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict) and not isinstance(value, type):
        return to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_wire(value)
    if isinstance(value, Mapping):
        return {str(k): encode_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [encode_value(v) for v in value]
    raise TypeError(f"cannot put a {type(value).__name__} on the wire")


def to_wire(obj: Any) -> dict[str, Any]:
    """The JSON-ready dict of a declared dataclass: its fields in order (nested dataclasses,
    tuples and mappings made JSON), then its derived values. Plain parts (:mod:`._fast`) are
    made by msgspec in one call."""
    cls = type(obj)
    if is_plain(cls):
        made: dict[str, Any] = builtins(obj, encode_value)
        return made
    plan = _plan(cls)
    out: dict[str, Any] = {}
    for spec, fast in zip(plan.fields, fast_fields(cls), strict=True):
        value = getattr(obj, spec.name)
        if value is None and spec.wire.omit_none:
            continue
        out[spec.key] = (
            builtins(value, encode_value) if fast and value is not None else encode_value(value)
        )
    for name, attribute, _ in plan.derived:
        value = getattr(obj, attribute)  # a method is called, a property read
        out[name] = encode_value(value() if callable(value) else value)
    return out
