"""The JSON Schema of a declared dataclass (``schemas/<kind>.json``)."""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Mapping
from typing import Any

from ._declare import _Field, _plan

_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _schema_of(hint: Any) -> dict[str, Any]:
    if hint is Any:
        return {}
    if hint is type(None):
        return {"type": "null"}
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        parts = [_schema_of(a) for a in args]
        kinds = [p.get("type") for p in parts]
        if all(isinstance(k, str) and len(p) == 1 for k, p in zip(kinds, parts, strict=True)):
            return {"type": kinds}
        return {"anyOf": parts}
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in (tuple, list) or getattr(origin, "__name__", "") == "Sequence":
        item = args[0] if args else Any
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            return {"type": "array", "prefixItems": [_schema_of(a) for a in args]}
        return {"type": "array", "items": _schema_of(item)}
    if origin in (dict, Mapping) or getattr(origin, "__name__", "") == "Mapping":
        inner = args[1] if len(args) == 2 else Any
        return {"type": "object", "additionalProperties": _schema_of(inner) or True}
    if isinstance(hint, type):
        if hint in _SCALARS:
            return {"type": _SCALARS[hint]}
        if issubclass(hint, enum.Enum):
            return {"enum": [m.value for m in hint]}
        if dataclasses.is_dataclass(hint):
            return _object_schema(hint)
    return {}


def _field_schema(spec: _Field) -> dict[str, Any]:
    meta = spec.wire
    found = dict(meta.schema()) if meta.schema is not None else _schema_of(spec.hint)
    if meta.omit_none and isinstance(found.get("type"), list):  # None is left out, not sent
        kinds = [k for k in found["type"] if k != "null"]
        found["type"] = kinds[0] if len(kinds) == 1 else kinds
    if meta.enum is not None:
        optional = type(None) in typing.get_args(spec.hint) and not meta.omit_none
        found["enum"] = [*meta.enum, None] if optional else list(meta.enum)
    if meta.minimum is not None:
        found["minimum"] = meta.minimum
    if meta.maximum is not None:
        found["maximum"] = meta.maximum
    if meta.help:
        found["description"] = meta.help
    return found


def _object_schema(cls: type) -> dict[str, Any]:
    plan = _plan(cls)
    properties = {spec.key: _field_schema(spec) for spec in plan.fields}
    required = [spec.key for spec in plan.fields if not spec.wire.omit_none]
    for name, _, schema in plan.derived:
        properties[name] = schema
        required.append(name)
    return {"type": "object", "properties": properties, "required": required}


def nullable(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` or ``null``."""
    return {"anyOf": [dict(schema), {"type": "null"}]}


def json_schema(cls: type, kind: str | None = None, version: int = 1) -> dict[str, Any]:
    """The JSON Schema of a declared dataclass; with ``kind``, of its versioned MIME payload
    (``application/vnd.ctx-lab.<kind>+json``, with ``version``), as ``schemas/<kind>.json``."""
    body = _object_schema(cls)
    if kind is None:
        return body
    body["properties"]["version"] = {"const": version}
    body["required"].append("version")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://ctx-lab.invalid/schemas/{kind}.json",
        "title": f"application/vnd.ctx-lab.{kind}+json (version {version})",
        **body,
        "additionalProperties": True,
    }
