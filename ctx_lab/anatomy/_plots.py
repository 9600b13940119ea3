"""Plots of an anatomy: one request as an icicle (categories, then the names within them), a
session as stacked areas over its calls with the window, budget and autocompact lines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..plotting import ACCENT, CATEGORY_COLORS, figure_axes
from ._pieces import CATEGORIES

if TYPE_CHECKING:
    from ._request import RequestAnatomy
    from ._session import SessionAnatomy

__all__ = ["plot_request", "plot_session"]


def plot_request(anatomy: RequestAnatomy, ax: Any = None) -> Any:
    """Two rows against the budget: categories, then the named parts of each (a tool, a tool's
    results, a memory file), widths in tokens."""
    fig, ax = figure_axes(ax, (9, 2.6))
    start = 0
    for category, tokens in anatomy.categories().items():
        color = CATEGORY_COLORS.get(category, ACCENT["other"])
        ax.barh(1, tokens, left=start, color=color, edgecolor=ACCENT["edge"], linewidth=0.4)
        if tokens > anatomy.budget * 0.04:
            ax.text(start + tokens / 2, 1, category, ha="center", va="center", fontsize=8)
        names: dict[str, int] = {}
        for item in anatomy.items:
            if item.category == category:
                names[item.name] = names.get(item.name, 0) + item.tokens
        inner = start
        for name, size in sorted(names.items(), key=lambda kv: -kv[1]):
            ax.barh(0, size, left=inner, color=color, alpha=0.6, edgecolor=ACCENT["edge"],
                    linewidth=0.3)  # fmt: skip
            if name and size > anatomy.budget * 0.04:
                ax.text(inner + size / 2, 0, name[:18], ha="center", va="center", fontsize=7)
            inner += size
        start += tokens
    ax.axvline(anatomy.budget, color=ACCENT["budget"], linestyle="--", linewidth=1)
    ax.set_yticks([0, 1], ["parts", "categories"])
    ax.set_xlim(0, max(anatomy.budget, anatomy.total) * 1.02)
    ax.set_xlabel(f"tokens ({anatomy.counter}); dashed: the input budget")
    ax.set_title(f"{anatomy.model}: {anatomy.total:,} of {anatomy.budget:,} tokens")
    return fig


def plot_session(session: SessionAnatomy, ax: Any = None) -> Any:
    """Categories over the calls (stacked), the window and budget, the autocompact line where
    the agent has one, and what ctx_lab's manager would have sent (dotted)."""
    fig, ax = figure_axes(ax, (9, 3.8))
    rows = session.rows()
    calls = [r["call"] for r in rows]
    used = [c for c in CATEGORIES if any(r[c] for r in rows)]
    ax.stackplot(
        calls,
        [[r[c] for r in rows] for c in used],
        labels=used,
        colors=[CATEGORY_COLORS.get(c, ACCENT["other"]) for c in used],
        alpha=0.85,
    )
    if rows:
        ax.plot(calls, [r["window"] for r in rows], color=ACCENT["edge"], linewidth=1,
                label="window")  # fmt: skip
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
    ax.set_ylabel("tokens")
    ax.set_title(f"What fills each request: {session.source}")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig
