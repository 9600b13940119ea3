"""Plots of an anatomy: one request as an icicle (categories, then the names within them), a
session as stacked areas over its calls with the window, budget and autocompact lines."""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from ..plotting import ACCENT, CATEGORY_COLORS, WINDOW_COLORS, figure_axes
from ._piece import CATEGORIES

if TYPE_CHECKING:
    from ._request import RequestAnatomy
    from ._session import SessionAnatomy

__all__ = ["plot_request", "plot_session"]

_LABELS = {"hidden": "not in the file (inferred from reported input)"}


def _thousands() -> Any:
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(
        lambda value, _: f"{value / 1000:,.0f}k" if value >= 1000 else f"{value:,.0f}"
    )


def plot_request(anatomy: RequestAnatomy, ax: Any = None) -> Any:
    """Two rows against the budget: categories, then the named parts of each (a tool, a tool's
    results, a memory file), widths in tokens."""
    fig, ax = figure_axes(ax, (9, 2.6))
    scale = max(anatomy.budget, anatomy.used)
    start = 0
    for category, tokens in anatomy.categories().items():
        color = CATEGORY_COLORS.get(category, ACCENT["other"])
        ax.barh(1, tokens, left=start, color=color, edgecolor=ACCENT["edge"], linewidth=0.4,
                label=f"{category} {tokens:,}")  # fmt: skip
        if tokens > scale * 0.06:
            ax.text(start + tokens / 2, 1, category, ha="center", va="center", fontsize=8)
        names: dict[str, int] = {}
        for item in anatomy.items:
            if item.category == category:
                names[item.name] = names.get(item.name, 0) + item.tokens
        inner = start
        for name, size in sorted(names.items(), key=lambda kv: -kv[1]):
            ax.barh(0, size, left=inner, color=color, alpha=0.6, edgecolor=ACCENT["edge"],
                    linewidth=0.3)  # fmt: skip
            if name and size > scale * 0.06:
                ax.text(inner + size / 2, 0, name[:18], ha="center", va="center", fontsize=7)
            inner += size
        start += tokens
    if anatomy.hidden:
        ax.barh(1, anatomy.hidden, left=start, color=WINDOW_COLORS["hidden"], hatch="//",
                edgecolor=ACCENT["edge"], linewidth=0.4,
                label=f"{_LABELS['hidden']} {anatomy.hidden:,}")  # fmt: skip
    ax.axvline(anatomy.budget, color=ACCENT["budget"], linestyle="--", linewidth=1,
               label=f"input budget {anatomy.budget:,}")  # fmt: skip
    ax.set_yticks([0, 1], ["parts", "categories"])
    ax.set_ylabel("the request")
    ax.set_xlim(0, scale * 1.02)
    ax.xaxis.set_major_formatter(_thousands())
    ax.set_xlabel(f"tokens ({anatomy.counter})")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.set_title(f"{anatomy.model}: {anatomy.used:,} of {anatomy.budget:,} tokens")
    return fig


def plot_session(session: SessionAnatomy, ax: Any = None) -> Any:
    """Categories over the calls (stacked), the window and budget, the autocompact line where
    the agent has one, and what ctx_lab's manager would have sent (dotted)."""
    fig, ax = figure_axes(ax, (9, 3.8))
    rows = session.rows()
    calls = [r["call"] for r in rows]
    used = [c for c in CATEGORIES if any(r[c] for r in rows)]
    if any(r["hidden"] for r in rows):
        used.append("hidden")
    ax.stackplot(
        calls,
        [[r[c] for r in rows] for c in used],
        labels=[_LABELS.get(c, c) for c in used],
        colors=[CATEGORY_COLORS.get(c) or WINDOW_COLORS.get(c, ACCENT["other"]) for c in used],
        alpha=0.85,
    )
    top = max([1, *(max(r["used"], r["budget"], r["autocompact_at"] or 0) for r in rows)]) * 1.1
    if rows and max(r["window"] for r in rows) <= top:
        ax.plot(calls, [r["window"] for r in rows], color=ACCENT["edge"], linewidth=1,
                label="window")  # fmt: skip
    if rows:
        ax.plot(calls, [r["budget"] for r in rows], color=ACCENT["budget"], linestyle="--",
                linewidth=1, label="input budget")  # fmt: skip
        if any(r["autocompact_at"] for r in rows):
            ax.plot(calls, [r["autocompact_at"] for r in rows], color=ACCENT["outline"],
                    linestyle="-.", linewidth=1, label="autocompact")  # fmt: skip
        if any(r["replayed"] is not None for r in rows):
            ax.plot(calls, [r["replayed"] for r in rows], color=ACCENT["used"], linestyle=":",
                    linewidth=1.5, label="ctx_lab would send")  # fmt: skip
        for r in rows:
            if r["cache_break"]:
                ax.axvline(r["call"], color=ACCENT["outline"], linewidth=0.6)
    ax.set_xlabel("call")
    ax.set_ylabel("input tokens")
    ax.yaxis.set_major_formatter(_thousands())
    ax.set_ylim(0, top)
    ax.set_title(f"What fills each request: {PurePath(session.source).name}")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig
