"""``ctx-lab capture``: the flags of :func:`ctx_lab.commands.capture_serve`'s declaration, and the
recording proxy they start on 127.0.0.1."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from ..commands import add_declared, capture_serve
from ..errors import CtxLabError, UsageError

__all__ = ["main"]

EXAMPLES = """examples:
  ctx-lab capture --provider anthropic --db calls.db
      then: ANTHROPIC_BASE_URL=http://127.0.0.1:8787 claude
  ctx-lab capture --provider openai --db calls.db --port 8788
      then: OPENAI_BASE_URL=http://127.0.0.1:8788/v1 codex
  ctx-lab capture --provider anthropic --db demo.db --fake recorded.db
      a demo without a key: every call is answered from recorded.db's answers
  ctx-lab anatomy calls.db --session"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctx-lab capture",
        description="Record every call an agent makes: a reverse proxy on 127.0.0.1 that forwards "
        "each request unchanged to the provider, streams the answer back unchanged, and writes "
        "request, response, usage and timing to a SQLite capture file (never headers or keys).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        argument_default=argparse.SUPPRESS,
    )
    add_declared(parser, capture_serve)
    return parser


def main(argv: Sequence[str]) -> int:
    """Run ``ctx-lab capture …`` until interrupted; exit 2 for usage errors, 1 for others."""
    try:
        args = vars(_parser().parse_args(list(argv)))
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        try:
            import aiohttp  # noqa: F401
        except ImportError as exc:
            raise UsageError(
                f"the capture proxy needs aiohttp: pip install 'ctx-lab[capture]' ({exc})"
            ) from None
        options = capture_serve(**args)
        from ..anatomy import CaptureStore
        from ._proxy import CaptureProxy

        fake = None
        if options.fake is not None:
            from ._replay import RecordedUpstream, recorded_answers

            fake = RecordedUpstream(recorded_answers(options.fake))
        store = CaptureStore(options.db)

        def proxy_to(upstream: str) -> Any:
            return CaptureProxy(
                options.provider,
                upstream,
                store,
                max_body=options.max_body,
                max_concurrent=options.max_concurrent,
                allow_origins=options.allow_origins,
            )

        return _serve(proxy_to, options, fake)
    except CtxLabError as exc:
        print(f"ctx-lab capture: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:
        print(f"ctx-lab capture: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0


async def _start_fake(fake: Any) -> tuple[Any, Any, str]:
    """The recorded answers served on a free port of 127.0.0.1: (runner, server, URL)."""
    from aiohttp import web

    from ._guard import listen

    runner = web.AppRunner(fake.app(), access_log=None)
    await runner.setup()
    server = await listen(runner, 0)
    return runner, server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"


def _serve(proxy_to: Any, options: Any, fake: Any = None) -> int:
    """Serve until SIGTERM or SIGINT; then stop accepting, let calls in flight finish within
    the grace period (each is committed before its last bytes go out), close the file, exit 0.
    With ``fake`` (recorded answers) the proxy forwards to them, served on 127.0.0.1."""
    import asyncio
    import signal

    from aiohttp import web

    from ._guard import listen

    _return_large_buffers()

    async def run() -> int:
        fake_runner: Any = None
        fake_server: Any = None
        upstream = options.upstream
        where = f"{upstream}, recording to {options.db}"
        if fake is not None:
            from ._replay import describe

            fake_runner, fake_server, upstream = await _start_fake(fake)
            where = (
                f"{describe(fake.recorded)} from {options.fake} (no provider is called), "
                f"recording to {options.db}"
            )
        proxy = proxy_to(upstream)
        runner = web.AppRunner(proxy.app(), access_log=None, shutdown_timeout=options.grace)
        await runner.setup()
        server = await listen(runner, options.port, options.header_timeout)
        bound = server.sockets[0].getsockname()[1]
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        print(f"ctx-lab capture: http://127.0.0.1:{bound} → {where}", file=sys.stderr, flush=True)
        try:
            await stop.wait()
        finally:
            server.close()  # no new connections
            finished = await proxy.drain(options.grace)
            await runner.cleanup()  # the last rows are committed before the file closes
            proxy.store.close()
            if fake_runner is not None:
                fake_server.close()
                await fake_runner.cleanup()
        print(proxy.stop_line(finished), file=sys.stderr)
        return 0

    return asyncio.run(run())


def _return_large_buffers() -> None:
    """Keep glibc from holding freed record buffers for the life of the process.

    The record of a call keeps up to ``--max-body`` bytes (16 MiB) until it is committed. glibc
    serves a buffer that large by ``mmap`` at first, but after freeing one it raises its
    threshold to that size and serves later ones from its heaps, which keep the memory: a proxy
    left running grew by ~90 MB after a few 100 MB answers. A fixed threshold (1 MiB) keeps
    large buffers mapped, so each is returned when freed. Elsewhere (musl, macOS) nothing is done.
    """
    import ctypes
    import ctypes.util
    import platform

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        m_mmap_threshold = -3  # <malloc.h>
        libc.mallopt(m_mmap_threshold, 1024 * 1024)
    except (OSError, AttributeError):  # no mallopt: the default behaviour stays
        pass
