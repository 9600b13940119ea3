"""One item's work as a worker runs it.

A task names its item and what to do with it in plain values — a path or the item's file
bytes, budgets, models, counter names — so it pickles small and runs the same in this process,
a process pool or a Dask worker. The worker parses and counts the item once (one assembler per
counter serves every budget) and returns plain rows; anything that goes wrong becomes the
item's error row, so one bad item never loses the batch.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..choices import CacheReading
from ..files import confine, write_atomic
from ..recordings import ReplaySettings

__all__ = [
    "Counting",
    "ReplayTask",
    "SweepTask",
    "error_row",
    "run_task",
]


@dataclass(frozen=True)
class Counting:
    """How one model (or none) counts: the counter to use — a name that every process
    resolves alike, or, for in-process executors only, a counter object — with its name and
    whether it is the model's real tokenizer."""

    model: str | None
    counter: Any
    name: str
    exact: bool


@dataclass(frozen=True)
class SweepTask:
    """Packets of one ``.context/`` directory at every budget × model."""

    item: str
    path: str
    files: Mapping[str, bytes] | None
    budgets: tuple[int | None, ...]
    countings: tuple[Counting, ...]
    now: datetime
    profile: str = "design"
    focus: str | None = None
    relevance: str = "auto"
    registry: str | None = None
    root: str | None = None

    def rows(self, path: str) -> list[dict[str, Any]]:
        """One row per budget × model × section (tier 1 folded, as :func:`packet.sweep`)."""
        from ..packet import CountedAssembler, assembler_for, load_context, sweep_rows

        ctx = load_context(path, root=self.root, cached=False)
        assemblers: dict[str, CountedAssembler] = {}
        rows: list[dict[str, Any]] = []
        for counting in self.countings:
            assembler = assemblers.get(counting.name)
            if assembler is None:
                assembler = assemblers[counting.name] = assembler_for(
                    ctx, counting.counter, model=counting.model, profile=self.profile, shared=False
                )
            for budget in self.budgets:
                packet = assembler.assemble(
                    budget,
                    self.now,
                    counting.model,
                    focus=self.focus,
                    relevance=self.relevance,
                    profile=self.profile,
                    registry=self.registry,
                    environ={},
                    # the ctx-0.8 header names the directory: relative, so where the corpus
                    # sits (or a worker's temporary copy) changes no count
                    display_dir=".context",
                )
                head = {
                    "item": self.item,
                    "budget": budget,
                    "model": counting.model,
                    "counter": counting.name,
                    "exact": counting.exact,
                    "budget_tokens": packet.budget,
                    "packet_tokens": packet.tokens_used,
                    "over_budget": packet.over_budget,
                    "warnings": len(packet.warnings),
                }
                for section in sweep_rows(packet):
                    rows.append({**head, **{k: v for k, v in section.items() if k != "budget"}})
        return rows


@dataclass(frozen=True)
class ReplayTask:
    """One recorded session replayed on every model: a row per model (``per="session"``) or
    per call and model (``per="call"``)."""

    item: str
    path: str
    data: bytes | None
    countings: tuple[Counting, ...]
    per: str = "session"
    settings: ReplaySettings = field(default_factory=ReplaySettings)
    transcript_format: str = "auto"
    registry: str | None = None
    root: str | None = None

    def rows(self, path: str) -> list[dict[str, Any]]:
        """The replay's rows, each with the item, the counter and whether it is exact."""
        from ..recordings import replay_report
        from ..recordings.transcripts import load_transcript

        source = confine(self.root, path, what="file") if self.root is not None else path
        transcript = load_transcript(source, self.transcript_format)
        rows: list[dict[str, Any]] = []
        for counting in self.countings:
            assert counting.model is not None
            report = replay_report(
                transcript,
                [counting.model],
                settings=self.settings,
                counter=counting.counter,
                registry=self.registry,
                source=self.item,
            )
            tag = {"counter": counting.name, "exact": counting.exact}
            if self.per == "call":
                rows += [{"item": self.item, **row, **tag} for row in report.rows]
            else:
                rows.append(_session_row(self.item, report, tag))
        return rows


@dataclass(frozen=True)
class PoliciesTask:
    """One recorded session under every policy: a row per policy (see
    :func:`~ctx_lab.conversation.run_policies`)."""

    item: str
    path: str
    data: bytes | None
    policies: tuple[str, ...] = ()
    model: str | None = None
    counter: str | None = None
    registry: str | None = None
    root: str | None = None
    reading: CacheReading = "breakpoints"

    def rows(self, path: str) -> list[dict[str, Any]]:
        """A row per policy: what the decision reads (:func:`decision_row`: cost, peak, what
        was lost) and the table's own columns (mean, compactions, hit rate, probes kept)."""
        from ..recordings import run_policies
        from ..recordings.policies import decision_row
        from ..recordings.transcripts import load_transcript

        source = confine(self.root, path, what="file") if self.root is not None else path
        report = run_policies(
            load_transcript(source), self.policies, model=self.model, counter=self.counter,
            registry=self.registry, source=self.item, reading=self.reading,
        )  # fmt: skip
        return [
            {
                **decision_row(self.item, report.agent, p, report.baseline_cost),
                # a table's cell holds the parameters as JSON (the decision reads them as a dict)
                "params": json.dumps(p.params, sort_keys=True),
                "model": report.model,
                "calls": len(p.calls),
                "mean": p.mean,
                "compactions": len(p.compactions),
                "cache_hit_rate": p.cache_hit_rate,
                "probes_kept": p.probes.kept,
                "probes_summarized": p.probes.summarized,
                "refetch_tokens": p.refetch_tokens,
            }
            for p in report.policies
        ]


def _total(values: list[Any]) -> Any:
    """The sum, or None when any value is unknown (a missing price, an unreported count)."""
    return None if not values or None in values else sum(values)


def _session_row(item: str, report: Any, tag: dict[str, Any]) -> dict[str, Any]:
    summary = report.summary()[0]
    rows = report.rows
    cost = _total([r["cost_usd"] for r in rows])
    return {
        "item": item,
        "model": summary["model"],
        **tag,
        "format": report.format,
        "calls": report.calls,
        "budget": summary["budget"],
        "peak_context": summary["peak_context"],
        "first_summarization": summary["first_summarization"],
        "summarizations": summary["summarizations"],
        "cached_tokens": sum(r["cached_tokens"] for r in rows),
        "new_tokens": sum(r["new_tokens"] for r in rows),
        "output_tokens": sum(r["output_tokens"] for r in rows),
        "cost_usd": None if cost is None else round(cost, 6),
        "reported_input": _total([r["reported_input"] for r in rows]),
        "counted_input": sum(r["counted_input"] for r in rows),
        "warnings": len(report.warnings),
    }


def error_row(item: str, exc: BaseException) -> dict[str, Any]:
    """The row an item that failed leaves: its error's type and message."""
    return {"item": item, "error_type": type(exc).__name__, "error": str(exc) or repr(exc)}


@contextmanager
def _materialized(task: SweepTask | ReplayTask | PoliciesTask) -> Iterator[str]:
    """The item's path: as given, or a private temporary copy of the bytes sent with it."""
    shipped: Mapping[str, bytes] | None
    if isinstance(task, SweepTask):
        shipped = task.files
    else:
        shipped = None if task.data is None else {Path(task.path).name or "session": task.data}
    if shipped is None:
        yield task.path
        return
    with tempfile.TemporaryDirectory(prefix="ctx-lab-item-") as tmp:
        for label, data in shipped.items():
            target = confine(tmp, label, what="shipped file")
            target.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(target, data)
        yield tmp if isinstance(task, SweepTask) else os.path.join(tmp, next(iter(shipped)))


def run_task(task: SweepTask | ReplayTask | PoliciesTask) -> list[dict[str, Any]]:
    """Run one item where it lands (this process, a pool worker, a Dask worker); a failure of
    any kind becomes the item's error row."""
    try:
        with _materialized(task) as path:
            return task.rows(path)
    except Exception as exc:  # one item's failure, whatever it is, must not lose the batch
        return [error_row(task.item, exc)]
