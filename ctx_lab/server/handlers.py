"""REST routes under ``/ctx-lab/api/``: the same command functions the CLI and ``%ctx`` call
(:mod:`ctx_lab.commands`), returning the same versioned payloads.

A route only turns query values into the function's arguments — with the validators the CLI
uses — and answers ``result.payload()``. Query parameters mirror the CLI flags (``budget``,
``model``, ``now``, ``counter``, ``lines``, ``max-pages`` …); positional arguments are named
(``dir``, ``id``, ``uri``, ``name``, ``path``). Every path is confined to the server's root
directory by the command itself (``root=``); http(s) reads are off unless
``CtxLab.allow_remote_reads`` is set. Work runs in a thread pool, never on the event loop, and
every deliberate error is a :class:`~ctx_lab.errors.CtxLabError` mapped to a 4xx status.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tornado.web
from jupyter_server.base.handlers import APIHandler
from traitlets import Bool, Int
from traitlets.config import Configurable

from .. import commands
from ..commands.params import parse_lines, parse_now
from ..display import RichResult, error_payload
from ..errors import (
    CtxLabError,
    LimitExceeded,
    UsageError,
    from_os_error,
    http_status,
)
from ..files import hide_root, resolve_root
from ..limits import LIMITS
from ..paging import BudgetTable, PagingBudget
from ..read import Reader
from ..validate import parse_whole_number

__all__ = ["ROUTES", "CtxLab", "setup_handlers"]


class CtxLab(Configurable):
    """Server settings of ctx_lab (``c.CtxLab.allow_remote_reads = True`` …)."""

    allow_remote_reads = Bool(False, help="Let /read and /page fetch http(s) URLs.").tag(
        config=True
    )
    allow_private = Bool(False, help="Let remote reads reach loopback and private addresses.").tag(
        config=True
    )
    max_budgets = Int(256, help="Paging budgets kept in memory (least recently used go).").tag(
        config=True
    )


class BaseHandler(APIHandler):
    """Query parsing with the shared validators, error mapping and thread-pool execution."""

    @property
    def root(self) -> Path:
        return resolve_root(self.settings["server_root_dir"])

    @property
    def ctx_settings(self) -> CtxLab:
        return self.settings["ctx_lab_config"]

    def text(self, name: str) -> str | None:
        """A query value, stripped; None when absent or empty."""
        value = self.get_query_argument(name, None)
        value = value.strip() if value is not None else None
        return value or None

    def required(self, name: str) -> str:
        value = self.text(name)
        if value is None:
            raise UsageError(f"missing query parameter {name!r}")
        return value

    def whole(self, name: str) -> int | None:
        value = self.text(name)
        return None if value is None else parse_whole_number(value, name)

    def boolean(self, name: str) -> bool:
        return (self.text(name) or "").lower() in ("1", "true", "yes", "on")

    def many(self, name: str) -> list[str]:
        return [v.strip() for v in self.get_query_arguments(name) if v.strip()]

    def when(self, name: str) -> Any:
        value = self.text(name)
        return None if value is None else parse_now(value)

    def keywords(self, **values: Any) -> dict[str, Any]:
        """Only the arguments that were given, so the command's own defaults apply."""
        return {k: v for k, v in values.items() if v is not None}

    async def run(self, work: Callable[[], RichResult]) -> None:
        try:
            result = await asyncio.get_running_loop().run_in_executor(None, work)
            body = hide_root(
                json.dumps(self.shape(result.payload()), ensure_ascii=False), self._root_text()
            )
            size = len(body.encode("utf-8", "surrogatepass"))
            rule = LIMITS["response"]
            if size > rule.value():
                raise LimitExceeded(
                    f"the response would be {size:,} bytes, over {rule.describe()}; ask for "
                    "less (a smaller budget, or /entries with limit and offset)"
                )
        except CtxLabError as exc:
            self.error(http_status(exc), exc)
            return
        except OSError as exc:  # a refusal no check caught first: 4xx, never a 500
            error = from_os_error(exc)
            self.error(http_status(error), error)
            return
        self.set_header("Content-Type", "application/json")
        self.finish(body)

    def _root_text(self) -> str | None:
        try:
            return str(self.root)
        except CtxLabError:
            return None

    def shape(self, payload: dict[str, Any]) -> dict[str, Any]:
        """The payload as this route sends it (whole, unless a route pages it)."""
        return payload

    def error(self, status: int, exc: Exception) -> None:
        # the one error payload (display.error_payload): the root never shown
        payload = error_payload(exc, self._root_text())
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"error": payload}))


class PacketHandler(BaseHandler):
    """GET /ctx-lab/api/packet — :func:`ctx_lab.commands.packet`."""

    function: Callable[..., RichResult] = staticmethod(commands.packet)

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            return type(self).function(
                self.text("dir"),
                example=self.boolean("example"),
                root=self.root,
                **self.keywords(
                    budget=self.whole("budget"),
                    model=self.text("model"),
                    now=self.when("now"),
                    counter=self.text("counter"),
                    focus=self.text("focus"),
                    relevance=self.text("relevance"),
                    steering=self.many("steering") or None,
                    profile=self.text("profile"),
                    display_dir=self.text("display_dir"),
                    registry=self.text("registry"),
                    **self.extra(),
                ),
            )

        await self.run(work)

    def extra(self) -> dict[str, Any]:
        """``compare`` (packet only)."""
        return {"compare": self.text("compare")}


class EntriesHandler(PacketHandler):
    """GET /ctx-lab/api/entries — :func:`ctx_lab.commands.entries`."""

    function = staticmethod(commands.entries)
    MAX_ROWS = 5000

    def extra(self) -> dict[str, Any]:
        """Nothing beyond the packet's parameters."""
        return {}

    def shape(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Rows ``offset`` … ``offset + limit`` (default the first 1,000; at most 5,000), with
        ``rows_total``, ``offset`` and ``limit`` — a project with thousands of entries is
        paged, never sent whole."""
        offset = self.whole("offset") or 0
        limit = self.whole("limit")
        limit = 1000 if limit is None else limit
        if not 1 <= limit <= self.MAX_ROWS:
            raise UsageError(f"limit must be 1–{self.MAX_ROWS:,}, got {limit}")
        rows = payload.get("rows") or []
        return {
            **payload,
            "rows": rows[offset : offset + limit],
            "rows_total": len(rows),
            "offset": offset,
            "limit": limit,
        }


class ContextHandler(BaseHandler):
    """GET /ctx-lab/api/context — :func:`ctx_lab.commands.context`: the nearest ``.context/``
    at or above ``dir`` (for the sidebar), with a signature that changes with its files."""

    @tornado.web.authenticated
    async def get(self) -> None:
        await self.run(lambda: commands.context(self.text("dir") or ".", root=self.root))


class ModelsHandler(BaseHandler):
    """GET /ctx-lab/api/models — :func:`ctx_lab.commands.models`."""

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            return commands.models(
                self.text("name"),
                **self.keywords(registry=self.text("registry"), reserve=self.whole("reserve")),
            )

        await self.run(work)


class TokensHandler(BaseHandler):
    """GET /ctx-lab/api/tokens — :func:`ctx_lab.commands.tokens` on files (``path``,
    repeatable) or ``text``."""

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            text = self.get_query_argument("text", None)
            return commands.tokens(
                self.many("path"),
                text=text,
                label="<text>",
                root=self.root,
                **self.keywords(counter=self.text("counter")),
            )

        await self.run(work)


class CountersHandler(BaseHandler):
    """GET /ctx-lab/api/counters — :func:`ctx_lab.commands.counters` (plugins included)."""

    @tornado.web.authenticated
    async def get(self) -> None:
        await self.run(commands.counters)


class BuildHandler(BaseHandler):
    """GET /ctx-lab/api/build — :func:`ctx_lab.commands.build` (``paths`` repeatable)."""

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            return commands.build(
                self.required("task"),
                self.many("paths"),
                root=self.root,
                **self.keywords(
                    memory=self.text("memory"),
                    budget=self.whole("budget"),
                    model=self.text("model"),
                    counter=self.text("counter"),
                    task_boost=False if self.text("no_task_boost") else None,
                ),
            )

        await self.run(work)


BROWSE_PAGES = 10**9  # browse mode: a person reads, the agent quota does not apply
BROWSE_TOKENS = 10**12


class PageHandler(BaseHandler):
    """GET /ctx-lab/api/page — :func:`ctx_lab.commands.page`, the budget kept per
    ``budget_id`` (a new id when none is given)."""

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            artifact = self.required("id")
            lines = self.text("lines")
            table: BudgetTable = self.settings["ctx_lab_budgets"]
            if self.text("mode") == "browse":  # a person reading: no quota, nothing kept
                budget_id = None
                budget = PagingBudget.create(BROWSE_PAGES, BROWSE_TOKENS)
            else:
                budget_id = self.text("budget_id") or uuid.uuid4().hex
                budget = table.get(budget_id, self.whole("max-pages"), self.whole("max-tokens"))
            return commands.page(
                artifact,
                lines=parse_lines(lines) if lines else (1, 0),
                root=self.root,
                budget=budget,
                budget_id=budget_id,
                allow_private=self.ctx_settings.allow_private,
                allow_remote=self.ctx_settings.allow_remote_reads,
                reader=self.settings["ctx_lab_reader"],
                **self.keywords(counter=self.text("counter"), model=self.text("model")),
            )

        await self.run(work)


class BudgetHandler(BaseHandler):
    """GET /ctx-lab/api/budget — the paging budget of a ``budget_id``."""

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            table: BudgetTable = self.settings["ctx_lab_budgets"]
            pages, tokens = self.whole("max-pages"), self.whole("max-tokens")
            if pages is not None or tokens is not None:  # raise the limits, keep what was used
                return table.raise_limits(self.required("budget_id"), pages, tokens)
            return table.find(self.required("budget_id"))

        await self.run(work)


class ReadHandler(BaseHandler):
    """GET /ctx-lab/api/read — :func:`ctx_lab.commands.read` (local files under the root;
    http(s) only when the server allows it, with the private-address guard)."""

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            return commands.read(
                self.required("uri"),
                root=self.root,
                allow_private=self.ctx_settings.allow_private,
                allow_remote=self.ctx_settings.allow_remote_reads,
                reader=self.settings["ctx_lab_reader"],
                **self.keywords(cursor=self.text("cursor"), max_chars=self.whole("max-chars")),
            )

        await self.run(work)


class ReplayHandler(BaseHandler):
    """GET /ctx-lab/api/replay — :func:`ctx_lab.commands.replay` of a file under the root
    (``model`` repeatable)."""

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            return commands.replay(
                self.required("file"),
                root=self.root,
                **self.keywords(
                    model=self.many("model") or None,
                    counter=self.text("counter"),
                    preserve_recent=self.whole("preserve-recent"),
                    output_limit=self.whole("output-limit"),
                    registry=self.text("registry"),
                    caching=False if self.boolean("no_caching") else None,
                    transcript_format=self.text("transcript-format"),
                ),
            )

        await self.run(work)


ROUTES: dict[str, type[BaseHandler]] = {
    "packet": PacketHandler,
    "entries": EntriesHandler,
    "context": ContextHandler,
    "page": PageHandler,
    "budget": BudgetHandler,
    "read": ReadHandler,
    "build": BuildHandler,
    "models": ModelsHandler,
    "tokens": TokensHandler,
    "counters": CountersHandler,
    "replay": ReplayHandler,
}


def server_reader(root: Path, settings: CtxLab) -> Reader:
    """The server's one reader: its cache lives as long as the server, the extracted
    documents of local files and the cursor key (the CLI's and MCP's too) outlive it, so a
    cursor keeps working across a restart and between the surfaces."""
    from ..read.cursor import user_cursor_secret
    from ..read.disk_cache import DiskDocumentCache

    return Reader(
        [root],
        settings.allow_private,
        allow_http=settings.allow_remote_reads,
        secret=user_cursor_secret(),
        disk_cache=DiskDocumentCache(),
    )


def setup_handlers(web_app: Any, config: Any = None) -> None:
    """Register the routes on a Jupyter server's tornado application."""
    from jupyter_server.utils import url_path_join

    settings = CtxLab(config=config)
    root = resolve_root(web_app.settings["server_root_dir"])
    web_app.settings["ctx_lab_config"] = settings
    web_app.settings["ctx_lab_budgets"] = BudgetTable(settings.max_budgets)
    web_app.settings["ctx_lab_reader"] = server_reader(root, settings)
    base = web_app.settings["base_url"]
    web_app.add_handlers(
        ".*$",
        [
            (url_path_join(base, "ctx-lab", "api", name), handler)
            for name, handler in ROUTES.items()
        ],
    )
