"""ctx_lab for live agents: an MCP server (``ctx-lab mcp serve``) on the official ``mcp`` SDK
(``pip install 'ctx-lab[mcp]'``), and the log of what it served.

>>> from ctx_lab.mcp_server import load_call_log
>>> load_call_log("served.jsonl")          # one row per tool call          # doctest: +SKIP
"""

from ._calllog import CALL_LOG_COLUMNS, CallLog, call_log_messages, load_call_log
from ._handlers import build_server
from ._serve import serve
from ._server import CONTEXT_URI, PACKET_URI, TOOLS, CtxLabMCP

__all__ = [
    "CALL_LOG_COLUMNS",
    "CONTEXT_URI",
    "PACKET_URI",
    "TOOLS",
    "CallLog",
    "CtxLabMCP",
    "build_server",
    "call_log_messages",
    "load_call_log",
    "serve",
]
