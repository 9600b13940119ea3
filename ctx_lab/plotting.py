"""Shared matplotlib plumbing: a Figure without pyplot (matplotlib is imported on use)."""

from __future__ import annotations

from typing import Any

__all__ = ["figure_axes"]


def figure_axes(ax: Any, size: tuple[float, float]) -> tuple[Any, Any]:
    """``(figure, axes)``: the given axes and its figure, or a new constrained-layout Figure."""
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, layout="constrained")
    return fig, fig.add_subplot()
