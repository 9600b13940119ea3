"""The recording reverse proxy: an agent is pointed at it by its base URL; each request goes to
the upstream API as sent (method, the path and query exactly as received, body and headers,
hop-by-hop headers aside) and the answer comes back unchanged — status, headers and body bytes
as they arrive, a Server-Sent Events stream chunk by chunk, compressed bodies still compressed,
errors and retries as they are.

Built on aiohttp: one well-kept library that is both the server and the client, streams both
ways with backpressure (a slow agent slows the upstream read, nothing piles up), and can pass
compressed bodies through untouched (``auto_decompress=False``) — what byte-for-byte forwarding
needs; the server side is started and stopped from a thread or an event loop alike.

What it promises (SECURITY.md, "The capture proxy"):

- **Only the agent may talk to it**: ``Host`` must name the address the connection came to
  (``localhost`` too on loopback) and a request carrying ``Origin`` is refused unless that
  origin was allowed; refused requests are never forwarded or recorded.
- **Forwarded as sent**: the raw path and query are appended to the upstream's prefix; ``.``
  and ``..`` segments, encoded or not, are refused (400).
- **Bounded**: request bodies stream upstream as they arrive (only the first ``max_body`` bytes
  are kept for the record); at most ``max_concurrent`` calls at once (beyond: 503 with
  ``Retry-After``); the record's decompression is incremental and stops at ``max_body``.
- **Nothing finished is lost**: a call's row is committed (in a batch with the calls that end
  beside it) before the last bytes of its answer are released to the client, so a crash loses
  only calls in flight; a full disk is said once a minute and forwarding goes on.
- **Nothing secret at rest**: request headers are never stored, and credential-like query
  parameters are masked in the stored path (:func:`mask_query`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import datetime
from typing import Any

from ..anatomy import CaptureStore
from ..clock import utc_now
from ._guard import (
    cross_site,
    host_allowed,
    mask_query,
    next_request,
    refused_path,
)
from ._record import Recorder, _Decoder
from ._sse import EventGate

__all__ = ["HOP_BY_HOP", "CaptureProxy"]

# hop-by-hop headers (RFC 9110 §7.6.1) and what the client library sets itself
HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
# a request's Content-Length goes upstream with its streamed body (no chunked re-encoding)
REQUEST_HOP_BY_HOP = HOP_BY_HOP - {"content-length"}


class CaptureProxy:
    """Forwards to ``upstream`` and records every call in ``store``."""

    def __init__(
        self,
        provider: str,
        upstream: str,
        store: CaptureStore,
        *,
        max_body: int = 16 * 1024 * 1024,
        clock: Callable[[], datetime] = utc_now,
        max_concurrent: int = 64,
        allow_origins: Sequence[str] = (),
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.provider = provider
        self.upstream = upstream.rstrip("/")
        self.store = store
        self.max_body = max_body
        self.clock = clock
        self.max_concurrent = max_concurrent
        self.allow_origins = frozenset(o.rstrip("/") for o in allow_origins)
        self.warn = warn
        self.session: Any = None
        self.recorder: Recorder | None = None
        self.calls = 0
        self.active = 0
        self.draining = False
        self._idle: asyncio.Event | None = None

    def app(self) -> Any:
        """The aiohttp application (every path and method goes upstream)."""
        from aiohttp import web

        @web.middleware
        async def guard(request: Any, handler: Any) -> Any:
            return await self._guard(request, handler)

        app = web.Application(middlewares=[guard])
        app.router.add_route("*", "/{tail:.*}", self.handle)
        app.on_startup.append(self._open)
        app.on_cleanup.append(self._close)
        return app

    async def _open(self, app: Any) -> None:
        import aiohttp

        self.session = aiohttp.ClientSession(
            auto_decompress=False,
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=600),
        )
        self.recorder = Recorder(self.store, self.warn)
        self._idle = asyncio.Event()
        self._idle.set()

    async def _close(self, app: Any) -> None:
        if self.session is not None:
            await self.session.close()
        if self.recorder is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.recorder.close)

    @property
    def lost(self) -> int:
        """Calls forwarded whose rows could not be written (a full disk, a broken file)."""
        return self.recorder.lost if self.recorder is not None else 0

    def stop_line(self, finished: bool = True) -> str:
        """What the proxy says when it stops: the calls recorded, lost, and cut."""
        kept = self.calls - self.lost
        line = f"ctx-lab capture: stopped; {kept} call(s) recorded"
        if self.lost:
            line += f", {self.lost} forwarded but lost (their rows could not be written)"
        if not finished:
            line += f" ({self.active} call(s) still in flight were cut)"
        return line

    async def drain(self, grace: float) -> bool:
        """Refuse new calls and wait up to ``grace`` seconds for those in flight; True when
        every one finished."""
        self.draining = True
        if self._idle is None:
            return True
        try:
            await asyncio.wait_for(self._idle.wait(), grace)
        except TimeoutError:
            return False
        return True

    # -- who may call ----------------------------------------------------------------------

    def _refusal(self, request: Any) -> tuple[int, str] | None:
        origin = request.headers.get("Origin")
        if origin is not None and origin.rstrip("/") not in self.allow_origins:
            return 403, f"Origin {origin[:100]!r} is not allowed (ctx-lab capture --allow-origin)"
        why = cross_site(request.method, request.raw_path, request.headers)
        if why and origin is None:  # an allowed Origin was checked above
            return 403, why
        host = request.headers.get("Host", "")
        if not host_allowed(host, request.transport):
            return 403, f"Host {host[:100]!r} is not the address this proxy listens on"
        why = refused_path(request.raw_path)
        if why:
            return 400, why
        return None

    @staticmethod
    def _error(status: int, message: str, **headers: str) -> Any:
        from aiohttp import web

        body = {"error": {"type": "ctx_lab_capture", "message": message}}
        return web.json_response(body, status=status, headers=headers or None)

    async def _guard(self, request: Any, handler: Any) -> Any:

        try:
            return await self._answer(request, handler)
        finally:  # the next request on this connection gets a head deadline of its own
            next_request(request.transport)

    async def _answer(self, request: Any, handler: Any) -> Any:
        from aiohttp import web

        refusal = self._refusal(request)
        if refusal is not None:
            return self._error(*refusal)
        if self.draining:
            stopping = {"Retry-After": "1", "Connection": "close"}
            return self._error(503, "the proxy is stopping", **stopping)
        if self.active >= self.max_concurrent:
            return self._error(
                503, f"more than {self.max_concurrent} calls at once", **{"Retry-After": "1"}
            )
        self.active += 1
        assert self._idle is not None
        self._idle.clear()
        try:
            response: web.StreamResponse = await handler(request)
            return response
        finally:
            self.active -= 1
            if self.active == 0:
                self._idle.set()

    # -- one call ----------------------------------------------------------------------------

    async def handle(self, request: Any) -> Any:
        """Forward one request, stream its answer back, and commit the call's row before the
        answer's last bytes are released."""
        import aiohttp
        import yarl
        from aiohttp import web

        began = time.monotonic()
        kept = _Decoder("", self.max_body)
        headers = [
            (k, v) for k, v in request.headers.items() if k.lower() not in REQUEST_HOP_BY_HOP
        ]
        record: dict[str, Any] = {
            "started": self.clock().isoformat(),
            "provider": self.provider,
            "method": request.method,
            "path": mask_query(request.raw_path),
            "status": None,
            "stream": False,
            "error": None,
        }
        answer = _Answer(self.max_body)
        url = yarl.URL(self.upstream + request.raw_path, encoded=True)
        data = _tee(request.content, kept) if request.can_read_body else None
        try:
            async with self.session.request(
                request.method, url, headers=headers, data=data, allow_redirects=False,
                skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
            ) as upstream:  # fmt: skip
                record["status"] = upstream.status
                record["stream"] = upstream.headers.get("Content-Type", "").startswith(
                    "text/event-stream"
                )
                answer.decoder = _Decoder(
                    upstream.headers.get("Content-Encoding", "").strip().lower(), self.max_body
                )
                response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
                for key, value in upstream.headers.items():
                    if key.lower() not in HOP_BY_HOP:
                        response.headers.add(key, value)
                if "Content-Length" in upstream.headers:
                    with contextlib.suppress(ValueError):
                        response.content_length = int(upstream.headers["Content-Length"])
                await response.prepare(request)
                await answer.relay(upstream, response, record["stream"])
        except (TimeoutError, aiohttp.ClientError, OSError, ValueError) as exc:
            if isinstance(exc, ConnectionResetError) and answer.started:
                record["error"] = "the client went away mid-answer"
                await self._commit(record, kept, answer, began)
                raise
            record["error"] = _masked_error(exc, request.raw_path)
            if record["status"] is None:  # nothing sent back yet: say what went wrong
                record["status"] = 502
                await self._commit(record, kept, answer, began)
                return self._error(502, f"upstream: {record['error']}")
            await self._commit(record, kept, answer, began)
            raise
        except asyncio.CancelledError:
            record["error"] = "the client went away mid-answer"
            await self._commit(record, kept, answer, began)
            raise
        await self._commit(record, kept, answer, began)
        await answer.release(response)
        return response

    async def _commit(
        self, record: dict[str, Any], kept: _Decoder, answer: _Answer, began: float
    ) -> None:
        body, size, cut = kept.body()
        record.update(request_body=body, request_bytes=size, request_truncated=cut)
        data, total, rcut = answer.decoder.body() if answer.decoder else (b"", 0, False)
        record.update(response_body=data, response_bytes=total, response_truncated=rcut)
        record["duration_ms"] = round((time.monotonic() - began) * 1000, 3)
        self.calls += 1
        assert self.recorder is not None
        await asyncio.shield(asyncio.wrap_future(self.recorder.submit(record)))


class _Answer:
    """An answer on its way back: chunks written as they come, except the last ones (a
    non-streamed or compressed body's final chunk; a stream's events from its closing event on,
    framed by :class:`~ctx_lab.capture._sse.EventGate`), which wait until the call is committed."""

    def __init__(self, limit: int = 16 * 1024 * 1024) -> None:
        self.decoder: _Decoder | None = None
        self.held = bytearray()
        self.started = False
        self.limit = limit

    async def relay(self, upstream: Any, response: Any, stream: bool) -> None:
        gate = EventGate(self.limit) if stream and self._plain(upstream) else None
        async for chunk in upstream.content.iter_any():
            assert self.decoder is not None
            self.decoder.feed(chunk)
            if gate is not None:
                ready = gate.feed(chunk)
                if ready:
                    self.started = True
                    await response.write(ready)
                continue
            if self.held:  # one chunk behind, so the last one waits
                self.started = True
                await response.write(bytes(self.held))
                self.held.clear()
            self.held += chunk
        if gate is not None:
            self.held += gate.rest()

    @staticmethod
    def _plain(upstream: Any) -> bool:
        """Whether the stream's bytes are its events (not compressed)."""
        encoding = upstream.headers.get("Content-Encoding", "").strip().lower()
        return encoding in ("", "identity")

    async def release(self, response: Any) -> None:
        """Send what was held and end the answer (a client already gone changes nothing: the
        call was complete and is recorded)."""
        with contextlib.suppress(ConnectionResetError):
            if self.held:
                await response.write(bytes(self.held))
            await response.write_eof()


async def _tee(content: Any, kept: _Decoder) -> AsyncIterator[bytes]:
    """The request body as it arrives, its first bytes kept for the record."""
    async for chunk in content.iter_any():
        kept.feed(chunk)
        yield chunk


def _masked_error(exc: BaseException, raw_path: str) -> str:
    text = f"{type(exc).__name__}: {exc}"
    masked = mask_query(raw_path)
    return (text.replace(raw_path, masked) if masked != raw_path else text)[:2000]
