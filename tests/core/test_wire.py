"""The payload codec (:mod:`ctx_lab.wire`): a result class is the one declaration of its JSON —
``to_dict``, ``from_dict``, the JSON Schema, the lab's TypeScript type and an MCP tool's output
schema all follow from it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Annotated, Literal

import pytest

from ctx_lab.commands import Command, Param, mcp_tools
from ctx_lab.commands._param import ALL
from ctx_lab.commands._registry import _COMMANDS
from ctx_lab.display import RichResult
from ctx_lab.server._payloads import payload_schemas
from ctx_lab.server._typescript import render_typescript
from ctx_lab.wire import derived, from_wire, json_schema, to_wire, wire


@dataclass(frozen=True)
class Part:
    name: str
    size: int = field(default=0, metadata=wire("bytes", minimum=0))


@dataclass(frozen=True)
class Shape:
    parts: tuple[Part, ...] = ()
    counts: dict[str, int] = field(default_factory=dict)
    mode: Literal["a", "b"] = "a"
    note: str | None = field(default=None, metadata=wire(omit_none=True))
    path: str = field(default="", metadata=wire(key="dir"))

    @derived({"type": "integer"}, "the parts' sizes")
    def total(self) -> int:
        return sum(p.size for p in self.parts)


def test_fields_nested_objects_and_derived_values_round_trip() -> None:
    shape = Shape((Part("x", 3), Part("y")), {"k": 1}, "b", None, "/p")
    data = to_wire(shape)
    assert data == {
        "parts": [{"name": "x", "size": 3}, {"name": "y", "size": 0}],
        "counts": {"k": 1},
        "mode": "b",
        "dir": "/p",
        "total": 3,
    }
    assert from_wire(Shape, data) == shape  # tuples and nested objects come back
    assert from_wire(Shape, {"note": "n"}) == Shape(note="n")  # missing: the defaults


def test_the_schema_follows_the_declaration() -> None:
    schema = json_schema(Shape)
    properties = schema["properties"]
    assert properties["parts"]["items"]["properties"]["size"] == {
        "type": "integer",
        "minimum": 0,
        "description": "bytes",
    }
    assert properties["mode"] == {"enum": ["a", "b"]}
    assert properties["note"] == {"type": "string"}  # None is left out, never sent
    assert properties["total"] == {"type": "integer", "description": "the parts' sizes"}
    assert "dir" in properties and "path" not in properties
    assert set(schema["required"]) == {"parts", "counts", "mode", "dir", "total"}


@contextmanager
def served(result_class: type, name: str = "probe_wire") -> Iterator[Command]:
    """A throw-away command returning ``result_class``, on every surface."""

    def probe(
        text: Annotated[str, Param("a text", positional=True, metavar="TEXT")],
    ) -> RichResult:
        return result_class(text)

    probe.__annotations__["return"] = result_class
    command = Command(name, "a probe", probe, surfaces=ALL)
    _COMMANDS[name] = command
    try:
        yield command
    finally:
        del _COMMANDS[name]


def _payload(with_the_new_field: bool) -> type:
    """The throw-away result class, before and after one field is added to it (one name, as
    a notebook cell defines a class again)."""
    if not with_the_new_field:

        @dataclass(frozen=True)
        class ProbePayload(RichResult):
            text: str
            payload_kind = "probe_wire"

            def to_text(self) -> str:
                return self.text

        return ProbePayload

    @dataclass(frozen=True)
    class ProbePayload(RichResult):  # type: ignore[no-redef]
        text: str
        shouted: bool = field(default=False, metadata=wire("said loudly"))  # the one edit
        payload_kind = "probe_wire"

        def to_text(self) -> str:
            return self.text

    return ProbePayload


def test_a_new_field_shows_up_everywhere_with_no_other_edit() -> None:
    """The field added to the class is in to_dict, from_dict, the schema, the TypeScript type
    and the MCP tool's output schema — nothing else was written for it."""
    v1 = _payload(False)
    with served(v1):
        assert "shouted" not in mcp_tools()["probe_wire"].output_schema["properties"]
        assert "shouted" not in payload_schemas()["probe_wire"]["properties"]
    v2 = _payload(True)
    made = v2("hi", True)
    assert made.to_dict() == {"text": "hi", "shouted": True}
    assert v2.from_dict({"text": "hi", "shouted": True, "version": 1}) == made
    schema = v2.payload_schema()
    assert schema["properties"]["shouted"] == {"type": "boolean", "description": "said loudly"}
    assert schema["title"] == "application/vnd.ctx-lab.probe_wire+json (version 1)"
    with served(v2):
        assert mcp_tools()["probe_wire"].output_schema == schema
        assert payload_schemas()["probe_wire"] == schema
        typescript = render_typescript(payload_schemas())
        block = typescript.split("export type ProbeWirePayload = {", 1)[1].split("};", 1)[0]
        assert "shouted: boolean;" in block and "text: string;" in block


def test_a_result_without_a_declaration_says_so() -> None:
    class Bare(RichResult):
        payload_kind = "bare"

    with pytest.raises(NotImplementedError, match="Bare does not define to_dict"):
        Bare().to_dict()
    with pytest.raises(TypeError, match="Bare does not define from_dict"):
        Bare.from_dict({})


def test_a_hand_written_payload_says_why() -> None:
    """Every payload either declares its JSON by the codec, or its ``to_dict`` says why its
    wire form is written by hand."""
    classes = [
        (kind, cls)
        for kind, found in payload_schemas_and_classes().items()
        for cls in found
        if cls.__module__.startswith("ctx_lab.")
    ]
    declared = [kind for kind, cls in classes if cls.declares_wire()]
    assert len(declared) >= 10  # budget, build, compress, context, counters, doctor, page …
    unexplained = [
        f"{kind}: {cls.__name__}"
        for kind, cls in classes
        if not cls.declares_wire() and "Hand-written:" not in (cls.to_dict.__doc__ or "")
    ]
    assert not unexplained


def payload_schemas_and_classes() -> dict[str, list[type]]:
    from ctx_lab.server._payloads import payload_classes

    return payload_classes()


def test_an_optional_field_with_choices_allows_null() -> None:
    @dataclass(frozen=True)
    class Pick:
        colour: str | None = field(default=None, metadata=wire(enum=("red", "blue")))

    assert json_schema(Pick)["properties"]["colour"]["enum"] == ["red", "blue", None]


@dataclass(frozen=True)
class _Unresolved:
    name: str
    later: NotImportedAnywhere  # type: ignore[name-defined]  # noqa: F821


def test_a_field_whose_type_does_not_resolve_is_a_loud_error() -> None:
    with pytest.raises(TypeError, match=r"_Unresolved\.later: its type 'NotImportedAnywhere'"):
        to_wire(_Unresolved("x", None))


@pytest.mark.parametrize(
    ("data", "named"),
    [
        (
            {"parts": [{"name": "a", "size": "12"}]},
            "Shape.parts[0].size: expected an integer, got str",
        ),
        (
            {"parts": [{"name": "a", "size": True}]},
            "Shape.parts[0].size: expected an integer, got bool",
        ),
        ({"parts": [{"size": 1}]}, "Shape.parts[0]: the field 'name' is missing"),
        ({"parts": {"name": "a"}}, "Shape.parts: expected a list, got dict"),
        ({"counts": {"x": 1.5}}, "Shape.counts.x: expected an integer, got float"),
        ({"mode": "c"}, "Shape.mode: expected one of 'a', 'b', got 'c'"),
        ({"note": 3}, "Shape.note: expected a string, got int"),
        ({"dir": None}, "Shape.dir: expected a string, got null"),
    ],
)
def test_decoding_checks_every_value_and_names_where_it_is(data: dict, named: str) -> None:
    """A payload read back (a saved state, an import) whose value is not its field's type is a
    typed error naming the field — never an object holding a string where a count belongs."""
    from ctx_lab.errors import PayloadError, UsageError

    with pytest.raises(PayloadError) as info:
        from_wire(Shape, data)
    assert str(info.value) == named
    assert isinstance(info.value, UsageError)  # exit 2 · HTTP 400 · an MCP tool error


def test_decoding_accepts_what_encoding_makes() -> None:
    shape = Shape(parts=(Part("a", 3),), counts={"x": 1}, mode="b", note="n", path="p")
    assert from_wire(Shape, to_wire(shape)) == shape
    assert from_wire(Shape, {"parts": [{"name": "a", "size": 3}], "total": "ignored"}).total() == 3
