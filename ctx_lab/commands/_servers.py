"""``ctx-lab mcp serve``: the MCP server's options, declared once like a command's parameters
(the flags, their help and defaults come from :func:`mcp_serve`'s signature), checked here and
handed to the adapter (:mod:`ctx_lab.mcp_server`) as one :class:`McpServeOptions`."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

from ..choices import McpTransport
from ..errors import UsageError
from ..limits import DEFAULT_MAX_PAGES, DEFAULT_MAX_TOKENS
from ._param import CLI, Param
from ._params import Budget, Model

__all__ = ["CaptureOptions", "McpServeOptions", "capture_serve", "mcp_serve"]

UPSTREAMS = {"anthropic": "https://api.anthropic.com", "openai": "https://api.openai.com"}

PathArg = str | os.PathLike[str]


@dataclass(frozen=True)
class McpServeOptions:
    """What ``ctx-lab mcp serve`` was asked for, checked."""

    root: PathArg
    transport: str
    host: str
    port: int
    token: str | None
    allow_hosts: tuple[str, ...]
    allow_origins: tuple[str, ...]
    budget: int | None
    model: str | None
    max_pages: int | None
    max_tokens: int | None
    allow_private: bool
    log: PathArg | None
    watch_interval: float


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value):
        raise UsageError(f"{text!r} is not a number of seconds")
    return value


def mcp_serve(
    *,
    root: Annotated[PathArg, Param("the only directory served", metavar="DIR", surfaces=CLI)] = ".",
    transport: Annotated[
        McpTransport,
        Param(
            "stdio (an agent starts the server) or http (Streamable HTTP at /mcp)",
            surfaces=CLI,
        ),
    ] = "stdio",
    host: Annotated[str, Param("HTTP: the address to bind", metavar="HOST", surfaces=CLI)] = (
        "127.0.0.1"
    ),
    port: Annotated[int, Param("HTTP: the port (1–65535)", metavar="N", surfaces=CLI)] = 8765,
    token: Annotated[
        str | None,
        Param(
            "HTTP: require 'Authorization: Bearer TOKEN' (or $CTX_LAB_MCP_TOKEN); generated and "
            "printed when binding beyond loopback without one",
            metavar="TOKEN",
            surfaces=CLI,
            default_text="none on loopback",
        ),
    ] = None,
    allow_hosts: Annotated[
        Sequence[str],
        Param(
            "HTTP: another Host header to accept (repeatable; the bound address always is)",
            metavar="HOST[:PORT]",
            flag="--allow-host",
            surfaces=CLI,
        ),
    ] = (),
    allow_origins: Annotated[
        Sequence[str],
        Param(
            "HTTP: a browser Origin to accept, e.g. http://localhost:3000 (repeatable; none by "
            "default)",
            metavar="ORIGIN",
            flag="--allow-origin",
            surfaces=CLI,
        ),
    ] = (),
    budget: Budget = None,
    model: Model = None,
    max_pages: Annotated[
        int | None,
        Param(
            "page quota of each connection's paging budget",
            metavar="N",
            surfaces=CLI,
            default_text=str(DEFAULT_MAX_PAGES),
        ),
    ] = None,
    max_tokens: Annotated[
        int | None,
        Param(
            "token quota of each connection's paging budget",
            metavar="N",
            surfaces=CLI,
            default_text=str(DEFAULT_MAX_TOKENS),
        ),
    ] = None,
    allow_private: Annotated[
        bool,
        Param(
            "let read reach loopback and private addresses (off: only public ones)", surfaces=CLI
        ),
    ] = False,
    log: Annotated[
        PathArg | None,
        Param("append every tool call to FILE (JSONL)", metavar="FILE", surfaces=CLI),
    ] = None,
    watch_interval: Annotated[
        float,
        Param(
            "seconds between checks of .context/ for changes (0: only on tool calls)",
            metavar="S",
            parse=_seconds,
            surfaces=CLI,
        ),
    ] = 2.0,
) -> McpServeOptions:
    """The options of ``ctx-lab mcp serve``, checked (the server itself is the adapter's)."""
    if budget is not None and model is not None:
        raise UsageError("give either a budget or a model, not both")
    if not (watch_interval == 0 or 0.1 <= watch_interval <= 86_400):
        raise UsageError("--watch-interval must be 0 (off) or 0.1–86400 seconds")
    if not 1 <= port <= 65_535:
        raise UsageError(f"--port must be 1–65535, not {port}")
    return McpServeOptions(
        root=root,
        transport=transport,
        host=host,
        port=port,
        token=token,
        allow_hosts=tuple(allow_hosts),
        allow_origins=tuple(allow_origins),
        budget=budget,
        model=model,
        max_pages=max_pages,
        max_tokens=max_tokens,
        allow_private=allow_private,
        log=log,
        watch_interval=watch_interval,
    )


@dataclass(frozen=True)
class CaptureOptions:
    """What ``ctx-lab capture`` was asked for, checked."""

    provider: str
    upstream: str
    port: int
    db: PathArg
    max_body: int
    allow_origins: tuple[str, ...] = ()
    max_concurrent: int = 64
    grace: float = 30.0
    header_timeout: float = 10.0
    fake: PathArg | None = None


def capture_serve(
    *,
    provider: Annotated[
        str,
        Param(
            "the API the agent speaks: anthropic (Messages) or openai (Chat Completions, "
            "Responses)",
            choices=tuple(UPSTREAMS),
            surfaces=CLI,
        ),
    ],
    db: Annotated[
        PathArg,
        Param("the capture file (SQLite) every call is recorded in", metavar="FILE", surfaces=CLI),
    ],
    upstream: Annotated[
        str | None,
        Param(
            "where calls are forwarded",
            metavar="URL",
            surfaces=CLI,
            default_text="the provider's API: https://api.anthropic.com or https://api.openai.com",
        ),
    ] = None,
    fake: Annotated[
        PathArg | None,
        Param(
            "answer every call from FILE's recorded answers instead of a provider — a capture "
            "file, or recorded calls as JSON ({request, response} objects, JSON Lines, a VCR "
            "cassette): a demo upstream that needs no key or network",
            metavar="FILE",
            surfaces=CLI,
            path=True,
        ),
    ] = None,
    port: Annotated[
        int,
        Param(
            "the port on 127.0.0.1 to listen on (0: any free one, printed)",
            metavar="N",
            surfaces=CLI,
        ),
    ] = 8787,
    max_body: Annotated[
        int,
        Param(
            "bytes of a request or response body kept in the file (more is forwarded whole "
            "but stored cut, and flagged)",
            metavar="BYTES",
            minimum=1024,
            surfaces=CLI,
        ),
    ] = 16 * 1024 * 1024,
    allow_origins: Annotated[
        Sequence[str],
        Param(
            "a browser Origin allowed to call the proxy, e.g. http://localhost:3000 "
            "(repeatable; a request with any other Origin is refused with 403)",
            metavar="ORIGIN",
            flag="--allow-origin",
            surfaces=CLI,
        ),
    ] = (),
    max_concurrent: Annotated[
        int,
        Param(
            "calls forwarded at once; more are answered 503 with Retry-After",
            metavar="N",
            minimum=1,
            surfaces=CLI,
        ),
    ] = 64,
    grace: Annotated[
        float,
        Param(
            "on SIGTERM or Ctrl-C: seconds to let calls in flight finish (and be recorded) "
            "before exiting",
            metavar="S",
            parse=_seconds,
            surfaces=CLI,
        ),
    ] = 30.0,
    header_timeout: Annotated[
        float,
        Param(
            "seconds a connection may take to send a whole request head before it is closed",
            metavar="S",
            parse=_seconds,
            surfaces=CLI,
        ),
    ] = 10.0,
) -> CaptureOptions:
    """The options of ``ctx-lab capture``, checked (the proxy itself is the adapter's)."""
    from urllib.parse import urlsplit

    if fake is not None and upstream is not None:
        raise UsageError("give either --upstream or --fake, not both")

    chosen = (upstream or UPSTREAMS[provider]).rstrip("/")
    parts = urlsplit(chosen)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--upstream must be an http(s) URL, not {chosen!r}")
    if not 0 <= port <= 65_535:
        raise UsageError(f"--port must be 0–65535, not {port}")
    if not 0 <= grace <= 3600:
        raise UsageError(f"--grace must be 0–3600 seconds, not {grace}")
    if not 0.1 <= header_timeout <= 3600:
        raise UsageError(f"--header-timeout must be 0.1–3600 seconds, not {header_timeout}")
    origins = tuple(allow_origins)
    for origin in origins:
        found = urlsplit(origin)
        if found.scheme not in ("http", "https") or not found.hostname or found.path.strip("/"):
            raise UsageError(f"--allow-origin must be scheme://host[:port], not {origin!r}")
    return CaptureOptions(
        provider=provider,
        upstream=chosen,
        port=port,
        db=db,
        max_body=max_body,
        allow_origins=origins,
        max_concurrent=max_concurrent,
        grace=grace,
        header_timeout=header_timeout,
        fake=fake,
    )
