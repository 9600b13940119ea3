"""Payloads declared once: a result dataclass's fields — with their wire metadata
(:func:`wire`) — and the values derived from them (:func:`derived`) are the whole declaration
of its JSON form. :func:`to_wire` and :func:`from_wire` are ``to_dict`` and ``from_dict``;
:func:`json_schema` is ``schemas/<kind>.json`` (generated, checked for staleness), from which
the lab's TypeScript types, the OpenAPI responses and the MCP tools' output schemas follow.

A small codec of ctx_lab's own rather than pydantic: the payload classes are plain (often
frozen, slotted) dataclasses that engines build in hot loops; the codec reads their type hints
once per class, keeps the JSON Schema's vocabulary to what the lab's TypeScript generator
understands, and puts derived values (a severity, the rendered Markdown) beside the fields —
which pydantic would model as computed fields on a model class, not on these dataclasses.

>>> from dataclasses import dataclass, field
>>> @dataclass(frozen=True)
... class Meter:
...     used: int = field(metadata=wire("tokens used", minimum=0))
...     limit: int = 100
...     @derived({"type": "integer"}, "what is left")
...     def left(self) -> int:
...         return self.limit - self.used
>>> to_wire(Meter(30))
{'used': 30, 'limit': 100, 'left': 70}
>>> from_wire(Meter, {"used": 30, "left": 1})
Meter(used=30, limit=100)
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import importlib
import importlib.util
import inspect
import sys
import threading
import types
import typing
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Wire",
    "checking_names",
    "derived",
    "from_wire",
    "json_schema",
    "nullable",
    "resolved_hints",
    "to_wire",
    "wire",
]

_KEY = "ctx_lab.wire"


@dataclass(frozen=True)
class Wire:
    """How one field travels: its help (the schema's ``description``), bounds and choices;
    ``omit_none`` leaves a ``None`` out of the JSON; ``exclude`` keeps the field off the wire;
    ``key`` is its JSON name when that is not the field's."""

    help: str = ""
    minimum: float | None = None
    maximum: float | None = None
    enum: tuple[Any, ...] | None = None
    omit_none: bool = False
    exclude: bool = False
    key: str | None = None
    schema: Callable[[], dict[str, Any]] | None = None  # the JSON shape, where the type is vague


def wire(
    help: str = "",
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    enum: tuple[Any, ...] | None = None,
    omit_none: bool = False,
    exclude: bool = False,
    key: str | None = None,
    schema: Callable[[], dict[str, Any]] | None = None,
) -> dict[str, Wire]:
    """A field's wire metadata: ``field(metadata=wire("tokens used", minimum=0))``.
    ``schema`` gives the field's JSON Schema (called when a schema is made) where its Python
    type does not say enough (a ``dict`` holding another payload)."""
    return {
        _KEY: Wire(
            help=help,
            minimum=minimum,
            maximum=maximum,
            enum=enum,
            omit_none=omit_none,
            exclude=exclude,
            key=key,
            schema=schema,
        )
    }


def derived(
    schema: Mapping[str, Any], help: str = "", *, name: str | None = None
) -> Callable[[Callable[[Any], Any]], Callable[[Any], Any]]:
    """Mark a method without arguments (or a property's getter, under ``@property``) as a
    derived value of the JSON form: written by
    :func:`to_wire` after the fields (under ``name``, default the method's), ignored by
    :func:`from_wire`, described by ``schema`` in :func:`json_schema`."""

    def mark(function: Callable[[Any], Any]) -> Callable[[Any], Any]:
        described = {**schema, **({"description": help} if help else {})}
        function.__wire_derived__ = (name or function.__name__, described)  # type: ignore[attr-defined]
        return function

    return mark


# -- what a class declares (read once per class) ------------------------------------------------


@dataclass(frozen=True)
class _Field:
    name: str
    hint: Any
    wire: Wire
    required: bool  # no default: from_wire needs it

    @property
    def key(self) -> str:
        return self.wire.key or self.name


@dataclass(frozen=True)
class _Plan:
    fields: tuple[_Field, ...]
    derived: tuple[tuple[str, str, dict[str, Any]], ...]  # (key, attribute, schema)


_PLANS: weakref.WeakKeyDictionary[type, _Plan] = weakref.WeakKeyDictionary()  # per class
_PLANS_LOCK = threading.Lock()


def checking_names(module_name: str) -> dict[str, Any]:
    """The names module ``module_name`` imports only for type checking (``if TYPE_CHECKING:``),
    imported now: what its string annotations may refer to."""
    module = sys.modules[module_name]
    names: dict[str, Any] = {}
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):  # no source (a REPL class): only its globals
        return names
    for node in ast.walk(tree):
        if not (isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"):
            continue
        for found in node.body:
            if isinstance(found, ast.ImportFrom):
                target = "." * found.level + (found.module or "")
                imported = importlib.import_module(
                    importlib.util.resolve_name(target, module.__package__)
                )
                for alias in found.names:
                    names[alias.asname or alias.name] = getattr(imported, alias.name)
    return names


def resolved_hints(owner: Any) -> dict[str, Any]:
    """``typing.get_type_hints`` of a class or function, string annotations resolved against
    its module's names, those imported only for type checking included."""
    module = owner.__module__
    namespace = {**vars(sys.modules[module]), **checking_names(module)}
    return typing.get_type_hints(owner, globalns=namespace)


def _field_hints(cls: type) -> dict[str, Any]:
    """Each field's type, resolved at run time (names imported only for type checking
    included); a field whose type does not resolve is a :class:`TypeError` naming it — never a
    field silently typed ``Any``."""
    try:
        return resolved_hints(cls)
    except (NameError, TypeError, AttributeError, SyntaxError):
        pass
    namespace = {**vars(sys.modules[cls.__module__]), **checking_names(cls.__module__)}
    hints: dict[str, Any] = {}
    for spec in dataclasses.fields(cls):
        try:
            hints[spec.name] = typing.get_type_hints(
                type("_One", (), {"__annotations__": {spec.name: spec.type}}), globalns=namespace
            )[spec.name]
        except (NameError, TypeError, AttributeError, SyntaxError) as exc:
            raise TypeError(
                f"{cls.__module__}.{cls.__qualname__}.{spec.name}: its type {spec.type!r} does "
                f"not resolve at run time ({exc}): import the name the annotation uses"
            ) from None
    return hints


def _plan(cls: type) -> _Plan:
    found = _PLANS.get(cls)
    if found is not None:
        return found
    hints = _field_hints(cls)
    fields = []
    for spec in dataclasses.fields(cls):
        meta = spec.metadata.get(_KEY, Wire())
        if meta.exclude or spec.name.startswith("_"):
            continue
        no_default = (
            spec.default is dataclasses.MISSING and spec.default_factory is dataclasses.MISSING
        )
        fields.append(_Field(spec.name, hints[spec.name], meta, no_default and spec.init))
    made = []
    seen: set[str] = set()
    for klass in reversed(cls.__mro__):
        for attribute, value in vars(klass).items():
            function = value.fget if isinstance(value, property) else value
            marked = getattr(function, "__wire_derived__", None)
            if marked is not None and attribute not in seen:
                seen.add(attribute)
                made.append((marked[0], attribute, dict(marked[1])))
    plan = _Plan(tuple(fields), tuple(made))
    with _PLANS_LOCK:
        _PLANS[cls] = plan
    return plan


# -- encoding -----------------------------------------------------------------------------------


def _encode(value: Any) -> Any:
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
        return {str(k): _encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_encode(v) for v in value]
    raise TypeError(f"cannot put a {type(value).__name__} on the wire")


def to_wire(obj: Any) -> dict[str, Any]:
    """The JSON-ready dict of a declared dataclass: its fields in order (nested dataclasses,
    tuples and mappings made JSON), then its derived values."""
    plan = _plan(type(obj))
    out: dict[str, Any] = {}
    for spec in plan.fields:
        value = getattr(obj, spec.name)
        if value is None and spec.wire.omit_none:
            continue
        out[spec.key] = _encode(value)
    for name, attribute, _ in plan.derived:
        value = getattr(obj, attribute)  # a method is called, a property read
        out[name] = _encode(value() if callable(value) else value)
    return out


# -- decoding -----------------------------------------------------------------------------------


def _decode(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        choices = [a for a in args if a is not type(None)]
        return _decode(choices[0], value) if len(choices) == 1 else value
    if origin is typing.Literal or hint is Any:
        return value
    if origin is tuple and isinstance(value, list | tuple):
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v) for v in value)
        return (
            tuple(_decode(a, v) for a, v in zip(args, value, strict=False))
            if args
            else tuple(value)
        )
    if origin is list or getattr(origin, "__name__", "") == "Sequence":
        return [_decode(args[0], v) for v in value] if args else list(value)
    if origin in (dict, Mapping) or getattr(origin, "__name__", "") == "Mapping":
        inner = args[1] if len(args) == 2 else Any
        return (
            {k: _decode(inner, v) for k, v in value.items()}
            if isinstance(value, Mapping)
            else value
        )
    if isinstance(hint, type):
        if isinstance(value, Mapping) and dataclasses.is_dataclass(hint):
            from_dict = getattr(hint, "from_dict", None)
            return from_dict(value) if callable(from_dict) else from_wire(hint, value)
        if issubclass(hint, enum.Enum):
            return hint(value)
    return value


def from_wire(cls: type, data: Mapping[str, Any]) -> Any:
    """The object again from :func:`to_wire`'s dict: fields by their type hints (lists back
    to tuples, nested objects rebuilt), a missing field at its default, derived keys ignored."""
    if not isinstance(data, Mapping):
        raise TypeError(f"{cls.__name__}: expected an object, got {type(data).__name__}")
    plan = _plan(cls)
    kwargs = {
        spec.name: _decode(spec.hint, data[spec.key]) for spec in plan.fields if spec.key in data
    }
    return cls(**kwargs)


# -- the JSON Schema ----------------------------------------------------------------------------

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
