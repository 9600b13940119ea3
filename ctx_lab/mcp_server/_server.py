"""ctx_lab as an MCP server: the ``read``, ``page``, ``packet``, ``build`` and
``count_tokens`` tools and the project's packet and ``.context/`` files as resources, served
with the same command functions, roots, address guard, limits and errors as the CLI and REST.

Tool errors come back as MCP error results carrying the message — never a crashed server.
Each connection gets its own paging budget. The ``ctx-lab://packet`` resource and one
resource per ``.context/`` file are watched: when the files change, clients that listen
(``subscriptions/listen``) or subscribed (``resources/subscribe``, older clients) are told.

The requests' handlers are in :mod:`._handlers`; this module keeps the server's state, its
HTTP security (hosts, origins, bearer token) and its transports.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from cachetools import LRUCache

from .. import commands
from ..errors import UsageError
from ..files import FileIdentity, identity, resolve_root
from ..paging import BudgetTable
from ._calllog import CallLog

__all__ = [
    "CONTEXT_URI",
    "PACKET_URI",
    "TOKEN_ENV",
    "TOOLS",
    "BearerToken",
    "CtxLabMCP",
    "http_security",
    "is_loopback",
]

PACKET_URI = "ctx-lab://packet"
CONTEXT_URI = "ctx-lab://context/"

# the tools, derived from the commands' declarations: {name: (description, input schema)}
TOOLS = commands.mcp_tools()

MAX_SUBSCRIPTIONS = 256  # resources one connection may subscribe to (only listed ones)
MAX_BUDGETS = 65_536  # paging budgets kept, all connections together


@dataclass(frozen=True)
class Connection:
    """One client connection: its number and the id of its own paging quota (issued by the
    session, so no other connection can name it into existence)."""

    number: int
    budget_id: str


@dataclass
class CtxLabMCP:
    """The server: its session (root, reader, paging budgets, clock, and the packet's size when
    a call names none) and what only MCP has — connections, the call log, subscriptions and
    what the ``.context/`` files looked like when last checked."""

    root: Path
    budget: int | None = None
    model: str | None = None
    allow_private: bool = False
    max_pages: int | None = None
    max_tokens: int | None = None
    log: CallLog | None = None
    watch_interval: float = 2.0
    now: Callable[[], datetime] | None = None
    _count: int = 0
    # resources/subscribe (older clients): connection → (its session, the URIs it follows)
    subscribers: LRUCache[int, tuple[Any, set[str]]] = field(default_factory=lambda: LRUCache(1024))
    _signature: dict[str, FileIdentity] = field(default_factory=dict)
    _confined: tuple[str, ...] = ()  # the .context/ listing last confined to the root
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.root = resolve_root(self.root)
        self.session = commands.Session(
            root=self.root,
            allow_private=self.allow_private,
            allow_remote=True,
            budgets=BudgetTable(
                MAX_BUDGETS,
                client_named=False,
                max_pages=self.max_pages,
                max_tokens=self.max_tokens,
            ),
            now=self.now,
            budget=self.budget,
            model=self.model,
            progress=False,
        )
        self._signature = self._context_signature()

    @property
    def reader(self) -> Any:
        """The session's reader."""
        return self.session.reader

    # -- connections ----------------------------------------------------------------------

    def connection(self, scratch: dict[str, Any]) -> Connection:
        """The connection a request arrived on, from its per-connection scratch state: a
        number (1, 2, …) and the id of its paging quota. Connections that keep state (a
        stdio or HTTP session with a handshake) keep both across requests; on stateless
        requests each gets new ones, and agents carry the quota by ``budget_id``."""
        with self._lock:
            if "ctx_lab" not in scratch:
                self._count += 1
                assert self.session.budgets is not None
                scratch["ctx_lab"] = Connection(self._count, self.session.budgets.issue())
            found: Connection = scratch["ctx_lab"]
            return found

    # -- tools ----------------------------------------------------------------------------

    def call(
        self, name: str, arguments: Mapping[str, Any], connection: Connection
    ) -> commands.Outcome:
        """Run one tool through the session; returns its outcome (the result and the format
        asked for). Raises :class:`CtxLabError` for anything the caller did wrong."""
        return self.session.call_json(name, arguments, connection_budget=connection.budget_id)

    def warm(self) -> None:
        """Make the packet a first ``packet`` call asks for, once, and keep nothing but the
        caches it filled (the ``.context/`` files read and parsed, the counter loaded): started
        in the background when the server starts, so an agent's first call costs what later
        ones do. A root without a packet to make is no error here; the call will say why."""
        from contextlib import suppress

        from ..errors import CtxLabError

        with suppress(CtxLabError, OSError):
            self.session.call_json("packet", {})

    # -- resources ------------------------------------------------------------------------

    def context_files(self) -> dict[str, Path]:
        """The ``.context/`` files by resource URI (none when the root has no ``.context/``).

        Every file is confined to the root when the listing is new; a listing seen before is
        not resolved again (this runs after every tool call: resolving each file cost ~0.8 ms
        a call), and a resource is confined again when it is read."""
        from ..files import confine, entry_kind
        from ..packet import context_files

        directory = self.root / ".context"
        if entry_kind(directory) != "dir":
            return {}
        listed = context_files(directory)
        key = tuple(map(str, listed))
        if key != self._confined:
            confine(self.root, directory, what="dir")
            for path in listed:
                confine(self.root, path, what=".context/" + path.relative_to(directory).as_posix())
            self._confined = key
        return {CONTEXT_URI + p.relative_to(directory).as_posix(): p for p in listed}

    def read_resource(self, uri: str) -> tuple[str, str]:
        """``(text, mime type)`` of a resource."""
        if uri == PACKET_URI:
            made = self.session.call_json("packet", {})
            return made.result.render(made.format), "text/markdown"
        files = self.context_files()
        if uri not in files:
            raise UsageError(f"no resource {uri!r}; list_resources names them")
        from ..files import confine, read_text

        return read_text(confine(self.root, files[uri], what="resource")), "text/markdown"

    def _context_signature(self) -> dict[str, FileIdentity]:
        found = {}
        for uri, path in self.context_files().items():
            try:
                found[uri] = identity(path)
            except OSError:
                continue
        return found

    def changes(self) -> tuple[set[str], bool]:
        """The resource URIs whose content changed since the last check, and whether the list
        of resources itself changed."""
        now = self._context_signature()
        with self._lock:
            before, self._signature = self._signature, now
        changed = {u for u in now.keys() | before.keys() if now.get(u) != before.get(u)}
        if changed:
            changed.add(PACKET_URI)
        return changed, now.keys() != before.keys()


TOKEN_ENV = "CTX_LAB_MCP_TOKEN"


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server on this machine (``localhost``, 127.0.0.0/8,
    ``::1`` in any spelling)."""
    import ipaddress
    import socket

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:  # the shorthand the C library binds too: 127.1, 0x7f.1, 2130706433
        return ipaddress.ip_address(socket.inet_ntoa(socket.inet_aton(host))).is_loopback
    except (OSError, ValueError):
        return False


def http_security(
    host: str, port: int, allow_hosts: Sequence[str] = (), allow_origins: Sequence[str] = ()
) -> tuple[list[str], list[str]]:
    """The Host and Origin values an HTTP server bound to ``host:port`` accepts: the bound
    address (and ``localhost`` on a loopback bind) at this port, plus ``allow_hosts``; no
    Origin but ``allow_origins`` (agents send none; a web page that sends one is refused)."""
    import ipaddress

    hosts: list[str] = []
    wildcard = host in ("0.0.0.0", "::", "[::]")
    if not wildcard:
        try:
            address = ipaddress.ip_address(host.strip("[]"))
            shown = f"[{address}]" if address.version == 6 else str(address)
        except ValueError:
            shown = host
        hosts.append(f"{shown}:{port}")
    if is_loopback(host):
        hosts += [f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"]
    for name in allow_hosts:
        has_port = "]:" in name if name.startswith("[") else ":" in name
        hosts.append(name if has_port else f"{name}:{port}")
    if not hosts:
        raise UsageError(
            f"binding {host} accepts every address: name the host clients use with --allow-host"
        )
    return list(dict.fromkeys(hosts)), list(dict.fromkeys(allow_origins))


class BearerToken:
    """ASGI middleware: every HTTP request needs ``Authorization: Bearer <token>`` (compared
    in constant time); others get 401 before the MCP transport sees them."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        import hmac

        if scope["type"] == "http":
            given = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"text/plain"),
                            (b"www-authenticate", b"Bearer"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b"missing or wrong token"})
                return
        await self.app(scope, receive, send)
