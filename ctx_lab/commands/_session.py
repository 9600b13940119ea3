"""One session state for every surface: the root, the reader with its cursor key, the paging
budgets, the clock and the server's own defaults — kept by a Jupyter server, an MCP server or a
kernel, and handed to each command through the parameters that declare ``session=…``.

A surface's adapter only moves values: :meth:`Session.call` takes a call's arguments as the
surface has them (query strings for REST, JSON for MCP, parsed flags for the CLI), checks them
against the command's declaration, adds what the session supplies, and calls the command.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..display import RichResult
from ..errors import CommandNotFound, UsageError
from ..files import resolve_root
from ._param import query_values
from ._registry import Command, Outcome, commands

if TYPE_CHECKING:
    from ..paging import BudgetTable
    from ..read import Reader

__all__ = ["SESSION_VALUES", "Session", "local_reader", "tool"]

# what a session can supply, by the name parameters declare with Param(session=…)
SESSION_VALUES = (
    "root",
    "budget",
    "model",
    "reader",
    "budgets",
    "allow_private",
    "allow_remote",
    "now",
    "progress",
    "budget_id",
)
_ABSENT = object()
_FORMAT = "format"  # an agent's choice of Markdown or JSON, where a command renders Markdown


def local_reader(
    root: str | os.PathLike[str], allow_private: bool = False, allow_remote: bool = True
) -> Reader:
    """A reader confined to ``root`` with the per-user cursor key and the on-disk document
    cache, so cursors survive the process and a continuation does not extract again (a cursor
    continues only into the same text: its id carries the text's hash)."""
    from ..read import DiskDocumentCache, Reader, user_cursor_secret

    return Reader(
        [resolve_root(root)],
        allow_private,
        allow_http=allow_remote,
        secret=user_cursor_secret(),
        disk_cache=DiskDocumentCache(),
    )


@dataclass
class Session:
    """What a server keeps between calls and supplies to them.

    ``root`` confines every path (a server's root directory; None for the CLI, whose commands
    take ``--root``). ``budgets`` keeps paging budgets by id. ``now`` is the clock that dates
    packets when a call gives no ``now``. ``budget`` or ``model`` size a packet or build whose
    call names neither (``mcp serve --budget 4000``): a session value is skipped when the call
    gave another member of its exclusive group (a model instead of a budget).
    """

    root: Path | None = None
    allow_private: bool = False
    allow_remote: bool = True
    budgets: BudgetTable | None = None
    now: Callable[[], datetime] | None = None
    budget: int | None = None
    model: str | None = None
    progress: bool | None = None
    _reader: Reader | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.root is not None:
            self.root = resolve_root(self.root)

    @property
    def reader(self) -> Reader | None:
        """The session's one reader (made on first use; None without a root)."""
        if self._reader is None and self.root is not None:
            self._reader = local_reader(self.root, self.allow_private, self.allow_remote)
        return self._reader

    def supplied(self, name: str, extra: Mapping[str, Any]) -> Any:
        """The session's value for ``name`` (``extra`` first: a connection's own values), or
        nothing."""
        if name not in SESSION_VALUES:
            raise TypeError(f"no session value {name!r}; a session supplies {SESSION_VALUES}")
        if name in extra:
            return extra[name]
        if name == "now":
            return self.now() if self.now is not None else _ABSENT
        if name == "reader":
            return self.reader if self.root is not None else _ABSENT
        value = getattr(self, name, None)
        return _ABSENT if value is None else value

    def complete(
        self,
        command: Command,
        given: Mapping[str, Any],
        extra: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """``given`` plus what the session supplies for the parameters left out."""
        kwargs = dict(given)
        specs = command.specs()
        taken = {s.param.exclusive for s in specs if s.name in kwargs and s.param.exclusive}
        for spec in specs:
            if spec.name in kwargs or spec.param.session is None:
                continue
            if spec.param.exclusive is not None and spec.param.exclusive in taken:
                continue
            value = self.supplied(spec.param.session, extra or {})
            if value is not _ABSENT:
                kwargs[spec.name] = value
                if spec.param.exclusive is not None:
                    taken.add(spec.param.exclusive)
        return kwargs

    # -- one call, as a surface has it ------------------------------------------------------

    def call_query(self, name: str, query: Mapping[str, Sequence[str]]) -> RichResult:
        """A REST call: query values (text, repeated where a parameter repeats) checked and
        parsed by the declaration, completed by the session, run."""
        command = _served(name, "rest")
        command.check_arguments({k: v for k, v in query.items() if _given(v)}, "rest")
        values: dict[str, Any] = {}
        for spec in command.specs("rest"):
            if spec.name in query:
                value = query_values(spec, query[spec.name])
                if value is not None:
                    values[spec.name] = value
        return command.run(self.complete(command, values))

    def call_json(
        self, name: str, arguments: Mapping[str, Any], *, connection_budget: str | None = None
    ) -> Outcome:
        """An MCP call: JSON arguments checked by the declaration (types, choices, bounds),
        completed by the session (``connection_budget``: the id of the connection's own paging
        budget), run; the outcome names the format the agent asked for. ``name`` is the tool's
        name."""
        command = tool(name)
        given = {k: v for k, v in arguments.items() if k != _FORMAT}
        command.check_arguments(arguments, "mcp")
        formats = command.mcp_formats()
        chosen = arguments.get(_FORMAT, formats[0] if formats else "json")
        if formats and chosen not in formats:
            raise UsageError(f"format must be one of {', '.join(formats)}")
        values = {
            s.name: s.from_json(given[s.name]) for s in command.specs("mcp") if s.name in given
        }
        extra = {} if connection_budget is None else {"budget_id": connection_budget}
        result = command.run(self.complete(command, values, extra))
        return Outcome(result, chosen, None, tuple(result.warnings))


def _given(values: Sequence[str]) -> bool:
    return any(v.strip() for v in values)


def _served(name: str, surface: str) -> Command:
    found = commands().get(name)
    if found is None or surface not in found.surfaces:
        served = [n for n, c in commands().items() if surface in c.surfaces]
        raise CommandNotFound(f"no command {name!r} here; served: {', '.join(served)}")
    return found


def tool(name: str) -> Command:
    """The command behind MCP tool ``name``."""
    for command in commands().values():
        if "mcp" in command.surfaces and command.tool_name("mcp") == name:
            return command
    served = [c.tool_name("mcp") for c in commands().values() if "mcp" in c.surfaces]
    raise UsageError(f"unknown tool {name!r}; this server runs: {', '.join(served)}")
