"""Which module declares each command, so ``ctx-lab packet`` imports the packet command alone.

The commands themselves are declared in their modules (:func:`~._registry.command`); this is
their address book, written by ``python -m ctx_lab.commands._write_index --write`` from those
declarations and held equal to them by tests/commands/test_command_index.py. ``MODULES`` is
the order the registry lists commands in (``--help``, the MCP tool list, the REST routes).
"""

from __future__ import annotations

__all__ = ["COMMAND_MODULES", "MODULES"]

# the modules that declare commands, in declaration order
MODULES = (
    "._analysis",
    "._anatomy",
    "._builder",
    "._cache",
    "._check",
    "._conversation",
    "._doctor",
    "._models",
    "._packet",
    "._paging",
    "._policies",
    "._tokens",
)
# command name -> its module
COMMAND_MODULES = {
    "sweep": "._analysis",
    "anatomy": "._anatomy",
    "build": "._builder",
    "compress": "._builder",
    "cache": "._cache",
    "check": "._check",
    "history": "._conversation",
    "journal": "._conversation",
    "replay": "._conversation",
    "calibrate": "._conversation",
    "doctor": "._doctor",
    "models": "._models",
    "packet": "._packet",
    "entries": "._packet",
    "context": "._packet",
    "page": "._paging",
    "budget": "._paging",
    "read": "._paging",
    "policies": "._policies",
    "tokens": "._tokens",
    "counters": "._tokens",
}
