"""The front door: each command is declared once and served by the CLI, ``%ctx`` and REST.

A command is a typed function in :mod:`ctx_lab.commands` returning a result object. Its
:class:`Command` maps flags to that function's arguments (argparse) — nothing more. The CLI and
the magic go through :func:`invoke` (parse, call, print or display); the REST routes call the
same functions with query values checked by the same validators (:mod:`.params`).
"""

from __future__ import annotations

import argparse
import difflib
import inspect
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from .._version import __version__
from ..display import RichResult
from ..errors import ParserExit, UsageError

__all__ = [
    "Command",
    "Invocation",
    "Outcome",
    "build_parser",
    "command",
    "commands",
    "default_of",
    "invoke",
]


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises instead of exiting, so the magic can share it."""

    def error(self, message: str) -> None:  # type: ignore[override]
        hint = self._did_you_mean(message)
        error = UsageError(f"{message}{hint} (see `{self.prog} --help`)")
        error.prog = self.prog
        raise error

    def _did_you_mean(self, message: str) -> str:
        """``; did you mean 'packet'?`` for a mistyped command, choice or flag."""
        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            options = re.findall(r"'([^']*)'", choice.group(2)) or [
                o.strip() for o in choice.group(2).split(",")
            ]
            close = difflib.get_close_matches(choice.group(1), options, n=1, cutoff=0.5)
            return f"; did you mean '{close[0]}'?" if close else ""
        unknown = re.search(r"unrecognized arguments: (\S+)", message)
        if unknown:
            flags = [s for a in self._actions for s in a.option_strings if s.startswith("--")]
            for sub in self._subparsers._group_actions if self._subparsers else []:
                for parser in getattr(sub, "choices", {}).values():
                    flags += [s for a in parser._actions for s in a.option_strings]
            close = difflib.get_close_matches(unknown.group(1), flags, n=1, cutoff=0.6)
            return f"; did you mean {close[0]}?" if close else ""
        return ""

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if message:
            sys.stderr.write(message)
        raise ParserExit(status, message)


@dataclass
class Invocation:
    """Where a command's input comes from: a cell body (``%%ctx``) or standard input."""

    cell: str | None = None
    stdin: TextIO | None = None
    surface: str = "cli"  # "cli" or "magic"

    def read_stdin(self) -> str:
        """The text of standard input (the cell body when invoked as a cell magic)."""
        if self.cell is not None:
            return self.cell
        stream = self.stdin if self.stdin is not None else sys.stdin
        return stream.read()


@dataclass(frozen=True)
class Command:
    """One command: its typed function, and how its flags map to that function's arguments.

    ``add_arguments`` declares the flags; each flag's ``dest`` is the function's parameter name
    and flags that are not given are left out (``argparse.SUPPRESS``), so the function's own
    defaults apply — a default is written once, in the function. ``prepare`` adapts what only
    an adapter knows (standard input, a cell body) before the call.
    """

    name: str
    help: str
    function: Callable[..., RichResult]
    add_arguments: Callable[[argparse.ArgumentParser], None]
    formats: tuple[str, ...] = ("text", "json")
    description: str = ""
    epilog: str = ""
    prepare: Callable[[dict[str, Any], Invocation], dict[str, Any]] | None = None

    def call(self, args: argparse.Namespace, invocation: Invocation) -> RichResult:
        """Call the function with the parsed flags that are its parameters."""
        kwargs = {k: v for k, v in vars(args).items() if k not in _ADAPTER_FLAGS}
        if self.prepare is not None:
            kwargs = self.prepare(kwargs, invocation)
        accepted = inspect.signature(self.function).parameters
        return self.function(**{k: v for k, v in kwargs.items() if k in accepted})


_ADAPTER_FLAGS = frozenset({"command", "format", "output"})


def default_of(function: Callable[..., Any], name: str) -> Any:
    """The default of ``function``'s parameter ``name`` (for help texts)."""
    return inspect.signature(function).parameters[name].default


@dataclass(frozen=True)
class Outcome:
    """A command's result plus how the CLI should write it."""

    result: RichResult
    format: str
    output: str | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)


_COMMANDS: dict[str, Command] = {}


def command(cmd: Command) -> Command:
    """Register a command (its module calls this once at import)."""
    if cmd.name in _COMMANDS:
        raise ValueError(f"command {cmd.name!r} is declared twice")
    _COMMANDS[cmd.name] = cmd
    return cmd


def commands() -> dict[str, Command]:
    """The registered commands by name, in declaration order."""
    return dict(_COMMANDS)


def build_parser(prog: str = "ctx-lab") -> argparse.ArgumentParser:
    """The one argument parser behind ``ctx-lab <cmd>`` and ``%ctx <cmd>``."""
    parser = _Parser(
        prog=prog,
        description="ctx-lab: LLM context-window management — tokens, models, packets, paging.",
        # the MCP server is an adapter of its own (ctx_lab.mcp_server), named here for discovery
        epilog="ctx-lab mcp serve: serve the tools to agents over MCP (ctx-lab mcp serve --help)"
        if prog == "ctx-lab"
        else None,
    )
    parser.add_argument("--version", action="version", version=f"ctx-lab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for cmd in _COMMANDS.values():
        p = sub.add_parser(
            cmd.name,
            help=cmd.help,
            description=cmd.description or cmd.help,
            # help examples in the syntax of where they are read: %ctx in IPython
            epilog=(cmd.epilog.replace("ctx-lab ", f"{prog} ") or None),
            formatter_class=argparse.RawDescriptionHelpFormatter,
            argument_default=argparse.SUPPRESS,
        )
        cmd.add_arguments(p)
        if "format" not in {a.dest for a in p._actions}:
            p.add_argument(
                "--format",
                choices=cmd.formats,
                default=cmd.formats[0],
                help=f"output format (default {cmd.formats[0]})",
            )
    return parser


def invoke(
    argv: list[str], invocation: Invocation | None = None, *, prog: str = "ctx-lab"
) -> Outcome:
    """Parse ``argv`` with the shared parser and run the command.

    Raises :class:`UsageError` for bad arguments, :class:`ParserExit` after ``--help``, and
    any :class:`CtxLabError` the command raises.
    """
    invocation = invocation or Invocation()
    args = build_parser(prog).parse_args(argv)
    cmd = _COMMANDS[args.command]
    result = cmd.call(args, invocation)
    return Outcome(result, args.format, getattr(args, "output", None), tuple(result.warnings))
