"""``build`` and ``compress``: a budgeted prompt from a task, files and memory; one file under
one compression policy."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..files import confine, display_path, read_text
from .params import add_budget_or_model, add_counter
from .registry import Command, Invocation, command, default_of

if TYPE_CHECKING:
    from ..builder import BuildResult, CompressPreview

__all__ = ["build", "compress"]

PathArg = str | os.PathLike[str]


def build(
    task: str,
    paths: Sequence[PathArg] = (),
    *,
    memory: PathArg | None = None,
    budget: int | None = None,
    model: str | None = None,
    counter: str | None = None,
    root: PathArg | None = None,
    task_boost: bool = True,
) -> BuildResult:
    """Build a prompt: the task (exact), files, directories and globs (``paths``) and memory
    from a project's ``.context/`` (``memory``), within ``budget`` tokens (or the model's).
    Files matching the task's words gain up to +15 priority unless ``task_boost`` is off.

    With ``root`` relative paths start there and every file — named, in a directory or matched
    by a glob, symlinks resolved — must lie inside it.
    """
    if not isinstance(task, str) or not task.strip():
        raise UsageError("the task is empty; give it with --task TEXT or --task-file F")
    if budget is not None and model is not None:
        raise UsageError("give either a budget or a model, not both")
    from ..builder import build_context

    return build_context(
        task,
        [os.fspath(p) for p in paths],
        memory,
        budget,
        counter,
        model,
        root=root if root is not None else ".",
        confined=root is not None,
        task_boost=task_boost,
    )


def compress(
    file: PathArg,
    *,
    policy: str | None = None,
    counter: str = "chars/3",
    root: PathArg | None = None,
) -> CompressPreview:
    """``file`` under ``policy`` (default: the file's own default policy), with token counts
    before and after. With ``root`` the file must resolve inside it."""
    from ..builder import POLICIES, preview_compression

    if policy is not None and policy not in POLICIES:
        raise UsageError(f"unknown policy {policy!r}; use one of {', '.join(POLICIES)}")
    if root is None:
        return preview_compression(file, policy, counter, label=Path(file).as_posix())
    path = confine(root, file, what="path")
    return preview_compression(path, policy, counter, label=display_path(path, root))


def _prepare_build(kwargs: dict[str, Any], inv: Invocation) -> dict[str, Any]:
    task_file = kwargs.pop("task_file", None)
    if "task" not in kwargs:
        if task_file:
            kwargs["task"] = read_text(task_file)
        elif inv.cell is not None:
            kwargs["task"] = inv.cell
        else:
            raise UsageError(
                "give the task with --task TEXT or --task-file F (or as the cell body)"
            )
    return kwargs


def _build_arguments(p: argparse.ArgumentParser) -> None:
    task = p.add_mutually_exclusive_group()
    task.add_argument("--task", metavar="TEXT", help="the task (exact, never compressed)")
    task.add_argument("--task-file", dest="task_file", metavar="F", help="read the task from F")
    p.add_argument("paths", nargs="*", metavar="PATH", help="files, directories or glob patterns")
    p.add_argument("--memory", metavar="DIR", help="a project (or .context/) to search for memory")
    p.add_argument(
        "--no-task-boost",
        dest="task_boost",
        action="store_false",
        help="no priority boost for files that match the task's words",
    )
    add_budget_or_model(p)
    add_counter(p, "chars/3", model_default=True)
    p.add_argument(
        "--format", choices=("md", "json"), default="md", help="output format (default md)"
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write to FILE (atomically; a FIFO or device in place)",
    )


def _compress_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE")
    p.add_argument(
        "--policy",
        metavar="NAME",
        help="exact, structural, summarizable or reference (default: the file's own)",
    )
    add_counter(p, default_of(compress, "counter"))


command(
    Command(
        "build",
        "build a prompt from a task, files and memory within a token budget",
        build,
        _build_arguments,
        formats=("md", "json"),
        epilog="examples:\n"
        '  ctx-lab build --task "Add retries to the fetcher" ctx_lab/ --budget 4000\n'
        "  ctx-lab build --task-file task.md 'src/**/*.py' docs/ --memory . --format json",
        prepare=_prepare_build,
    )
)
command(
    Command(
        "compress",
        "preview one file under one compression policy with before/after token counts",
        compress,
        _compress_arguments,
        epilog="examples:\n  ctx-lab compress ctx_lab/paging/pager.py\n"
        "  ctx-lab compress README.md --policy summarizable --counter cl100k",
    )
)
