"""The grouped list of commands that ``ctx-lab --help`` ends with."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["GROUPS", "ORDER", "SERVERS", "overview"]

# how `ctx-lab --help` groups the commands, in this order; the servers are adapters of their own
GROUPS = (
    ("context", "where a project's .context/ is, and whether ctx-lab works here"),
    ("tokens", "counting tokens, and models' limits"),
    ("packets", "budgeted context packets and their ledgers"),
    ("reading", "paging and reading large files, web pages and PDFs"),
    ("prompts", "building and compressing prompts"),
    ("sessions", "conversations, recorded sessions and what fills each request"),
    ("corpus", "many projects or sessions at once"),
)
# within a group: the everyday command first
ORDER = ("context", "doctor", "tokens", "counters", "models", "packet", "entries", "read", "page",
         "budget", "build", "compress", "anatomy", "cache", "replay", "calibrate", "history",
         "journal", "sweep")  # fmt: skip
SERVERS = (
    ("mcp serve", "serve the tools to agents over MCP (ctx-lab mcp serve --help)"),
    ("capture", "record an agent's model calls through a proxy (ctx-lab capture --help)"),
)


def overview(prog: str, registered: Mapping[str, Any]) -> str:
    """The grouped list of the ``registered`` commands (name → ``Command``) that ``--help``
    ends with (the registry passes its own: this module imports nothing of it)."""
    lines = ["commands:"]
    width = max((len(n) for n in registered), default=8) + 2
    for group, about in GROUPS:
        members = [c for c in registered.values() if c.group == group and "cli" in c.surfaces]
        members.sort(key=lambda c: ORDER.index(c.name) if c.name in ORDER else len(ORDER))
        if not members:
            continue
        lines.append(f"\n  {about}:")
        lines += [f"    {c.name.ljust(width)}{c.help}" for c in members]
    others = [c for c in registered.values() if c.group not in dict(GROUPS) and "cli" in c.surfaces]
    if others:
        lines.append("\n  other:")
        lines += [f"    {c.name.ljust(width)}{c.help}" for c in others]
    if prog == "ctx-lab":
        lines.append("\n  servers:")
        lines += [f"    {name.ljust(width)}{about}" for name, about in SERVERS]
    lines.append(f"\n{prog} COMMAND --help shows a command's flags, defaults and examples.")
    return "\n".join(lines)
