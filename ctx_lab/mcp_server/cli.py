"""``ctx-lab mcp serve``: its flags, mapped onto :class:`~ctx_lab.mcp_server.CtxLabMCP`."""

from __future__ import annotations

import argparse
import math
import os
import secrets
import sys
from collections.abc import Sequence

from ..commands.params import whole
from ..errors import CtxLabError, UsageError

__all__ = ["main"]


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctx-lab mcp",
        description="Serve ctx-lab's read, page, packet, build and count_tokens tools and the "
        "project's packet and .context/ files to agents over the Model Context Protocol.",
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    serve = sub.add_parser("serve", help="run the MCP server (stdio by default)")
    serve.add_argument("--root", metavar="DIR", default=".", help="the only directory served")
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    serve.add_argument("--port", type=whole("--port"), default=8765, help="HTTP port (1–65535)")
    serve.add_argument(
        "--token",
        help="HTTP: require 'Authorization: Bearer TOKEN' (or $CTX_LAB_MCP_TOKEN); generated "
        "and printed when binding beyond loopback without one",
    )
    serve.add_argument(
        "--allow-host",
        dest="allow_hosts",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help="HTTP: another Host header to accept (the bound address is always accepted)",
    )
    serve.add_argument(
        "--allow-origin",
        dest="allow_origins",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="HTTP: a browser Origin to accept, e.g. http://localhost:3000 (none by default)",
    )
    size = serve.add_mutually_exclusive_group()
    size.add_argument("--budget", type=whole("--budget"), metavar="N", help="packet budget")
    size.add_argument("--model", metavar="M", help="packet budget and counter of this model")
    serve.add_argument("--max-pages", dest="max_pages", type=whole("--max-pages"), metavar="N")
    serve.add_argument("--max-tokens", dest="max_tokens", type=whole("--max-tokens"), metavar="N")
    serve.add_argument(
        "--allow-private",
        action="store_true",
        help="let read reach loopback and private addresses (off: only public ones)",
    )
    serve.add_argument("--log", metavar="FILE", help="append every tool call to FILE (JSONL)")
    serve.add_argument(
        "--watch-interval",
        dest="watch_interval",
        type=_seconds,
        default=2.0,
        metavar="S",
        help="seconds between checks of .context/ for changes (0: only on tool calls)",
    )
    return parser


def main(argv: Sequence[str]) -> int:
    """Run ``ctx-lab mcp …``; exit 2 for usage errors, 1 for runtime errors."""
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        try:
            import mcp  # noqa: F401

            from .calllog import CallLog
            from .server import TOKEN_ENV, CtxLabMCP, is_loopback, serve
        except ImportError as exc:
            raise UsageError(
                f"the MCP server needs the mcp SDK: pip install 'ctx-lab[mcp]' ({exc})"
            ) from None
        if not (args.watch_interval == 0 or 0.1 <= args.watch_interval <= 86_400):
            raise UsageError("--watch-interval must be 0 (off) or 0.1–86400 seconds")
        if not 1 <= args.port <= 65_535:
            raise UsageError(f"--port must be 1–65535, not {args.port}")
        token = args.token or os.environ.get(TOKEN_ENV) or None
        if args.transport == "http" and not token and not is_loopback(args.host):
            token = secrets.token_urlsafe(24)
            print(
                f"ctx-lab mcp: {args.host} is reachable from other machines: clients must send "
                f"'Authorization: Bearer {token}' (set --token or ${TOKEN_ENV} to choose it)",
                file=sys.stderr,
            )
        state = CtxLabMCP(
            args.root,
            budget=args.budget,
            model=args.model,
            allow_private=args.allow_private,
            max_pages=args.max_pages,
            max_tokens=args.max_tokens,
            log=CallLog(args.log) if args.log else None,
            watch_interval=args.watch_interval,
        )
        serve(
            state,
            args.transport,
            args.host,
            args.port,
            token=token,
            allow_hosts=args.allow_hosts,
            allow_origins=args.allow_origins,
        )
    except CtxLabError as exc:
        print(f"ctx-lab mcp: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    return 0
