"""Agent tools: definitions of ``read`` and ``page`` (OpenAI and Anthropic formats) and a
``Toolbox`` that executes tool calls against a reader and a pager."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .display import RichResult
from .errors import CtxLabError
from .instructions import PAGE_INSTRUCTIONS, READ_INSTRUCTIONS
from .limits import DEFAULT_MAX_CHARS, MAX_CHARS_LIMIT
from .paging import Pager, PageRequest
from .read import Reader

__all__ = ["PAGE_INSTRUCTIONS", "READ_INSTRUCTIONS", "Toolbox", "page_tool", "read_tool"]

READ_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "uri": {"type": "string", "description": "A path, file: URI, or http(s) URL."},
        "cursor": {
            "type": "string",
            "description": "The next_cursor of the previous result, to continue reading.",
        },
        "max_chars": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_CHARS_LIMIT,
            "default": DEFAULT_MAX_CHARS,
            "description": "Characters per chunk (at most 20000).",
        },
    },
    "required": ["uri"],
    "additionalProperties": False,
}
PAGE_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "artifact_id": {"type": "string", "description": "The artifact to page through."},
        "start_line": {"type": "integer", "minimum": 1, "default": 1},
        "end_line": {
            "type": "integer",
            "minimum": 0,
            "default": 0,
            "description": "Last line (inclusive); 0 means to the end.",
        },
    },
    "required": ["artifact_id"],
    "additionalProperties": False,
}


def _tool(name: str, description: str, parameters: dict[str, Any], fmt: str) -> dict[str, Any]:
    if fmt == "openai":
        return {
            "type": "function",
            "function": {"name": name, "description": description, "parameters": parameters},
        }
    if fmt == "anthropic":
        return {"name": name, "description": description, "input_schema": parameters}
    raise ValueError(f"unknown tool format {fmt!r}; use 'openai' or 'anthropic'")


def read_tool(format: str = "openai") -> dict[str, Any]:
    """The ``read`` tool definition with its usage instructions."""
    return _tool("read", READ_INSTRUCTIONS, READ_PARAMETERS, format)


def page_tool(format: str = "openai") -> dict[str, Any]:
    """The ``page`` tool definition with its usage instructions."""
    return _tool("page", PAGE_INSTRUCTIONS, PAGE_PARAMETERS, format)


class Toolbox:
    """Executes ``read`` and ``page`` tool calls; results and errors come back as JSON text."""

    def __init__(self, reader: Reader | None = None, pager: Pager | None = None) -> None:
        self.reader = reader or Reader()
        self.pager = pager

    def definitions(self, format: str = "openai") -> list[dict[str, Any]]:
        """The definitions of the tools this toolbox can run."""
        tools = [read_tool(format)]
        if self.pager is not None:
            tools.append(page_tool(format))
        return tools

    def handle_tool_call(self, name: str, arguments: Mapping[str, Any] | str | None) -> str:
        """Run one call; ``arguments`` as a dict or a JSON string."""
        result: RichResult
        try:
            args = self._arguments(arguments)
            if name == "read":
                unknown = set(args) - {"uri", "cursor", "max_chars"}
                if unknown:
                    raise ValueError(f"unknown arguments for read: {sorted(unknown)}")
                result = self.reader.read(
                    args["uri"], args.get("cursor"), args.get("max_chars", DEFAULT_MAX_CHARS)
                )
            elif name == "page" and self.pager is not None:
                unknown = set(args) - {"artifact_id", "start_line", "end_line"}
                if unknown:
                    raise ValueError(f"unknown arguments for page: {sorted(unknown)}")
                request = PageRequest(
                    args["artifact_id"], args.get("start_line", 1), args.get("end_line", 0)
                )
                result = self.pager.page(request)
            else:
                known = "read, page" if self.pager is not None else "read"
                raise ValueError(f"unknown tool {name!r}; this toolbox runs: {known}")
        except KeyError as exc:
            return self._error("ValueError", f"missing argument {exc.args[0]!r}")
        except (CtxLabError, ValueError, TypeError) as exc:
            return self._error(type(exc).__name__, str(exc))
        return json.dumps(result.to_dict(), ensure_ascii=False)

    @staticmethod
    def _arguments(arguments: Mapping[str, Any] | str | None) -> dict[str, Any]:
        if arguments is None:
            return {}
        if isinstance(arguments, str):
            try:
                parsed = json.loads(arguments) if arguments.strip() else {}
            except json.JSONDecodeError as exc:
                raise ValueError(f"arguments are not valid JSON: {exc.msg}") from None
        else:
            parsed = dict(arguments)
        if not isinstance(parsed, dict):
            raise ValueError("arguments must be a JSON object")
        return parsed

    @staticmethod
    def _error(kind: str, message: str) -> str:
        return json.dumps({"error": {"type": kind, "message": message}}, ensure_ascii=False)
