"""Shared matplotlib plumbing: a Figure without pyplot (matplotlib is imported on use)."""

from __future__ import annotations

from typing import Any

__all__ = ["SECTION_COLORS", "figure_axes", "section_color"]

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


def section_color(section: str) -> str:
    """The palette's colour for ``section`` (grey for anything else)."""
    return SECTION_COLORS.get(section, "#888888")


def figure_axes(ax: Any, size: tuple[float, float]) -> tuple[Any, Any]:
    """``(figure, axes)``: the given axes and its figure, or a new constrained-layout Figure."""
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, layout="constrained")
    return fig, fig.add_subplot()
