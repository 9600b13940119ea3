"""``sweep``: packets of many projects at many budgets and models, on a local process pool or a
Dask cluster (``replay`` of many sessions shares the executor flags, declared here)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

from ..choices import PacketProfile, ShipMode
from ..errors import UsageError
from ..validate import whole_number
from . import _params as params
from ._param import CLI, Param, hidden
from ._params import RELEVANCE_CHOICES, Registry, parse_now
from ._registry import Command, command

if TYPE_CHECKING:
    from ..analysis import CorpusReport

__all__ = [
    "CORPUS_OUTPUT",
    "NoWorkerTimeout",
    "Progress",
    "Scheduler",
    "Ship",
    "Workers",
    "executor_for",
    "run_options",
    "sweep",
]

PathArg = str | os.PathLike[str]


def executor_for(workers: int | None, scheduler: str | None) -> tuple[Any, int | None]:
    """The executor the flags ask for: a Dask scheduler's address, ``inline`` for
    ``workers=0``, else a local process pool of ``workers`` (default: one per CPU)."""
    if scheduler is not None and workers is not None:
        raise UsageError("give --workers (a local pool) or --scheduler (a Dask cluster), not both")
    if scheduler is not None:
        from ..analysis import scheduler_address

        return scheduler_address(scheduler), None
    if workers is not None and whole_number(workers, "workers") == 0:
        return "inline", None
    return None, workers


def run_options(
    workers: int | None,
    scheduler: str | None,
    ship: str,
    progress: bool,
    no_worker_timeout: float | None,
    root: Any,
) -> Any:
    """How a corpus command's items run (:class:`~ctx_lab.analysis.RunOptions`) from its
    executor parameters: the executor :func:`executor_for` chooses, and the rest as given."""
    from ..analysis import RunOptions

    executor, size = executor_for(workers, scheduler)
    return RunOptions(executor=executor, workers=size, ship=ship, progress=progress,
                      no_worker_timeout=no_worker_timeout, root=root)  # fmt: skip


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"--no-worker-timeout {text!r} is not a number of seconds") from None
    if not 0 < value <= 86_400:
        raise UsageError(f"--no-worker-timeout must be 0–86400 seconds, got {text}")
    return value


# the executor parameters of sweep and of replay over many sessions, declared once
Workers = Annotated[
    int | None,
    Param(
        "local worker processes (0: run here, no pool)",
        metavar="N",
        surfaces=CLI,
        default_text="one per CPU",
    ),
]
Scheduler = Annotated[
    str | None,
    Param(
        "run on this Dask cluster (tcp://host:8786; needs ctx-lab[dask] here and on the workers)",
        metavar="ADDRESS",
        surfaces=CLI,
    ),
]
Ship = Annotated[
    ShipMode,
    Param("send workers each item's path (shared file system) or its bytes", surfaces=CLI),
]
Progress = Annotated[
    bool,
    Param(
        "show a progress bar",
        flag="--no-progress",
        flag_help="no progress bar",
        surfaces=CLI,
        session="progress",
    ),
]
NoWorkerTimeout = Annotated[
    float | None,
    Param(
        "Dask: stop a run that has had no worker for S seconds; items not done become error rows",
        metavar="S",
        parse=_seconds,
        surfaces=CLI,
        default_text="60",
    ),
]
CORPUS_OUTPUT = "write every row to FILE: .parquet, .csv or .json by its suffix (atomically)"


def sweep(
    directories: Annotated[
        Sequence[PathArg],
        Param("project or .context/ dirs", positional=True, metavar="DIR"),
    ],
    *,
    budget: Annotated[
        Sequence[int], Param("a token budget (repeatable)", metavar="N", flag="--budget")
    ] = (),
    model: Annotated[
        Sequence[str],
        Param(
            "a model (repeatable): counts with its tokenizer; alone, its budget",
            metavar="M",
            flag="--model",
            names_model=True,
        ),
    ] = (),
    counter: Annotated[
        str | None, params.counter("bytes/4 (the model's tokenizer with --model)")
    ] = None,
    now: Annotated[
        datetime | None,
        Param("date every packet at ISO", metavar="ISO", parse=parse_now, default_text="now"),
    ] = None,
    profile: Annotated[PacketProfile, Param("packet profile")] = "design",
    focus: Annotated[str | None, Param("keywords to rank entries by", metavar="TEXT")] = None,
    relevance: Annotated[str, Param("relevance rule", choices=RELEVANCE_CHOICES)] = "auto",
    registry: Registry = None,
    workers: Workers = None,
    scheduler: Scheduler = None,
    ship: Ship = "paths",
    progress: Progress = True,
    no_worker_timeout: NoWorkerTimeout = None,
    root: Annotated[
        PathArg | None, hidden("every directory must resolve inside it", session="root")
    ] = None,
) -> CorpusReport:
    """Assemble the packet of every project directory at each ``budget`` × ``model``; one row
    per project, budget, model and section, failing projects as error rows. Runs on a local
    process pool of ``workers`` (0: in this process) or the Dask ``scheduler``."""
    from ..analysis import SweepOptions, run_sweep

    if not directories:
        raise UsageError("nothing to sweep: give one or more project directories")
    return run_sweep(
        directories,
        SweepOptions(
            budgets=tuple(budget),
            models=tuple(model),
            counter=counter,
            now=now,
            profile=profile,
            focus=focus,
            relevance=relevance,
            registry=registry,
        ),
        run_options(workers, scheduler, ship, progress, no_worker_timeout, root),
    )


command(
    Command(
        "sweep",
        "packets of many projects at budgets × models, on local processes or a Dask cluster",
        sweep,
        formats=("table", "csv", "json"),
        output=CORPUS_OUTPUT,
        epilog="examples:\n"
        "  ctx-lab sweep ~/src/*/ --budget 4000 --budget 8000 --model gpt-4o -o sweep.parquet\n"
        "  ctx-lab sweep projects/* --model claude-sonnet-4-5 --scheduler tcp://10.0.0.5:8786",
        group="corpus",
    )
)
