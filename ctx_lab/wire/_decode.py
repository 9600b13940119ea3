"""Decoding, checked: a JSON-ready dict as its declared dataclass, every value against its
field's type (a wrong one is a :class:`~ctx_lab.errors.PayloadError` naming the field)."""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Mapping
from typing import Any

from ..errors import PayloadError
from ._declare import _plan
from ._fast import convert, fast_fields, is_plain

_KIND_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "a boolean"}


def _wrong(where: str, expected: str, value: Any) -> PayloadError:
    shown = "null" if value is None else type(value).__name__
    return PayloadError(f"{where}: expected {expected}, got {shown}")


def _scalar(hint: type, value: Any, where: str) -> Any:
    """A JSON scalar checked against ``str``, ``int``, ``float`` or ``bool`` (``true`` is no
    integer; an integer is a number)."""
    if hint is bool:
        ok = isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    else:
        ok = isinstance(value, str)
    if not ok:
        raise _wrong(where, _KIND_NAMES[hint], value)
    return float(value) if hint is float else value


def _union(args: tuple[Any, ...], value: Any, where: str) -> Any:
    choices = [a for a in args if a is not type(None)]
    if len(choices) == 1:
        return _decode(choices[0], value, where)
    for choice in choices:  # the first member the value is
        try:
            return _decode(choice, value, where)
        except PayloadError:
            continue
    raise _wrong(where, " or ".join(_expected(c) for c in choices), value)


def _expected(hint: Any) -> str:
    if hint in _KIND_NAMES:
        return _KIND_NAMES[hint]
    origin = typing.get_origin(hint)
    if origin in (tuple, list) or getattr(origin, "__name__", "") == "Sequence":
        return "a list"
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(hint))
    return "an object"


def _items(hint: Any, args: tuple[Any, ...], value: Any, where: str) -> Any:
    if not isinstance(value, list | tuple):
        raise _wrong(where, "a list", value)
    origin = typing.get_origin(hint)
    if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        if len(value) != len(args):
            raise PayloadError(f"{where}: expected {len(args)} items, got {len(value)}")
        return tuple(
            _decode(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, value, strict=True))
        )
    item = args[0] if args else Any
    decoded = [_decode(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
    return tuple(decoded) if origin is tuple else decoded


def _decode(hint: Any, value: Any, where: str) -> Any:
    """``value`` as ``hint`` says, checked: a value of another type is a :class:`PayloadError`
    naming where it is (``Report.calls[3].tokens``)."""
    if hint is Any:
        return value
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        return _union(args, value, where)
    if value is None:
        if hint is type(None):
            return None
        raise _wrong(where, _expected(hint), value)
    if origin is typing.Literal:
        if value not in args or isinstance(value, bool) != any(isinstance(a, bool) for a in args):
            raise PayloadError(f"{where}: expected {_expected(hint)}, got {value!r}"[:300])
        return value
    if origin in (tuple, list) or getattr(origin, "__name__", "") == "Sequence":
        return _items(hint, args, value, where)
    if origin in (dict, Mapping) or getattr(origin, "__name__", "") == "Mapping":
        if not isinstance(value, Mapping):
            raise _wrong(where, "an object", value)
        inner = args[1] if len(args) == 2 else Any
        return {k: _decode(inner, v, f"{where}.{k}") for k, v in value.items()}
    if not isinstance(hint, type):
        return value
    if hint in _KIND_NAMES:
        return _scalar(hint, value, where)
    if dataclasses.is_dataclass(hint):
        if not isinstance(value, Mapping):
            raise _wrong(where, "an object", value)
        from_dict = getattr(hint, "from_dict", None)
        generic = getattr(getattr(from_dict, "__func__", None), "__wire_generic__", False)
        if callable(from_dict) and not generic:
            return from_dict(value)  # its own decoder (a hand-written wire form)
        return _from_wire(hint, value, where)
    if issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            raise PayloadError(f"{where}: {value!r} is not a {hint.__name__}"[:300]) from None
    return value


def _from_wire(cls: type, data: Mapping[str, Any], where: str) -> Any:
    if is_plain(cls):
        return convert(data, cls, where)
    plan = _plan(cls)
    kwargs = {}
    for spec, fast in zip(plan.fields, fast_fields(cls), strict=True):
        if spec.key in data:
            value, at = data[spec.key], f"{where}.{spec.key}"
            kwargs[spec.name] = (
                convert(value, spec.hint, at) if fast else _decode(spec.hint, value, at)
            )
        elif spec.required:
            raise PayloadError(f"{where}: the field {spec.key!r} is missing")
    return cls(**kwargs)


def from_wire(cls: type, data: Mapping[str, Any]) -> Any:
    """The object again from :func:`to_wire`'s dict: fields by their type hints (lists back
    to tuples, nested objects rebuilt), a missing field at its default, derived keys ignored.
    Every value is checked against its field's type as it is decoded: a wrong one (a string
    for a count, ``true`` for an integer, a missing required field) is a
    :class:`~ctx_lab.errors.PayloadError` naming the field (``PagingBudget.max_pages``)."""
    if not isinstance(data, Mapping):
        raise _wrong(cls.__name__, "an object", data)
    return _from_wire(cls, data, cls.__name__)
