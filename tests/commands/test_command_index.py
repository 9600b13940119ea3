"""The command index (which module declares each command) agrees with the declarations, and a
call that names a command imports only that command's module."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ctx_lab.commands import _index, _write_index, commands


def test_the_index_is_what_the_declarations_write() -> None:
    """``python -m ctx_lab.commands._write_index --write`` after adding or moving a command."""
    source = Path(_index.__file__).read_text(encoding="utf-8")
    assert _write_index.written() == source


def test_every_command_is_in_the_index_under_its_module() -> None:
    found = commands()
    assert list(found) == list(_index.COMMAND_MODULES)
    for name, command in found.items():
        assert command.function.__module__ == f"ctx_lab.commands{_index.COMMAND_MODULES[name]}"


def test_commands_are_listed_in_declaration_order_whichever_was_imported_first() -> None:
    """``ctx-lab packet`` imports the packet module first; ``--help``, the MCP tool list and the
    REST routes still list the commands in the order of ``_index.MODULES``."""
    check = (
        "from ctx_lab.commands import _registry, _index\n"
        "_registry._load('tokens'); _registry._load('packet')\n"
        "names = list(_registry.commands())\n"
        "assert names == list(_index.COMMAND_MODULES), names\n"
    )
    done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
