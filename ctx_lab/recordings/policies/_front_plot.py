"""The decision as a table and a chart: one row per setting (pandas), and the cost–loss plane —
every setting at its median cost × the recording and median probes lost, with its bootstrap
interval, the front joined, the recording marked and the recommended setting ringed. pandas
and matplotlib are imported inside."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._front import OPEN_LOOP_NOTE, Recommendation, Setting

__all__ = ["FRONT_COLUMNS", "front_frame", "plot_front"]

FRONT_COLUMNS = (
    "setting",
    "policy",
    "cost_ratio",
    "cost_low",
    "cost_high",
    "probes_lost",
    "probes_low",
    "probes_high",
    "constraints_lost",
    "peak",
    "broke",
    "sessions",
    "on_front",
    "recommended",
)


def front_frame(settings: Sequence[Setting], recommended: Recommendation | None = None) -> Any:
    """One row per setting (:data:`FRONT_COLUMNS`), the cheapest first."""
    import pandas as pd

    chosen = recommended.label if recommended is not None else None
    rows = [
        {
            "setting": s.label,
            "policy": s.policy,
            "cost_ratio": None if s.cost_ratio is None else s.cost_ratio.median,
            "cost_low": None if s.cost_ratio is None else s.cost_ratio.low,
            "cost_high": None if s.cost_ratio is None else s.cost_ratio.high,
            "probes_lost": s.probes_lost.median,
            "probes_low": s.probes_lost.low,
            "probes_high": s.probes_lost.high,
            "constraints_lost": s.constraints_lost.median,
            "peak": s.peak,
            "broke": s.broke,
            "sessions": len(s.sessions),
            "on_front": s.on_front,
            "recommended": s.label == chosen,
        }
        for s in settings
    ]
    frame = pd.DataFrame(rows, columns=list(FRONT_COLUMNS))
    return frame.sort_values("cost_ratio", kind="stable", na_position="last").reset_index(drop=True)


def plot_front(
    settings: Sequence[Setting], recommended: Recommendation | None = None, ax: Any = None
) -> Any:
    """Cost × the recording against probes lost per setting: error bars the 90 % intervals,
    the front a line, the recording a square, the recommended setting ringed and labelled;
    the title says it is open-loop."""
    from ...plotting import ACCENT, SERIES_COLORS, figure_axes

    fig, ax = figure_axes(ax, (8, 5))
    shown = [(s, s.cost_ratio) for s in settings if s.cost_ratio is not None]
    policies = list(dict.fromkeys(s.policy for s, _ in shown))
    colors = {p: SERIES_COLORS[i % len(SERIES_COLORS)] for i, p in enumerate(policies)}
    for s, cost in shown:
        x, y = cost.median, s.probes_lost.median
        ax.errorbar(
            x,
            y,
            xerr=[[x - cost.low], [cost.high - x]],
            yerr=[[y - s.probes_lost.low], [s.probes_lost.high - y]],
            fmt="s" if s.label == "recorded" else "o",
            color=colors[s.policy],
            alpha=0.85 if s.on_front else 0.35,
            markersize=6,
            elinewidth=0.6,
            capsize=2,
        )
    front = sorted((cost.median, s.probes_lost.median) for s, cost in shown if s.on_front)
    if front:
        xs, ys = zip(*front, strict=True)
        ax.plot(xs, ys, color=ACCENT["used"], linewidth=1, linestyle="--", label="cost–loss front")
    for policy, color in colors.items():  # one legend entry per policy
        ax.plot([], [], "o", color=color, label=policy)
    if recommended is not None and recommended.cost_ratio is not None:
        x, y = recommended.cost_ratio.median, recommended.probes_lost.median
        ring = {"markerfacecolor": "none", "markeredgecolor": ACCENT["edge"]}
        ax.plot([x], [y], "o", markersize=14, markeredgewidth=1.5, **ring)
        ax.annotate(
            f"recommended: {recommended.label}",
            (x, y),
            xytext=(8, 8),
            textcoords="offset points",
            fontsize=7,
        )
    ax.axvline(1.0, color=ACCENT["outline"], linewidth=0.8, linestyle=":")
    ax.set_xlabel("cost × the recording (median over sessions, 90 % interval)")
    ax.set_ylabel("probes lost (median)")
    ax.set_title(OPEN_LOOP_NOTE, fontsize=7, wrap=True)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    return fig
