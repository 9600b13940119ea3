"""The MCP tools, derived from the commands' declarations: description, input schema (the
parameters), output schema (the payload schema of the result classes the function returns) and
annotations (what a call does to the world)."""

from __future__ import annotations

import typing
from typing import Any

from ._registry import Command, commands

__all__ = ["McpTool", "mcp_tools", "output_schema", "tool_annotations"]


def output_schema(cmd: Command) -> dict[str, Any]:
    """The JSON Schema of the result's payload (an MCP tool's output schema): that of each
    result class the function may return (:meth:`~ctx_lab.display.RichResult.payload_schema`)."""
    by_kind = {cls.payload_kind: cls.payload_schema() for cls in cmd.result_classes()}
    if not by_kind:
        raise TypeError(f"{cmd.name}: the return annotation names no result class")
    found = [by_kind[kind] for kind in sorted(by_kind)]
    return found[0] if len(found) == 1 else {"type": "object", "anyOf": found}


def tool_annotations(cmd: Command) -> dict[str, bool]:
    """The MCP tool annotations (``readOnlyHint`` …), from the declaration."""
    return {
        "readOnlyHint": cmd.read_only,
        "destructiveHint": False,
        "idempotentHint": cmd.idempotent,
        "openWorldHint": cmd.open_world,
    }


class McpTool(typing.NamedTuple):
    """One MCP tool as its command declares it."""

    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    annotations: dict[str, bool]


def mcp_tools() -> dict[str, McpTool]:
    """The MCP tools, by tool name: each served command's description for agents, input and
    output schemas and annotations, derived from its declaration."""
    return {
        cmd.tool_name("mcp"): McpTool(
            cmd.agent_help or cmd.help,
            cmd.input_schema("mcp"),
            output_schema(cmd),
            tool_annotations(cmd),
        )
        for cmd in commands().values()
        if "mcp" in cmd.surfaces
    }
