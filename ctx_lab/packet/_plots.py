"""Matplotlib figures for packets and sweeps; matplotlib is imported only when drawing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..plotting import ACCENT, ACTION_COLORS, figure_axes, section_color

if TYPE_CHECKING:
    from ._packet import Packet

__all__ = ["plot_allocation", "plot_profiles", "plot_sweep"]


def plot_allocation(packet: Packet, ax: Any = None) -> Any:
    """The whole packet as one stacked bar against the budget line (how full it is), then a
    bar per section (the shared section palette) over its cap (outlines), each labelled with its
    tokens and — where items were left out — full / summary / counted. Returns the Figure."""
    rows = [r for r in packet.allocation_rows]
    fig, ax = figure_axes(ax, (8, max(2.8, 0.38 * len(rows) + 1.6)))
    names = [r.section.replace("_", " ") for r in rows]
    y = [i + 1.3 for i in range(len(rows))]
    start = 0
    for row in rows:  # the whole packet: its sections end to end
        ax.barh(0, row.used, left=start, color=section_color(row.section),
                edgecolor=ACCENT["edge"], linewidth=0.3)  # fmt: skip
        start += row.used
    share = packet.tokens_used / packet.budget if packet.budget else 0
    ax.annotate(f"{packet.tokens_used:,} ({share:.0%} of the budget)", (start, 0), xytext=(4, 0),
                textcoords="offset points", va="center", fontsize=8, weight="bold")  # fmt: skip
    caps = [r.cap if r.cap is not None else 0 for r in rows]
    ax.barh(y, caps, color="none", edgecolor=ACCENT["outline"], linestyle="--", label="cap")
    ax.barh(y, [r.used for r in rows], color=[section_color(r.section) for r in rows])
    widest = max([packet.budget, packet.tokens_used, *caps, 1])
    content = max([packet.tokens_used, *(r.used for r in rows), 1])  # caps may run off
    zoomed = packet.budget > 3 * content
    if zoomed:
        # a model's budget dwarfs the packet: zoom to the packet, the budget named at the edge
        widest = content
        ax.annotate(
            f"budget {packet.budget:,} →",
            (1, 1.01),
            xycoords="axes fraction",
            ha="right",
            va="bottom",
            fontsize=8,
            color=ACCENT["budget"],
        )
    else:
        ax.axvline(
            packet.budget, color=ACCENT["budget"], linewidth=1, label=f"budget {packet.budget:,}"
        )
    for row, position in zip(rows, y, strict=True):
        label = f"{row.used:,}"
        if row.summary or row.counted:
            label += f"  ({row.full} / {row.summary} / {row.counted})"
        cap = row.cap or 0
        ax.annotate(
            label,
            (row.used if cap > widest else max(row.used, cap), position),
            xytext=(4, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
        )
    ax.set_xlim(0, widest * 1.45)  # room for the labels right of the bars
    ax.set_yticks([0, *y], ["whole packet", *names], fontsize=8)
    ax.get_yticklabels()[0].set_fontweight("bold")
    ax.invert_yaxis()
    ax.set_ylabel("section")
    ax.set_xlabel(f"tokens ({packet.counter}); labels: used (full / summary / counted)")
    state = " — OVER BUDGET" if packet.over_budget or packet.tokens_used > packet.budget else ""
    ax.set_title(f"Token allocation: {packet.tokens_used:,} of {packet.budget:,} used{state}")
    ax.legend(loc="lower right", fontsize=8)
    return fig


def plot_sweep(frame: Any, ax: Any = None) -> Any:
    """Stacked areas of tokens per section against the budget (from :func:`sweep`), in the
    shared section palette, the legend beside the plot."""
    fig, ax = figure_axes(ax, (8, 3.6))
    table = frame.pivot_table(index="budget", columns="section", values="tokens", aggfunc="sum")
    known = ("tier 1", "tasks", "conventions", "steering", "decisions", "learnings")
    order = [c for c in known if c in table]
    table = table[order].fillna(0)
    ax.stackplot(
        table.index,
        *(table[c] for c in order),
        labels=order,
        colors=[section_color(c) for c in order],
        alpha=0.85,
    )
    ax.plot(table.index, table.index, color=ACCENT["budget"], linewidth=1, label="budget")
    ax.set_xlabel("budget (tokens)")
    ax.set_ylabel("tokens used")
    ax.set_title("Where the tokens go as the budget grows")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return fig


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
                edgecolor=ACCENT["border"],
                linewidth=0.4,
                label=action if profile == "design" else None,
            )
            bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax.set_xticks(range(len(sections)), [f"{s}\n(design | ctx)" for s in sections], fontsize=8)
    ax.set_xlabel("section (left bar: design profile, right bar: ctx-0.8)")
    ax.set_ylabel("items")
    differing = int(frame["rule"].notna().sum())
    ax.set_title(f"design vs ctx-0.8: {differing} of {len(frame)} items differ")
    ax.legend(loc="upper right", fontsize=8)
    return fig
