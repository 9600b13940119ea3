"""``ConversationSimulator``: add messages of chosen sizes, switch models and summarize, while
a gauge shows the window filling and a strip shows which messages are in the context."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import ipywidgets as widgets

from ..conversation import (
    ContextManager,
    ExtractiveSummarizer,
    Message,
    Summarizer,
    describe_adaptation,
    step_clock,
    summarize_now,
)
from ..display import escape
from ..errors import ContextBuildError
from ..models import BUILTIN_MODELS
from ..plotting import SEGMENT_COLORS

__all__ = ["ConversationSimulator"]

_BAR_STYLES = ("success", "warning", "danger")
_COLORS = SEGMENT_COLORS


class ConversationSimulator:
    """An interactive conversation against real model limits (token sizes are simulated)."""

    def __init__(
        self,
        model: str = "gpt-4",
        preserve_recent: int = 4,
        *,
        summarizer: Summarizer | None = None,
        clock: Callable[[], datetime] | None = None,
        auto_summarize: bool = False,
    ) -> None:
        self.manager = ContextManager(
            model, preserve_recent=preserve_recent, clock=clock or step_clock()
        )
        self.summarizer = summarizer or ExtractiveSummarizer()
        self.log: list[str] = []
        self.role = widgets.Dropdown(
            options=["user", "assistant"], value="user", description="role"
        )
        self.size = widgets.IntSlider(value=400, min=10, max=20_000, step=10, description="tokens")
        self.add_button = widgets.Button(description="add message", button_style="primary")
        names = sorted({"gpt-4", "gpt-3.5-turbo", *(k.prefix for k in BUILTIN_MODELS), model})
        self.model = widgets.Dropdown(options=names, value=model, description="model")
        self.summarize_button = widgets.Button(description="summarize")
        self.auto = widgets.Checkbox(value=auto_summarize, description="summarize automatically")
        self.gauge = widgets.IntProgress(value=0, min=0, max=1, description="context")
        self.status = widgets.HTML()
        self.strip = widgets.HTML()
        self.events = widgets.HTML()
        self.add_button.on_click(lambda _: self.add(self.role.value, self.size.value))
        self.summarize_button.on_click(lambda _: self.summarize())
        self.model.observe(lambda change: self.switch(change["new"]), names="value")
        self.widget = widgets.VBox(
            [
                widgets.HBox([self.role, self.size, self.add_button]),
                widgets.HBox([self.model, self.summarize_button, self.auto]),
                self.gauge,
                self.status,
                self.strip,
                self.events,
            ]
        )
        self.refresh()

    def add(self, role: str, size: int) -> int:
        """Push a message of ``size`` tokens; summarizes when automatic and needed."""
        turn = len(self.manager.history)
        message_id = self.manager.push_message(
            Message(role, f"message {turn} ({size} tokens)"), size
        )
        self._note(f"added {role} message {message_id} ({size} tokens)")
        if self.auto.value and self.manager.usage_status().state == "needs_summarization":
            self.summarize()
        self.refresh()
        return message_id

    def switch(self, model: str) -> None:
        """Switch the model and log what it did to the budget."""
        if model != self.manager.model:
            self._note(describe_adaptation(model, self.manager.switch_model(model)))
            if self.model.value != model:
                self.model.value = model
        self.refresh()

    def summarize(self) -> None:
        """Summarize until the context fits (summaries sized at their target)."""
        try:
            event = summarize_now(self.manager, self.summarizer)
        except ContextBuildError as exc:
            event = f"cannot fit: {exc}"
        self._note(event or "nothing to summarize")
        self.refresh()

    def _note(self, text: str) -> None:
        self.log.append(text)

    def refresh(self) -> None:
        """Redraw the gauge, the status line, the message strip and the event log."""
        status = self.manager.usage_status()
        usage = status.usage
        self.gauge.max = max(usage.budget_tokens, 1)
        self.gauge.value = min(usage.used_tokens, self.gauge.max)
        self.gauge.bar_style = _BAR_STYLES[usage.severity()]
        need = ""
        if status.needed is not None:
            words = escape(status.state.replace("_", " "))
            need = f" — <b data-ctx-state='{status.state}'>{words}</b>"
        self.status.value = f"<span data-ctx-usage>{escape(usage.describe())}</span>{need}"
        self.strip.value = self._strip()
        items = "".join(f"<li>{escape(e)}</li>" for e in self.log[-8:])
        self.events.value = f"<ul style='margin:0'>{items}</ul>"

    def _strip(self) -> str:
        selection = self.manager._select(self.manager.message_budget())
        kind_of: dict[int, str] = {}
        for segment in selection.segments:
            for i in segment.ids:
                kind_of[i] = segment.kind
        marked = set(selection.marked)
        cells = []
        for entry in self.manager.history.entries:
            kind = "marked" if entry.id in marked else kind_of.get(entry.id, "out")
            title = f"{entry.id}: {entry.message.role}, {entry.token_count} tokens ({kind})"
            # flex shares by tokens: the strip fills its width exactly and never overflows
            share = max(entry.token_count, 1)
            cells.append(
                f"<div title='{title}' data-ctx-segment='{kind}' style='flex:{share} 1 0;"
                f"min-width:1px;height:14px;background:{_COLORS[kind]};"
                "box-shadow:inset -1px 0 0 white'></div>"
            )
        legend = " ".join(
            f"<span style='display:inline-block;width:10px;height:10px;background:{color}'></span>"
            f" {name}"
            for name, color in _COLORS.items()
        )
        return (
            "<div data-ctx-strip style='display:flex;width:100%;overflow:hidden'>"
            f"{''.join(cells)}</div><div class='ctx-muted' style='font-size:11px'>{legend}</div>"
        )

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
