"""Write ``commands/_index.py`` (which module declares each command) from the declarations.

``python -m ctx_lab.commands._write_index --write`` after adding or moving a command;
tests/commands/test_command_index.py holds the index equal to what this writes. The writer
lives apart from the index so that the registry reads the index and the writer reads the
registry, with no import going back.
"""

from __future__ import annotations

import sys
from pathlib import Path

from . import _index
from ._registry import commands

__all__ = ["written"]

_START = "# the modules that declare commands, in declaration order\n"


def written() -> str:
    """The index module's text, written from the commands as their modules declare them."""
    found = commands()
    modules = dict.fromkeys("." + c.function.__module__.rpartition(".")[2] for c in found.values())
    head, _, rest = _source().partition(_START)
    _, _, tail = rest.partition("\n}\n")
    lines = [_START.rstrip("\n"), "MODULES = ("]
    lines += [f'    "{m}",' for m in modules] + [")", "# command name -> its module"]
    lines += ["COMMAND_MODULES = {"]
    lines += [
        f'    "{n}": ".{c.function.__module__.rpartition(".")[2]}",' for n, c in found.items()
    ]
    return head + "\n".join(lines) + "\n}\n" + tail


def _source() -> str:
    """The index module's text as it is on disk."""
    return Path(_path()).read_text(encoding="utf-8")


def _path() -> str:
    """Where the index module lives."""
    return str(_index.__file__)


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        with open(_path(), "w", encoding="utf-8") as out:
            out.write(written())
    else:
        sys.stdout.write(written())
