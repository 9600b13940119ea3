"""The window view: one request as a bar of the model's whole window — system prompt, tools, MCP
tools, memory files, messages, what the file lacks, free space, and what the window keeps back
(the output reserve and counting margin, or an agent's autocompact buffer) — each block in
tokens and as a share of the window.

What a recording lacks is a block of its own: a Claude Code transcript holds no system prompt
or tool definitions, yet the provider's reported input counts them. The difference between the
reported and the counted input is split in two: "system prompt + tools (inferred)", the
prefix the cache engine infers from the session's first call (the same number ``ctx-lab
cache`` reports as the hidden prefix), and "estimate error", what is left — the counter's
under-count of the messages, with its share. Free space is what is left of the reported total,
not of the counted one.

The bar sums to the window: blocks of the request, then ``free`` up to the limit (the effective
input budget, or where the agent compacts), then what the window keeps beyond it. A request
over its limit eats into what is kept, and the overflow is named.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..display import escape
from ..plotting import ACCENT, CATEGORY_COLORS, WINDOW_COLORS
from ..wire import to_wire

if TYPE_CHECKING:
    from ._request import RequestAnatomy

__all__ = ["GROUPS", "WindowBlock", "hidden_tokens", "window_blocks", "window_html"]

# the request's own blocks, in the order the bar draws them (every other category is a message)
GROUPS = (
    ("system", "system prompt"),
    ("tool_prompt", "tool use system prompt"),
    ("tools", "tools"),
    ("mcp_tools", "MCP tools"),
    ("memory", "memory files"),
)
_GROUPED = {key for key, _ in GROUPS}


@dataclass(frozen=True)
class WindowBlock:
    """One block of the window: its key (a category group, ``hidden``, ``free``, ``margin``,
    ``reserve`` or ``autocompact``), label, tokens, share of the window, and how it is known —
    ``counted`` (exact or estimated, as the anatomy's counter), ``inferred`` (from reported
    usage) or ``space`` (what the window keeps)."""

    key: str
    label: str
    tokens: int
    share: float
    basis: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The block as JSON (its fields, by the declaration: :func:`ctx_lab.wire.to_wire`)."""
        return to_wire(self)


def hidden_tokens(anatomy: RequestAnatomy) -> int:
    """Reported input the file does not hold (0 without a report or when counted ≥ reported)."""
    if anatomy.reported_input is None:
        return 0
    return max(anatomy.reported_input - anatomy.total, 0)


def _hidden_label(anatomy: RequestAnatomy) -> tuple[str, str]:
    present = anatomy.categories()
    if "system" not in present and "tools" not in present:
        return (
            "system prompt + tools (not in the file)",
            "inferred: the reported input minus what the file holds",
        )
    return ("reported − counted", "inferred: the provider counted more than ctx_lab's counter")


def _hidden_blocks(
    anatomy: RequestAnatomy, hidden: int, counted: int
) -> list[tuple[str, str, int, str, str]]:
    """What the reported input holds beyond the count: the inferred system prompt and tools
    (the cache engine's hidden prefix) and the estimate error, where the prefix is inferred."""
    label, note = _hidden_label(anatomy)
    inferred = anatomy.system_inferred
    present = anatomy.categories()
    if inferred is None or "system" in present or "tools" in present:
        return [("hidden", label, hidden, "inferred", note)]
    prefix = min(inferred, hidden)
    blocks = [("hidden", "system prompt + tools (inferred)", prefix, "inferred",
               f"the cache engine's hidden prefix: {inferred:,} inferred from the session's "
               "first call (its reported input less what the file holds)")]  # fmt: skip
    error = hidden - prefix
    if error:
        share = error / max(counted, 1)
        blocks.append(("error", "estimate error", error, "inferred",
                       f"reported − counted − the inferred prefix: the {anatomy.counter} count "
                       f"of the messages is {share:.1%} short of what was billed"))  # fmt: skip
    return blocks


def _kept(anatomy: RequestAnatomy) -> tuple[int, list[tuple[str, str, int, str]]]:
    """The limit free space runs to, and what the window keeps beyond it."""
    window = anatomy.window
    if anatomy.autocompact_at is not None:
        buffer = max(window - anatomy.autocompact_at, 0)
        note = f"the agent compacts at {anatomy.autocompact_at:,}; the buffer holds its output"
        return anatomy.limit, [("autocompact", "autocompact buffer", buffer, note)]
    margin = max(window - anatomy.output_reserve - anatomy.budget, 0)
    return anatomy.limit, [
        ("margin", "counting margin", margin, "5 % of the input held back for counting error"),
        ("reserve", "output reserve", anatomy.output_reserve, "the model's output tokens"),
    ]


def window_blocks(anatomy: RequestAnatomy) -> list[WindowBlock]:
    """The blocks of :mod:`this view <ctx_lab.anatomy._window>`, summing to the window when the
    request fits in it."""
    window = max(anatomy.window, 1)
    categories = anatomy.categories()
    basis = "exact" if anatomy.exact else "estimate"
    raw: list[tuple[str, str, int, str, str]] = [
        (key, label, categories.get(key, 0), basis, "") for key, label in GROUPS
    ]
    messages = {k: v for k, v in categories.items() if k not in _GROUPED}
    detail = ", ".join(f"{k} {v:,}" for k, v in messages.items())
    raw.append(("messages", "messages", sum(messages.values()), basis, detail))
    hidden = hidden_tokens(anatomy)
    if hidden:
        raw.extend(_hidden_blocks(anatomy, hidden, sum(messages.values())))
    used = anatomy.used
    limit, kept = _kept(anatomy)
    raw.append(("free", "free space", max(limit - used, 0), "space", f"up to {limit:,}"))
    overflow = max(used - limit, 0)
    for key, label, size, note in kept:
        eaten = min(size, overflow)
        overflow -= eaten
        raw.append((key, label, size - eaten, "space", note))
    if overflow:
        raw.append(("over", "over the window", overflow, "space", "more than the window holds"))
    return [
        WindowBlock(
            key=key,
            label=label,
            tokens=tokens,
            share=round(tokens / window, 4),
            basis=how,
            note=note,
        )
        for key, label, tokens, how, note in raw
        if tokens
    ]


def share_text(share: float) -> str:
    """``12.8%``; a share too small to show at one decimal is ``<0.1%``, never ``0.0%``."""
    return "<0.1%" if 0 < share < 0.0005 else f"{share:.1%}"


def _color(key: str) -> str:
    return CATEGORY_COLORS.get(key) or WINDOW_COLORS.get(key, ACCENT["other"])


def window_html(anatomy: RequestAnatomy) -> str:
    """The bar and its legend as HTML (the lab draws the same blocks from the payload)."""
    blocks = window_blocks(anatomy)
    cells, legend = [], []
    for block in blocks:
        text = f"{block.label}: {block.tokens:,} ({share_text(block.share)})"
        if block.note:
            text += f" — {block.note}"
        border = "border-left:1px solid #fff;" if block.basis != "space" else ""
        pattern = (
            "background-image:repeating-linear-gradient(45deg,transparent 0 4px,"
            "rgba(255,255,255,.5) 4px 8px);"
            if block.basis == "inferred"
            else ""
        )
        cells.append(
            f'<div data-ctx-window-block="{escape(block.key)}" title="{escape(text)}" '
            f'style="flex:0 0 {min(block.share, 1) * 100:.3f}%;background:{_color(block.key)};'
            f'{pattern}{border}"></div>'
        )
        legend.append(
            f'<span data-ctx-window-legend="{escape(block.key)}" style="margin-right:12px;'
            f'white-space:nowrap"><span style="display:inline-block;width:10px;height:10px;'
            f'background:{_color(block.key)};border:1px solid #999;margin-right:4px"></span>'
            f"{escape(block.label)} {block.tokens:,} ({share_text(block.share)})"
            f"{' · inferred' if block.basis == 'inferred' else ''}</span>"
        )
    title = (
        f"{escape(anatomy.model)} · window {anatomy.window:,} tokens · "
        f"{anatomy.total + hidden_tokens(anatomy):,} used"
    )
    return (
        f'<div data-ctx-window-view style="margin:6px 0"><div style="font-size:12px">{title}</div>'
        '<div style="display:flex;height:18px;border:1px solid #999;overflow:hidden">'
        f"{''.join(cells)}</div>"
        f'<div style="font-size:11px;line-height:1.6">{"".join(legend)}</div></div>'
    )
