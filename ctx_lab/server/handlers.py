"""REST routes under ``/ctx-lab/api/``: the CLI's commands over HTTP, returning the same
versioned payloads. Query parameters mirror the CLI flags (``budget``, ``model``, ``now``,
``counter``, ``lines``, ``max-pages`` …); positional arguments are named (``dir``, ``id``,
``uri``, ``name``, ``path``).

Every route is authenticated like any Jupyter API. Paths are confined to the server's root
directory; http(s) reads are off unless ``CtxLab.allow_remote_reads`` is set. Work runs in a
thread pool, never on the event loop.
"""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tornado.web
from jupyter_server.base.handlers import APIHandler
from traitlets import Bool, Int
from traitlets.config import Configurable

from ..commands import Invocation, ParserExit, invoke
from ..display import RichResult
from ..errors import CtxLabError, InputFileError, UsageError
from ..packet.context import ContextNotFound
from ..paging import (
    ArtifactNotFound,
    BudgetExhausted,
    DirectoryStore,
    Pager,
    PageRequest,
    PagingBudget,
    ReaderStore,
)
from ..read import AccessDenied, Reader
from ..read.fetch import is_http

__all__ = ["ROUTES", "CtxLab", "PathOutsideRoot", "setup_handlers"]


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


class PathOutsideRoot(AccessDenied):
    """A path parameter that leaves the server's root directory."""


STATUS = [
    (PathOutsideRoot, 403),
    (AccessDenied, 403),
    (UsageError, 400),
    (ContextNotFound, 404),
    (ArtifactNotFound, 404),
    (InputFileError, 404),
    (BudgetExhausted, 409),
    (CtxLabError, 422),
]


def confine(root: Path, value: str, name: str) -> Path:
    """``value`` as a path inside ``root``: no absolute paths, no ``..``, no symlinks out."""
    if not value or value in (".", "/"):
        return root
    if "\x00" in value or os.path.isabs(value) or value.startswith("~"):
        raise PathOutsideRoot(f"{name}: use a path relative to the server root, not {value!r}")
    if ".." in Path(value).parts:
        raise PathOutsideRoot(f"{name}: '..' is not allowed in {value!r}")
    resolved = (root / value).resolve()
    if resolved != root and root not in resolved.parents:
        raise PathOutsideRoot(f"{name}: {value!r} leads outside the server root")
    return resolved


class BaseHandler(APIHandler):
    """Shared parameter parsing, error mapping and thread-pool execution."""

    @property
    def root(self) -> Path:
        return Path(self.settings["server_root_dir"]).expanduser().resolve()

    @property
    def ctx_settings(self) -> CtxLab:
        return self.settings["ctx_lab_config"]

    def arg(self, name: str, default: str | None = None) -> str | None:
        value = self.get_query_argument(name, default)
        return value if value is None else value.strip()

    def path_arg(self, name: str, required: bool = False) -> Path | None:
        value = self.arg(name)
        if value is None:
            if required:
                raise UsageError(f"missing query parameter {name!r}")
            return None
        return confine(self.root, value, name)

    def flags(self, names: list[str]) -> list[str]:
        argv: list[str] = []
        for name in names:
            value = self.arg(name)
            if value is not None and value != "":
                argv += [f"--{name}", value]
        return argv

    def boolean(self, name: str) -> bool:
        return (self.arg(name) or "").lower() in ("1", "true", "yes", "on")

    async def run(self, work: Callable[[], RichResult]) -> None:
        try:
            result = await asyncio.get_running_loop().run_in_executor(None, work)
        except ParserExit:
            self.error(400, UsageError("invalid parameters"))
            return
        except CtxLabError as exc:
            status = next(code for kind, code in STATUS if isinstance(exc, kind))
            self.error(status, exc)
            return
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(result.payload(), ensure_ascii=False))

    def error(self, status: int, exc: Exception) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"error": {"type": type(exc).__name__, "message": str(exc)}}))

    def front_door(self, argv: list[str]) -> RichResult:
        return invoke([*argv, "--format", "json"], Invocation(surface="server")).result


def _relative(root: Path, path: Path) -> str:
    return str(path.relative_to(root)) if path != root else "."


class PacketHandler(BaseHandler):
    """GET /ctx-lab/api/packet — ``ctx-lab packet``."""

    command = "packet"

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            argv = [self.command]
            if self.boolean("example"):
                argv.append("--example")
            else:
                argv.append(str(self.path_arg("dir") or self.root))
            argv += self.flags(["budget", "model", "now", "counter"])
            return self.front_door(argv)

        await self.run(work)


class EntriesHandler(PacketHandler):
    """GET /ctx-lab/api/entries — ``ctx-lab entries``."""

    command = "entries"


class ContextHandler(BaseHandler):
    """GET /ctx-lab/api/context — the nearest ``.context/`` at or above ``dir`` (for the
    sidebar), with a signature of its files that changes when they change."""

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            start = self.path_arg("dir") or self.root
            return find_context(self.root, start)

        await self.run(work)


class ContextLocation(RichResult):
    """Where the nearest project with a ``.context/`` is."""

    payload_kind = "context"

    def __init__(self, found: bool, directory: str | None, signature: str) -> None:
        self.found, self.directory, self.signature = found, directory, signature

    def to_dict(self) -> dict[str, Any]:
        return {"found": self.found, "dir": self.directory, "signature": self.signature}

    def to_text(self) -> str:
        return self.directory or "no .context/ found"


def find_context(root: Path, start: Path) -> ContextLocation:
    """Walk up from ``start`` (not above ``root``) to the first directory holding ``.context/``."""
    current = start if start.is_dir() else start.parent
    while True:
        candidate = current / ".context"
        if candidate.is_dir():
            stamps = sorted(
                f"{p.name}:{p.stat().st_mtime_ns}:{p.stat().st_size}"
                for p in candidate.glob("*.md")
                if p.is_file()
            )
            return ContextLocation(True, _relative(root, current), "|".join(stamps))
        if current == root or root not in current.parents:
            return ContextLocation(False, None, "")
        current = current.parent


class ModelsHandler(BaseHandler):
    """GET /ctx-lab/api/models — ``ctx-lab models``."""

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            argv = ["models"]
            name = self.arg("name")
            if name:
                argv.append(name)
            return self.front_door(argv + self.flags(["registry", "reserve"]))

        await self.run(work)


class TokensHandler(BaseHandler):
    """GET /ctx-lab/api/tokens — ``ctx-lab tokens`` on files (``path``, repeatable) or ``text``."""

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            paths = [str(confine(self.root, p, "path")) for p in self.get_query_arguments("path")]
            text = self.arg("text")
            if not paths and text is None:
                raise UsageError("give path=… (repeatable) or text=…")
            argv = ["tokens", *paths, *self.flags(["counter"])]
            cell = text if not paths else None
            return invoke(
                [*argv, "--format", "json"], Invocation(cell=cell, surface="server")
            ).result

        await self.run(work)


class BuildHandler(BaseHandler):
    """GET /ctx-lab/api/build — ``ctx-lab build`` (``paths`` repeatable, relative to the root)."""

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            from ..builder import build_context

            task = self.arg("task")
            if not task:
                raise UsageError("missing query parameter 'task'")
            paths = [str(confine(self.root, p, "paths")) for p in self.get_query_arguments("paths")]
            memory = self.path_arg("memory")
            budget = self.arg("budget")
            try:
                budget_value = int(budget) if budget else None
            except ValueError:
                raise UsageError(f"budget {budget!r} is not a whole number") from None
            return build_context(
                task,
                [os.path.relpath(p, self.root) for p in paths],
                str(memory) if memory else None,
                budget_value,
                self.arg("counter") or "chars/3",
                self.arg("model") or None,
                root=self.root,
            )

        await self.run(work)


class BudgetStore:
    """Paging budgets by ``budget_id``, least recently used dropped beyond ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.budgets: OrderedDict[str, PagingBudget] = OrderedDict()

    def get(self, budget_id: str, max_pages: int | None, max_tokens: int | None) -> PagingBudget:
        if budget_id in self.budgets:
            self.budgets.move_to_end(budget_id)
            return self.budgets[budget_id]
        defaults = PagingBudget()
        budget = PagingBudget(
            max_pages if max_pages is not None else defaults.max_pages,
            max_tokens if max_tokens is not None else defaults.max_tokens,
        )
        self.budgets[budget_id] = budget
        while len(self.budgets) > self.limit:
            self.budgets.popitem(last=False)
        return budget


def _int(handler: BaseHandler, name: str) -> int | None:
    value = handler.arg(name)
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except ValueError:
        raise UsageError(f"{name} {value!r} is not a whole number") from None
    if number < 0:
        raise UsageError(f"{name} must be ≥ 0, got {number}")
    return number


class PageHandler(BaseHandler):
    """GET /ctx-lab/api/page — ``ctx-lab page`` with the budget kept per ``budget_id``."""

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            from ..commands.paging import parse_lines

            artifact = self.arg("id")
            if not artifact:
                raise UsageError("missing query parameter 'id'")
            lines = self.arg("lines")
            try:
                start, end = parse_lines(lines) if lines else (1, 0)
            except Exception as exc:
                raise UsageError(str(exc)) from None
            budget_id = self.arg("budget_id") or uuid.uuid4().hex
            store = self.settings["ctx_lab_budgets"]
            budget = store.get(budget_id, _int(self, "max-pages"), _int(self, "max-tokens"))
            if is_http(artifact):
                if not self.ctx_settings.allow_remote_reads:
                    raise AccessDenied(
                        "remote reads are off on this server (CtxLab.allow_remote_reads)"
                    )
                content_store: Any = ReaderStore(self.reader())
            else:
                confine(self.root, artifact, "id")
                content_store = DirectoryStore(self.root)
            pager = Pager(content_store, budget, self.arg("counter") or "bytes/4")
            result = pager.page(PageRequest(artifact, start, end))
            return _PageWithBudgetId(result, budget_id)

        await self.run(work)

    def reader(self) -> Reader:
        return Reader([self.root], self.ctx_settings.allow_private)


class _PageWithBudgetId(RichResult):
    payload_kind = "page"

    def __init__(self, result: RichResult, budget_id: str) -> None:
        self.result, self.budget_id = result, budget_id

    def to_dict(self) -> dict[str, Any]:
        return {**self.result.to_dict(), "budget_id": self.budget_id}

    def to_text(self) -> str:
        return self.result.to_text()


class BudgetHandler(BaseHandler):
    """GET /ctx-lab/api/budget — ``ctx-lab budget`` for a ``budget_id``."""

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            budget_id = self.arg("budget_id")
            if not budget_id:
                raise UsageError("missing query parameter 'budget_id'")
            store: BudgetStore = self.settings["ctx_lab_budgets"]
            if budget_id not in store.budgets:
                raise ArtifactNotFound(f"no paging budget {budget_id!r} on this server")
            return store.budgets[budget_id]

        await self.run(work)


class ReadHandler(BaseHandler):
    """GET /ctx-lab/api/read — ``ctx-lab read`` (local files under the root; http(s) only when
    the server allows it, with the private-address guard)."""

    @tornado.web.authenticated
    async def get(self) -> None:
        def work() -> RichResult:
            uri = self.arg("uri")
            if not uri:
                raise UsageError("missing query parameter 'uri'")
            if is_http(uri):
                if not self.ctx_settings.allow_remote_reads:
                    raise AccessDenied(
                        "remote reads are off on this server (CtxLab.allow_remote_reads)"
                    )
            elif uri.lower().startswith("file:"):
                raise PathOutsideRoot(
                    "uri: use a path relative to the server root, not a file: URI"
                )
            else:
                confine(self.root, uri, "uri")
            max_chars = _int(self, "max-chars")
            reader: Reader = self.settings["ctx_lab_reader"]
            return reader.read(
                uri, self.arg("cursor") or None, 8000 if max_chars is None else max_chars
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
}


def setup_handlers(web_app: Any, config: Any = None) -> None:
    """Register the routes on a Jupyter server's tornado application."""
    from jupyter_server.utils import url_path_join

    settings = CtxLab(config=config)
    root = Path(web_app.settings["server_root_dir"]).expanduser().resolve()
    web_app.settings["ctx_lab_config"] = settings
    web_app.settings["ctx_lab_budgets"] = BudgetStore(settings.max_budgets)
    web_app.settings["ctx_lab_reader"] = Reader(
        [root], settings.allow_private, allow_http=settings.allow_remote_reads
    )
    base = web_app.settings["base_url"]
    web_app.add_handlers(
        ".*$",
        [
            (url_path_join(base, "ctx-lab", "api", name), handler)
            for name, handler in ROUTES.items()
        ],
    )
