"""HTML for ipywidgets' HTML widgets, which set a 28 px line height for one-line labels: a
table in one would be double-spaced, so ctx-lab's widget HTML restores a reading line height
and lets long text wrap instead of being clipped."""

from __future__ import annotations

__all__ = ["widget_html"]

_STYLE = "line-height:1.35;white-space:normal;overflow-wrap:break-word"


def widget_html(body: str) -> str:
    """``body`` in a block with a reading line height (for ``widgets.HTML.value``)."""
    return f'<div class="ctx-lab" style="{_STYLE}">{body}</div>'
