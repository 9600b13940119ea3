"""A command's parameters, declared once on its function and read by every adapter.

Each parameter of a command function is ``Annotated[<type>, Param(...)]``: the type and the
function's default say what the value is; :class:`Param` says how people and programs give it
— help text, whether it is positional, the validator that turns text into the value, choices,
which surfaces offer it (``cli`` for ``ctx-lab``/``%ctx``, ``rest``, ``mcp``) and what a server
session supplies itself (``session="root"``). :func:`specs` resolves a function's declaration
into :class:`Spec` rows; the argparse parser, the REST query parser, the OpenAPI document, the MCP
input schemas and the TypeScript query types are all made from those rows.

``typing.Annotated`` keeps the declaration on the signature itself: the default is written once
(in the function), the type is the one mypy checks, and nothing else has to be kept in step.

Why one module over ~400 lines: each surface's form of a parameter (flag, query value, JSON
Schema, TypeScript type) is derived next to the others, so they cannot drift apart.
"""

from __future__ import annotations

import argparse
import builtins
import collections.abc
import dataclasses
import functools
import inspect
import os
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, TypeVar, cast

from ..errors import UsageError
from ..validate import parse_whole_number, shown, whole_number

__all__ = [
    "ALL",
    "CLI",
    "SERVED",
    "STDIN",
    "Param",
    "Spec",
    "argparse_text",
    "hidden",
    "inputs_confined",
    "only_given",
    "parse_boolean",
    "query_values",
    "specs",
]

ALL = frozenset({"cli", "rest", "mcp"})
STDIN = "-"  # a file input that is standard input: never a path to confine
F = TypeVar("F", bound=Callable[..., Any])
CLI = frozenset({"cli"})
SERVED = frozenset({"rest", "mcp"})  # the server surfaces, whose session supplies some values
_NOWHERE: frozenset[str] = frozenset()

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


@dataclass(frozen=True)
class Param:
    """How one parameter of a command is given (see the module docstring).

    ``parse`` turns one text value (a flag's, a query value's, a JSON string's) into the
    function's value and raises :class:`UsageError`; integers default to
    :func:`~ctx_lab.validate.parse_whole_number`. ``flag`` is the CLI spelling when it is not
    ``--<name>`` (``--no-caching`` for a parameter that defaults to true). ``exclusive`` names a
    group of which at most one may be given. ``default_text`` says what a ``None`` default means
    (``"the model's tokenizer with --model, else bytes/4"``). ``session`` names what a server's
    session supplies when the caller gives nothing (``root``, ``reader``, ``budgets``, ``now`` …);
    ``max_length`` bounds a string; ``needed`` names surfaces where a parameter with a default
    must still be given (a task, where no file or cell body can stand in for it);
    ``flag_help`` is the CLI's wording where a flag says the opposite of the parameter
    (``--no-caching``); ``path`` marks a local path, which the CLI takes from the working
    directory. ``names_model`` marks a model name the caller types: the command layer refuses
    one no registry knows (with "did you mean") unless the call allows unknown models.
    ``input`` marks a path the caller names for the command to read (``"file"``, ``"db"``,
    ``"rules file"`` …: the label its messages use): a function marked
    :func:`inputs_confined` gets it resolved inside its ``root`` when one is given — each item
    of a list; ``-``, standard input, as it is — so no command confines its own inputs.
    """

    help: str
    metavar: str | None = None
    positional: bool = False
    parse: Callable[[str], Any] | None = None
    choices: tuple[str, ...] = ()
    flag: str | None = None
    short: str | None = None
    surfaces: frozenset[str] = ALL
    session: str | None = None
    exclusive: str | None = None
    default_text: str | None = None
    minimum: int | None = None
    maximum: int | None = None
    max_length: int | None = None
    # a list's most items over REST and MCP (a request's work stays bounded; the CLI, run by
    # its user, takes any number)
    max_items: int = 100
    needed: frozenset[str] = frozenset()
    flag_help: str | None = None
    path: bool = False
    names_model: bool = False
    input: str | None = None


_EMPTY = inspect.Parameter.empty


@dataclass(frozen=True)
class Spec:
    """One parameter resolved: its name (the wire name everywhere), JSON kind (``string``,
    ``integer``, ``number``, ``boolean``), whether it repeats, the function's default and the
    declaration."""

    name: str
    kind: str
    array: bool
    default: Any
    param: Param
    keyword_only: bool

    @property
    def required(self) -> bool:
        """True when the function has no default for it."""
        return self.default is _EMPTY

    def required_on(self, surface: str) -> bool:
        """True when callers on ``surface`` must give it."""
        return self.required or surface in self.param.needed

    def on(self, surface: str) -> bool:
        """Whether ``surface`` (cli, rest, mcp) offers this parameter."""
        return surface in self.param.surfaces

    @property
    def flag(self) -> str:
        """The CLI flag (``--max-pages``) or, positional, the metavar."""
        if self.param.positional:
            return self.param.metavar or self.name.upper()
        return self.param.flag or "--" + self.name.replace("_", "-")

    def default_json(self) -> Any:
        """The default as JSON (None when there is none or it is None)."""
        if self.required or self.default is None:
            return None
        if isinstance(self.default, tuple | list):
            return list(self.default)
        if isinstance(self.default, bool | int | float | str):
            return self.default
        return None

    def help_text(self) -> str:
        """The help with what the default is, from the signature (never restated)."""
        text = self.param.help
        shown_default = self.param.default_text
        if shown_default is None and self.kind != "boolean" and not self.array:
            value = self.default_json()
            shown_default = None if value in (None, "") else str(value)
        return f"{text} (default {shown_default})" if shown_default else text

    # -- text → value (CLI flags, REST query values, strings in JSON) ----------------------

    def from_text(self, text: str) -> Any:
        """One text value as the function's value, by the declared validator."""
        if self.param.parse is not None:
            return self.param.parse(text)
        if self.kind == "integer":
            value: Any = parse_whole_number(text, self.name)
        elif self.kind == "number":
            value = _number(text, self.name)
        elif self.kind == "boolean":
            value = parse_boolean(text, self.name)
        else:
            value = text
        self.check(value)
        return value

    def check(self, value: Any) -> None:
        """Choices and bounds, for a value already of its kind."""
        p = self.param
        if p.choices and value not in p.choices:
            raise UsageError(
                f"{self.name} must be one of {', '.join(p.choices)}, not {shown(value)}"
            )
        if isinstance(value, int | float) and not isinstance(value, bool):
            if p.minimum is not None and value < p.minimum:
                raise UsageError(f"{self.name} must be ≥ {p.minimum}, got {value}")
            if p.maximum is not None and value > p.maximum:
                raise UsageError(f"{self.name} must be ≤ {p.maximum}, got {value}")
        if isinstance(value, str) and p.max_length is not None and len(value) > p.max_length:
            raise UsageError(f"{self.name} is longer than {p.max_length} characters")

    def check_items(self, count: int) -> None:
        """A served request's list within :attr:`Param.max_items`."""
        if count > self.param.max_items:
            raise UsageError(f"{self.name} takes at most {self.param.max_items} items, not {count}")

    def from_json(self, value: Any) -> Any:
        """A JSON value (an MCP argument) as the function's value: its type checked
        (``true`` is no integer), strings through the validator, arrays item by item."""
        if self.array:
            if not isinstance(value, list) or not all(_is_kind(v, self.kind) for v in value):
                raise UsageError(f"{self.name} must be a list of {self.kind}s")
            self.check_items(len(value))
            return [self._scalar_from_json(v) for v in value]
        return self._scalar_from_json(value)

    def _scalar_from_json(self, value: Any) -> Any:
        if not _is_kind(value, self.kind):
            article = "an" if self.kind[0] in "aeiou" else "a"
            raise UsageError(
                f"{self.name} must be {article} {self.kind}, not {type(value).__name__}"
            )
        if self.kind == "string":
            self.check(value)
            return self.param.parse(value) if self.param.parse is not None else value
        if self.kind == "integer":
            whole_number(value, self.name, 0 if self.param.minimum is None else self.param.minimum)
        self.check(value)
        return value

    # -- value → schema -------------------------------------------------------------------

    def json_schema(self) -> dict[str, Any]:
        """The JSON Schema of this parameter's value (MCP input schemas, OpenAPI)."""
        item: dict[str, Any] = {"type": self.kind}
        if self.param.choices:
            item["enum"] = list(self.param.choices)
        if self.kind == "integer":
            item["minimum"] = 0 if self.param.minimum is None else self.param.minimum
            if self.param.maximum is not None:
                item["maximum"] = self.param.maximum
        if self.kind == "string" and self.param.max_length is not None:
            item["maxLength"] = self.param.max_length
        schema: dict[str, Any] = (
            {"type": "array", "items": item, "maxItems": self.param.max_items}
            if self.array
            else item
        )
        default = self.default_json()
        if default is not None and default != []:
            schema["default"] = default
        schema["description"] = self.help_text()
        return schema

    def typescript(self) -> str:
        """The TypeScript type of this parameter in a query."""
        scalar = {"string": "string", "integer": "number", "number": "number"}.get(
            self.kind, "boolean"
        )
        if self.param.choices:
            scalar = " | ".join(f"'{c}'" for c in self.param.choices)
            return f"({scalar})[]" if self.array else scalar
        return f"{scalar}[]" if self.array else scalar

    # -- argparse -------------------------------------------------------------------------

    def add_to(self, parser: Any) -> None:
        """Add this parameter's flag (or positional) to an argparse parser or group."""
        p = self.param
        options: dict[str, Any] = {"help": argparse_text(p.flag_help or self.help_text())}
        if p.positional:
            if p.choices:
                options["choices"] = p.choices
            else:
                options["metavar"] = p.metavar or self.name.upper()
            if self.array:
                options["nargs"] = "+" if self.required else "*"
            elif not self.required:
                options["nargs"] = "?"
            if self.kind != "string" or p.parse is not None:
                options["type"] = _flag_type(self)
            parser.add_argument(self.name, **options)
            return
        names = [n for n in (p.short, self.flag) if n]
        options["dest"] = self.name
        if self.kind == "boolean":
            options["action"] = "store_false" if self.default is True else "store_true"
            parser.add_argument(*names, **options)
            return
        options["metavar"] = p.metavar or self.name.upper()
        if self.required_on("cli"):  # argparse refuses a call without it; its usage says so
            options["required"] = True
        if p.choices:
            options["choices"] = p.choices
            options.pop("metavar")
        if self.kind != "string" or p.parse is not None:
            options["type"] = _flag_type(self)
        if self.array:
            options["action"] = "append"
        parser.add_argument(*names, **options)


def argparse_text(text: str) -> str:
    """``text`` as argparse's help formatting reads it: a ``%`` (as in ``%ctx``) is literal,
    never the start of a ``%(name)s`` format."""
    return text.replace("%", "%%")


def _flag_type(spec: Spec) -> Callable[[str], Any]:
    """An argparse ``type=`` from the spec's validator (errors name the flag)."""

    def convert(text: str) -> Any:
        try:
            if spec.param.parse is None and spec.kind == "integer":
                value = parse_whole_number(text, spec.flag)  # the error names the flag
                spec.check(value)
                return value
            return spec.from_text(text)
        except UsageError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = spec.param.metavar or spec.name
    return convert


def parse_boolean(text: str, name: str) -> bool:
    """``true``/``false`` (also 1/0, yes/no, on/off) as a bool; anything else a usage error."""
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise UsageError(f"{name} must be true or false, not {shown(text)}")


def _number(text: str, name: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{name} {shown(text)} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise UsageError(f"{name} must be a finite number")
    return value


_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
}


def _is_kind(value: Any, kind: str) -> bool:
    """Whether a JSON value is of ``kind`` (``true`` is no integer)."""
    return isinstance(value, _JSON_TYPES[kind]) and (kind == "boolean") == isinstance(value, bool)


# -- resolving a function's declaration ---------------------------------------------------


class _Unresolved:
    """A name only imported for type checking: not a value kind the adapters need."""


class _Names(dict[str, Any]):
    """Locals for evaluating a string annotation: the module's names, builtins, and
    :class:`_Unresolved` for names imported only under ``TYPE_CHECKING``."""

    def __init__(self, module: dict[str, Any]) -> None:
        super().__init__()
        self.module = module

    def __missing__(self, key: str) -> Any:
        if key in self.module:
            return self.module[key]
        if hasattr(builtins, key):
            return getattr(builtins, key)
        return _Unresolved


def _annotation(function: Callable[..., Any], parameter: inspect.Parameter) -> Any:
    annotation = parameter.annotation
    if not isinstance(annotation, str):
        return annotation
    module = sys.modules[function.__module__].__dict__
    return eval(annotation, module, _Names(module))


def _members(annotation: Any) -> list[Any]:
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        found: list[Any] = []
        for member in typing.get_args(annotation):
            found += _members(member)
        return found
    return [annotation]


_SEQUENCES = (collections.abc.Sequence, list, collections.abc.Iterable)


def _kind(annotation: Any) -> tuple[str, bool]:
    """(JSON kind, repeats) of a parameter's type."""
    members = [m for m in _members(annotation) if m is not type(None)]
    array = False
    for member in members:
        if typing.get_origin(member) in _SEQUENCES:
            array = True
            members = _members(typing.get_args(member)[0])
            break
    if any(m is str for m in members) or any(_is_pathlike(m) for m in members):
        return "string", array
    for python, kind in ((bool, "boolean"), (int, "integer"), (float, "number")):
        if python in members:
            return kind, array
    if datetime in members:
        return "string", array
    return "string", array


def _literal_choices(annotation: Any) -> tuple[str, ...]:
    """The strings of a ``Literal[...]`` type (in a union with None, or of a sequence's items
    too), else nothing."""
    for member in _members(annotation):
        if typing.get_origin(member) in _SEQUENCES:
            return _literal_choices(typing.get_args(member)[0])
        if typing.get_origin(member) is typing.Literal:
            values = typing.get_args(member)
            if all(isinstance(v, str) for v in values):
                return tuple(values)
    return ()


def _is_pathlike(member: Any) -> bool:
    import os

    return member is os.PathLike or typing.get_origin(member) is os.PathLike


ALLOW_UNKNOWN_MODEL = "allow_unknown_model"
# the way past the model-name check, implied by any parameter that ``names_model``: the
# command layer reads it (Command.run); the function never sees it
ALLOW_UNKNOWN = Param(
    "use a model name no registry knows, with the default 8,192 / 4,096 limits (without it "
    "such a name is refused with the names it is close to)"
)


@cache
def specs(function: Callable[..., Any]) -> tuple[Spec, ...]:
    """The declared parameters of a command function, in signature order — and, where one
    of them ``names_model``, ``allow_unknown_model`` after them (implied, never passed to the
    function).

    Raises :class:`TypeError` when a parameter carries no :class:`Param`: every parameter of a
    command is declared (one not offered anywhere says so with ``surfaces=frozenset()``).
    """
    found: list[Spec] = []
    for parameter in inspect.signature(function).parameters.values():
        annotation = _annotation(function, parameter)
        declared = [m for m in getattr(annotation, "__metadata__", ()) if isinstance(m, Param)]
        if not declared:
            raise TypeError(
                f"{function.__qualname__}({parameter.name}) has no Param: declare it with "
                "Annotated[<type>, Param(...)]"
            )
        base = typing.get_args(annotation)[0]
        kind, array = _kind(base)
        param = declared[0]
        literal = _literal_choices(base)
        if literal and not param.choices:  # a Literal type is the parameter's choices
            param = dataclasses.replace(param, choices=literal)
        found.append(
            Spec(
                name=parameter.name,
                kind=kind,
                array=array,
                default=parameter.default,
                param=param,
                keyword_only=parameter.kind is inspect.Parameter.KEYWORD_ONLY,
            )
        )
    names = {f.name for f in found}
    if any(f.param.names_model for f in found) and ALLOW_UNKNOWN_MODEL not in names:
        kind, array = _kind(bool)
        found.append(Spec(name=ALLOW_UNKNOWN_MODEL, kind=kind, array=array, default=False,
                          param=ALLOW_UNKNOWN, keyword_only=True))  # fmt: skip
    return tuple(found)


def hidden(help: str = "", *, session: str | None = None) -> Param:
    """A parameter no surface offers (Python callers only), optionally supplied by a server's
    session."""
    return Param(help or "Python callers only", surfaces=_NOWHERE, session=session)


def query_values(spec: Spec, values: Sequence[str]) -> Any:
    """A REST query's values for one parameter as the function's value (stripped; empty values
    left out; several only where the parameter repeats)."""
    given = [v.strip() for v in values if v.strip()]
    if not given:
        return None
    if spec.array:
        spec.check_items(len(given))
        return [spec.from_text(v) for v in given]
    if len(given) > 1:
        raise UsageError(f"{spec.name} is given {len(given)} times; it takes one value")
    return spec.from_text(given[0])


def only_given(values: Mapping[str, Any]) -> dict[str, Any]:
    """The values that were given (None means absent: the function's own default applies)."""
    return {k: v for k, v in values.items() if v is not None}


def inputs_confined(function: F) -> F:
    """Mark a command function whose declared inputs (``Param(input=…)``) are confined to its
    ``root`` parameter (the session's, ``session="root"``) before its body runs, whoever calls
    it — a surface through the command layer, or Python directly: with a root, an input is
    resolved inside it (relative to it; :func:`ctx_lab.files.confine` refuses a path outside
    it, through a symlink or not, and special files, naming the parameter)."""
    signature = inspect.signature(function)
    declared = [(s.name, s.param.input, s.array) for s in specs(function) if s.param.input]
    roots = [s.name for s in specs(function) if s.param.session == "root"]
    if not declared or not roots:
        raise TypeError(f"{function.__name__}: no declared input or no root to confine it to")

    @functools.wraps(function)
    def confining(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        root = bound.arguments.get(roots[0])
        if root is not None:
            from ..files import confine

            for name, what, array in declared:
                value = bound.arguments.get(name)
                if value is None or value == "":
                    continue
                many = array and not isinstance(value, str | os.PathLike)
                bound.arguments[name] = (
                    [_confined(confine, root, v, what) for v in value]
                    if many
                    else _confined(confine, root, value, what)
                )
        return function(*bound.args, **bound.kwargs)

    return cast(F, confining)


def _confined(confine: Callable[..., Any], root: Any, value: Any, what: str) -> Any:
    return value if value == STDIN else confine(root, value, what=what)
