"""The ``%ctx`` line magic and ``%%ctx`` cell magic: the CLI's commands inside IPython.

``%ctx models gpt-4o`` runs the same parser and command as ``ctx-lab models gpt-4o`` and returns
the result object, which displays itself richly (so ``r = %ctx tokens x.md`` works). In the
cell form the cell body is the command's input (for example the text ``%%ctx tokens`` counts).
Errors show their message, not a traceback. ``{…}`` and ``$name`` in the line are not
expanded (``no_var_expand``): the line means what it says.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand

from ..commands import Invocation, invoke
from ..errors import CtxLabError, ParserExit, from_os_error
from ..files import write_output
from ._completion import complete_line

__all__ = ["CtxMagics", "load_ipython_extension", "run_magic"]


def run_magic(line: str, cell: str | None = None) -> Any:
    """Run one ``%ctx`` invocation and return its result object (None after an error)."""
    try:
        argv = shlex.split(line)
    except ValueError as exc:
        print(f"%ctx: error: {exc}", file=sys.stderr)
        return None
    if cell is not None and cell.endswith("\n"):
        cell = cell[:-1]  # IPython appends a newline the user did not write
    try:
        outcome = invoke(argv, Invocation(cell=cell, surface="magic"), prog="%ctx")
        if outcome.output:
            write_output(outcome.output, outcome.result.file_output(outcome.output, outcome.format))
            print(f"wrote {outcome.output}")
    except ParserExit:
        return None
    except CtxLabError as exc:
        print(f"{exc.prog or '%ctx'}: error: {exc}", file=sys.stderr)
        return None
    except OSError as exc:
        print(f"%ctx: error: {from_os_error(exc)}", file=sys.stderr)
        return None
    return outcome.result


@magics_class
class CtxMagics(Magics):
    """``%ctx <command> …`` and ``%%ctx <command> …``."""

    @no_var_expand
    @line_cell_magic
    def ctx(self, line: str, cell: str | None = None) -> Any:
        """Run a ctx-lab command: ``%ctx --help`` lists them.

        The line is taken as written: IPython's ``{expression}`` and ``$name`` expansion is off
        for ``%ctx``, so a path containing braces or dollars is never evaluated as code. Pass
        computed values through :mod:`ctx_lab.commands` instead.
        """
        return run_magic(line, cell)


def _completer(shell: Any, event: Any) -> list[str]:
    """IPython's custom completer hook for ``%ctx``."""
    text = getattr(event, "line", "") or ""
    after = text.split("%ctx", 1)[1].lstrip("%") if "%ctx" in text else ""
    return complete_line(after.lstrip())


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics with an IPython shell, and tab completion for ``%ctx``."""
    ipython.register_magics(CtxMagics)
    try:
        ipython.set_hook("complete_command", _completer, str_key="%ctx")
        ipython.set_hook("complete_command", _completer, str_key="%%ctx")
    except Exception:  # a shell without completion hooks still runs the magic
        pass
