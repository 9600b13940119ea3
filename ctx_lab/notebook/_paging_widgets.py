"""``PagerWidget`` and ``ReaderWidget``: page through an artifact under a budget, or read a
resource chunk by chunk, with next / previous / jump and a budget meter."""

from __future__ import annotations

import ipywidgets as widgets

from ..display import escape
from ..errors import CtxLabError
from ..paging import Pager, PageRequest, PageResult
from ..read import Reader, ReadResult
from ..severity import severity
from ._html import widget_html

__all__ = ["PagerWidget", "ReaderWidget", "meter_level"]


def meter_level(used: int, limit: int) -> str:
    """``ok`` below 70 % of the limit, ``warn`` (amber) below 90 %, else ``bad`` (red) —
    :func:`ctx_lab.severity.severity`."""
    return severity(used, limit)


_COLORS = {"ok": "success", "warn": "warning", "bad": "danger"}


class PagerWidget:
    """Page ``artifact_id`` of ``pager`` ``lines_per_page`` lines at a time. Every page turn is
    charged to the pager's budget; the meter turns amber, then red, and an exhausted quota is
    said plainly."""

    def __init__(self, pager: Pager, artifact_id: str, lines_per_page: int = 50) -> None:
        if lines_per_page < 1:
            raise ValueError("lines_per_page must be ≥ 1")
        self.pager = pager
        self.artifact_id = artifact_id
        self.lines_per_page = lines_per_page
        self.start = 1
        self.result: PageResult | None = None
        self.previous = widgets.Button(description="◀ previous", disabled=True)
        self.next = widgets.Button(description="next ▶")
        self.jump_to = widgets.BoundedIntText(value=1, min=1, max=10**9, description="line")
        self.jump = widgets.Button(description="jump")
        self.meter = widgets.IntProgress(
            value=0, min=0, max=max(pager.budget.max_tokens, 1), description="tokens"
        )
        self.status = widgets.HTML()
        self.view = widgets.HTML()
        self.previous.on_click(lambda _: self.go(max(self.start - self.lines_per_page, 1)))
        self.next.on_click(lambda _: self.go(self._next_start()))
        self.jump.on_click(lambda _: self.go(int(self.jump_to.value)))
        self.widget = widgets.VBox(
            [
                widgets.HBox([self.previous, self.next, self.jump_to, self.jump]),
                self.meter,
                self.status,
                self.view,
            ]
        )
        self.go(1)

    def _next_start(self) -> int:
        if self.result is None:
            return 1
        if self.result.truncated and self.result.next_start_line:
            return self.result.next_start_line
        return self.result.end_line + 1

    def go(self, start: int) -> PageResult | None:
        """Show the page starting at line ``start`` (charged to the budget)."""
        end = start + self.lines_per_page - 1
        try:
            result = self.pager.page(PageRequest(self.artifact_id, start, end))
        except CtxLabError as exc:
            self.status.value = f'<b class="ctx-bad" data-ctx-message>{escape(exc)}</b>'
            self._refresh_meter()
            return None
        self.result, self.start = result, start
        shown = f"lines {result.start_line}–{result.end_line} of {result.total_lines}"
        note = " (cut short by the token quota)" if result.truncated else ""
        self.status.value = f"<span data-ctx-page>{escape(self.artifact_id)}: {shown}{note}</span>"
        rows = "".join(
            '<tr><td style="color:gray;text-align:right;vertical-align:top;padding:0 6px">'
            f'{n}</td><td style="white-space:pre-wrap;padding:0 6px"><code>{escape(line)}</code>'
            "</td></tr>"
            for n, line in enumerate(result.content.split("\n"), result.start_line)
        )
        self.view.value = widget_html(
            f'<table style="border-collapse:collapse" data-ctx-lines>{rows}</table>'
            if result.lines
            else "<i>no lines here</i>"
        )
        self.previous.disabled = start <= 1
        self.next.disabled = result.end_line >= result.total_lines
        self._refresh_meter()
        return result

    def _refresh_meter(self) -> None:
        budget = self.pager.budget
        self.meter.value = min(budget.tokens_used, self.meter.max)
        self.meter.bar_style = _COLORS[budget.severity()]
        _, tokens = budget.remaining()
        self.meter.description = f"{tokens} left"
        if not budget.can_page():
            self.next.disabled = self.previous.disabled = self.jump.disabled = True
            self.status.value += (
                "<br><b data-ctx-exhausted>Paging quota exhausted "
                f"({budget.pages_used}/{budget.max_pages} pages, "
                f"{budget.tokens_used}/{budget.max_tokens} tokens).</b>"
            )

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)


class ReaderWidget:
    """Read ``uri`` chunk by chunk: next follows the cursor, previous goes back through the
    chunks already read, and the position bar shows where you are."""

    def __init__(self, uri: str, reader: Reader | None = None, max_chars: int = 4000) -> None:
        self.uri = uri
        self.reader = reader or Reader()
        self.max_chars = max_chars
        self.chunks: list[ReadResult] = []
        self.index = -1
        self.previous = widgets.Button(description="◀ previous", disabled=True)
        self.next = widgets.Button(description="next ▶")
        self.position = widgets.FloatProgress(value=0, min=0, max=1, description="position")
        self.status = widgets.HTML()
        self.view = widgets.HTML()
        self.previous.on_click(lambda _: self.show(self.index - 1))
        self.next.on_click(lambda _: self.forward())
        self.widget = widgets.VBox(
            [widgets.HBox([self.previous, self.next]), self.position, self.status, self.view]
        )
        self.forward()

    def forward(self) -> ReadResult | None:
        """Read the next chunk (or show it again if it was read before)."""
        if self.index + 1 < len(self.chunks):
            return self.show(self.index + 1)
        cursor = self.chunks[-1].next_cursor if self.chunks else None
        if self.chunks and cursor is None:
            return None
        try:
            result = self.reader.read(self.uri, cursor, self.max_chars)
        except CtxLabError as exc:
            self.status.value = f"<b data-ctx-message>{escape(exc)}</b>"
            return None
        if result.cursor_reset:
            self.chunks = []
        self.chunks.append(result)
        return self.show(len(self.chunks) - 1)

    def show(self, index: int) -> ReadResult:
        """Display chunk ``index`` of those read so far."""
        self.index = max(0, min(index, len(self.chunks) - 1))
        chunk = self.chunks[self.index]
        pos = chunk.position
        self.position.value = pos["end"] / pos["total"] if pos.get("total") else 1.0
        if chunk.page_info:
            p = chunk.page_info
            where = f"pages {p['page_start']}–{p['page_end']} of {p['total_pages']}"
        else:
            where = f"characters {pos.get('start', 0)}–{pos.get('end', 0)} of {pos.get('total', 0)}"
        cached = " · from cache" if chunk.cache_hit else ""
        reset = f" · restarted: {escape(chunk.cursor_reason)}" if chunk.cursor_reset else ""
        self.status.value = (
            f"<span data-ctx-read>{escape(chunk.kind)} · {escape(where)}{cached}{reset}</span>"
        )
        self.view.value = widget_html(
            f'<pre style="white-space:pre-wrap" data-ctx-chunk>{escape(chunk.content)}</pre>'
        )
        self.previous.disabled = self.index == 0
        self.next.disabled = self.index == len(self.chunks) - 1 and not chunk.truncated
        return chunk

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
