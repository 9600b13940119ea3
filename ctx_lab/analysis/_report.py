"""The tidy tables of corpus analyses (their columns and types: :mod:`._columns`) and
:class:`CorpusReport`,
which the CLI prints and writes (table, CSV, JSON, Parquet) and notebooks turn into a
DataFrame. pandas is imported only to make a frame."""

from __future__ import annotations

import io
import json
import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ..display import RichResult, csv_text, escape, html_table, text_table
from ..errors import UsageError
from ._columns import KINDS

__all__ = [
    "CorpusReport",
    "empty_frame",
    "typed_frame",
]


def typed_frame(rows: list[dict[str, Any]], columns: Mapping[str, str]) -> Any:
    """``rows`` as a pandas DataFrame with exactly ``columns``, each of its nullable type
    (error rows leave the other columns empty)."""
    import pandas as pd

    return pd.DataFrame(rows, columns=list(columns)).astype(dict(columns))


def empty_frame(columns: Mapping[str, str]) -> Any:
    """A frame with ``columns`` and no rows (a Dask DataFrame's ``meta``)."""
    return typed_frame([], columns)


def _median(values: list[int]) -> int | None:
    return round(statistics.median(values)) if values else None


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f} %" if whole else "–"


@dataclass(frozen=True, kw_only=True)
class CorpusReport(RichResult):
    """A corpus analysis: every row (``kind`` names the table: ``sweep``,
    ``replay-session`` or ``replay-call``), how many items, how it ran."""

    kind: str
    rows: tuple[dict[str, Any], ...]
    items: int
    executor: str = ""
    warnings: tuple[str, ...] = field(default=())

    payload_kind = "corpus"

    @classmethod
    def of(cls, kind: str, rows: list[dict[str, Any]], items: int, executor: str) -> CorpusReport:
        """A report whose rows carry every column of ``kind`` (absent ones empty)."""
        names = list(KINDS[kind])
        return cls(
            kind=kind,
            rows=tuple({k: r.get(k) for k in names} for r in rows),
            items=items,
            executor=executor,
        )

    @property
    def columns(self) -> list[str]:
        """The table's column names."""
        return list(KINDS[self.kind])

    @property
    def stopped(self) -> bool:
        """Whether the run stopped before every item was done (no Dask worker was left)."""
        return any(r.get("error_type") == "NoWorkers" for r in self.rows)

    @property
    def exit_code(self) -> int:  # type: ignore[override]
        """1 when the run stopped (a table of the items done so far is not the result asked
        for), else 0; items that failed on their own are error rows either way."""
        return 1 if self.stopped else 0

    @property
    def failures(self) -> list[dict[str, Any]]:
        """The error rows: ``item``, ``error_type``, ``error``."""
        return [
            {"item": r["item"], "error_type": r["error_type"], "error": r["error"]}
            for r in self.rows
            if r.get("error_type")
        ]

    def frame(self) -> Any:
        """The rows as a pandas DataFrame, typed (nullable integers, booleans, strings)."""
        return typed_frame(list(self.rows), KINDS[self.kind])

    # -- summary ------------------------------------------------------------------------------

    def summary(self) -> list[dict[str, Any]]:
        """Per budget × model (sweeps) or per model (replays), over the items that worked."""
        ok = [r for r in self.rows if not r.get("error_type")]
        if self.kind == "policies":
            return self._policies_summary(ok)
        return self._sweep_summary(ok) if self.kind == "sweep" else self._replay_summary(ok)

    @staticmethod
    def _policies_summary(ok: list[dict[str, Any]]) -> list[dict[str, Any]]:
        groups: dict[str, list[dict[str, Any]]] = {}
        for r in ok:
            groups.setdefault(r.get("setting") or r["policy"], []).append(r)
        out = []
        for policy, rows in groups.items():
            costs = [r["cost_usd"] for r in rows]
            out.append(
                {
                    "policy": policy,
                    "sessions": len(rows),
                    "calls": sum(r["calls"] for r in rows),
                    "median_peak": _median([r["peak"] for r in rows]),
                    "compactions": sum(r["compactions"] for r in rows),
                    "probes_lost": sum(r["probes_lost"] for r in rows),
                    "cost_usd": None if None in costs else round(sum(costs), 4),
                }
            )
        return out

    @staticmethod
    def _sweep_summary(ok: list[dict[str, Any]]) -> list[dict[str, Any]]:
        groups: dict[tuple[Any, Any], list[dict[str, Any]]] = {}
        for r in ok:
            groups.setdefault((r["budget"], r["model"]), []).append(r)
        out = []
        for (budget, model), rows in groups.items():
            packets = {r["item"]: r for r in rows}
            entries = [r for r in rows if r["section"] != "tier 1"]
            full = sum(r["full"] for r in entries)
            summary = sum(r["summary"] for r in entries)
            counted = sum(r["counted"] for r in entries)
            out.append(
                {
                    "budget": budget,
                    "model": model,
                    "items": len(packets),
                    "median_tokens": _median([p["packet_tokens"] for p in packets.values()]),
                    "over_budget": sum(bool(p["over_budget"]) for p in packets.values()),
                    "entries": full + summary + counted,
                    "full": full,
                    "summarized": summary,
                    "counted_only": counted,
                }
            )
        return out

    def _replay_summary(self, ok: list[dict[str, Any]]) -> list[dict[str, Any]]:
        groups: dict[str, list[dict[str, Any]]] = {}
        for r in ok:
            groups.setdefault(r["model"], []).append(r)
        out = []
        for model, rows in groups.items():
            if self.kind == "replay-session":
                needing = [r for r in rows if r["summarizations"]]
                firsts = [r["first_summarization"] for r in needing]
                calls = sum(r["calls"] for r in rows)
            else:
                needing = [r for r in rows if r["needed_summarization"]]
                firsts = []
                calls = len(rows)
            costs = [r["cost_usd"] for r in rows]
            out.append(
                {
                    "model": model,
                    "sessions": len({r["item"] for r in rows}),
                    "calls": calls,
                    "needing_summarization": len({r["item"] for r in needing}),
                    "median_first_summarization": _median(firsts),
                    "cost_usd": None if None in costs else round(sum(costs), 4),
                }
            )
        return out

    def _summary_table(self) -> tuple[list[str], list[list[object]]]:
        rows: list[list[object]] = []
        if self.kind == "sweep":
            head = ["budget", "model", "items", "median tokens", "over", "full", "summarized"]
            head.append("counted only")
            for s in self.summary():
                rows.append(
                    [
                        "model" if s["budget"] is None else s["budget"],
                        s["model"] or "–",
                        s["items"],
                        s["median_tokens"],
                        s["over_budget"],
                        _share(s["full"], s["entries"]),
                        _share(s["summarized"], s["entries"]),
                        _share(s["counted_only"], s["entries"]),
                    ]
                )
            return head, rows
        if self.kind == "policies":
            head = ["policy", "sessions", "calls", "median peak", "compactions", "probes lost"]
            head.append("cost USD")
            for s in self.summary():
                rows.append(
                    [s["policy"], s["sessions"], s["calls"], s["median_peak"], s["compactions"],
                     s["probes_lost"], "?" if s["cost_usd"] is None else f"{s['cost_usd']:.2f}"]
                )  # fmt: skip
            return head, rows
        head = ["model", "sessions", "calls", "needing summarization", "median first", "cost USD"]
        for s in self.summary():
            first = s["median_first_summarization"]
            rows.append(
                [
                    s["model"],
                    s["sessions"],
                    s["calls"],
                    s["needing_summarization"],
                    "–" if first is None else f"call {first}",
                    "?" if s["cost_usd"] is None else f"{s['cost_usd']:.2f}",
                ]
            )
        return head, rows

    def _head(self) -> str:
        failed = len(self.failures)
        return f"{self.kind}: {self.items:,} items ({failed:,} failed), {len(self.rows):,} rows" + (
            f"; {self.executor}" if self.executor else ""
        )

    # -- forms --------------------------------------------------------------------------------

    def decision(self) -> tuple[tuple[Any, ...], Any]:
        """A policies run's settings across the sessions (cost × the recording, loss, the
        front) and the recommended one (:func:`ctx_lab.recordings.decide`); empty otherwise.
        Decided once a report (its bootstrap is the costly part): every form shows the same."""
        return self._decided

    @cached_property
    def _decided(self) -> tuple[tuple[Any, ...], Any]:
        if self.kind != "policies":
            return (), None
        from ..recordings import decide

        return decide(self.rows)

    def front(self) -> Any:
        """A policies run's settings, one row each (pandas; :meth:`decision`)."""
        from ..recordings.policies import front_frame

        return front_frame(*self.decision())

    def plot_front(self, ax: Any = None) -> Any:
        """A policies run's settings on the cost–loss plane, the front and the recommendation."""
        from ..recordings.policies import plot_front

        return plot_front(*self.decision(), ax=ax)

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON: every row, the summary, the failures; a policies run's settings
        and recommendation. Hand-written: the rows are a table's (columns differ by kind) and
        the summary, settings and recommendation are computed from them."""
        data = {
            "kind": self.kind,
            "items": self.items,
            "executor": self.executor,
            "columns": self.columns,
            "summary": self.summary(),
            "failures": self.failures,
            "rows": [dict(r) for r in self.rows],
            "warnings": list(self.warnings),
        }
        if self.kind == "policies":
            from ..wire import to_wire

            settings, recommended = self.decision()
            data["settings"] = [to_wire(s) for s in settings]
            data["recommended"] = None if recommended is None else to_wire(recommended)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CorpusReport:
        """The inverse of :meth:`to_dict` (summary and failures are derived)."""
        return cls(
            kind=data["kind"],
            rows=tuple(dict(r) for r in data["rows"]),
            items=data["items"],
            executor=data.get("executor", ""),
            warnings=tuple(data.get("warnings", ())),
        )

    def to_text(self) -> str:
        """A head line, the summary table, and the items that failed (the first 20)."""
        head, rows = self._summary_table()
        lines = [self._head(), text_table(head, rows)]
        recommended = self.decision()[1]
        if recommended is not None:
            from ..recordings.policies import recommendation_text

            lines.append(recommendation_text(recommended))
        failures = self.failures
        if failures:
            lines.append("failed:")
            lines += [f"  {f['item']}: {f['error_type']}: {f['error']}" for f in failures[:20]]
            if len(failures) > 20:
                lines.append(f"  … and {len(failures) - 20:,} more (see --format csv)")
        return "\n".join(lines)

    def to_csv(self) -> str:
        """Every row as CSV (empty cells for missing values)."""
        return csv_text(self.columns, ([row.get(k) for k in self.columns] for row in self.rows))

    def render(self, fmt: str = "table") -> str:
        """``table`` (the summary), ``csv`` (every row) or ``json``."""
        if fmt == "csv":
            return self.to_csv()
        return super().render("json" if fmt == "json" else "text")

    def file_output(self, path: str, fmt: str = "table") -> str | bytes:
        """What ``-o path`` writes: Parquet, CSV or JSON by the file's suffix (``.parquet``
        needs pandas and pyarrow), else ``fmt``."""
        suffix = Path(path).suffix.lower()
        if suffix == ".parquet":
            try:
                buffer = io.BytesIO()
                self.frame().to_parquet(buffer, index=False)
            except ImportError as exc:
                raise UsageError(
                    f"writing {path} needs pandas and pyarrow: pip install 'ctx-lab[dask]' "
                    "(or write .csv)"
                ) from exc
            return buffer.getvalue()
        if suffix == ".csv":
            return self.to_csv()
        if suffix == ".json":
            return json.dumps(self.to_dict(), indent=2) + "\n"
        return self.render(fmt)

    def html_body(self) -> str:
        """The summary table, then the failures."""
        head, rows = self._summary_table()
        body = f"<h4 data-ctx-corpus>{escape(self._head())}</h4>" + html_table(head, rows)
        failures = self.failures
        if failures:
            body += html_table(
                ["item", "error"],
                [[f["item"], f"{f['error_type']}: {f['error']}"] for f in failures[:200]],
            )
        return body
