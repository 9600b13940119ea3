"""``build`` and ``compress``: a budgeted prompt from a task, files and memory; one file under
one compression policy."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from ..errors import UsageError
from ..files import display_path, read_text
from . import _params as params
from ._param import ALL, CLI, SERVED, Param, hidden, inputs_confined
from ._params import Budget, Model
from ._registry import Command, Invocation, command

if TYPE_CHECKING:
    from ..builder import BuildResult, CompressPreview

__all__ = ["build", "compress"]

PathArg = str | os.PathLike[str]


@inputs_confined
def build(
    task: Annotated[
        str | None,
        Param(
            "the task (exact, never compressed)",
            metavar="TEXT",
            exclusive="task",
            max_length=1_000_000,
            needed=SERVED,
        ),
    ] = None,
    paths: Annotated[
        Sequence[PathArg],
        Param(
            "files, directories or glob patterns (under the root)",
            positional=True,
            metavar="PATH",
        ),
    ] = (),
    *,
    task_file: Annotated[
        PathArg | None,
        Param(
            "read the task from F", metavar="F", exclusive="task", surfaces=CLI, input="task_file"
        ),
    ] = None,
    memory: Annotated[
        PathArg | None,
        Param("a project (or .context/) to search for memory", metavar="DIR", max_length=4096),
    ] = None,
    task_boost: Annotated[
        bool,
        Param(
            "boost the priority of files that match the task's words (up to +15)",
            flag="--no-task-boost",
            flag_help="no priority boost for files that match the task's words",
        ),
    ] = True,
    budget: Budget = None,
    model: Model = None,
    counter: Annotated[str | None, params.counter("chars/3", model=True)] = None,
    root: Annotated[
        PathArg | None, hidden("every file must resolve inside it", session="root")
    ] = None,
) -> BuildResult:
    """Build a prompt: the task (exact), files, directories and globs (``paths``) and memory
    from a project's ``.context/`` (``memory``), within ``budget`` tokens (or the model's).
    Files matching the task's words gain up to +15 priority unless ``task_boost`` is off.

    With ``root`` relative paths start there and every file — named, in a directory or matched
    by a glob, symlinks resolved — must lie inside it.
    """
    if task is None and task_file is not None:
        path = task_file  # confined to the root by the declaration
        task = read_text(path)
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


@inputs_confined
def compress(
    file: Annotated[
        PathArg, Param("the file to compress", positional=True, metavar="FILE", input="path")
    ],
    *,
    policy: Annotated[
        str | None,
        Param(
            "exact, structural, summarizable or reference",
            metavar="NAME",
            default_text="the file's own",
        ),
    ] = None,
    counter: Annotated[str, params.counter("chars/3")] = "chars/3",
    root: Annotated[
        PathArg | None, hidden("the file must resolve inside it", session="root")
    ] = None,
) -> CompressPreview:
    """``file`` under ``policy`` (default: the file's own default policy), with token counts
    before and after. With ``root`` the file must resolve inside it."""
    from ..builder import POLICIES, preview_compression

    if policy is not None and policy not in POLICIES:
        raise UsageError(f"unknown policy {policy!r}; use one of {', '.join(POLICIES)}")
    if root is None:
        return preview_compression(file, policy, counter, label=Path(file).as_posix())
    path = file  # confined to the root by the declaration
    return preview_compression(path, policy, counter, label=display_path(path, root))


def _prepare_build(kwargs: dict[str, Any], inv: Invocation) -> dict[str, Any]:
    if "task" not in kwargs and not kwargs.get("task_file"):
        if inv.cell is not None:
            kwargs["task"] = inv.cell
        else:
            raise UsageError(
                "give the task with --task TEXT or --task-file F (or as the cell body)"
            )
    return kwargs


command(
    Command(
        "build",
        "build a prompt from a task, files and memory within a token budget",
        build,
        formats=("md", "json"),
        surfaces=ALL,
        agent_help="Build a prompt for a task from files, directories and globs under the root "
        "(and a project's memory), compressed to fit a token budget (or a model's): each file "
        "kept whole, skeletonized, summarized or referenced, and a ledger of what each cost.",
        output="write to FILE (atomically; a FIFO or device in place)",
        epilog="examples:\n"
        '  ctx-lab build --task "Add retries to the fetcher" ctx_lab/ --budget 4000\n'
        "  ctx-lab build --task-file task.md 'src/**/*.py' docs/ --memory . --format json",
        prepare=_prepare_build,
        group="prompts",
    )
)
command(
    Command(
        "compress",
        "preview one file under one compression policy with before/after token counts",
        compress,
        epilog="examples:\n  ctx-lab compress ctx_lab/paging/_pager.py\n"
        "  ctx-lab compress README.md --policy summarizable --counter cl100k",
        group="prompts",
    )
)
