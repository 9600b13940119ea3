"""``ctx-lab journal recover|stats DB``: inspect crash journals without changing them."""

from __future__ import annotations

import argparse

from ..conversation.recovery import inspect_journal
from ..display import RichResult
from .registry import Command, Invocation, command


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "action", choices=("recover", "stats"), help="what recovery would find, or counts"
    )
    p.add_argument("db", metavar="DB", help="a SQLite file with a stream and/or tool journal")


def _run(args: argparse.Namespace, inv: Invocation) -> RichResult:
    return inspect_journal(args.db, args.action)


JOURNAL = command(
    Command(
        "journal",
        "show what a crash journal holds: the recoverable step and tool batch, or counts",
        _arguments,
        _run,
        epilog="examples:\n  ctx-lab journal recover ~/.agent/stream.db\n"
        "  ctx-lab journal stats ~/.agent/stream.db --format json",
    )
)
