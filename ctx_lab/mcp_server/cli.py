"""``ctx-lab mcp serve``: the flags of :func:`ctx_lab.commands.mcp_serve`'s declaration, and the
server (:class:`~ctx_lab.mcp_server.CtxLabMCP`) they start."""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path

from ..commands import add_declared, mcp_serve
from ..errors import CtxLabError, UsageError

__all__ = ["main"]


_EXAMPLES = """examples:
  ctx-lab mcp serve --root .                      # stdio: an agent starts it (claude mcp add …)
  ctx-lab mcp serve --root ~/project --model gpt-4o --max-pages 20
  ctx-lab mcp serve --transport http --port 8765  # Streamable HTTP at http://127.0.0.1:8765/mcp
  ctx-lab mcp serve --transport http --host 0.0.0.0 --token "$CTX_LAB_MCP_TOKEN"

needs the [mcp] extra: pip install "ctx-lab[mcp]"; the tools and their parameters: docs/agents.md"""


def _description() -> str:
    import textwrap

    from ..commands import mcp_tools

    tools = ", ".join(sorted(mcp_tools()))
    return textwrap.fill(
        f"Serve ctx-lab's tools ({tools}) and the project's packet and .context/ files to "
        "agents over the Model Context Protocol, confined to --root.",
        width=78,
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ctx-lab mcp",
        description=_description(),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="mcp_action", metavar="ACTION", required=True)
    serve = sub.add_parser(
        "serve",
        help="run the MCP server (stdio by default)",
        description=_description(),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        argument_default=argparse.SUPPRESS,
    )
    add_declared(serve, mcp_serve)  # the flags of commands.mcp_serve's declaration
    return parser


def main(argv: Sequence[str]) -> int:
    """Run ``ctx-lab mcp …``; exit 2 for usage errors, 1 for runtime errors."""
    try:
        args = vars(_parser().parse_args(list(argv)))
    except SystemExit as exc:
        return int(exc.code or 0)
    args.pop("mcp_action")
    try:
        try:
            import mcp  # noqa: F401

            from ._calllog import CallLog
            from ._serve import serve
            from ._server import TOKEN_ENV, CtxLabMCP, is_loopback
        except ImportError as exc:
            raise UsageError(
                f"the MCP server needs the mcp SDK: pip install 'ctx-lab[mcp]' ({exc})"
            ) from None
        options = mcp_serve(**args)
        token = options.token or os.environ.get(TOKEN_ENV) or None
        if options.transport == "http" and not token and not is_loopback(options.host):
            token = secrets.token_urlsafe(24)
            print(
                f"ctx-lab mcp: {options.host} is reachable from other machines: clients must send "
                f"'Authorization: Bearer {token}' (set --token or ${TOKEN_ENV} to choose it)",
                file=sys.stderr,
            )
        state = CtxLabMCP(
            Path(options.root),
            budget=options.budget,
            model=options.model,
            allow_private=options.allow_private,
            max_pages=options.max_pages,
            max_tokens=options.max_tokens,
            log=CallLog(options.log) if options.log else None,
            watch_interval=options.watch_interval,
        )
        serve(
            state,
            options.transport,
            options.host,
            options.port,
            token=token,
            allow_hosts=options.allow_hosts,
            allow_origins=options.allow_origins,
        )
    except CtxLabError as exc:
        print(f"ctx-lab mcp: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    return 0
