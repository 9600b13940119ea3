"""Matplotlib figures for built prompts (matplotlib imported only when drawing)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..plotting import ACCENT, POLICY_COLORS, figure_axes

if TYPE_CHECKING:
    from ._build import BuildResult

__all__ = ["plot_blocks", "plot_policy_sweep"]


def plot_blocks(result: BuildResult, ax: Any = None) -> Any:
    """Horizontal bars per block: tokens before (outline) and after (filled by final policy)."""
    from matplotlib.patches import Patch

    blocks = list(result.blocks)
    fig, ax = figure_axes(ax, (8, max(2.5, 0.32 * len(blocks) + 1)))
    y = list(range(len(blocks)))
    ax.barh(y, [b.tokens_before for b in blocks], color="none", edgecolor=ACCENT["outline"])
    colors = [POLICY_COLORS["dropped" if b.action == "dropped" else b.policy_final] for b in blocks]
    ax.barh(y, [b.tokens_after for b in blocks], color=colors)
    ax.set_yticks(y, [b.block for b in blocks], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel(f"tokens ({result.counter})")
    ax.set_ylabel("block")
    ax.set_title(f"Blocks before/after: {result.tokens} of {result.budget} tokens")
    ax.legend(
        handles=[Patch(color=c, label=name) for name, c in POLICY_COLORS.items()],
        fontsize=8,
        loc="lower right",
    )
    return fig


def plot_policy_sweep(frame: Any, ax: Any = None) -> Any:
    """Each block's final policy (rows) at each budget (columns), as a coloured grid."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    order = list(POLICY_COLORS)
    table = frame.pivot(index="block", columns="budget", values="policy").reindex(
        frame["block"].drop_duplicates()
    )
    codes = table.apply(lambda col: col.map(order.index))
    fig, ax = figure_axes(ax, (8, max(2.5, 0.3 * len(table) + 1)))
    ax.imshow(
        codes.to_numpy(dtype=float),
        aspect="auto",
        cmap=ListedColormap(list(POLICY_COLORS.values())),
        vmin=0,
        vmax=len(order) - 1,
    )
    ax.set_yticks(range(len(table)), list(table.index), fontsize=8)
    ax.set_xticks(
        range(len(table.columns)), [str(c) for c in table.columns], rotation=45, fontsize=8
    )
    ax.set_xlabel("budget (tokens)")
    ax.set_ylabel("block")
    ax.set_title("Each block's policy as the budget shrinks")
    ax.legend(
        handles=[Patch(color=c, label=n) for n, c in POLICY_COLORS.items()],
        fontsize=8,
        loc="upper left",
        bbox_to_anchor=(1.01, 1),
    )
    return fig
