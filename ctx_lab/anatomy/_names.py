"""Names found in request text, each in one linear pass (patterns with two lazy parts were
quadratic on hostile text): the server of an MCP tool's name, the memory file Claude Code's
``Contents of PATH.md`` line carries."""

from __future__ import annotations

import re

__all__ = ["claude_md_name", "mcp_server"]

_TOKEN = re.compile(r"\S*")  # one run of non-space characters (linear)
_WORD = re.compile(r"\w")


def mcp_server(name: str) -> str | None:
    """The server of an MCP tool named ``mcp__SERVER__TOOL`` (SERVER not starting with ``_``,
    TOOL not empty), or None — in one pass (a pattern with two lazy parts was quadratic)."""
    if not name.startswith("mcp__") or name[5:6] in ("", "_") or "\n" in name:
        return None
    cut = name.find("__", 6)
    if cut == -1 or cut + 2 >= len(name):
        return None
    return name[5:cut]


def claude_md_name(text: str) -> str | None:
    """The file named by Claude Code's ``Contents of PATH.md`` (the ``.md`` name of the first
    such line), or None — linear in the text."""
    start = 0
    while (at := text.find("Contents of ", start)) != -1:
        begin = at + len("Contents of ")
        token = _TOKEN.match(text, begin)
        end = token.end() if token else begin
        name = _md_in(text[begin:end])
        if name is not None:
            return name
        start = begin
    return None


def _md_in(token: str) -> str | None:
    """In a path, the first ``/``-separated part holding a name that ends in ``.md`` at a word
    boundary: that part up to its last such ``.md``."""
    for part in token.split("/"):
        best = -1
        at = part.find(".md", 1)
        while at != -1:
            after = at + 3
            if after >= len(part) or not _WORD.match(part, after):
                best = after
            at = part.find(".md", at + 1)
        if best != -1:
            return part[:best]
    return None
