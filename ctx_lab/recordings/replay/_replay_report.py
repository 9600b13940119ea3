"""What a replay answers: one row per call and model (:data:`REPLAY_COLUMNS`), a summary per
model, and the plot of context size against each model's budget."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...claims import claims
from ...display import RichResult, csv_text, escape, html_table, text_table

__all__ = ["REPLAY_COLUMNS", "ReplayReport", "billed_over_budget_warning", "plot_replay"]

REPLAY_COLUMNS = [
    "call",
    "model",
    "recorded_model",
    "timestamp",
    "messages",
    "history_tokens",
    "context_tokens",
    "budget",
    "headroom",
    "over_budget",
    "needed_summarization",
    "excess_tokens",
    "summarized_tokens",
    "summaries",
    "summaries_made",
    "recorded_compaction",
    "cached_tokens",
    "new_tokens",
    "output_tokens",
    "input_cost_usd",
    "cached_cost_usd",
    "output_cost_usd",
    "cost_usd",
    "reported_input",
    "reported_cached",
    "reported_output",
    "counted_input",
    "billed_input",
    "over_budget_billed",
    "event",
]
_SUMMARY_COLUMNS = [
    "model",
    "counter",
    "budget",
    "peak context",
    "first summarization",
    "summaries made",
    "over budget",
    "billed peak",
    "billed over budget",
    "cost USD",
]


# how each figure of a row, a summary and a counter was made (ctx_lab/claims.py): the replay
# is a counterfactual (the models' context managers on the recorded actions), beside the
# recording's own usage and the counts of what it holds
ROW_CLAIM = claims(
    "open-loop",
    history_tokens="estimated",
    counted_input="estimated",
    output_tokens="billed",
    reported_input="billed",
    reported_cached="billed",
    reported_output="billed",
    billed_input="billed",
)
SUMMARY_CLAIM = claims("open-loop", billed_peak="billed")
COUNTER_CLAIM = claims("estimated")


def _usd(tokens: int, price: float | None) -> float | None:
    return None if price is None else round(tokens * price / 1_000_000, 6)


def _sum(*values: float | None) -> float | None:
    """The total, or None when any part's price is unknown."""
    return None if None in values else round(sum(v or 0.0 for v in values), 6)


def _unlabelled(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row or counter read back from JSON, without the claim its JSON form carries."""
    return {k: v for k, v in row.items() if k != "claim"}


def _over(summary: Mapping[str, Any]) -> str:
    """``0``, or ``57 (worst -52,667 at call 90)``."""
    count = summary.get("over_budget_calls") or 0
    if not count:
        return "0"
    return f"{count} (worst {summary['worst_headroom']:+,} at call {summary['worst_call']})"


def billed_over_budget_warning(summary: Mapping[str, Any], calls: int) -> str | None:
    """What the recording itself shows for its own model: the calls its usage (the bill)
    puts over the budget, beside the replay's counted peak."""
    over = summary.get("billed_over_budget_calls")
    if not over:
        return None
    shown = ", ".join(str(c) for c in over[:8]) + (f" and {len(over) - 8} more" if len(over) > 8
                                                     else "")  # fmt: skip
    return (
        f"{summary['model']}: the recording itself sent {len(over)} of {calls} calls over the "
        f"budget of {summary['budget']:,} tokens by its usage (calls {shown}; peak "
        f"{summary['billed_peak']:,} at call {summary['billed_peak_call']}); ctx_lab's counts "
        f"of the same calls peak at {summary['peak_context']:,}"
    )


def over_budget_warning(summary: Mapping[str, Any], calls: int) -> str | None:
    """The warning a replay gives for a model whose context would not have fit."""
    count = summary.get("over_budget_calls") or 0
    if not count:
        return None
    return (
        f"{summary['model']}: {count} of {calls} calls over the budget of "
        f"{summary['budget']:,} tokens even after summarizing (worst headroom "
        f"{summary['worst_headroom']:+,} at call {summary['worst_call']}): the recent messages "
        "alone do not fit; rows with over_budget are those calls"
    )


@dataclass(frozen=True, kw_only=True)
class ReplayReport(RichResult):
    """One row per call and model (:data:`REPLAY_COLUMNS`), the counter each model counted
    with, and what the transcript held."""

    source: str
    format: str
    models: tuple[str, ...]
    rows: Sequence[dict[str, Any]]  # a RowTable when replayed (a tuple read from JSON)
    counters: tuple[dict[str, Any], ...] = ()
    calls: int = 0
    messages: int = 0
    recorded_compactions: tuple[int, ...] = ()
    sidechain_lines: int = 0
    unknown_lines: int = 0
    images: int = 0
    warnings: tuple[str, ...] = field(default=())
    registry: str = "builtin"

    payload_kind = "replay"

    def frame(self) -> Any:
        """The rows as a pandas DataFrame with :data:`REPLAY_COLUMNS`."""
        import pandas as pd

        return pd.DataFrame(list(self.rows), columns=REPLAY_COLUMNS)

    def plot(self, ax: Any = None) -> Any:
        """:func:`plot_replay` of these rows."""
        return plot_replay(self.frame(), ax)

    def summary(self) -> list[dict[str, Any]]:
        """Per model: budget, peak context, the first call that needed summarizing, how many
        summaries the replay made (``summarizations``; a recorded compaction's summary is not
        one of them) and how many calls needed one, the calls over the budget and the worst
        headroom, total cost (None when a price is unknown)."""
        seen: dict[str, dict[str, Any]] = {
            model: {
                "calls": 0,
                "peak": 0,
                "needed": [],
                "over": 0,
                "worst": None,
                "costs": 0.0,
                "billed": [],
                "billed_peak": None,
            }
            for model in self.models
        }
        for r in self.rows:  # one pass; a RowTable makes each row as it is read
            m = seen.get(r["model"])
            if m is None:
                continue
            m["calls"] += 1
            m["last"] = r
            m["peak"] = max(m["peak"], r["context_tokens"])
            if r["needed_summarization"]:
                m["needed"].append(r["call"])
            m["over"] += bool(r.get("over_budget", r["headroom"] < 0))
            billed = r.get("billed_input")
            if billed is not None:
                if r.get("over_budget_billed"):
                    m["billed"].append(r["call"])
                if m["billed_peak"] is None or billed > m["billed_peak"][0]:
                    m["billed_peak"] = (billed, r["call"])
            if m["worst"] is None or r["headroom"] < m["worst"]["headroom"]:
                m["worst"] = r
            cost = r["cost_usd"]
            m["costs"] = None if cost is None or m["costs"] is None else m["costs"] + cost
        out = []
        for model, m in seen.items():
            last, worst, needed = m.get("last"), m["worst"], m["needed"]
            counter = next((c for c in self.counters if c["model"] == model), {})
            out.append(
                {
                    "model": model,
                    "counter": counter.get("counter"),
                    "exact": counter.get("exact"),
                    "budget": last["budget"] if last else None,
                    "peak_context": m["peak"],
                    "first_summarization": needed[0] if needed else None,
                    "summarizations": last.get("summaries_made", 0) if last else 0,
                    "calls_needing_summary": len(needed),
                    "over_budget_calls": m["over"],
                    "worst_headroom": worst["headroom"] if worst else None,
                    "worst_call": worst["call"] if worst else None,
                    # the recording's own calls as billed (its usage), where it was this model
                    "billed_peak": m["billed_peak"][0] if m["billed_peak"] else None,
                    "billed_peak_call": m["billed_peak"][1] if m["billed_peak"] else None,
                    "billed_over_budget_calls": m["billed"] if m["billed_peak"] else None,
                    "cost_usd": round(m["costs"], 6)
                    if m["calls"] and m["costs"] is not None
                    else None,
                }
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON: rows, per-model summary, counters and transcript facts. Hand-written:
        the per-model summary is computed from the rows."""
        return {
            "source": self.source,
            "format": self.format,
            "models": list(self.models),
            "calls": self.calls,
            "messages": self.messages,
            "recorded_compactions": list(self.recorded_compactions),
            "sidechain_lines": self.sidechain_lines,
            "unknown_lines": self.unknown_lines,
            "images": self.images,
            "counters": [{**c, "claim": COUNTER_CLAIM} for c in self.counters],
            "summary": [{**s, "claim": SUMMARY_CLAIM} for s in self.summary()],
            "columns": list(REPLAY_COLUMNS),
            "rows": [{**r, "claim": ROW_CLAIM} for r in self.rows],
            "warnings": list(self.warnings),
            "registry": self.registry,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReplayReport:
        """The inverse of :meth:`to_dict` (the summary is derived)."""
        return cls(
            source=data["source"],
            format=data["format"],
            models=tuple(data["models"]),
            rows=tuple(_unlabelled(r) for r in data["rows"]),
            counters=tuple(_unlabelled(c) for c in data.get("counters", ())),
            calls=data.get("calls", 0),
            messages=data.get("messages", 0),
            recorded_compactions=tuple(data.get("recorded_compactions", ())),
            sidechain_lines=data.get("sidechain_lines", 0),
            unknown_lines=data.get("unknown_lines", 0),
            images=data.get("images", 0),
            warnings=tuple(data.get("warnings", ())),
            registry=data.get("registry", "builtin"),
        )

    def _summary_rows(self) -> list[list[object]]:
        rows = []
        for s in self.summary():
            rows.append(
                [
                    s["model"],
                    f"{s['counter']}{'' if s['exact'] else ' ~'}",
                    s["budget"],
                    s["peak_context"],
                    "never"
                    if s["first_summarization"] is None
                    else f"call {s['first_summarization']}",
                    s["summarizations"],
                    _over(s),
                    "" if s["billed_peak"] is None else s["billed_peak"],
                    ""
                    if s["billed_over_budget_calls"] is None
                    else len(s["billed_over_budget_calls"]),
                    "?" if s["cost_usd"] is None else f"{s['cost_usd']:.4f}",
                ]
            )
        return rows

    def _head(self) -> str:
        return (
            f"{self.source}: {self.format}, {self.calls} calls, {self.messages} messages, "
            f"{len(self.recorded_compactions)} recorded compactions; prices from the "
            f"{self.registry} registry; figures open-loop (billed peak: billed)"
        )

    def to_text(self) -> str:
        """A head line and one summary row per model (``--format csv`` gives every row)."""
        return "\n".join([self._head(), text_table(_SUMMARY_COLUMNS, self._summary_rows())])

    def to_csv(self) -> str:
        """Every row as CSV with :data:`REPLAY_COLUMNS`."""
        return csv_text(REPLAY_COLUMNS, ([row.get(k) for k in REPLAY_COLUMNS] for row in self.rows))

    def render(self, fmt: str = "table") -> str:
        """``table`` (the summary), ``csv`` (every row) or ``json``."""
        if fmt == "csv":
            return self.to_csv()
        return super().render("json" if fmt == "json" else "text")

    def html_body(self) -> str:
        """The summary per model, then the calls that needed summarizing."""
        events = [
            [r["model"], r["call"], r["context_tokens"], r["excess_tokens"], r["event"]]
            for r in self.rows
            if r["event"]
        ]
        return (
            f"<h4 data-ctx-replay>{escape(self._head())}</h4>"
            + html_table(_SUMMARY_COLUMNS, self._summary_rows(), numeric=(2, 3, 5, 7, 8, 9))
            + (
                html_table(
                    ["model", "call", "context", "over by", "event"],
                    events[:200],
                    numeric=(1, 2, 3),
                )
                if events
                else ""
            )
        )


def plot_replay(frame: Any, ax: Any = None) -> Any:
    """Context size over the session per model, each model's budget as a dashed line in its
    colour, summarizations as triangles and recorded compactions as grey vertical lines."""
    from ...plotting import ACCENT, SERIES_COLORS, figure_axes

    fig, ax = figure_axes(ax, (8.5, 3.8))
    colors = SERIES_COLORS
    compaction_drawn = False
    for i, (model, rows) in enumerate(frame.groupby("model", sort=False)):
        color = colors[i % len(colors)]
        ax.plot(rows["call"], rows["context_tokens"], color=color, linewidth=1.3, label=model)
        ax.step(
            rows["call"], rows["budget"], where="post", color=color, linewidth=0.9, linestyle="--"
        )
        marks = rows[rows["summarized_tokens"] > 0]
        if len(marks):
            ax.scatter(
                marks["call"],
                marks["context_tokens"],
                marker="v",
                s=40,
                color=color,
                edgecolors=ACCENT["edge"],
                linewidths=0.6,
                zorder=4,
                label=f"{model}: summarized",
            )
        if not compaction_drawn:
            for call in rows.loc[rows["recorded_compaction"], "call"]:
                ax.axvline(
                    call,
                    color=ACCENT["outline"],
                    linewidth=0.8,
                    linestyle=":",
                    label=None if compaction_drawn else "recorded compaction",
                )
                compaction_drawn = True
    ax.set_xlabel("call")
    ax.set_ylabel("context tokens")
    ax.set_title("Replayed context per model (dashed: budget)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig
