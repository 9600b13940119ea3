"""What a payload class declares, read once per class: its fields' wire metadata
(:func:`wire`), its derived values (:func:`derived`) and their types resolved at run time."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import inspect
import sys
import threading
import typing
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

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
