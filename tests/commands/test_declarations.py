"""One declaration per command: the CLI's flags, the REST parameters (the OpenAPI document),
the MCP input schema and the TypeScript query type are all derived from a command function's
annotated parameters — they agree for every command, and a parameter added to a function shows
up in all four without another edit. The server adapters hold no parameter list of their own."""

from __future__ import annotations

import argparse
import ast
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import pytest
from paths import REPO

from ctx_lab.commands import Command, Param, Session, build_parser, commands, mcp_tools
from ctx_lab.commands._param import ALL, Spec, specs
from ctx_lab.commands._registry import _COMMANDS
from ctx_lab.commands._session import SESSION_VALUES
from ctx_lab.errors import UsageError
from ctx_lab.server._openapi import openapi
from ctx_lab.server._typescript import query_name, render_typescript
from ctx_lab.tokens import TokenReport, count_texts

PACKAGE = REPO / "ctx_lab"
TS_TYPES = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean"}


def cli_actions(name: str) -> dict[str, argparse.Action]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest: a for a in sub.choices[name]._actions}


def ts_queries(text: str) -> dict[str, dict[str, tuple[bool, str]]]:
    """``interface XQuery { name?: type; }`` blocks → {interface: {field: (optional, type)}}."""
    found: dict[str, dict[str, tuple[bool, str]]] = {}
    for match in re.finditer(r"export interface (\w+Query) \{\n(.*?)\n\}", text, re.S):
        fields = {}
        for line in match[2].splitlines():
            field = re.match(r"\s+(\w+)(\??): (.+);$", line)
            if field:
                fields[field[1]] = (field[2] == "?", field[3])
        found[match[1]] = fields
    for match in re.finditer(r"export type (\w+Query) = Record<string, never>;", text):
        found[match[1]] = {}
    return found


def ts_type(spec: Spec) -> str:
    scalar = TS_TYPES[spec.kind]
    if spec.param.choices:
        scalar = " | ".join(f"'{c}'" for c in spec.param.choices)
        return f"({scalar})[]" if spec.array else scalar
    return f"{scalar}[]" if spec.array else scalar


def check_cli(command: Command) -> None:
    actions = cli_actions(command.name)
    offered = {d for d in actions} - {"help", "format", "output"}
    assert offered == {s.name for s in command.specs("cli")}, command.name
    for spec in command.specs("cli"):
        action = actions[spec.name]
        assert (not action.option_strings) == spec.param.positional, spec.name
        if action.option_strings:
            assert action.option_strings[-1] == spec.flag
        if spec.kind == "boolean":
            assert action.nargs == 0
            assert isinstance(action, argparse._StoreFalseAction) == (spec.default is True)
            continue
        if spec.array:
            if spec.param.positional:
                assert action.nargs == ("+" if spec.required else "*")
            else:
                assert isinstance(action, argparse._AppendAction)
        elif spec.param.positional:
            assert action.nargs == (None if spec.required else "?")
        if spec.param.choices:
            assert tuple(action.choices or ()) == spec.param.choices
        default = spec.default_json()
        if default not in (None, "", [], False) and spec.param.default_text is None:
            assert f"default {default}" in (action.help or ""), (command.name, spec.name)
        if spec.kind == "integer" and spec.param.parse is None:
            with pytest.raises(argparse.ArgumentTypeError):
                action.type("lots")  # type: ignore[misc]


def check_rest(command: Command) -> None:
    operation = openapi()["paths"][f"/ctx-lab/api/{command.name}"]["get"]
    parameters = {p["name"]: p for p in operation.get("parameters", [])}
    assert set(parameters) == {s.name for s in command.specs("rest")}
    for spec in command.specs("rest"):
        parameter = parameters[spec.name]
        schema = parameter["schema"]
        assert schema["type"] == ("array" if spec.array else spec.kind)
        item = schema["items"] if spec.array else schema
        assert item["type"] == spec.kind
        assert item.get("enum", []) == list(spec.param.choices)
        assert parameter.get("required", False) == spec.required_on("rest")
        if spec.default_json() not in (None, []):
            assert schema["default"] == spec.default_json()


def check_mcp(command: Command) -> None:
    from ctx_lab.schemas import load_schema

    tool = mcp_tools()[command.tool_name("mcp")]
    description, schema = tool.description, tool.input_schema
    assert description
    kinds = sorted({c.payload_kind for c in command.result_classes()})
    expected = [load_schema(kind) for kind in kinds]
    assert tool.output_schema in (expected[0], {"type": "object", "anyOf": expected})
    assert set(tool.annotations) == {
        "readOnlyHint",
        "destructiveHint",
        "idempotentHint",
        "openWorldHint",
    }
    properties = dict(schema["properties"])
    if command.mcp_formats():
        assert properties.pop("format")["enum"] == list(command.mcp_formats())
    assert set(properties) == {s.name for s in command.specs("mcp")}
    for spec in command.specs("mcp"):
        rule = properties[spec.name]
        assert rule["type"] == ("array" if spec.array else spec.kind)
        if spec.default_json() not in (None, []):
            assert rule["default"] == spec.default_json()
    required = [s.name for s in command.specs("mcp") if s.required_on("mcp")]
    assert schema.get("required", []) == required
    assert schema["additionalProperties"] is False


def check_typescript(command: Command, text: str) -> None:
    fields = ts_queries(text)[query_name(command.name)]
    assert set(fields) == {s.name for s in command.specs("rest")}
    for spec in command.specs("rest"):
        optional, typed = fields[spec.name]
        assert optional == (not spec.required_on("rest")), spec.name
        assert typed == ts_type(spec), spec.name


@pytest.mark.parametrize("name", list(commands()))
def test_every_surface_is_derived_from_the_one_declaration(name: str) -> None:
    command = commands()[name]
    if "cli" in command.surfaces:
        check_cli(command)
    if "rest" in command.surfaces:
        check_rest(command)
        check_typescript(command, render_typescript())
    if "mcp" in command.surfaces:
        check_mcp(command)


def test_every_parameter_is_declared_and_every_session_value_known() -> None:
    for command in commands().values():
        for spec in command.specs():
            assert spec.param.help, (command.name, spec.name)
            assert spec.param.session is None or spec.param.session in SESSION_VALUES
            # what a surface offers is something a caller can spell: no object-valued parameter
            if spec.param.surfaces:
                assert spec.kind in TS_TYPES


def test_a_parameter_without_a_declaration_is_refused() -> None:
    def undeclared(text: str = "") -> TokenReport:
        raise AssertionError("never called")

    with pytest.raises(TypeError, match="has no Param"):
        specs(undeclared)


# -- a throw-away command, and a parameter added to it ------------------------------------


def probe(
    text: Annotated[str, Param("what to count", positional=True, metavar="TEXT")],
    *,
    times: Annotated[int, Param("how many copies", metavar="N")] = 1,
) -> TokenReport:
    """Count ``times`` copies of ``text``."""
    return count_texts([("probe", text * times)], "bytes/4")


def probe_with_colour(
    text: Annotated[str, Param("what to count", positional=True, metavar="TEXT")],
    *,
    times: Annotated[int, Param("how many copies", metavar="N")] = 1,
    colour: Annotated[str, Param("a label colour", choices=("red", "blue"))] = "red",
) -> TokenReport:
    """Count ``times`` copies of ``text`` (labelled in ``colour``)."""
    return count_texts([(colour, text * times)], "bytes/4")


@contextmanager
def registered(function) -> Iterator[Command]:  # type: ignore[no-untyped-def]
    command = Command("probe", "count a probe's text", function, surfaces=ALL)
    _COMMANDS["probe"] = command
    try:
        yield command
    finally:
        del _COMMANDS["probe"]


def surfaces_of(command: Command) -> dict[str, set[str]]:
    """The parameter names each surface shows, read from what each surface is built from."""
    cli = {a.dest for a in cli_actions("probe").values()} - {"help", "format", "output"}
    operation = openapi()["paths"]["/ctx-lab/api/probe"]["get"]
    rest = {p["name"] for p in operation["parameters"]}
    mcp = set(mcp_tools()["probe"][1]["properties"])
    ts = set(ts_queries(render_typescript())["ProbeQuery"])
    return {"cli": cli, "rest": rest, "mcp": mcp, "typescript": ts}


def test_a_new_command_and_a_new_parameter_show_up_everywhere(tmp_path: Path) -> None:
    session = Session(root=tmp_path)
    with registered(probe) as command:
        shown = surfaces_of(command)
        assert all(names == {"text", "times"} for names in shown.values()), shown
        check_cli(command)
        check_rest(command)
        check_mcp(command)
        check_typescript(command, render_typescript())
        text = render_typescript()
        assert "probe(query: ProbeQuery): Promise<TokensPayload>;" in text
        # the same call on every surface gives the same count
        from ctx_lab.commands import invoke

        cli = invoke(["probe", "abcd", "--times", "3"]).result
        rest = session.call_query("probe", {"text": ["abcd"], "times": ["3"]})
        mcp = session.call_json("probe", {"text": "abcd", "times": 3}).result
        assert cli.to_dict() == rest.to_dict() == mcp.to_dict()
        assert rest.total == {"bytes/4": 3}
        with pytest.raises(UsageError, match="unknown query parameters for probe: colour"):
            session.call_query("probe", {"text": ["abcd"], "colour": ["blue"]})

    with registered(probe_with_colour) as command:  # one parameter more, no other edit
        shown = surfaces_of(command)
        assert all(names == {"text", "times", "colour"} for names in shown.values()), shown
        check_cli(command)
        check_rest(command)
        check_mcp(command)
        check_typescript(command, render_typescript())
        assert mcp_tools()["probe"][1]["properties"]["colour"]["enum"] == ["red", "blue"]
        assert "colour?: 'red' | 'blue';" in render_typescript()
        rest = session.call_query("probe", {"text": ["ab"], "colour": ["blue"]})
        mcp = session.call_json("probe", {"text": "ab", "colour": "blue"}).result
        assert rest.to_dict() == mcp.to_dict() and rest.files[0].path == "blue"
        for bad in ({"colour": "green"}, {"colour": 1}):
            with pytest.raises(UsageError, match="colour must be"):
                session.call_json("probe", {"text": "ab", **bad})
    assert "probe" not in commands()


# -- the adapters keep no parameter list, default or quota table of their own ---------------


# the generators render the declaration itself (OpenAPI, TypeScript): their job is to spell it
GENERATORS = {"_openapi.py", "_typescript.py"}
HAND_HELD = ("args", "arguments", "params", "query", "kwargs", "values")


def adapter_modules() -> list[Path]:
    found = sorted((PACKAGE / "server").glob("*.py")) + sorted(
        (PACKAGE / "mcp_server").glob("*.py")
    )
    return [p for p in found if p.name not in GENERATORS]


def declared_names() -> set[str]:
    return {s.name for c in commands().values() for s in c.specs()}


def parameter_uses(tree: ast.AST, names: set[str]) -> list[tuple[int, str]]:
    """Places where a module spells command parameters itself: argparse flags, query values
    read by hand, keyword arguments or dict keys handed to a command, a parameter taken out of
    a call's arguments, a JSON-schema literal, a paging quota or a restated default."""
    found: list[tuple[int, str]] = []
    functions = {c.function.__name__ for c in commands().values()} | {"call_json", "call_query"}

    def named(node: ast.AST | None) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
            return node.value
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            if {"properties", "type"} <= keys or {"type", "minimum"} <= keys:
                found.append((node.lineno, "a JSON schema literal"))
        elif isinstance(node, ast.Subscript) and named(node.slice):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in HAND_HELD:
                found.append((node.lineno, f"subscript {named(node.slice)!r}"))
        elif isinstance(node, ast.Call):
            func = node.func
            attribute = func.attr if isinstance(func, ast.Attribute) else ""
            owner = func.value if isinstance(func, ast.Attribute) else None
            held = isinstance(owner, ast.Name) and owner.id in HAND_HELD
            if attribute in ("get", "pop") and held and node.args and named(node.args[0]):
                found.append((node.lineno, f".{attribute}({named(node.args[0])!r})"))
            if attribute in ("add_argument", "add_mutually_exclusive_group"):
                found.append((node.lineno, "an argparse flag"))
            if attribute.startswith("get_query_argument") or attribute == "get_argument":
                found.append((node.lineno, "a query value read by hand"))
            if attribute in functions:
                found += [
                    (node.lineno, f"keyword {k.arg!r} to {attribute}")
                    for k in node.keywords
                    if k.arg in names
                ]
                for argument in node.args:
                    if isinstance(argument, ast.Dict):
                        found += [
                            (node.lineno, f"dict key {named(k)!r} to {attribute}")
                            for k in argument.keys
                            if named(k)
                        ]
        elif isinstance(node, ast.Name) and node.id == "PagingBudget":
            found.append((node.lineno, "PagingBudget (a quota of its own)"))
        elif (
            isinstance(node, ast.ImportFrom)
            and "limits" in (node.module or "")
            and any(a.name.startswith("DEFAULT_") for a in node.names)
        ):
            found.append((node.lineno, "a default imported to restate"))
    return found


def test_the_server_adapters_hold_no_parameter_list_default_or_quota_table() -> None:
    names = declared_names()
    found = [
        f"{path.relative_to(PACKAGE)}:{line}: {what}"
        for path in adapter_modules()
        for line, what in parameter_uses(ast.parse(path.read_text()), names)
    ]
    assert not found, "\n".join(found)


def test_the_grep_finds_a_hand_mapped_parameter() -> None:
    sample = ast.parse(
        "from ..limits import DEFAULT_MAX_PAGES\n"
        "def get(self, arguments):\n"
        "    budget = self.get_query_argument('budget')\n"
        "    focus = arguments.get('focus')\n"
        "    made = commands.packet(budget=int(budget), relevance=arguments['relevance'])\n"
        "    return session.call_json('packet', {'profile': 'design'})\n"
        "SCHEMA = {'type': 'object', 'properties': {}}\n"
        "quota = PagingBudget(10, 8000)\n"
    )
    found = sorted(what for _, what in parameter_uses(sample, declared_names()))
    assert found == [
        ".get('focus')",
        "PagingBudget (a quota of its own)",
        "a JSON schema literal",
        "a default imported to restate",
        "a query value read by hand",
        "dict key 'profile' to call_json",
        "keyword 'budget' to packet",
        "keyword 'relevance' to packet",
        "subscript 'relevance'",
    ], found
