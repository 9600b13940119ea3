"""REST routes under ``/ctx-lab/api/``: one route per command the registry serves over REST,
answered by one generic handler.

The handler does routing and error mapping only: the query goes to
:meth:`ctx_lab.commands.Session.call_query`, which checks and parses each value by the
command's own declaration (the names are the parameters' snake_case names; repeatable ones
repeat; booleans are ``true``/``false``), adds what the server's session supplies (its root,
reader, paging budgets, settings) and calls the command. Every path is confined to the server's
root by the command itself; http(s) reads are off unless ``CtxLab.allow_remote_reads`` is set.
Work runs in a thread pool, never on the event loop; every deliberate error is a
:class:`~ctx_lab.errors.CtxLabError` mapped to a 4xx status with the one error payload.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import tornado.web
from jupyter_server.base.handlers import APIHandler
from traitlets import Bool, Int
from traitlets.config import Configurable

from ..commands import Session, commands
from ..display import error_payload
from ..errors import (
    CtxLabError,
    LimitExceeded,
    as_native_error,
    from_os_error,
    http_status,
    native_failure,
)
from ..files import hide_root, resolve_root
from ..limits import LIMITS
from ..paging import BudgetTable

__all__ = ["ROUTES", "CommandHandler", "CtxLab", "rest_commands", "setup_handlers"]


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


class CommandHandler(APIHandler):
    """GET /ctx-lab/api/<command>: the query to the session, the result's payload back (a
    command the registry does not serve over REST is a 404 with the error payload)."""

    @property
    def session(self) -> Session:
        found: Session = self.settings["ctx_lab_session"]
        return found

    @tornado.web.authenticated
    async def get(self, command: str) -> None:
        query = {
            name: [v.decode("utf-8", "replace") for v in values]
            for name, values in self.request.query_arguments.items()
        }
        root = str(self.session.root)
        try:
            result = await asyncio.get_running_loop().run_in_executor(
                None, lambda: self.session.call_query(command, query)
            )
            body = hide_root(json.dumps(result.payload(), ensure_ascii=False), root)
            size = len(body.encode("utf-8", "surrogatepass"))
            rule = LIMITS["response"]
            if size > rule.value():
                raise LimitExceeded(
                    f"the response would be {size:,} bytes, over {rule.describe()}; ask for "
                    "less (a smaller budget, or /entries with limit and offset)"
                )
        except CtxLabError as exc:
            self._error(exc, root)
            return
        except OSError as exc:  # a refusal no check caught first: 4xx, never a 500
            self._error(from_os_error(exc), root)
            return
        except BaseException as exc:  # native code that panicked: this request only
            if not native_failure(exc):
                raise
            self._error(as_native_error(exc), root)
            return
        self.set_header("Content-Type", "application/json")
        self.finish(body)

    def _error(self, exc: CtxLabError, root: str) -> None:
        self.set_status(http_status(exc))
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"error": error_payload(exc, root)}))


def rest_commands() -> list[str]:
    """The commands served over REST, in declaration order."""
    return [name for name, c in commands().items() if "rest" in c.surfaces]


# the routes at import (the handler serves whatever the registry serves when asked)
ROUTES: dict[str, type[CommandHandler]] = dict.fromkeys(rest_commands(), CommandHandler)


def server_session(root: Path, settings: CtxLab) -> Session:
    """The server's one session: its reader's cache lives as long as the server; the extracted
    documents of local files and the cursor key outlive it (shared with the CLI and MCP), so a
    cursor keeps working across a restart and between the surfaces."""
    return Session(
        root=root,
        allow_private=settings.allow_private,
        allow_remote=settings.allow_remote_reads,
        budgets=BudgetTable(settings.max_budgets, client_named=True),
        progress=False,
    )


def setup_handlers(web_app: Any, config: Any = None) -> None:
    """Register the routes on a Jupyter server's tornado application."""
    from jupyter_server.utils import url_path_join

    settings = CtxLab(config=config)
    root = resolve_root(web_app.settings["server_root_dir"])
    web_app.settings["ctx_lab_config"] = settings
    web_app.settings["ctx_lab_session"] = server_session(root, settings)
    base = web_app.settings["base_url"]
    route = url_path_join(base, "ctx-lab", "api", r"(?P<command>[a-z][a-z0-9_]{0,63})")
    web_app.add_handlers(".*$", [(route, CommandHandler)])
