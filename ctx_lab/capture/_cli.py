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

        store = CaptureStore(options.db)
        proxy = CaptureProxy(options.provider, options.upstream, store, max_body=options.max_body)
        _serve(proxy, options.port, f"{options.upstream}, recording to {options.db}")
    except CtxLabError as exc:
        print(f"ctx-lab capture: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except OSError as exc:
        print(f"ctx-lab capture: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0


def _serve(proxy: Any, port: int, where: str) -> None:
    """Serve until interrupted, saying where once listening (port 0: the one given)."""
    import asyncio

    from aiohttp import web

    async def run() -> None:
        runner = web.AppRunner(proxy.app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", port)
        await site.start()
        bound = runner.addresses[0][1] if runner.addresses else port
        print(f"ctx-lab capture: http://127.0.0.1:{bound} → {where}", file=sys.stderr, flush=True)
        try:
            await asyncio.Event().wait()
        finally:
            await runner.cleanup()

    asyncio.run(run())
