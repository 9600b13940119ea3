"""The commands of ctx_lab, one typed function each — the single front door behind
``ctx-lab <cmd>``, ``%ctx <cmd>`` and ``GET /ctx-lab/api/<cmd>``.

>>> from ctx_lab import commands
>>> commands.packet(example=True, budget=2000).tokens_used <= 2000     # doctest: +SKIP

Each function takes keyword arguments and returns a result object with ``to_dict()`` (the JSON
the CLI prints and the REST route returns) and rich notebook display. :func:`invoke` runs a
command from an argument list, as the CLI and the magic do.
"""

from typing import TYPE_CHECKING

from .._lazy import exports
from ._index import COMMAND_MODULES

if TYPE_CHECKING:
    from ..tokens import CounterList
    from ._analysis import sweep
    from ._anatomy import anatomy
    from ._builder import build, compress
    from ._cache import cache
    from ._check import check
    from ._conversation import calibrate, history, journal, replay
    from ._doctor import doctor
    from ._mcp import McpTool, mcp_tools
    from ._models import models
    from ._packet import context, entries, packet
    from ._paging import budget, page, read
    from ._param import Param, Spec
    from ._policies import policies
    from ._registry import (
        Command,
        Invocation,
        Outcome,
        add_declared,
        build_parser,
        command,
        commands,
        invoke,
    )
    from ._servers import CaptureOptions, McpServeOptions, capture_serve, mcp_serve
    from ._session import Session, local_reader, tool
    from ._tokens import counters, tokens

# where each public name lives: imported on first use (ctx_lab._lazy); each command's function
# is named as the command is, in the module the generated index names
_WHERE = {
    **COMMAND_MODULES,
    "CounterList": "..tokens",
    "McpTool": "._mcp",
    "mcp_tools": "._mcp",
    "Param": "._param",
    "Spec": "._param",
    "Command": "._registry",
    "Invocation": "._registry",
    "Outcome": "._registry",
    "add_declared": "._registry",
    "build_parser": "._registry",
    "command": "._registry",
    "commands": "._registry",
    "invoke": "._registry",
    "CaptureOptions": "._servers",
    "McpServeOptions": "._servers",
    "capture_serve": "._servers",
    "mcp_serve": "._servers",
    "Session": "._session",
    "local_reader": "._session",
    "tool": "._session",
}
__getattr__, __dir__ = exports(__name__, _WHERE)

__all__ = [
    "CaptureOptions",
    "Command",
    "CounterList",
    "Invocation",
    "McpServeOptions",
    "McpTool",
    "Outcome",
    "Param",
    "Session",
    "Spec",
    "add_declared",
    "anatomy",
    "budget",
    "build",
    "build_parser",
    "cache",
    "calibrate",
    "capture_serve",
    "check",
    "command",
    "commands",
    "compress",
    "context",
    "counters",
    "doctor",
    "entries",
    "history",
    "invoke",
    "journal",
    "local_reader",
    "mcp_serve",
    "mcp_tools",
    "models",
    "packet",
    "page",
    "policies",
    "read",
    "replay",
    "sweep",
    "tokens",
    "tool",
]
