"""``ctx-lab history``: usage, segments and what needs summarizing in a saved conversation."""

from __future__ import annotations

import argparse

from ..conversation.manager import ContextManager
from ..conversation.report import history_report
from ..display import RichResult
from .registry import Command, Invocation, command


def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a history saved with ContextManager.save()")
    p.add_argument(
        "--model", metavar="M", help="evaluate against this model instead of the saved one"
    )
    p.add_argument("--check", action="store_true", help="exit 1 unless the context fits")


def _run(args: argparse.Namespace, inv: Invocation) -> RichResult:
    manager = ContextManager.load(args.file, args.model)
    return history_report(manager, args.file, args.check)


HISTORY = command(
    Command(
        "history",
        "show a saved conversation's context usage, segments and what needs summarizing",
        _arguments,
        _run,
        epilog="examples:\n  ctx-lab history chat.json\n"
        "  ctx-lab history chat.json --model gpt-4o --check",
    )
)
