"""``sweep``: packets of many projects at many budgets and models, on a local process pool or a
Dask cluster (``replay`` of many sessions shares the executor flags, declared here)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..validate import whole_number
from .params import RELEVANCE_CHOICES, add_counter, parse_now, whole
from .registry import Command, command

if TYPE_CHECKING:
    from ..analysis import CorpusReport

__all__ = ["add_executor_arguments", "executor_for", "sweep"]

PathArg = str | os.PathLike[str]


def executor_for(workers: int | None, scheduler: str | None) -> tuple[Any, int | None]:
    """The executor the flags ask for: a Dask scheduler's address, ``inline`` for
    ``workers=0``, else a local process pool of ``workers`` (default: one per CPU)."""
    if scheduler is not None and workers is not None:
        raise UsageError("give --workers (a local pool) or --scheduler (a Dask cluster), not both")
    if scheduler is not None:
        from ..analysis.executors import scheduler_address

        return scheduler_address(scheduler), None
    if workers is not None and whole_number(workers, "workers") == 0:
        return "inline", None
    return None, workers


def sweep(
    directories: Sequence[PathArg],
    *,
    budget: Sequence[int] = (),
    model: Sequence[str] = (),
    counter: str | None = None,
    now: datetime | None = None,
    profile: str = "design",
    focus: str | None = None,
    relevance: str = "auto",
    registry: str | None = None,
    workers: int | None = None,
    scheduler: str | None = None,
    ship: str = "paths",
    progress: bool = True,
    no_worker_timeout: float | None = None,
    root: PathArg | None = None,
) -> CorpusReport:
    """Assemble the packet of every project directory at each ``budget`` × ``model``; one row
    per project, budget, model and section, failing projects as error rows. Runs on a local
    process pool of ``workers`` (0: in this process) or the Dask ``scheduler``."""
    from ..analysis import run_sweep

    if not directories:
        raise UsageError("nothing to sweep: give one or more project directories")
    executor, size = executor_for(workers, scheduler)
    return run_sweep(
        directories,
        budget,
        model,
        counter=counter,
        now=now,
        profile=profile,
        focus=focus,
        relevance=relevance,
        registry=registry,
        executor=executor,
        workers=size,
        ship=ship,
        progress=progress,
        no_worker_timeout=no_worker_timeout,
        root=root,
    )


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"--no-worker-timeout {text!r} is not a number of seconds") from None
    if not 0 < value <= 86_400:
        raise UsageError(f"--no-worker-timeout must be 0–86400 seconds, got {text}")
    return value


def add_executor_arguments(p: argparse.ArgumentParser) -> None:
    """``--workers N``, ``--scheduler ADDRESS``, ``--ship``, ``--no-progress``, ``-o FILE``."""
    p.add_argument(
        "--workers",
        type=whole("--workers"),
        metavar="N",
        help="local worker processes (default: one per CPU; 0: run here, no pool)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on this Dask cluster (tcp://host:8786; needs ctx-lab[dask] here and on "
        "the workers)",
    )
    p.add_argument(
        "--ship",
        choices=("paths", "bytes"),
        help="send workers each item's path (shared file system, default) or its bytes",
    )
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    p.add_argument(
        "--no-worker-timeout",
        dest="no_worker_timeout",
        type=_seconds,
        metavar="S",
        help="Dask: stop a run that has had no worker for S seconds (default 60); items not "
        "done become error rows",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write every row to FILE: .parquet, .csv or .json by its suffix (atomically)",
    )


def _sweep_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("directories", nargs="+", metavar="DIR", help="project or .context/ dirs")
    p.add_argument(
        "--budget",
        type=whole("--budget"),
        action="append",
        metavar="N",
        help="a token budget (repeatable)",
    )
    p.add_argument(
        "--model",
        action="append",
        metavar="M",
        help="a model (repeatable): counts with its tokenizer; alone, its budget",
    )
    add_counter(p, "bytes/4 (the model's tokenizer with --model)")
    p.add_argument("--now", type=parse_now, metavar="ISO", help="date every packet at ISO")
    p.add_argument("--profile", choices=("design", "ctx-0.8"), help="packet profile")
    p.add_argument("--focus", metavar="TEXT", help="keywords to rank entries by")
    p.add_argument("--relevance", choices=RELEVANCE_CHOICES, help="relevance rule (default auto)")
    p.add_argument("--registry", metavar="NAME", help="where models' limits come from")
    add_executor_arguments(p)


command(
    Command(
        "sweep",
        "packets of many projects at budgets × models, on local processes or a Dask cluster",
        sweep,
        _sweep_arguments,
        formats=("table", "csv", "json"),
        epilog="examples:\n"
        "  ctx-lab sweep ~/src/*/ --budget 4000 --budget 8000 --model gpt-4o -o sweep.parquet\n"
        "  ctx-lab sweep projects/* --model claude-sonnet-4-5 --scheduler tcp://10.0.0.5:8786",
    )
)
