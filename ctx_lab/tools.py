"""Agent tools in-process: the MCP server's tools — the same commands, their schemas derived
from the same declarations (:func:`ctx_lab.commands.mcp_tools`) and the same dispatch
(:meth:`ctx_lab.commands.Session.call_json`) — as OpenAI or Anthropic tool definitions, and a
:class:`Toolbox` that runs an agent's tool calls over one :class:`~ctx_lab.commands.Session`,
with its own paging quota. Errors come back as the payload REST and MCP send
(:func:`ctx_lab.display.error_payload`: the root never shown)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .commands import Session, mcp_tools
from .display import error_payload
from .errors import CtxLabError, UsageError
from .instructions import PAGE_INSTRUCTIONS, READ_INSTRUCTIONS
from .paging import BudgetTable

__all__ = ["PAGE_INSTRUCTIONS", "READ_INSTRUCTIONS", "Toolbox", "page_tool", "read_tool"]

FORMATS = ("openai", "anthropic")
DEFAULT_TOOLS = ("read", "page", "budget")


def tool_definition(name: str, format: str = "openai") -> dict[str, Any]:
    """Tool ``name`` (an MCP tool of ctx_lab) as ``format`` defines tools: its description for
    agents and its input schema, from the command's declaration."""
    tools = mcp_tools()
    if name not in tools:
        raise UsageError(f"unknown tool {name!r}; tools: {', '.join(tools)}")
    tool = tools[name]
    if format == "openai":
        return {
            "type": "function",
            "function": {
                "name": name,
                "description": tool.description,
                "parameters": tool.input_schema,
            },
        }
    if format == "anthropic":
        return {"name": name, "description": tool.description, "input_schema": tool.input_schema}
    raise UsageError(f"unknown tool format {format!r}; use one of {', '.join(FORMATS)}")


def read_tool(format: str = "openai") -> dict[str, Any]:
    """The ``read`` tool definition with its usage instructions."""
    return tool_definition("read", format)


def page_tool(format: str = "openai") -> dict[str, Any]:
    """The ``page`` tool definition with its usage instructions."""
    return tool_definition("page", format)


class Toolbox:
    """Runs an agent's tool calls against the files under ``root``: ``tools`` names which of
    ctx_lab's MCP tools it offers (default ``read``, ``page`` and ``budget``). Pages spend from
    the toolbox's own quota (``max_pages``, ``max_tokens``) unless a call names another
    ``budget_id``. Results are the tool's JSON; errors ``{"error": {"type", "message",
    "status"}}``, as REST and MCP send them."""

    def __init__(
        self,
        root: str | os.PathLike[str] = ".",
        *,
        tools: Iterable[str] = DEFAULT_TOOLS,
        max_pages: int | None = None,
        max_tokens: int | None = None,
        allow_private: bool = False,
        allow_remote: bool = True,
        session: Session | None = None,
    ) -> None:
        self.session = session or Session(
            root=Path(root),
            allow_private=allow_private,
            allow_remote=allow_remote,
            budgets=BudgetTable(client_named=False, max_pages=max_pages, max_tokens=max_tokens),
            progress=False,
        )
        known = mcp_tools()
        self.tools = tuple(tools)
        unknown = [t for t in self.tools if t not in known]
        if unknown:
            raise UsageError(f"unknown tools {unknown}; tools: {', '.join(known)}")
        budgets = self.session.budgets
        self.budget_id = budgets.issue() if budgets is not None else None

    def definitions(self, format: str = "openai") -> list[dict[str, Any]]:
        """The definitions of the tools this toolbox runs."""
        return [tool_definition(name, format) for name in self.tools]

    def handle_tool_call(self, name: str, arguments: Mapping[str, Any] | str | None) -> str:
        """Run one call (``arguments`` as a mapping or JSON text); the result as JSON text."""
        try:
            if name not in self.tools:
                raise UsageError(
                    f"unknown tool {name!r}; this toolbox runs: {', '.join(self.tools)}"
                )
            outcome = self.session.call_json(
                name, self._arguments(arguments), connection_budget=self.budget_id
            )
        except (CtxLabError, ValueError, TypeError) as exc:
            return json.dumps({"error": error_payload(exc, self.session.root)}, ensure_ascii=False)
        return json.dumps(outcome.result.to_dict(), ensure_ascii=False)

    @staticmethod
    def _arguments(arguments: Mapping[str, Any] | str | None) -> dict[str, Any]:
        if arguments is None:
            return {}
        if isinstance(arguments, str):
            try:
                parsed = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError as exc:
                raise UsageError(f"arguments are not valid JSON: {exc.msg}") from None
        else:
            parsed = dict(arguments)
        if not isinstance(parsed, dict):
            raise UsageError("arguments must be a JSON object")
        return parsed
