"""Who may talk to the capture proxy, and what may be forwarded or stored: the ``Host`` and
path checks, credential masking, and a deadline on request heads (a connection that never sends
a whole head is closed, so half-open requests cannot pile up)."""

from __future__ import annotations

import asyncio
import re
from typing import Any
from urllib.parse import unquote

__all__ = ["host_allowed", "is_secret", "listen", "mask_query", "refused_path"]

SECRET_NAMES = frozenset(
    {
        "key",
        "api_key",
        "api-key",
        "token",
        "access_token",
        "sig",
        "signature",
        "password",
        "secret",
        "client_secret",
    }
)
MASK = "***"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def is_secret(name: str) -> bool:
    """Whether a query parameter's name looks like a credential."""
    lowered = unquote(name).strip().lower()
    return lowered in SECRET_NAMES or lowered.endswith(("key", "token"))


def mask_query(target: str) -> str:
    """``path?query`` with the value of every credential-like parameter replaced by ``***``
    (names kept, everything else as received)."""
    path, mark, query = target.partition("?")
    if not mark:
        return target
    parts = []
    for item in query.split("&"):
        name, equals, _ = item.partition("=")
        parts.append(f"{name}={MASK}" if equals and is_secret(name) else item)
    return f"{path}?{'&'.join(parts)}"


def refused_path(raw: str) -> str | None:
    """Why a raw request target may not be forwarded (a ``.`` or ``..`` segment, encoded or
    not, which an upstream would resolve out of its prefix), or None."""
    path = raw.partition("?")[0]
    if not path.startswith("/"):
        return "the request target must be a path starting with /"
    for segment in path.split("/"):
        decoded = unquote(segment)
        if any(part in (".", "..") for part in re.split(r"[/\\]", decoded)):
            return "dot segments ('.', '..') are not forwarded"
    return None


def host_allowed(host: str, transport: Any) -> bool:
    """Whether ``Host`` names the address and port this connection came to (``localhost``
    and the loopback addresses alike when it is a loopback address)."""
    sockname = transport.get_extra_info("sockname") if transport is not None else None
    if not sockname:
        return False
    address, port = str(sockname[0]), int(sockname[1])
    name, _, given = host.rpartition(":") if not host.endswith("]") else (host, "", "")
    if not name or given != str(port):
        return False
    name = name.lower()
    if address.startswith("127.") or address == "::1":
        return name in LOOPBACK_NAMES or name == address or name == f"[{address}]"
    return name == address or name == f"[{address}]"


class _HeaderDeadline(asyncio.Protocol):
    """Wraps aiohttp's request handler: a connection that has not sent a whole request head
    within ``seconds`` of opening is closed (half-open requests never pile up)."""

    def __init__(self, inner: Any, seconds: float) -> None:
        self.inner = inner
        self.seconds = seconds
        self.timer: asyncio.TimerHandle | None = None
        self.transport: Any = None
        self.tail = b""
        self.headed = False

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.timer = asyncio.get_running_loop().call_later(self.seconds, self._expire)
        self.inner.connection_made(transport)

    def _expire(self) -> None:
        if not self.headed and self.transport is not None:
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        if not self.headed:
            seen = self.tail + data
            if b"\r\n\r\n" in seen or b"\n\n" in seen:
                self.headed = True
                if self.timer is not None:
                    self.timer.cancel()
            self.tail = seen[-3:]
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        answer: bool | None = self.inner.eof_received()
        return answer

    def connection_lost(self, exc: Exception | None) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


async def listen(runner: Any, port: int, header_timeout: float = 10.0) -> Any:
    """Listen on 127.0.0.1:``port`` for ``runner``'s application, each connection under a
    header deadline; returns the asyncio server (its socket tells the port)."""
    loop = asyncio.get_running_loop()
    server = runner.server
    return await loop.create_server(
        lambda: _HeaderDeadline(server(), header_timeout), "127.0.0.1", port
    )
