"""Shared matplotlib plumbing: a Figure without pyplot (matplotlib is imported on use), and the
one palette every plot and (through the generated TypeScript) the lab's renderers use."""

from __future__ import annotations

from typing import Any

__all__ = [
    "ACCENT",
    "ACTION_COLORS",
    "CACHE_COLORS",
    "CATEGORY_COLORS",
    "POLICY_COLORS",
    "SECTION_COLORS",
    "SEGMENT_COLORS",
    "SERIES_COLORS",
    "SERIES_DASHES",
    "WINDOW_COLORS",
    "figure_axes",
    "section_color",
    "series_style",
]

# One palette for the packet's sections, used by every plot and (through the generated
# TypeScript) by the lab's renderers, so a section looks the same everywhere.
SECTION_COLORS = {
    "header": "#9ca3af",
    "read_order": "#6b7280",
    "constitution": "#4b5563",
    "instruction": "#374151",
    "tier 1": "#6b7280",
    "tasks": "#2563eb",
    "conventions": "#7c3aed",
    "steering": "#db2777",
    "decisions": "#d97706",
    "learnings": "#059669",
    "also_noted": "#a3a3a3",
}


# What happened to an item of a packet (its ledger action).
ACTION_COLORS = {
    "full": "#2563eb",
    "summary": "#93c5fd",
    "counted": "#d1d5db",
    "dropped": "#f3f4f6",
    "omitted": "#f3f4f6",
    "superseded": "#9ca3af",
    "skipped": "#e5e7eb",
}
# A built block's final compression policy.
POLICY_COLORS = {
    "exact": "#2563eb",
    "structural": "#7c3aed",
    "summarizable": "#d97706",
    "reference": "#6b7280",
    "dropped": "#dc2626",
}
# A conversation's working context: original messages, summaries, marked and left out.
SEGMENT_COLORS = {
    "original": "#2563eb",
    "summary": "#d97706",
    "marked": "#dc2626",
    "out": "#d1d5db",
}
# What fills a request (ctx_lab.anatomy), one colour per category.
CATEGORY_COLORS = {
    "system": "#475569",
    "tool_prompt": "#94a3b8",
    "tools": "#7c3aed",
    "mcp_tools": "#a855f7",
    "memory": "#059669",
    "user": "#2563eb",
    "assistant": "#0891b2",
    "tool_call": "#d97706",
    "tool_result": "#f59e0b",
    "thinking": "#db2777",
    "image": "#65a30d",
    "document": "#84cc16",
    "framing": "#d1d5db",
}
# The window view's blocks beyond the categories: every message category as one block, what a
# file lacks (inferred from the reported input), and the spaces the window keeps.
WINDOW_COLORS = {
    "messages": "#2563eb",
    "hidden": "#94a3b8",
    "error": "#fca5a5",
    "free": "#f8fafc",
    "margin": "#e5e7eb",
    "reserve": "#cbd5e1",
    "autocompact": "#fde68a",
    "over": "#dc2626",
}
# One line per model or policy, in turn: ten hues far enough apart to tell ten lines apart
# (blue, amber, green, violet, red, cyan, pink, lime, brown, slate: every pair at least 78 apart
# in RGB); past ten, the same hues again with the next dash of SERIES_DASHES.
SERIES_COLORS = (
    "#2563eb",
    "#f59e0b",
    "#16a34a",
    "#7c3aed",
    "#dc2626",
    "#0891b2",
    "#db2777",
    "#84cc16",
    "#78350f",
    "#475569",
)
SERIES_DASHES = ("-", "--", ":", "-.")
# How the cache served an input, in colours of their own (one teal scale: never a series' hue,
# so a cost bar is not read as a line of the chart above it).
CACHE_COLORS = {"read": "#0f766e", "write": "#2dd4bf", "fresh": "#cbd5e1"}
# Lines and outlines every plot shares: the budget, caps and before-sizes, markers' edges.
ACCENT = {
    "budget": "#dc2626",
    "outline": "#9ca3af",
    "used": "#6b7280",
    "edge": "#111827",
    "border": "#374151",
    "other": "#888888",
}


def series_style(index: int) -> tuple[str, str]:
    """The ``index``-th series' colour and dash: ten colours, then each again dashed."""
    color = SERIES_COLORS[index % len(SERIES_COLORS)]
    return color, SERIES_DASHES[(index // len(SERIES_COLORS)) % len(SERIES_DASHES)]


def section_color(section: str) -> str:
    """The palette's colour for ``section`` (grey for anything else)."""
    return SECTION_COLORS.get(section, ACCENT["other"])


def figure_axes(ax: Any, size: tuple[float, float]) -> tuple[Any, Any]:
    """``(figure, axes)``: the given axes and its figure, or a new constrained-layout Figure."""
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, layout="constrained")
    return fig, fig.add_subplot()
