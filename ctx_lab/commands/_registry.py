"""The front door: each command is declared once and served by the CLI, ``%ctx`` and REST.

A command is a typed function in :mod:`ctx_lab.commands` returning a result object. Its
:class:`Command` maps flags to that function's arguments (argparse) — nothing more. The CLI and
the magic go through :func:`invoke` (parse, call, print or display); the REST routes call the
same functions with query values checked by the same validators (:mod:`.params`).
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
import sys
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from .._version import __version__
from ..display import RichResult
from ..errors import PathOutsideRoot, UsageError
from ._param import ALLOW_UNKNOWN_MODEL, Spec, argparse_text, specs
from ._parser import Parser
from ._results import result_classes

__all__ = [
    "Command",
    "Invocation",
    "Outcome",
    "add_declared",
    "build_parser",
    "command",
    "commands",
    "default_of",
    "invoke",
]


@dataclass
class Invocation:
    """Where a command's input comes from: a cell body (``%%ctx``) or standard input — and,
    in a kernel, the user's namespace (``@name`` reads a variable, never evaluating code) and
    the kernel's state (``@last``: what the last call left, such as a read's cursor)."""

    cell: str | None = None
    stdin: TextIO | None = None
    surface: str = "cli"  # "cli" or "magic"
    namespace: Mapping[str, Any] | None = None
    state: dict[Any, Any] | None = None
    # the arguments as typed, before relative paths are re-anchored at the root
    given: Mapping[str, Any] | None = None

    def read_stdin(self) -> str:
        """The text of standard input (the cell body when invoked as a cell magic)."""
        if self.cell is not None:
            return self.cell
        stream = self.stdin if self.stdin is not None else sys.stdin
        return stream.read()


@dataclass(frozen=True)
class Command:
    """One command: its typed function and where it is served.

    The function's parameters carry their own declarations (:class:`~._param.Param`); the
    argparse flags, the REST query parameters, the MCP input schema and the TypeScript query
    type are all derived from them (:meth:`specs`). ``surfaces`` names the adapters that serve
    the command (``cli`` covers ``ctx-lab`` and ``%ctx``); ``mcp_name`` and ``agent_help`` are
    its tool name and description for agents. ``output`` is the help of ``-o FILE`` where the
    command writes files; ``group`` is where ``--help`` lists it. ``prepare`` adapts what only
    the CLI and magic know (standard input, a cell body) before the call; ``remember`` keeps
    what a later call may refer to (a read's cursor, for ``--cursor @last``) in the kernel's
    state, and may return the result completed with what only the kernel knows (the line
    that continues it, as typed).
    """

    name: str
    help: str
    function: Callable[..., RichResult]
    formats: tuple[str, ...] = ("text", "json")
    description: str = ""
    epilog: str = ""
    prepare: Callable[[dict[str, Any], Invocation], dict[str, Any]] | None = None
    # runs after every call of the command line or the magic (``inv.state`` is None outside a
    # kernel)
    remember: Callable[[dict[str, Any], RichResult, Invocation], RichResult | None] | None = None
    surfaces: frozenset[str] = frozenset({"cli"})
    group: str = "other"
    mcp_name: str | None = None
    agent_help: str = ""
    output: str | None = None
    # what a call does to the world, for agents (MCP tool annotations): it changes nothing
    # outside the server's own state, the same call again gives the same result, it reaches
    # beyond the server's root (the web)
    read_only: bool = True
    idempotent: bool = True
    open_world: bool = False

    def specs(self, surface: str | None = None) -> tuple[Spec, ...]:
        """The declared parameters (those ``surface`` offers, when given)."""
        found = specs(self.function)
        return found if surface is None else tuple(s for s in found if s.on(surface))

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """The CLI's flags, from the declaration: positionals, flags (mutually exclusive groups
        where declared), ``--format`` and ``-o``."""
        add_declared(parser, self.function)
        parser.add_argument(
            "--format",
            choices=self.formats,
            default=self.formats[0],
            help=f"output format (default {self.formats[0]})",
        )
        if self.output:
            parser.add_argument("-o", "--output", metavar="FILE", help=argparse_text(self.output))

    def call(self, args: argparse.Namespace, invocation: Invocation) -> RichResult:
        """Call the function with the parsed flags that are its parameters.

        Where the command takes ``--root``, a relative path means what it means in a shell —
        relative to the working directory — and the root only confines: the path is handed
        over relative to the root, and a path outside it is refused with a hint naming the
        flag that allows it.
        """
        kwargs = {k: v for k, v in vars(args).items() if k not in _ADAPTER_FLAGS}
        invocation.given = dict(kwargs)
        roots = [s for s in self.specs("cli") if s.param.session == "root"]
        if roots:
            _anchor(kwargs, self.specs("cli"), kwargs.get(roots[0].name))
        if self.prepare is not None:
            kwargs = self.prepare(kwargs, invocation)
        accepted = {s.name for s in self.specs()}
        try:
            result = self.run({k: v for k, v in kwargs.items() if k in accepted})
        except PathOutsideRoot as exc:
            if not roots:
                raise
            given = kwargs.get(roots[0].name)
            where = f"{roots[0].flag} {given}" if given else "the working directory"
            typed = [
                v
                for spec in self.specs("cli")
                if spec.param.path
                for v in [(invocation.given or {}).get(spec.name)]
                if isinstance(v, str) and v
            ]
            # the path as it was typed (the engine names it relative to the root, or absolute)
            what = ", ".join(typed) if typed else str(exc)
            raise PathOutsideRoot(
                f"{what}: it is outside {where}; pass {roots[0].flag} DIR (a folder that holds "
                "it) to allow it"
            ) from None
        if self.remember is not None:
            result = self.remember(kwargs, result, invocation) or result
        return result

    def run(self, kwargs: Mapping[str, Any]) -> RichResult:
        """Call the function with ``kwargs`` (every surface ends here) after the checks a
        declaration asks for: each model name the caller typed must be one a registry knows
        (``--registry``'s, else the built-in table), unless ``allow_unknown_model``."""
        allowed = kwargs.get(ALLOW_UNKNOWN_MODEL)
        if not allowed:
            for spec in self.specs():
                value = kwargs.get(spec.name)
                if spec.param.names_model and value:
                    from ..models import check_model_name

                    for name in [value] if isinstance(value, str) else value:
                        check_model_name(name, kwargs.get("registry"))
        accepted = inspect.signature(self.function).parameters
        return self.function(**{k: v for k, v in kwargs.items() if k in accepted})

    def check_arguments(self, given: Mapping[str, Any], surface: str) -> None:
        """Unknown names and missing required parameters of one call, as usage errors naming
        them (the REST and MCP adapters call this before anything runs)."""
        offered = {s.name for s in self.specs(surface)}
        extra = {"format"} if surface == "mcp" and self.mcp_formats() else set()
        unknown = sorted(set(given) - offered - extra)
        if unknown:
            raise UsageError(
                f"unknown {'arguments' if surface == 'mcp' else 'query parameters'} for "
                f"{self.tool_name(surface)}: {', '.join(unknown)} (it takes: "
                f"{', '.join(sorted(offered | extra)) or 'nothing'})"
            )
        missing = [
            s.name for s in self.specs(surface) if s.required_on(surface) and s.name not in given
        ]
        if missing:
            raise UsageError(f"{self.tool_name(surface)} needs {', '.join(missing)}")

    def tool_name(self, surface: str = "mcp") -> str:
        """The name the command has on ``surface`` (an MCP tool may be named otherwise)."""
        return (self.mcp_name or self.name) if surface == "mcp" else self.name

    def result_classes(self) -> tuple[type[RichResult], ...]:
        """The result classes the function's return annotation names (its declaration)."""
        return result_classes(self.function)

    def input_schema(self, surface: str = "mcp") -> dict[str, Any]:
        """The JSON Schema of a call's arguments on ``surface`` (an MCP tool's input schema),
        from the declaration; where an agent may choose Markdown or JSON, ``format`` too."""
        offered = self.specs(surface)
        properties = {s.name: s.json_schema() for s in offered}
        formats = self.mcp_formats() if surface == "mcp" else ()
        if formats:
            properties["format"] = {
                "type": "string",
                "enum": list(formats),
                "default": formats[0],
                "description": f"{formats[0]}: the text to read; json: the whole result",
            }
        schema: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "additionalProperties": False,
        }
        required = [s.name for s in offered if s.required_on(surface)]
        if required:
            schema["required"] = required
        return schema

    def payload_kinds(self) -> tuple[str, ...]:
        """The payload kinds the command can answer, read from its return annotation (whose
        classes are imported for type checking only, so this loads them: for generators and
        tests, not for a call)."""
        import ast
        import sys

        module = sys.modules[self.function.__module__]
        names = dict(vars(module))
        tree = ast.parse(inspect.getsource(module))
        for node in tree.body:
            if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
                body = ast.Module(body=node.body, type_ignores=[])
                exec(compile(body, module.__file__ or "<commands>", "exec"), names)
        returned = inspect.signature(self.function).return_annotation
        hint = eval(returned, names) if isinstance(returned, str) else returned
        members = typing.get_args(hint) if typing.get_args(hint) else (hint,)
        return tuple(m.payload_kind for m in members)

    def mcp_formats(self) -> tuple[str, ...]:
        """The formats an agent may ask for: Markdown or JSON where the command renders
        Markdown (a packet, a build), else none (the result is JSON)."""
        return self.formats if "md" in self.formats else ()


_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _anchor(kwargs: dict[str, Any], specs: tuple[Spec, ...], root: Any) -> None:
    """Relative local paths (``Param(path=True)``) taken from the working directory and
    handed over relative to ``root`` (unchanged when the root is the working directory)."""
    base = os.path.abspath(os.fspath(root)) if root else os.getcwd()
    for spec in specs:
        value = kwargs.get(spec.name)
        if not spec.param.path or not isinstance(value, str) or not value:
            continue
        if os.path.isabs(value) or _URL.match(value) or value.startswith("~"):
            continue
        kwargs[spec.name] = os.path.relpath(os.path.join(os.getcwd(), value), base)


def add_declared(parser: argparse.ArgumentParser, function: Callable[..., Any]) -> None:
    """Add the CLI flags a declared function's parameters ask for (absent flags are left out,
    so the function's own defaults apply)."""
    groups: dict[str, Any] = {}
    for spec in specs(function):
        if not spec.on("cli"):
            continue
        group = spec.param.exclusive
        if group is not None and group not in groups:
            groups[group] = parser.add_mutually_exclusive_group()
        spec.add_to(groups[group] if group is not None else parser)


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
    """Register a command (its module calls this once at import). A command that takes a model
    name takes ``allow_unknown_model`` too, implied by the declaration (:func:`specs`)."""
    if cmd.name in _COMMANDS:
        raise ValueError(f"command {cmd.name!r} is declared twice")
    _COMMANDS[cmd.name] = cmd
    return cmd


_LOADED: list[bool] = []


def _load(name: str | None = None) -> None:
    """Import the module that declares command ``name`` — or, without a name, every command
    module, then list the commands in declaration order (``_index.MODULES``) whichever was
    imported first. A command one call names costs only its own module (and what it uses)."""
    from importlib import import_module

    from ._index import COMMAND_MODULES, MODULES

    if name is not None:
        import_module(COMMAND_MODULES[name], __package__)
        return
    if _LOADED:
        return
    for module in MODULES:
        import_module(module, __package__)
    rank = {f"{__package__}{m}": i for i, m in enumerate(MODULES)}
    ordered = sorted(_COMMANDS.values(), key=lambda c: rank.get(c.function.__module__, len(rank)))
    _COMMANDS.clear()
    _COMMANDS.update((c.name, c) for c in ordered)
    _LOADED.append(True)


def commands() -> dict[str, Command]:
    """The registered commands by name, in declaration order."""
    _load()
    return dict(_COMMANDS)


def build_parser(prog: str = "ctx-lab", *, only: str | None = None) -> argparse.ArgumentParser:
    """The one argument parser behind ``ctx-lab <cmd>`` and ``%ctx <cmd>`` — with ``only``, a
    parser of that one command (what a call that names a command needs: the others' modules
    stay unimported, and only the whole parser's ``--help`` lists them)."""
    if only is None:
        from ._overview import overview  # it lists the commands registered here

        _load()
        epilog: str | None = overview(prog, _COMMANDS)
    else:
        _load(only)
        epilog = None
    parser = Parser(
        prog=prog,
        description="ctx-lab: LLM context-window management — tokens, models, packets, paging.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"ctx-lab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for cmd in _COMMANDS.values():
        if "cli" not in cmd.surfaces or (only is not None and cmd.name != only):
            continue
        p = sub.add_parser(  # no help=: the grouped list in the epilog names every command
            cmd.name,
            description=cmd.description or cmd.help,
            # help examples in the syntax of where they are read: %ctx in IPython
            epilog=(cmd.epilog.replace("ctx-lab ", f"{prog} ") or None),
            formatter_class=argparse.RawDescriptionHelpFormatter,
            argument_default=argparse.SUPPRESS,
        )
        cmd.add_arguments(p)
        if prog != "ctx-lab":  # help read in the magic names the magic's commands
            _speak(p, prog)
    return parser


def _speak(parser: argparse.ArgumentParser, prog: str) -> None:
    """Every flag's help of ``parser`` naming ``prog``'s commands (```ctx-lab counters``` is
    ```%ctx counters``` in a notebook); the shipped package keeps its name ("with ctx-lab")."""
    for action in parser._actions:
        if action.help and "`ctx-lab " in action.help:
            # argparse %-formats a help text: the magic's own % is written %%
            action.help = action.help.replace("`ctx-lab ", f"`{prog.replace('%', '%%')} ")


def invoke(
    argv: list[str], invocation: Invocation | None = None, *, prog: str = "ctx-lab"
) -> Outcome:
    """Parse ``argv`` with the shared parser and run the command.

    Raises :class:`UsageError` for bad arguments, :class:`ParserExit` after ``--help``, and
    any :class:`CtxLabError` the command raises.
    """
    invocation = invocation or Invocation()
    args = build_parser(prog, only=_named(argv)).parse_args(argv)
    cmd = _COMMANDS[args.command]
    result = cmd.call(args, invocation)
    return Outcome(result, args.format, getattr(args, "output", None), tuple(result.warnings))


def _named(argv: list[str]) -> str | None:
    """The command ``argv`` names first, when it is one of ours (else None: the whole parser
    answers — ``--help``, ``--version``, a mistyped name and its did-you-mean)."""
    from ._index import COMMAND_MODULES

    return argv[0] if argv and argv[0] in COMMAND_MODULES else None
