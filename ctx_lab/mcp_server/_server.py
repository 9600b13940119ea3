"""ctx_lab as an MCP server: the ``read``, ``page``, ``packet``, ``build`` and
``count_tokens`` tools and the project's packet and ``.context/`` files as resources, served
with the same command functions, roots, address guard, limits and errors as the CLI and REST.

Tool errors come back as MCP error results carrying the message — never a crashed server.
Each connection gets its own paging budget. The ``ctx-lab://packet`` resource and one
resource per ``.context/`` file are watched: when the files change, clients that listen
(``subscriptions/listen``) or subscribed (``resources/subscribe``, older clients) are told.

Why one module over ~400 lines: the MCP adapter's transport, resources, subscriptions and HTTP
security (hosts, origins, bearer token) are one server's; its tools are the commands'.
"""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from cachetools import LRUCache

from .. import commands
from .._version import __version__
from ..display import error_payload
from ..errors import CtxLabError, UsageError
from ..files import hide_root, resolve_root
from ..paging import BudgetTable
from ._calllog import CallLog

__all__ = [
    "CONTEXT_URI",
    "PACKET_URI",
    "TOKEN_ENV",
    "TOOLS",
    "BearerToken",
    "CtxLabMCP",
    "http_app",
    "http_security",
    "is_loopback",
]

PACKET_URI = "ctx-lab://packet"
CONTEXT_URI = "ctx-lab://context/"

# the tools, derived from the commands' declarations: {name: (description, input schema)}
TOOLS = commands.mcp_tools()

MAX_SUBSCRIPTIONS = 256  # resources one connection may subscribe to (only listed ones)
MAX_QUOTAS = 65_536  # paging quotas kept, all connections together


@dataclass(frozen=True)
class Connection:
    """One client connection: its number and the id of its own paging quota (issued by the
    session, so no other connection can name it into existence)."""

    number: int
    budget_id: str


@dataclass
class CtxLabMCP:
    """The server: its session (root, reader, paging quotas, clock, and the packet's size when
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
    # subscribers of the handshake protocol (resources/subscribe), by connection
    _legacy: LRUCache[int, tuple[Any, set[str]]] = field(default_factory=lambda: LRUCache(1024))
    _signature: dict[str, tuple[int, int]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.root = resolve_root(self.root)
        self.session = commands.Session(
            root=self.root,
            allow_private=self.allow_private,
            allow_remote=True,
            quotas=BudgetTable(
                MAX_QUOTAS,
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
                assert self.session.quotas is not None
                scratch["ctx_lab"] = Connection(self._count, self.session.quotas.issue())
            found: Connection = scratch["ctx_lab"]
            return found

    # -- tools ----------------------------------------------------------------------------

    def call(
        self, name: str, arguments: Mapping[str, Any], connection: Connection
    ) -> commands.Outcome:
        """Run one tool through the session; returns its outcome (the result and the format
        asked for). Raises :class:`CtxLabError` for anything the caller did wrong."""
        return self.session.call_json(name, arguments, quota_id=connection.budget_id)

    # -- resources ------------------------------------------------------------------------

    def context_files(self) -> dict[str, Path]:
        """The ``.context/`` files by resource URI (none when the root has no ``.context/``)."""
        from ..packet import context_files, find_context

        if find_context(self.root, root=self.root).directory != ".":
            return {}
        directory = self.root / ".context"
        return {
            CONTEXT_URI + p.relative_to(directory).as_posix(): p for p in context_files(directory)
        }

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

    def _context_signature(self) -> dict[str, tuple[int, int]]:
        found = {}
        for uri, path in self.context_files().items():
            try:
                info = path.stat()
            except OSError:
                continue
            found[uri] = (info.st_size, info.st_mtime_ns)
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


MAX_LISTENERS = 256  # subscriptions/listen streams open at once, all connections together


def _listed_only(handler: Any, state: CtxLabMCP, invalid: int) -> Any:
    """``subscriptions/listen`` for listed resources only, at most MAX_SUBSCRIPTIONS a stream:
    a client cannot park megabytes of invented URIs in the server."""

    async def listen(ctx: Any, params: Any) -> Any:
        from mcp.shared.exceptions import MCPError

        wanted = list(getattr(params.notifications, "resource_subscriptions", None) or ())
        if wanted:
            if len(wanted) > MAX_SUBSCRIPTIONS:
                raise MCPError(
                    code=invalid,
                    message=f"a listen stream may name at most {MAX_SUBSCRIPTIONS} resources",
                )
            import anyio

            listed = {PACKET_URI, *await anyio.to_thread.run_sync(state.context_files)}
            unknown = [uri for uri in wanted if str(uri) not in listed]
            if unknown:
                raise MCPError(
                    code=invalid, message=f"no resource {str(unknown[0])[:200]!r} to listen to"
                )
        return await handler(ctx, params)

    return listen


def _connection_of(ctx: Any) -> Any:
    """The SDK connection a request arrived on (the session object is per request; its
    connection outlives it on stateful transports). The SDK 2.3 exposes it only privately."""
    return getattr(ctx.session, "_connection", None) or ctx.session


def _hidden(text: str, structured: dict[str, Any] | None, root: Path) -> tuple[str, Any]:
    """What a client gets back, with the server's root written relative to itself."""
    if structured is not None:
        structured = json.loads(hide_root(json.dumps(structured, ensure_ascii=False), root))
    return hide_root(text, root), structured


def _payload(outcome: commands.Outcome) -> tuple[str, dict[str, Any]]:
    """The text an agent reads (a packet or build as Markdown unless it asked for JSON) and
    the structured content of a tool's result."""
    data = outcome.result.payload()  # what the tool's output schema describes
    if outcome.format == "json":
        return json.dumps(data, ensure_ascii=False), data
    return outcome.result.render(outcome.format), data


def build_server(state: CtxLabMCP) -> Any:
    """The MCP SDK's low-level server around ``state``."""
    import anyio
    import mcp_types as types
    from mcp.server import Server
    from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
    from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated

    bus = InMemorySubscriptionBus()

    async def notify(changed: set[str], listed: bool) -> None:
        for uri in sorted(changed):
            await bus.publish(ResourceUpdated(uri=uri))
        if listed:
            await bus.publish(ResourcesListChanged())
        for key, (session, uris) in list(state._legacy.items()):
            try:
                for uri in sorted(changed & uris):
                    await session.send_resource_updated(uri)
            except Exception:  # a client that went away stops being told
                state._legacy.pop(key, None)

    async def check() -> None:
        changed, listed = await anyio.to_thread.run_sync(state.changes)
        if changed or listed:
            await notify(changed, listed)

    @asynccontextmanager
    async def lifespan(_: Any) -> AsyncIterator[dict[str, Any]]:
        async with anyio.create_task_group() as group:

            async def watch() -> None:
                while True:
                    await anyio.sleep(state.watch_interval)
                    await check()

            if state.watch_interval > 0:
                group.start_soon(watch)
            yield {}
            group.cancel_scope.cancel()

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=name,
                    description=tool.description,
                    input_schema=tool.input_schema,
                    output_schema=tool.output_schema,
                    annotations=types.ToolAnnotations(
                        read_only_hint=tool.annotations["readOnlyHint"],
                        destructive_hint=tool.annotations["destructiveHint"],
                        idempotent_hint=tool.annotations["idempotentHint"],
                        open_world_hint=tool.annotations["openWorldHint"],
                    ),
                )
                for name, tool in TOOLS.items()
            ]
        )

    async def call_tool(ctx: Any, params: Any) -> Any:
        # a connection's scratch state persists across its requests (SDK: Connection.state)
        scratch = getattr(_connection_of(ctx), "state", {})
        connection = state.connection(scratch)
        arguments = dict(params.arguments or {})
        structured: dict[str, Any] | None
        try:
            outcome = await anyio.to_thread.run_sync(
                lambda: state.call(params.name, arguments, connection)
            )
            text, structured = _payload(outcome)
            is_error = False
        except Exception as exc:  # never a crashed server: the agent reads what went wrong
            payload = error_payload(exc, state.root)  # the same payload REST sends
            text, structured = f"{payload['type']}: {payload['message']}", {"error": payload}
            is_error = True
        else:
            text, structured = _hidden(text, structured, state.root)
        if state.log is not None:
            log = state.log
            await anyio.to_thread.run_sync(
                lambda: log.record(connection.number, params.name, arguments, text, is_error)
            )
        await check()
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=structured,
            is_error=is_error,
        )

    async def list_resources(ctx: Any, params: Any) -> Any:
        files = await anyio.to_thread.run_sync(state.context_files)
        resources = [
            types.Resource(
                uri=PACKET_URI,
                name="packet",
                description="The project's context packet at the server's budget",
                mime_type="text/markdown",
            )
        ]
        resources += [
            types.Resource(uri=uri, name=uri.removeprefix(CONTEXT_URI), mime_type="text/markdown")
            for uri in files
        ]
        return types.ListResourcesResult(resources=resources)

    async def read_resource(ctx: Any, params: Any) -> Any:
        uri = str(params.uri)
        try:
            text, mime = await anyio.to_thread.run_sync(lambda: state.read_resource(uri))
        except CtxLabError as exc:
            from mcp.shared.exceptions import MCPError

            payload = error_payload(exc, state.root)
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"{payload['type']}: {payload['message']}"
            ) from None
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, text=text, mime_type=mime)]
        )

    async def subscribe(ctx: Any, params: Any) -> Any:
        from mcp.shared.exceptions import MCPError

        uri = str(params.uri)
        listed = uri == PACKET_URI or uri in await anyio.to_thread.run_sync(state.context_files)
        if not listed:
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"no resource {uri[:200]!r} to subscribe to"
            )
        key = id(_connection_of(ctx))
        if key not in state._legacy:
            state._legacy[key] = (ctx.session, set())
        uris = state._legacy[key][1]
        if uri not in uris and len(uris) >= MAX_SUBSCRIPTIONS:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"a connection may subscribe to at most {MAX_SUBSCRIPTIONS} resources",
            )
        uris.add(uri)
        return types.EmptyResult()

    async def unsubscribe(ctx: Any, params: Any) -> Any:
        found = state._legacy.get(id(_connection_of(ctx)))
        if found is not None:
            found[1].discard(str(params.uri))
        return types.EmptyResult()

    def input_schema(name: str) -> Mapping[str, Any] | None:
        found = TOOLS.get(name)
        return None if found is None else found.input_schema

    return Server(
        "ctx-lab",
        version=__version__,
        instructions=(
            "ctx-lab: read large files, web pages and PDFs in chunks (read: call again with "
            "next_cursor until truncated is false), page stored artifacts under a quota (page, "
            "budget), get the project's budgeted context packet (packet, or the "
            "ctx-lab://packet resource), build a prompt that fits (build), count tokens."
        ),
        lifespan=lifespan,
        get_tool_input_schema=input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
        on_subscribe_resource=subscribe,
        on_unsubscribe_resource=unsubscribe,
        on_subscriptions_listen=_listed_only(
            ListenHandler(bus, max_subscriptions=MAX_LISTENERS), state, types.INVALID_PARAMS
        ),
    )


TOKEN_ENV = "CTX_LAB_MCP_TOKEN"


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server on this machine (``localhost``, 127.0.0.0/8,
    ``::1`` in any spelling)."""
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
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


def http_app(
    state: CtxLabMCP,
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    token: str | None = None,
    allow_hosts: Sequence[str] = (),
    allow_origins: Sequence[str] = (),
) -> Any:
    """The Streamable HTTP app (``/mcp``) with Host/Origin checks for every bind and, with a
    ``token``, bearer authentication."""
    from mcp.server.transport_security import TransportSecuritySettings

    hosts, origins = http_security(host, port, allow_hosts, allow_origins)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )
    app = build_server(state).streamable_http_app(host=host, transport_security=security)
    return BearerToken(app, token) if token else app


def serve(
    state: CtxLabMCP,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    token: str | None = None,
    allow_hosts: Sequence[str] = (),
    allow_origins: Sequence[str] = (),
) -> None:
    """Serve ``state`` over stdio or Streamable HTTP (``http://host:port/mcp``) until stopped."""
    import anyio

    if transport == "stdio":
        from mcp.server.stdio import stdio_server

        server = build_server(state)

        async def run_stdio() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, server.create_initialization_options())

        anyio.run(run_stdio)
        return
    import uvicorn

    app = http_app(
        state, host, port, token=token, allow_hosts=allow_hosts, allow_origins=allow_origins
    )
    uvicorn.run(app, host=host.strip("[]"), port=port, log_level="warning")
