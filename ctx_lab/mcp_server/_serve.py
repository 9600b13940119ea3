"""Serving the MCP server: over stdio, or over Streamable HTTP behind the Host/Origin checks
and the bearer token of :mod:`._server` — the one module that puts the handlers
(:mod:`._handlers`) and the server's state together (neither of them imports the other back)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._handlers import build_server
from ._server import BearerToken, CtxLabMCP, http_security

__all__ = ["http_app", "http_protocol", "serve"]


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
    """Serve ``state`` over stdio or Streamable HTTP (``http://host:port/mcp``) until stopped;
    the packet a first call asks for is made in the background meanwhile
    (:meth:`~CtxLabMCP.warm`)."""
    import threading

    import anyio

    threading.Thread(target=state.warm, name="ctx-lab-mcp-warm", daemon=True).start()

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
    # no proxy sits in front: X-Forwarded-* from a loopback client must not rewrite who asked
    # (uvicorn trusts them from 127.0.0.1 by default); no access log of each request
    uvicorn.run(
        app,
        host=host.strip("[]"),
        port=port,
        log_level="warning",
        http=http_protocol(),
        proxy_headers=False,
        access_log=False,
    )


def http_protocol() -> str:
    """uvicorn's HTTP parser for the server: httptools (in the ``mcp`` extra; a tools/call
    round trip 2.3 → 1.9 ms on the bench's machine), else the pure-Python h11 uvicorn ships."""
    from importlib.util import find_spec

    return "httptools" if find_spec("httptools") is not None else "h11"
