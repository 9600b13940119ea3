"""Matplotlib figures for packets and sweeps; matplotlib is imported only when drawing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..plotting import figure_axes

if TYPE_CHECKING:
    from .packet import Packet

__all__ = ["plot_allocation", "plot_profiles", "plot_sweep"]

TIER_COLORS = {1: "#6b7280", 2: "#2563eb", 3: "#7c3aed", 4: "#d97706", 5: "#059669"}


def plot_allocation(packet: Packet, ax: Any = None) -> Any:
    """Bars of tokens used per section (coloured by tier) over their caps, with the budget
    as a line and the total used in the title. Returns the Figure."""
    fig, ax = figure_axes(ax, (8, 3.6))
    rows = list(packet.allocation_rows)
    names = [r.section.replace("_", " ") for r in rows]
    x = range(len(rows))
    caps = [r.cap if r.cap is not None else 0 for r in rows]
    ax.bar(x, caps, color="none", edgecolor="#9ca3af", linestyle="--", label="cap")
    bars = ax.bar(x, [r.used for r in rows], color=[TIER_COLORS.get(r.tier, "#888") for r in rows])
    for bar, row in zip(bars, rows, strict=True):
        label = f"{row.used}"
        if row.summary or row.counted:
            label += f"\n{row.full} full, {row.summary} sum., {row.counted} cnt."
        ax.annotate(
            label,
            (bar.get_x() + bar.get_width() / 2, bar.get_height()),
            ha="center",
            va="bottom",
            fontsize=8,
        )
    ax.axhline(packet.budget, color="#dc2626", linewidth=1, label=f"budget {packet.budget}")
    ax.set_xticks(list(x), names, rotation=20, ha="right")
    ax.set_ylabel(f"tokens ({packet.counter})")
    state = " — OVER BUDGET (tier 1 only)" if packet.over_budget else ""
    ax.set_title(f"Token allocation: {packet.tokens_used} of {packet.budget} used{state}")
    ax.legend(loc="upper right", fontsize=8)
    return fig


def plot_sweep(frame: Any, ax: Any = None) -> Any:
    """Stacked areas of tokens per section against the budget (from :func:`sweep`)."""
    fig, ax = figure_axes(ax, (8, 3.6))
    table = frame.pivot_table(index="budget", columns="section", values="tokens", aggfunc="sum")
    order = [c for c in ("tier 1", "tasks", "conventions", "decisions", "learnings") if c in table]
    table = table[order].fillna(0)
    ax.stackplot(table.index, *(table[c] for c in order), labels=order, alpha=0.85)
    ax.plot(table.index, table.index, color="#dc2626", linewidth=1, label="budget")
    ax.set_xlabel("budget (tokens)")
    ax.set_ylabel("tokens used")
    ax.set_title("Where the tokens go as the budget grows")
    ax.legend(loc="upper left", fontsize=8)
    return fig


ACTION_COLORS = {
    "full": "#2563eb",
    "summary": "#93c5fd",
    "counted": "#d1d5db",
    "dropped": "#f3f4f6",
    "superseded": "#9ca3af",
    "skipped": "#e5e7eb",
}


def plot_profiles(frame: Any, ax: Any = None) -> Any:
    """For each section, the items' actions under the design profile and under ``ctx-0.8``
    side by side (from :func:`ctx_lab.packet.compare_profiles`)."""
    fig, ax = figure_axes(ax, (8, 3.6))
    sections = list(dict.fromkeys(frame["section"]))
    actions = [a for a in ACTION_COLORS if a in set(frame["design"]) | set(frame["ctx-0.8"])]
    width = 0.38
    for offset, profile in ((-width / 2, "design"), (width / 2, "ctx-0.8")):
        bottom = [0] * len(sections)
        for action in actions:
            heights = [
                int(((frame["section"] == s) & (frame[profile] == action)).sum()) for s in sections
            ]
            ax.bar(
                [i + offset for i in range(len(sections))],
                heights,
                width,
                bottom=bottom,
                color=ACTION_COLORS[action],
                edgecolor="#374151",
                linewidth=0.4,
                label=action if profile == "design" else None,
            )
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax.set_xticks(range(len(sections)), [f"{s}\n(design | ctx)" for s in sections], fontsize=8)
    ax.set_ylabel("items")
    differing = int(frame["rule"].notna().sum())
    ax.set_title(f"design vs ctx-0.8: {differing} of {len(frame)} items differ")
    ax.legend(loc="upper right", fontsize=8)
    return fig
