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
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from ..errors import UsageError
from ..files import read_bytes
from ..tokens import CounterLike, get_counter, portable_name
from ..validate import choice, whole_number
from .executors import describe, is_dask_client, is_local, runner
from .report import (
    REPLAY_CALL_COLUMNS,
    REPLAY_SESSION_COLUMNS,
    SWEEP_COLUMNS,
    CorpusReport,
    empty_frame,
    typed_frame,
)
from .tasks import Counting, ReplayTask, SweepTask, error_row, run_task

__all__ = ["replay_corpus", "run_replay", "run_sweep", "sweep_corpus"]

Paths = Iterable[str | os.PathLike[str]]
SHIP = ("paths", "bytes")
PER = ("session", "call")


def _counting(
    counter: CounterLike | None, model: str | None, profile: str, executor: Any
) -> Counting:
    """How ``model`` counts, decided here once; a counter that cannot travel by name is refused
    unless the items run in this process."""
    from ..packet.assemble import packet_counter

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


def _items(paths: Paths) -> list[tuple[str, str]]:
    found = [(os.fspath(p), os.fspath(p)) for p in paths]
    if not found:
        raise UsageError("the corpus is empty: give one or more paths")
    return found


def _partition(item: str, task: Any, columns: dict[str, str]) -> Any:
    """One item's rows as a typed pandas frame (a Dask partition), made on the worker."""
    rows = [error_row(item, task)] if isinstance(task, BaseException) else run_task(task)
    return typed_frame(rows, columns)


def _frame_or_dask(columns: dict[str, str], tasks: list[tuple[str, Any]], executor: Any) -> Any:
    """A Dask DataFrame with one partition per item, computed on the cluster and left there."""
    import dask.dataframe as dd

    futures = [executor.submit(_partition, item, task, columns, pure=False) for item, task in tasks]
    return dd.from_delayed(futures, meta=empty_frame(columns), verify_meta=False)


def _gather(
    kind: str,
    tasks: Iterator[tuple[str, Any]],
    count: int,
    executor: Any,
    workers: int | None,
    progress: bool,
) -> tuple[list[dict[str, Any]], str]:
    from tqdm.auto import tqdm

    results: list[list[dict[str, Any]]] = [[] for _ in range(count)]
    with (
        runner(executor, workers) as run,
        tqdm(total=count, desc=kind, unit="item", disable=not progress, leave=False) as bar,
    ):
        for index, rows in run.run(run_task, tasks):
            results[index] = rows
            bar.update()
        how = describe(run.executor, workers) if executor is not None else describe(None, workers)
    return [row for rows in results for row in rows], how


def _sweep_tasks(
    items: list[tuple[str, str]], ship: str, root: str | None, **fields: Any
) -> Iterator[tuple[str, Any]]:
    from ..packet import context_snapshot

    for item, path in items:
        try:
            files = context_snapshot(path, root=root) if ship == "bytes" else None
        except Exception as exc:  # unreadable here: the item's error row, not the batch's end
            yield item, exc
            continue
        yield item, SweepTask(item, path, files, root=root, **fields)


def run_sweep(
    paths: Paths,
    budgets: Iterable[int] = (),
    models: Iterable[str] | None = None,
    *,
    counter: CounterLike | None = None,
    now: datetime | None = None,
    profile: str = "design",
    focus: str | None = None,
    relevance: str = "keywords",
    registry: str | None = None,
    executor: Any = None,
    workers: int | None = None,
    ship: str = "paths",
    progress: bool = True,
    root: str | os.PathLike[str] | None = None,
) -> CorpusReport:
    """:func:`sweep_corpus` as a report (what ``ctx-lab sweep`` prints)."""
    tasks, count = _sweep_plan(
        paths, budgets, models, counter, now, profile, focus, relevance, registry, executor,
        workers, ship, root,
    )  # fmt: skip
    rows, how = _gather("sweep", tasks, count, executor, workers, progress)
    return CorpusReport.of("sweep", rows, count, how)


def _sweep_plan(
    paths: Paths,
    budgets: Iterable[int],
    models: Iterable[str] | None,
    counter: CounterLike | None,
    now: datetime | None,
    profile: str,
    focus: str | None,
    relevance: str,
    registry: str | None,
    executor: Any,
    workers: int | None,
    ship: str,
    root: str | os.PathLike[str] | None,
) -> tuple[Iterator[tuple[str, Any]], int]:
    from ..packet import PROFILES, RELEVANCE_RULES

    choice(ship, SHIP, "ship")
    choice(profile, PROFILES, "profile")
    choice(relevance, RELEVANCE_RULES, "relevance")
    if workers is not None:
        whole_number(workers, "workers", minimum=1)
    sizes = tuple(whole_number(b, "budget", minimum=1) for b in budgets)
    chosen = list(dict.fromkeys(models or ()))
    if not sizes and not chosen:
        raise UsageError("give budgets, models, or both: nothing to sweep")
    _check_models(chosen, registry)
    each: list[str | None] = [*chosen] or [None]
    countings = tuple(_counting(counter, m, profile, executor) for m in each)
    items = _items(paths)
    fields = {
        "budgets": sizes or (None,),
        "countings": countings,
        "now": now or datetime.now(UTC),
        "profile": profile,
        "focus": focus,
        "relevance": relevance,
        "registry": registry,
    }
    shown_root = None if root is None else os.fspath(root)
    return _sweep_tasks(items, ship, shown_root, **fields), len(items)


def sweep_corpus(
    paths: Paths,
    budgets: Iterable[int] = (),
    models: Iterable[str] | None = None,
    *,
    counter: CounterLike | None = None,
    now: datetime | None = None,
    profile: str = "design",
    focus: str | None = None,
    relevance: str = "keywords",
    registry: str | None = None,
    executor: Any = None,
    workers: int | None = None,
    ship: str = "paths",
    progress: bool = True,
    as_dask: bool = False,
    root: str | os.PathLike[str] | None = None,
) -> Any:
    """Packets of many ``.context/`` directories at every budget × model (the cross product;
    a model alone means its effective input budget, and a model counts with its own
    tokenizer unless ``counter`` names one). One row per item × budget × model × section:
    :data:`SWEEP_COLUMNS`.

    ``executor``: None (a local process pool of ``workers``, with a progress bar),
    ``"inline"`` (a plain loop here), any ``concurrent.futures.Executor``, a
    ``dask.distributed.Client`` or a scheduler address. ``as_dask=True`` (a Dask client)
    returns a Dask DataFrame with one partition per item, kept on the cluster. ``ship="bytes"``
    sends each directory's files instead of its path. ``now`` (default: this moment, taken
    once) dates every packet alike.
    """
    if as_dask:
        if not is_dask_client(executor):
            raise UsageError("as_dask=True needs executor=<a dask.distributed Client>")
        tasks, _ = _sweep_plan(
            paths, budgets, models, counter, now, profile, focus, relevance, registry,
            executor, workers, ship, root,
        )  # fmt: skip
        return _frame_or_dask(SWEEP_COLUMNS, list(tasks), executor)
    return run_sweep(
        paths, budgets, models, counter=counter, now=now, profile=profile, focus=focus,
        relevance=relevance, registry=registry, executor=executor, workers=workers, ship=ship,
        progress=progress, root=root,
    ).frame()  # fmt: skip


def _replay_tasks(
    items: list[tuple[str, str]], ship: str, root: str | None, **fields: Any
) -> Iterator[tuple[str, Any]]:
    from ..files import confine

    for item, path in items:
        try:
            data = None
            if ship == "bytes":
                source = confine(root, path, what="file") if root is not None else path
                data = read_bytes(source)
        except Exception as exc:  # unreadable here: the item's error row, not the batch's end
            yield item, exc
            continue
        yield item, ReplayTask(item, path, data, root=root, **fields)


def _replay_plan(
    paths: Paths,
    models: Iterable[str] | str,
    counter: CounterLike | None,
    per: str,
    preserve_recent: int,
    output_limit: int | None,
    caching: bool,
    transcript_format: str,
    registry: str | None,
    executor: Any,
    workers: int | None,
    ship: str,
    root: str | os.PathLike[str] | None,
) -> tuple[Iterator[tuple[str, Any]], int]:
    choice(ship, SHIP, "ship")
    choice(per, PER, "per")
    whole_number(preserve_recent, "preserve_recent")
    if workers is not None:
        whole_number(workers, "workers", minimum=1)
    chosen = list(dict.fromkeys([models] if isinstance(models, str) else models))
    if not chosen:
        raise UsageError("give the models to replay the corpus on (--model M)")
    _check_models(chosen, registry)
    countings = tuple(_counting(counter, m, "design", executor) for m in chosen)
    items = _items(paths)
    fields = {
        "countings": countings,
        "per": per,
        "preserve_recent": preserve_recent,
        "output_limit": output_limit,
        "caching": caching,
        "transcript_format": transcript_format,
        "registry": registry,
    }
    shown_root = None if root is None else os.fspath(root)
    return _replay_tasks(items, ship, shown_root, **fields), len(items)


def run_replay(
    paths: Paths,
    models: Iterable[str] | str,
    *,
    counter: CounterLike | None = None,
    per: str = "session",
    preserve_recent: int = 4,
    output_limit: int | None = None,
    caching: bool = True,
    transcript_format: str = "auto",
    registry: str | None = None,
    executor: Any = None,
    workers: int | None = None,
    ship: str = "paths",
    progress: bool = True,
    root: str | os.PathLike[str] | None = None,
) -> CorpusReport:
    """:func:`replay_corpus` as a report (what ``ctx-lab replay FILES…`` prints)."""
    tasks, count = _replay_plan(
        paths, models, counter, per, preserve_recent, output_limit, caching,
        transcript_format, registry, executor, workers, ship, root,
    )  # fmt: skip
    rows, how = _gather("replay", tasks, count, executor, workers, progress)
    return CorpusReport.of(f"replay-{per}", rows, count, how)


def replay_corpus(
    paths: Paths,
    models: Iterable[str] | str,
    *,
    counter: CounterLike | None = None,
    per: str = "session",
    preserve_recent: int = 4,
    output_limit: int | None = None,
    caching: bool = True,
    transcript_format: str = "auto",
    registry: str | None = None,
    executor: Any = None,
    workers: int | None = None,
    ship: str = "paths",
    progress: bool = True,
    as_dask: bool = False,
    root: str | os.PathLike[str] | None = None,
) -> Any:
    """The replay of many recorded sessions on each of ``models``: one row per session and
    model (``per="session"``, :data:`REPLAY_SESSION_COLUMNS`: calls, budget, peak context,
    first summarization, tokens, cost) or per call and model (``per="call"``,
    :data:`REPLAY_CALL_COLUMNS`). ``counter`` (default: each model's own tokenizer or stored
    calibration, resolved here and sent by name), executors, ``ship`` and ``as_dask`` as in
    :func:`sweep_corpus`."""
    if as_dask:
        if not is_dask_client(executor):
            raise UsageError("as_dask=True needs executor=<a dask.distributed Client>")
        tasks, _ = _replay_plan(
            paths, models, counter, per, preserve_recent, output_limit, caching,
            transcript_format, registry, executor, workers, ship, root,
        )  # fmt: skip
        columns = REPLAY_SESSION_COLUMNS if per == "session" else REPLAY_CALL_COLUMNS
        return _frame_or_dask(columns, list(tasks), executor)
    return run_replay(
        paths, models, counter=counter, per=per, preserve_recent=preserve_recent,
        output_limit=output_limit, caching=caching, transcript_format=transcript_format,
        registry=registry, executor=executor, workers=workers, ship=ship, progress=progress,
        root=root,
    ).frame()  # fmt: skip
