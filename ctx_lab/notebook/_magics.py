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


# what one %ctx call leaves for a later one in this kernel (a read's cursor, for @last)
_STATE: dict[Any, Any] = {}


def run_magic(line: str, cell: str | None = None, namespace: Any = None) -> Any:
    """Run one ``%ctx`` invocation and return its result object (None after an error)."""
    try:
        argv = shlex.split(line)
    except ValueError as exc:
        print(f"%ctx: error: {exc}", file=sys.stderr)
        return None
    if cell is not None and cell.endswith("\n"):
        cell = cell[:-1]  # IPython appends a newline the user did not write
    try:
        invocation = Invocation(cell=cell, surface="magic", namespace=namespace, state=_STATE)
        outcome = invoke(argv, invocation, prog="%ctx")
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
        return run_magic(line, cell, self.shell.user_ns if self.shell is not None else None)


def _ctx_matcher(namespace: Any = None) -> Any:
    """An IPython completion matcher for ``%ctx`` lines that offers only commands, their flags
    and their values — and suppresses every other matcher (Python names, keywords, files) on
    those lines."""
    from IPython.core.completer import SimpleCompletion, context_matcher

    @context_matcher()  # type: ignore[untyped-decorator]
    def ctx_lab_matcher(context: Any) -> dict[str, Any]:
        lines = context.full_text.split("\n")
        line = lines[context.cursor_line][: context.cursor_position] if lines else ""
        stripped = line.lstrip()
        for prefix in ("%%ctx", "%ctx"):
            if stripped.startswith(prefix) and (
                len(stripped) == len(prefix) or stripped[len(prefix)] in " \t"
            ):
                after = stripped[len(prefix) :].lstrip()
                current = "" if not after or after[-1] in " \t" else after.split()[-1]
                found = complete_line(after, namespace)
                return {
                    "completions": [SimpleCompletion(text=w, type="ctx") for w in found],
                    "suppress": True,
                    "matched_fragment": current,
                }
        return {"completions": [], "suppress": False}

    return ctx_lab_matcher


def load_ipython_extension(ipython: Any) -> None:
    """Register the magics with an IPython shell, and tab completion for ``%ctx``."""
    ipython.register_magics(CtxMagics)
    completer = getattr(ipython, "Completer", None)
    if completer is not None and hasattr(completer, "custom_matchers"):
        matchers = completer.custom_matchers
        if not any(getattr(m, "__name__", "") == "ctx_lab_matcher" for m in matchers):
            matchers.append(_ctx_matcher(getattr(ipython, "user_ns", None)))
