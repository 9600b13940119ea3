"""An aiohttp application served on 127.0.0.1 in a thread of its own (the proxy in a notebook,
a fake upstream in a test), every connection under the head deadline of :mod:`._guard`."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from ._guard import listen

__all__ = ["Served"]


class Served:
    """An aiohttp application serving on 127.0.0.1 in a thread of its own (the proxy in a
    notebook, a fake upstream in a test): ``url`` is its base URL; ``stop()`` ends it."""

    def __init__(self, app: Any, port: int = 0, *, header_timeout: float = 10.0) -> None:
        self.app = app
        self.header_timeout = header_timeout
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

        runner = web.AppRunner(self.app, access_log=None, shutdown_timeout=5)
        await runner.setup()
        server = await listen(runner, self.port, self.header_timeout)
        self.port = server.sockets[0].getsockname()[1]
        self._stop = asyncio.Event()
        self._ready.set()
        try:
            await self._stop.wait()
        finally:
            server.close()
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
