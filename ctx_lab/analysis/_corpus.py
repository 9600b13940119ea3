"""Sweeps and replays over a corpus: many ``.context/`` directories, many recorded sessions.

Work is split per item. The client resolves everything once — ``now``, each model's budget
and counter (as a name every worker resolves alike, calibrations included) — and sends each
worker a small task: the item's path, or its file bytes when workers do not share this file
system (``ship="bytes"``). Results come back as one tidy table with an ``item`` column, in
the order the items were given, identical whatever ran them; an item that fails is a row
with its ``error_type`` and ``error``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from ..choices import ROWS_PER, SHIP_MODES, CacheReading
from ..clock import utc_now
from ..errors import UsageError
from ..files import read_bytes
from ..recordings import ReplaySettings
from ..tokens import CounterLike, get_counter, portable_name
from ..validate import choice, whole_number
from ._columns import KINDS
from ._executors import describe, is_dask_client, is_local, runner, shows
from ._report import CorpusReport, empty_frame, typed_frame
from ._tasks import Counting, PoliciesTask, ReplayTask, SweepTask, error_row, run_task

__all__ = [
    "ReplayOptions",
    "RunOptions",
    "SweepOptions",
    "replay_corpus",
    "run_replay",
    "run_sweep",
    "sweep_corpus",
]

Paths = Iterable[str | os.PathLike[str]]
SHIP = SHIP_MODES
PER = ROWS_PER


def _counting(
    counter: CounterLike | None, model: str | None, profile: str, executor: Any
) -> Counting:
    """How ``model`` counts, decided here once; a counter that cannot travel by name is refused
    unless the items run in this process."""
    from ..packet import packet_counter

    chosen = packet_counter(counter, model, profile)
    if chosen.counter is None:
        made = get_counter(chosen.name)
        travelling: Any = chosen.name
    else:
        made = chosen.counter
        name = portable_name(made)
        travelling = name if name is not None else made
    if not isinstance(travelling, str) and not is_local(executor):
        raise UsageError(
            f"counter {made.name!r} exists only in this process (a callable, or one given to "
            "register_counter); worker processes recreate counters by name: install it as a "
            "`ctx_lab.counters` entry point, or run with executor='inline' or a "
            "ThreadPoolExecutor"
        )
    return Counting(model, travelling, made.name, chosen.exact)


def _check_models(models: Sequence[str], registry: str | None) -> None:
    """Unknown models fail here, once — not as one error row per item."""
    from ..token_budget import resolve_token_budget

    for model in models:
        resolve_token_budget(None, model, default=1, registry=registry)


def _partition(item: str, task: Any, columns: dict[str, str]) -> Any:
    """One item's rows as a typed pandas frame (a Dask partition), made on the worker."""
    rows = [error_row(item, task)] if isinstance(task, BaseException) else run_task(task)
    return typed_frame(rows, columns)


@dataclass(frozen=True)
class RunOptions:
    """Where and how a corpus runs: ``executor`` None (a local process pool of ``workers``,
    with a progress bar), ``"inline"`` (a plain loop here), any
    ``concurrent.futures.Executor``, a ``dask.distributed.Client`` or a scheduler address (on
    Dask, a run with no worker for ``no_worker_timeout`` seconds — default 60 — stops: every
    item not done is an error row saying so); ``ship="bytes"`` sends each item's files instead
    of its path; with ``root`` every item must resolve inside it."""

    executor: Any = None
    workers: int | None = None
    ship: str = "paths"
    progress: bool = True
    no_worker_timeout: float | None = None
    root: str | os.PathLike[str] | None = None


@dataclass(frozen=True)
class SweepOptions:
    """What a sweep assembles for each project: packets at every budget × model, counted
    with ``counter`` (default: each model's own tokenizer), dated ``now`` (default: this
    moment, taken once), in ``profile``, ranked by ``focus`` and ``relevance``."""

    budgets: tuple[int, ...] = ()
    models: tuple[str, ...] = ()
    counter: CounterLike | None = None
    now: datetime | None = None
    profile: str = "design"
    focus: str | None = None
    relevance: str = "auto"
    registry: str | None = None


@dataclass(frozen=True)
class ReplayOptions:
    """What a corpus replay asks of each session: the ``models`` to replay it on, rows
    ``per`` session or call, and the replay's own settings (as :func:`replay_report`)."""

    models: tuple[str, ...] = ()
    counter: CounterLike | None = None
    per: str = "session"
    settings: ReplaySettings = field(default_factory=ReplaySettings)
    transcript_format: str = "auto"
    registry: str | None = None


@dataclass(frozen=True)
class PoliciesOptions:
    """What a corpus of policy runs asks of each session: the ``policies`` (``NAME`` or
    ``NAME:key=value,…``; default every built-in one), the ``model`` to run them as if sent
    to, the ``counter`` (by name), the ``registry`` and the cache ``reading``."""

    policies: tuple[str, ...] = ()
    model: str | None = None
    counter: str | None = None
    registry: str | None = None
    reading: CacheReading = "breakpoints"


def _split(given: dict[str, Any], *kinds: type) -> list[dict[str, Any]]:
    """Keyword arguments shared out among option classes by field name (an unknown name is a
    TypeError, as for any function)."""
    parts: list[dict[str, Any]] = [{} for _ in kinds]
    for name, value in given.items():
        for i, kind in enumerate(kinds):
            if name in {f.name for f in fields(kind)}:
                parts[i][name] = value
                break
        else:
            raise TypeError(f"unexpected keyword argument {name!r}")
    return parts


@dataclass
class _Plan:
    """A corpus run, checked and resolved: its table's kind, its items' tasks (made as they
    are sent, so file bytes are read one window at a time), how many there are."""

    kind: str
    tasks: Iterator[tuple[str, Any]]
    count: int


def _plan(
    kind: str,
    paths: Paths,
    ship: str,
    workers: int | None,
    make: Callable[[str], Any],
) -> _Plan:
    """The tasks ``make(path)`` builds (the path as given names the item); one that raises
    (an unreadable file to ship) becomes the item's error row, not the batch's end."""
    choice(ship, SHIP, "ship")
    if workers is not None:
        whole_number(workers, "workers", minimum=1)
    items = [os.fspath(p) for p in paths]
    if not items:
        raise UsageError("the corpus is empty: give one or more paths")

    def tasks() -> Iterator[tuple[str, Any]]:
        for item in items:
            try:
                yield item, make(item)
            except Exception as exc:  # recorded as the item's error row
                yield item, exc

    return _Plan(kind, tasks(), len(items))


def _run(plan: _Plan, run: RunOptions) -> CorpusReport:
    """Every item of ``plan`` on ``run.executor``, gathered as they complete, in input order."""
    from tqdm.auto import tqdm

    executor, workers, progress, no_worker_timeout = (
        run.executor,
        run.workers,
        run.progress,
        run.no_worker_timeout,
    )
    results: list[list[dict[str, Any]]] = [[] for _ in range(plan.count)]
    with (
        runner(executor, workers, no_worker_timeout) as pool,
        tqdm(
            total=plan.count, desc=plan.kind, unit="item", disable=not shows(progress), leave=False
        ) as bar,
    ):
        for index, rows in pool.run(run_task, plan.tasks):
            results[index] = rows
            bar.update()
        how = describe(None if executor is None else pool.executor, workers)
    rows = [row for item_rows in results for row in item_rows]
    return CorpusReport.of(plan.kind, rows, plan.count, how)


def _frame(plan: _Plan, run: RunOptions, as_dask: bool) -> Any:
    """The run's table: a pandas DataFrame, or with ``as_dask`` a Dask DataFrame with one
    partition per item, computed on the cluster and left there."""
    if not as_dask:
        return _run(plan, run).frame()
    executor = run.executor
    if not is_dask_client(executor):
        raise UsageError("as_dask=True needs executor=<a dask.distributed Client>")
    import dask.dataframe as dd

    columns = KINDS[plan.kind]
    futures = [
        executor.submit(_partition, item, task, columns, pure=False) for item, task in plan.tasks
    ]
    return dd.from_delayed(futures, meta=empty_frame(columns), verify_meta=False)


def _when(now: datetime | None) -> datetime:
    """``now``, else this moment (taken once for a whole sweep)."""
    return now or utc_now()


def _sweep_plan(paths: Paths, options: SweepOptions, run: RunOptions) -> _Plan:
    from ..packet import PROFILES, RELEVANCE_RULES, context_snapshot

    choice(options.profile, PROFILES, "profile")
    choice(options.relevance, RELEVANCE_RULES, "relevance")
    sizes = tuple(whole_number(b, "budget", minimum=1) for b in options.budgets)
    chosen = list(dict.fromkeys(options.models))
    if not sizes and not chosen:
        raise UsageError("give budgets, models, or both: nothing to sweep")
    _check_models(chosen, options.registry)
    each: list[str | None] = [*chosen] or [None]
    countings = tuple(_counting(options.counter, m, options.profile, run.executor) for m in each)
    when = _when(options.now)
    base = None if run.root is None else os.fspath(run.root)

    def make(path: str) -> SweepTask:
        files = context_snapshot(path, root=base) if run.ship == "bytes" else None
        return SweepTask(
            item=path,
            path=path,
            files=files,
            budgets=sizes or (None,),
            countings=countings,
            now=when,
            profile=options.profile,
            focus=options.focus,
            relevance=options.relevance,
            registry=options.registry,
            root=base,
        )

    return _plan("sweep", paths, run.ship, run.workers, make)


def run_sweep(paths: Paths, options: SweepOptions, run: RunOptions | None = None) -> CorpusReport:
    """:func:`sweep_corpus` as a report (what ``ctx-lab sweep`` prints)."""
    run = run or RunOptions()
    return _run(_sweep_plan(paths, options, run), run)


def sweep_corpus(
    paths: Paths,
    budgets: Iterable[int] = (),
    models: Iterable[str] | None = None,
    *,
    as_dask: bool = False,
    **options: Any,
) -> Any:
    """Packets of many ``.context/`` directories at every budget × model (the cross product;
    a model alone means its effective input budget, and a model counts with its own
    tokenizer unless ``counter`` names one). One row per item × budget × model × section:
    :data:`SWEEP_COLUMNS`.

    ``options`` are the fields of :class:`SweepOptions` (``counter``, ``now``, ``profile``,
    ``focus``, ``relevance``, ``registry``) and of :class:`RunOptions` (``executor``,
    ``workers``, ``ship``, ``progress``, ``no_worker_timeout``, ``root``). ``as_dask=True`` (a
    Dask client) returns a Dask DataFrame with one partition per item, kept on the cluster.
    """
    sweep, run = _split(options, SweepOptions, RunOptions)
    chosen = SweepOptions(tuple(budgets), tuple(models or ()), **sweep)
    plan_run = RunOptions(**run)
    return _frame(_sweep_plan(paths, chosen, plan_run), plan_run, as_dask)


def _replay_plan(paths: Paths, options: ReplayOptions, run: RunOptions) -> _Plan:
    from ..files import confine

    choice(options.per, PER, "per")
    chosen = list(dict.fromkeys(options.models))
    if not chosen:
        raise UsageError("give the models to replay the corpus on (--model M)")
    _check_models(chosen, options.registry)
    countings = tuple(_counting(options.counter, m, "design", run.executor) for m in chosen)
    base = None if run.root is None else os.fspath(run.root)

    def make(path: str) -> ReplayTask:
        data = None
        if run.ship == "bytes":
            data = read_bytes(confine(base, path, what="file") if base is not None else path)
        return ReplayTask(
            item=path,
            path=path,
            data=data,
            countings=countings,
            per=options.per,
            settings=options.settings,
            transcript_format=options.transcript_format,
            registry=options.registry,
            root=base,
        )

    return _plan(f"replay-{options.per}", paths, run.ship, run.workers, make)


def run_replay(paths: Paths, options: ReplayOptions, run: RunOptions | None = None) -> CorpusReport:
    """:func:`replay_corpus` as a report (what ``ctx-lab replay FILES…`` prints)."""
    run = run or RunOptions()
    return _run(_replay_plan(paths, options, run), run)


def replay_corpus(
    paths: Paths,
    models: Iterable[str] | str,
    *,
    as_dask: bool = False,
    **options: Any,
) -> Any:
    """The replay of many recorded sessions on each of ``models``: one row per session and
    model (``per="session"``, :data:`REPLAY_SESSION_COLUMNS`: calls, budget, peak context,
    first summarization, tokens, cost) or per call and model (``per="call"``,
    :data:`REPLAY_CALL_COLUMNS`).

    ``options`` are the fields of :class:`ReplayOptions` (``counter`` — default: each model's
    own tokenizer or stored calibration, resolved here and sent by name — ``per``,
    ``transcript_format``, ``registry``), of :class:`~ctx_lab.conversation.ReplaySettings`
    (``preserve_recent``, ``output_limit``, ``caching`` …) and of :class:`RunOptions`, as in
    :func:`sweep_corpus`."""
    replay, settings, run = _split(options, ReplayOptions, ReplaySettings, RunOptions)
    if settings:
        replay["settings"] = ReplaySettings(**settings)
    chosen = ReplayOptions(tuple([models] if isinstance(models, str) else models), **replay)
    plan_run = RunOptions(**run)
    return _frame(_replay_plan(paths, chosen, plan_run), plan_run, as_dask)


def _policies_plan(paths: Paths, options: PoliciesOptions, run: RunOptions) -> _Plan:
    from ..files import confine
    from ..recordings import expand_policies

    expand_policies(options.policies)  # a usage error once, not an error row per item
    if options.model is not None:
        _check_models([options.model], options.registry)
    base = None if run.root is None else os.fspath(run.root)

    def make(path: str) -> PoliciesTask:
        data = None
        if run.ship == "bytes":
            data = read_bytes(confine(base, path, what="file") if base is not None else path)
        return PoliciesTask(
            item=path,
            path=path,
            data=data,
            policies=tuple(options.policies),
            model=options.model,
            counter=options.counter,
            registry=options.registry,
            root=base,
            reading=options.reading,
        )

    return _plan("policies", paths, run.ship, run.workers, make)


def run_policies_corpus(
    paths: Paths, options: PoliciesOptions | None = None, run: RunOptions | None = None
) -> CorpusReport:
    """Every policy over many recorded sessions: one row per session and policy
    (:data:`POLICIES_COLUMNS`), on the executors of :class:`RunOptions` (what ``ctx-lab
    policies FILES…`` prints)."""
    run = run or RunOptions()
    return _run(_policies_plan(paths, options or PoliciesOptions(), run), run)


def policies_corpus(paths: Paths, *, as_dask: bool = False, **options: Any) -> Any:
    """:func:`run_policies_corpus` as a typed DataFrame (``as_dask``: a Dask DataFrame, one
    partition per session); ``options`` are the fields of :class:`PoliciesOptions` and of
    :class:`RunOptions`."""
    chosen, run = _split(options, PoliciesOptions, RunOptions)
    if "policies" in chosen:
        chosen["policies"] = tuple(chosen["policies"])
    plan_run = RunOptions(**run)
    return _frame(_policies_plan(paths, PoliciesOptions(**chosen), plan_run), plan_run, as_dask)
