"""Who may talk to the capture proxy, and what may be forwarded or stored: the ``Host`` and
path checks, credential masking, and a deadline on request heads (a connection that never sends
a whole head is closed, so half-open requests cannot pile up)."""

from __future__ import annotations

import asyncio
import re
from typing import Any
from urllib.parse import unquote

__all__ = [
    "cross_site",
    "host_allowed",
    "is_secret",
    "listen",
    "mask_query",
    "next_request",
    "refused_path",
]

# names whose value is a credential: exactly these, or ending with one of SECRET_ENDINGS
# (``X-Amz-Signature``, ``X-Goog-Credential``, ``client_secret``, ``refresh_token`` …)
SECRET_NAMES = frozenset({"key", "sig", "code", "auth", "jwt", "session", "password", "passwd",
                          "pass", "pwd", "secret", "bearer", "authorization"})  # fmt: skip
SECRET_ENDINGS = ("key", "token", "secret", "signature", "credential", "password", "auth",
                  "sig", "session", "sessionid")  # fmt: skip
# a value that is a provider's key whatever its name or place (OpenAI's sk-, Anthropic's
# sk-ant-, Google's AIza …, GitHub's ghp_/gho_/github_pat_, Slack's xox?-, a JWT)
SECRET_VALUE = re.compile(
    r"(?:sk-[A-Za-z0-9_-]{16,}|AIza[0-9A-Za-z_-]{30,}|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"
)
MASK = "***"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def is_secret(name: str) -> bool:
    """Whether a parameter's name looks like a credential (``key[]`` and ``X-Amz-…`` alike)."""
    lowered = unquote(name).strip().lower().removesuffix("[]").replace("-", "_")
    bare = lowered.removeprefix("x_amz_").removeprefix("x_goog_")
    return bare in SECRET_NAMES or lowered in SECRET_NAMES or lowered.endswith(SECRET_ENDINGS)


def _masked_pairs(text: str, separators: str) -> str:
    """``name=value`` pairs separated by any of ``separators``, credentials' values masked."""
    pieces = re.split(f"([{re.escape(separators)}])", text)
    out = []
    for piece in pieces:
        name, equals, _ = piece.partition("=")
        if equals and is_secret(name):
            out.append(f"{name}={MASK}")
        else:
            out.append(SECRET_VALUE.sub(MASK, piece))
    return "".join(out)


def mask_query(target: str) -> str:
    """``path?query`` with every credential masked (``***``): the value of a credential-like
    parameter, ``&``- or ``;``-separated, in the query or as a path segment's ``;name=value``;
    the path segment after one named like a credential (``/api_key/VALUE``); and any value
    shaped like a provider's key, wherever it is. Names and everything else as received."""
    path, mark, query = target.partition("?")
    segments = path.split("/")
    for i, segment in enumerate(segments):
        if i and is_secret(segments[i - 1].partition(";")[0]) and segment:
            segments[i] = MASK
        else:
            segments[i] = _masked_pairs(segment, ";")
    masked = "/".join(segments)
    return f"{masked}?{_masked_pairs(query, '&;')}" if mark else masked


def cross_site(method: str, raw_path: str, headers: Any) -> str | None:
    """Why a request is one another web site's page made a browser send (an ``<img>`` or a
    form, which carry no ``Origin``), or None: the browser says so (``Sec-Fetch-Site``), or a
    body that is not JSON goes to a model's route (every SDK sends JSON there)."""
    site = str(headers.get("Sec-Fetch-Site", "")).strip().lower()
    if site in ("cross-site", "same-site"):
        return f"a {site} request from a browser is not forwarded (Sec-Fetch-Site)"
    path = raw_path.partition("?")[0]
    model_route = (
        path.endswith(MODEL_ROUTES)
        or ":generateContent" in path
        or (":streamGenerateContent" in path)
    )
    kind = str(headers.get("Content-Type", "")).split(";")[0].strip().lower()
    json_body = kind == "application/json" or kind.endswith("+json")
    if model_route and method not in ("GET", "HEAD", "OPTIONS") and not json_body:
        return f"a model's route takes a JSON body, not {kind or 'none'!r}"
    return None


MODEL_ROUTES = ("/messages", "/chat/completions", "/completions", "/responses", "/embeddings",
                "/messages/count_tokens")  # fmt: skip


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


_WATCHED: dict[Any, _HeaderDeadline] = {}  # each open connection's deadline, by transport


def next_request(transport: Any) -> None:
    """A request on ``transport`` was answered: the next one's head gets a deadline of its own,
    from its first byte (an idle kept-alive connection is aiohttp's keep-alive to close)."""
    deadline = _WATCHED.get(transport)
    if deadline is not None:
        deadline.rearm()


class _HeaderDeadline(asyncio.Protocol):
    """Wraps aiohttp's request handler: every request's head must arrive whole within
    ``seconds`` of its first byte — the connection's first request from the connection's
    opening — or the connection is closed (half-open or trickled heads never pile up; blank
    lines before a request line count as its start)."""

    def __init__(self, inner: Any, seconds: float) -> None:
        self.inner = inner
        self.seconds = seconds
        self.timer: asyncio.TimerHandle | None = None
        self.transport: Any = None
        self.tail = b""
        self.headed = False
        self.begun = False  # a byte other than CR or LF of this request's head was seen

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        _WATCHED[transport] = self
        self._arm()
        self.inner.connection_made(transport)

    def _arm(self) -> None:
        self.timer = asyncio.get_running_loop().call_later(self.seconds, self._expire)

    def rearm(self) -> None:
        """Wait for the next request's head (its deadline starts with its first byte)."""
        if self.timer is not None:
            self.timer.cancel()
        self.timer, self.headed, self.begun, self.tail = None, False, False, b""

    def _expire(self) -> None:
        if not self.headed and self.transport is not None:
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        if not self.headed:
            if self.timer is None:
                self._arm()
            if not self.begun:  # blank lines before the request line are not its head
                stripped = data.lstrip(b"\r\n")
                self.begun = bool(stripped)
                seen = stripped
            else:
                seen = self.tail + data
            if self.begun and (b"\r\n\r\n" in seen or b"\n\n" in seen):
                self.headed = True
                if self.timer is not None:
                    self.timer.cancel()
            self.tail = seen[-3:]
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        answer: bool | None = self.inner.eof_received()
        return answer

    def connection_lost(self, exc: Exception | None) -> None:
        _WATCHED.pop(self.transport, None)
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
