"""``history`` and ``journal``: a saved conversation's usage, and what a crash journal holds."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from ..files import confine
from ..validate import choice
from .registry import Command, command

if TYPE_CHECKING:
    from ..conversation.recovery import JournalReport
    from ..conversation.report import HistoryReport

__all__ = ["history", "journal"]

PathArg = str | os.PathLike[str]
JOURNAL_ACTIONS = ("recover", "stats")


def history(
    file: PathArg, *, model: str | None = None, check: bool = False, root: PathArg | None = None
) -> HistoryReport:
    """Usage, segments and what needs summarizing in a history saved with
    ``ContextManager.save()``, against its own model or ``model``; with ``check`` the CLI
    exits 1 unless the context fits."""
    from ..conversation.manager import ContextManager
    from ..conversation.report import history_report

    path = confine(root, file, what="file") if root is not None else file
    # a model named here counts with its own tokenizer (or a named estimate)
    manager = ContextManager.load(path, model, counter="model" if model else None)
    return history_report(manager, os.fspath(file), check)


def journal(action: str, db: PathArg, *, root: PathArg | None = None) -> JournalReport:
    """What recovery would find in a crash journal (``recover``), or its counts (``stats``);
    the journal is opened read-only."""
    from ..conversation.recovery import inspect_journal

    choice(action, JOURNAL_ACTIONS, "action")
    path = confine(root, db, what="db") if root is not None else db
    return inspect_journal(path, action)


def _history_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="a history saved with ContextManager.save()")
    p.add_argument(
        "--model", metavar="M", help="evaluate against this model instead of the saved one"
    )
    p.add_argument("--check", action="store_true", help="exit 1 unless the context fits")


def _journal_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=JOURNAL_ACTIONS, help="what recovery would find, or counts")
    p.add_argument("db", metavar="DB", help="a SQLite file with a stream and/or tool journal")


command(
    Command(
        "history",
        "show a saved conversation's context usage, segments and what needs summarizing",
        history,
        _history_arguments,
        epilog="examples:\n  ctx-lab history chat.json\n"
        "  ctx-lab history chat.json --model gpt-4o --check",
    )
)
command(
    Command(
        "journal",
        "show what a crash journal holds: the recoverable step and tool batch, or counts",
        journal,
        _journal_arguments,
        epilog="examples:\n  ctx-lab journal recover ~/.agent/stream.db\n"
        "  ctx-lab journal stats ~/.agent/stream.db --format json",
    )
)
