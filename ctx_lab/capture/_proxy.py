"""The recording reverse proxy: an agent is pointed at it by its base URL; each request goes to
the upstream API unchanged (method, path, query, body and headers, hop-by-hop headers aside) and
the answer comes back unchanged — status, headers and body bytes as they arrive, a Server-Sent
Events stream chunk by chunk, compressed bodies still compressed, errors and retries as they are.

Built on aiohttp: one well-kept library that is both the server and the client, streams both
ways with backpressure (a slow agent slows the upstream read, nothing piles up), and can pass
compressed bodies through untouched (``auto_decompress=False``) — what byte-for-byte forwarding
needs; the server side is started and stopped from a thread or an event loop alike.

Each call is recorded when it ends (a row of the capture file, committed): the request body, the
response body (decompressed for the record; at most ``max_body`` bytes of either, more cut and
flagged — memory per stream stays bounded), status, timing. Request headers are never written,
so neither are credentials.
"""

from __future__ import annotations

import asyncio
import threading
import time
import zlib
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..anatomy import CaptureStore
from ..clock import utc_now

__all__ = ["HOP_BY_HOP", "CaptureProxy", "Served"]

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
MAX_REQUEST = 64 * 1024 * 1024  # bytes of one request body the proxy accepts


def _decoded(data: bytes, encoding: str) -> bytes:
    """The body as text bytes for the record (gzip and deflate undone; anything else kept)."""
    try:
        if encoding == "gzip":
            return zlib.decompress(data, 16 + zlib.MAX_WBITS)
        if encoding == "deflate":
            return zlib.decompress(data)
        if encoding == "br":
            import brotli  # type: ignore[import-not-found]

            return bytes(brotli.decompress(data))
    except Exception:  # a cut or undecodable body is recorded as it came
        return data
    return data


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
    ) -> None:
        self.provider = provider
        self.upstream = upstream.rstrip("/")
        self.store = store
        self.max_body = max_body
        self.clock = clock
        self.session: Any = None
        self.calls = 0

    def app(self) -> Any:
        """The aiohttp application (every path and method goes upstream)."""
        from aiohttp import web

        app = web.Application(client_max_size=MAX_REQUEST)
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

    async def _close(self, app: Any) -> None:
        if self.session is not None:
            await self.session.close()

    async def handle(self, request: Any) -> Any:
        """Forward one request and stream its answer back, then record the call."""
        import aiohttp
        from aiohttp import web

        started = self.clock().isoformat()
        began = time.monotonic()
        body = await request.read()
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP]
        url = self.upstream + str(request.rel_url)
        record: dict[str, Any] = {
            "started": started,
            "provider": self.provider,
            "method": request.method,
            "path": str(request.rel_url),
            "request_body": body[: self.max_body],
            "request_bytes": len(body),
            "status": None,
            "stream": False,
            "response_body": b"",
            "response_bytes": 0,
            "error": None,
        }
        kept = bytearray()
        total = 0
        try:
            async with self.session.request(
                request.method, url, headers=headers, data=body, allow_redirects=False
            ) as upstream:
                record["status"] = upstream.status
                kind = upstream.headers.get("Content-Type", "")
                record["stream"] = kind.startswith("text/event-stream")
                response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
                for key, value in upstream.headers.items():
                    if key.lower() not in HOP_BY_HOP:
                        response.headers.add(key, value)
                if "Content-Length" in upstream.headers:
                    response.content_length = int(upstream.headers["Content-Length"])
                await response.prepare(request)
                async for chunk in upstream.content.iter_any():
                    await response.write(chunk)
                    total += len(chunk)
                    if len(kept) < self.max_body:
                        kept += chunk[: self.max_body - len(kept)]
                await response.write_eof()
                encoding = upstream.headers.get("Content-Encoding", "").strip().lower()
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            record["error"] = f"{type(exc).__name__}: {exc}"
            if record["status"] is None:  # nothing sent back yet: say what went wrong
                record["status"] = 502
                await self._finish(record, kept, total, "", began)
                return web.json_response(
                    {"error": {"type": "ctx_lab_capture", "message": f"upstream: {exc}"}},
                    status=502,
                )
            await self._finish(record, kept, total, "", began)
            raise
        except (asyncio.CancelledError, ConnectionResetError):
            record["error"] = "the client went away mid-answer"
            await self._finish(record, kept, total, "", began)
            raise
        await self._finish(record, kept, total, encoding, began)
        return response

    async def _finish(
        self, record: dict[str, Any], kept: bytearray, total: int, encoding: str, began: float
    ) -> None:
        complete = len(kept) == total
        data = _decoded(bytes(kept), encoding) if complete else bytes(kept)
        record["response_body"] = data[: self.max_body]
        record["response_bytes"] = len(data) if complete else total
        record["duration_ms"] = round((time.monotonic() - began) * 1000, 3)
        self.calls += 1
        await asyncio.get_running_loop().run_in_executor(None, lambda: self.store.record(**record))


class Served:
    """An aiohttp application serving on 127.0.0.1 in a thread of its own (the proxy in a
    notebook, a fake upstream in a test): ``url`` is its base URL; ``stop()`` ends it."""

    def __init__(self, app: Any, port: int = 0) -> None:
        self.app = app
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self.port = port
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="ctx-lab-served", daemon=True)
        self._thread.start()
        if not self._ready.wait(30):
            raise TimeoutError("the server did not start within 30 s")
        if self._failure is not None:
            raise self._failure

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()
        try:
            self._loop.run_until_complete(self._serve())
        except BaseException as exc:  # reported to the starting thread
            self._failure = exc
            self._ready.set()
        finally:
            self._loop.close()

    async def _serve(self) -> None:
        from aiohttp import web

        runner = web.AppRunner(self.app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", self.port)
        await site.start()
        self.port = runner.addresses[0][1]
        self._stop = asyncio.Event()
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            await runner.cleanup()

    def stop(self) -> None:
        """Stop serving (a proxy's capture file keeps every finished call)."""
        if self._loop is not None and self._stop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
