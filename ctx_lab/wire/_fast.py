"""msgspec under the codec, for the shapes it can take whole.

A *plain* class is a dataclass whose JSON is its fields, by name and in order, then its derived
values: no renamed, omitted-when-None or excluded field, no hand-written ``to_dict`` or
``from_dict``, and fields of JSON-able types only — scalars, ``None``, ``Literal``, enums,
tuples, lists, string-keyed dicts and other plain classes (never ``Any``). Lists of them are
most of a long report's bytes (a cache report's calls, a replay's rows): msgspec (C, validating)
encodes and decodes them in one call, where the codec would walk them field by field. Anything
else goes the codec's own way. Derived values, which msgspec cannot compute, are added after it
(:func:`builtins` walks only the fields whose types have some), and msgspec ignores them when
it decodes. Both ways make the same JSON and refuse the same wrong values,
with the same messages (:func:`convert` words msgspec's errors as :mod:`._decode` does).
"""

from __future__ import annotations

import dataclasses
import enum
import re
import threading
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import PayloadError
from ._declare import _plan

__all__ = ["ENABLED", "builtins", "convert", "fast_fields", "is_plain", "plain_hint"]

ENABLED = True  # off: the codec's own way everywhere (the tests compare the two)
_PLAIN: dict[type, bool] = {}
_FIELDS: dict[type, tuple[bool, ...]] = {}
_LOCK = threading.RLock()
_SCALARS = (str, int, float, bool, type(None))


def _generic(method: Any) -> bool:
    """A ``to_dict``/``from_dict`` that is the declaration's own (RichResult's), not a hand's."""
    function = getattr(method, "__func__", method)
    return bool(getattr(function, "__wire_generic__", False))


def plain_hint(hint: Any) -> bool:
    """Whether values of ``hint`` are JSON the way msgspec makes and reads them."""
    if hint in _SCALARS:
        return True
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return all(plain_hint(a) for a in args)
    if origin is typing.Literal:
        return all(isinstance(a, str | int) for a in args)
    if origin in (tuple, list):
        return bool(args) and all(a is Ellipsis or plain_hint(a) for a in args)
    if origin is dict:
        return len(args) == 2 and args[0] is str and plain_hint(args[1])
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return all(isinstance(m.value, str | int) for m in hint)
    return isinstance(hint, type) and is_plain(hint)


def is_plain(cls: type) -> bool:
    """Whether ``cls`` is a plain class (see the module docstring); decided once per class."""
    if not ENABLED:
        return False
    with _LOCK:
        if cls in _PLAIN:
            return _PLAIN[cls]
        _PLAIN[cls] = False  # while deciding: a class that contains itself is not plain
        found = _decide(cls)
        _PLAIN[cls] = found
        return found


def _decide(cls: type) -> bool:
    if not dataclasses.is_dataclass(cls):
        return False
    for method in ("to_dict", "from_dict"):
        found = getattr(cls, method, None)
        if found is not None and not _generic(found):
            return False
    plan = _plan(cls)
    if len(plan.fields) != len(dataclasses.fields(cls)):
        return False  # fields kept off the wire
    for spec in plan.fields:
        if spec.wire.key or spec.wire.omit_none or not plain_hint(spec.hint):
            return False
    try:
        import msgspec

        msgspec.inspect.type_info(cls)  # msgspec resolves the annotations itself
    except Exception:  # a name msgspec cannot resolve: the codec's way
        return False
    return True


def fast_fields(cls: type) -> tuple[bool, ...]:
    """Per field of ``cls`` (in the plan's order): whether its value goes through msgspec — a
    container or an object of a plain type (a scalar is quicker the codec's own way)."""
    if not ENABLED:
        return (False,) * len(_plan(cls).fields)
    found = _FIELDS.get(cls)
    if found is None:
        found = tuple(_worth(spec.hint) and plain_hint(spec.hint) for spec in _plan(cls).fields)
        with _LOCK:
            _FIELDS[cls] = found
    return found


def _worth(hint: Any) -> bool:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_worth(a) for a in typing.get_args(hint))
    return origin in (tuple, list) or dataclasses.is_dataclass(hint)


def builtins(value: Any, encode: Callable[[Any], Any]) -> Any:
    """A plain value (a plain class, or a tuple or list of one plain class) as JSON-ready
    builtins, its derived values included (made JSON by ``encode``, the codec's own)."""
    import msgspec

    many = isinstance(value, list | tuple)
    cls = type(value[0]) if many and value else type(value)
    if many and not value:
        return []
    made = msgspec.to_builtins(value)
    if many:
        made = [_lists(m, cls) for m in made] if _holds_tuples(cls) else list(made)
    else:
        made = _lists(made, cls)
    if many:
        _apply(value, made, encode)
    elif dataclasses.is_dataclass(value):
        _apply((value,), (made,), encode)
    return made


_TUPLES: dict[type, bool] = {}


def _holds_tuples(cls: type) -> bool:
    """Whether a value of ``cls`` (a plain class or a scalar type) can hold a tuple, which
    msgspec's builtins keep as a tuple where the codec makes a list."""
    if cls in _TUPLES:
        return _TUPLES[cls]
    if not dataclasses.is_dataclass(cls):
        return False
    with _LOCK:
        _TUPLES[cls] = True  # a class that contains itself: the round trip, to be safe
    found = any(_hint_tuples(spec.hint) for spec in _plan(cls).fields)
    with _LOCK:
        _TUPLES[cls] = found
    return found


_HINT_TUPLES: dict[Any, bool] = {}


def _hint_tuples(hint: Any) -> bool:
    found = _HINT_TUPLES.get(hint)
    if found is None:
        if typing.get_origin(hint) is tuple:
            found = True
        elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
            found = _holds_tuples(hint)
        else:
            found = any(_hint_tuples(a) for a in typing.get_args(hint))
        if not dataclasses.is_dataclass(hint):  # a class's own answer is kept by the class
            _HINT_TUPLES[hint] = found
    return found


def _lists(made: Any, hint: Any) -> Any:
    """msgspec's builtins of a value of ``hint`` with its tuples made lists, as the codec makes
    them (only the fields that can hold one are walked)."""
    if made is None or not _hint_tuples(hint):
        return made
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in args if a is not type(None)]
        if isinstance(made, tuple | list):
            members = [a for a in members if typing.get_origin(a) in (tuple, list)] or members
        else:
            members = [a for a in members if typing.get_origin(a) not in (tuple, list)]
        return _lists(made, members[0]) if len(members) == 1 else _rebuilt(made)
    if origin in (tuple, list):
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            return [_lists(m, a) for m, a in zip(made, args, strict=True)]
        item = args[0] if args else Any
        return [_lists(m, item) for m in made] if _hint_tuples(item) else list(made)
    if origin is dict:
        return {k: _lists(v, args[1]) for k, v in made.items()}
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        for spec in _plan(hint).fields:
            if _hint_tuples(spec.hint):
                made[spec.key] = _lists(made[spec.key], spec.hint)
    return made


def _rebuilt(made: Any) -> Any:
    """Lists for tuples anywhere in ``made`` (a union whose member cannot be told apart)."""
    if isinstance(made, tuple | list):
        return [_rebuilt(m) for m in made]
    if isinstance(made, dict):
        return {k: _rebuilt(v) for k, v in made.items()}
    return made


# per plain class: the fields holding objects with derived values somewhere (attribute, key,
# holds many), and its own derived values (key, attribute); None when it has neither
_Fix = tuple[tuple[tuple[str, str, bool], ...], tuple[tuple[str, str], ...]]
_FIXES: dict[type, _Fix | None] = {}


def _classes(hint: Any) -> tuple[type, ...]:
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return (hint,)
    return tuple(c for a in typing.get_args(hint) for c in _classes(a))


def _fix_of(cls: type) -> _Fix | None:
    if cls in _FIXES:
        return _FIXES[cls]
    if not dataclasses.is_dataclass(cls):
        return None
    with _LOCK:
        _FIXES[cls] = None  # a class that contains itself: its own level only
    plan = _plan(cls)
    nested = []
    for spec in plan.fields:
        if any(_fix_of(c) is not None for c in _classes(spec.hint)):
            origin = typing.get_origin(spec.hint)
            many = origin in (tuple, list) or any(
                typing.get_origin(a) in (tuple, list) for a in typing.get_args(spec.hint)
            )
            nested.append((spec.name, spec.key, many))
    own = tuple((name, attribute) for name, attribute, _ in plan.derived)
    found: _Fix | None = (tuple(nested), own) if nested or own else None
    with _LOCK:
        _FIXES[cls] = found
    return found


def _apply(
    items: Sequence[Any],
    outs: Sequence[Any],
    encode: Callable[[Any], Any],
    fix: _Fix | None = None,
) -> None:
    """The derived values of ``items`` (objects of one plain class) put into their dicts
    ``outs``, nested ones included: attribute by attribute over all items, not item by item
    (a long list of calls pays a loop per attribute, not a call per item)."""
    if fix is None:
        fix = _fix_of(type(items[0]))
        if fix is None:
            return
    nested, own = fix
    for attribute, key, many in nested:
        for item, out in zip(items, outs, strict=True):
            value = getattr(item, attribute)
            if value is None or (many and not value):
                continue
            if many:
                _apply(value, out[key], encode)
            else:
                _apply((value,), (out[key],), encode)
    for name, attribute in own:
        for item, out in zip(items, outs, strict=True):
            found = getattr(item, attribute)  # a method is called, a property read
            out[name] = encode(found() if callable(found) else found)


_EXPECTED = re.compile(r"^Expected `([^`]+)`, got `([^`]+)`")
_MISSING = re.compile(r"^Object missing required field `([^`]+)`")
_AT = re.compile(r" - at `\$([^`]*)`$")
_NAMES = {
    "int": "an integer",
    "str": "a string",
    "float": "a number",
    "bool": "a boolean",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


def _worded(message: str, where: str) -> str:
    """msgspec's message as the codec words it: ``Shape.parts[0].size: expected an integer,
    got str``."""
    at = _AT.search(message)
    path = at[1] if at else ""
    text = message[: at.start()] if at else message
    if found := _EXPECTED.match(text):
        expected = " or ".join(_NAMES.get(k.strip(), k) for k in found[1].split("|"))
        got = {"array": "list", "object": "dict", "null": "null"}.get(found[2], found[2])
        text = f"expected {expected}, got {got}"
    elif found := _MISSING.match(text):
        text = f"the field {found[1]!r} is missing"
    else:
        text = text[:1].lower() + text[1:]
    return f"{where}{path}: {text}"[:300]


def convert(value: Any, hint: Any, where: str) -> Any:
    """``value`` (JSON-ready builtins) as plain ``hint``, checked by msgspec; a wrong value
    is a :class:`PayloadError` naming where it is."""
    import msgspec

    if isinstance(value, Mapping) and not isinstance(value, dict):
        value = dict(value)
    try:
        return msgspec.convert(value, hint)
    except msgspec.ValidationError as exc:
        raise PayloadError(_worded(str(exc), where)) from None
