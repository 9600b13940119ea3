"""``ctx-lab packet`` and ``ctx-lab entries``: a budgeted context packet and its ledger."""

from __future__ import annotations

import argparse
from datetime import datetime

from ..display import RichResult
from ..errors import UsageError
from ..examples import EXAMPLE_DIR, EXAMPLE_NOW
from ..packet.assemble import assemble_packet
from ..packet.context import load_context
from ..packet.entries import EntriesReport
from ..packet.packet import Packet
from .options import add_counter, non_negative_int
from .registry import Command, Invocation, command


def parse_now(text: str) -> datetime:
    """An ISO 8601 date or date-time (``Z`` allowed); naive values are local time."""
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an ISO 8601 date or date-time (e.g. 2026-06-15T12:00:00Z)"
        ) from None


def _packet_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "directory", nargs="?", metavar="DIR", help="project or .context/ directory (default .)"
    )
    p.add_argument(
        "--example",
        action="store_true",
        help="use the example project shipped with ctx-lab (now pinned to its own date)",
    )
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--budget", type=non_negative_int, metavar="N", help="token budget")
    budget.add_argument("--model", metavar="M", help="use the model's effective input budget")
    p.add_argument("--now", type=parse_now, metavar="ISO", help="the current time (default: now)")
    add_counter(p, "bytes/4")


def build_packet(args: argparse.Namespace) -> Packet:
    """Load and assemble as the packet and entries commands ask."""
    if args.example and args.directory:
        raise UsageError("give either DIR or --example, not both")
    directory = EXAMPLE_DIR if args.example else (args.directory or ".")
    now = args.now or (EXAMPLE_NOW if args.example else None)
    ctx = load_context(directory)
    return assemble_packet(ctx, args.budget, now, args.counter, args.model)


def _packet_options(p: argparse.ArgumentParser) -> None:
    _packet_arguments(p)
    p.add_argument(
        "--format", choices=("md", "json"), default="md", help="output format (default md)"
    )
    p.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout"
    )


def _entries_options(p: argparse.ArgumentParser) -> None:
    _packet_arguments(p)
    p.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="output format (default table)",
    )


def _run_packet(args: argparse.Namespace, inv: Invocation) -> RichResult:
    return build_packet(args)


def _run_entries(args: argparse.Namespace, inv: Invocation) -> RichResult:
    return EntriesReport(build_packet(args))


PACKET = command(
    Command(
        "packet",
        "assemble a budgeted context packet from a project's .context/",
        _packet_options,
        _run_packet,
        formats=("md", "json"),
        epilog="examples:\n  ctx-lab packet --example --budget 2000\n"
        "  ctx-lab packet ~/src/billing --model gpt-4o --counter cl100k\n"
        "  ctx-lab packet . --format json -o packet.json",
    )
)
ENTRIES = command(
    Command(
        "entries",
        "show the scored entries of a packet: what was kept, summarized or left out, and why",
        _entries_options,
        _run_entries,
        formats=("table", "csv", "json"),
        epilog="examples:\n  ctx-lab entries --example --budget 2000\n"
        "  ctx-lab entries . --format csv",
    )
)
