"""``BudgetExplorer``: an ipywidgets app to watch a packet change with budget, counter, model,
date, focus and relevance rule — the allocation plot, the ledger and the packet preview update
together, with the project's load warnings.

Parsing happens once; token counts are cached per counter, so moving the slider re-assembles
without re-reading files or re-counting unchanged text.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import UTC, date, datetime, time
from typing import Any

import ipywidgets as widgets

from ..clock import utc_now
from ..display import escape, plain_title, warnings_html
from ..models import BUILTIN_MODELS
from ..packet import (
    PROFILES,
    RELEVANCE_RULES,
    CountedAssembler,
    Packet,
    ProjectContext,
    assembler_for,
    load_context,
)
from ..tokens import available_counters
from ._html import widget_html

__all__ = ["BudgetExplorer"]

NO_MODEL = "(budget slider)"
#: The counter choice that means "as the CLI and %ctx": the model's own tokenizer when a model
#: is chosen, else bytes/4.
DEFAULT_COUNTER = "default (model's own, else bytes/4)"


def figure_png(fig: Any) -> bytes:
    """A matplotlib Figure as PNG bytes (no pyplot, no backend needed)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    return buffer.getvalue()


class BudgetExplorer:
    """An interactive explorer of one project's packet.

    ``ctx`` is a loaded :class:`ProjectContext` or a path. ``now`` pins the date (default:
    today); ``models`` are offered in the model dropdown (choosing one uses its effective input
    budget instead of the slider). ``counter`` left unset counts as the CLI and ``%ctx`` do:
    with the chosen model's own tokenizer, else ``bytes/4``. ``focus`` (a text box) and
    ``relevance`` (``auto``, ``keywords`` or ``bm25``) choose how decisions and learnings are
    scored;
    ``profile`` ``ctx-0.8`` shows what ``ctx agent`` 0.8.1 would send (counted with its byte
    estimate; no focus or rule).
    """

    def __init__(
        self,
        ctx: ProjectContext | str,
        *,
        budget: int = 2000,
        counter: str | None = None,
        now: datetime | None = None,
        max_budget: int | None = None,
        models: Sequence[str] | None = None,
        focus: str = "",
        relevance: str = "auto",
        profile: str = "design",
    ) -> None:
        self.ctx = ctx if isinstance(ctx, ProjectContext) else load_context(ctx)
        self._now_time = (now or utc_now()).astimezone(UTC).timetz()
        start = (now or utc_now()).astimezone(UTC).date()
        self._start_date = start
        model_names = list(models) if models is not None else [k.prefix for k in BUILTIN_MODELS]
        self.budget = widgets.IntSlider(
            value=budget,
            min=0,
            max=max_budget or max(4 * budget, 8000),
            step=50,
            description="budget",
            continuous_update=False,
            layout=widgets.Layout(width="420px"),
        )
        self.counter = widgets.Dropdown(
            options=[DEFAULT_COUNTER, *available_counters()],
            value=counter or DEFAULT_COUNTER,
            description="counter",
        )
        self.model = widgets.Dropdown(
            options=[NO_MODEL, *model_names], value=NO_MODEL, description="model"
        )
        self.date = widgets.DatePicker(value=start, description="now")
        self.focus = widgets.Text(
            value=focus,
            description="focus",
            placeholder="words to rank entries by (default: the included tasks)",
            continuous_update=False,
            layout=widgets.Layout(width="420px"),
        )
        self.relevance = widgets.Dropdown(
            options=list(RELEVANCE_RULES), value=relevance, description="relevance"
        )
        self.profile = widgets.Dropdown(
            options=list(PROFILES), value=profile, description="profile"
        )
        self.warnings = widgets.HTML()
        self.status = widgets.HTML()
        self.plot = widgets.Image(format="png")
        self.table = widgets.HTML()
        self.preview = widgets.Output()  # the packet through its own (native) renderer
        for control in (
            self.budget,
            self.counter,
            self.model,
            self.date,
            self.focus,
            self.relevance,
            self.profile,
        ):
            control.observe(self.update, names="value")
        tabs = widgets.Tab(children=[self.table, self.preview])
        tabs.set_title(0, "ledger")
        tabs.set_title(1, "packet")
        self.widget = widgets.VBox(
            [
                widgets.HBox([self.budget, self.counter]),
                widgets.HBox([self.model, self.date]),
                widgets.HBox([self.focus, self.relevance]),
                self.profile,
                self.status,
                self.warnings,
                self.plot,
                tabs,
            ]
        )
        self.packet: Packet = self.update()

    def assembler(self, counter: str | None, model: str | None = None) -> CountedAssembler:
        """The shared assembler (and token-count cache) for ``counter`` (none: the model's own
        tokenizer, or ``bytes/4``) under the chosen profile."""
        return assembler_for(self.ctx, counter, model=model, profile=self.profile.value)

    def now(self) -> datetime:
        """The date picked, at the explorer's time of day, in UTC."""
        picked: date = self.date.value or self._start_date
        return datetime.combine(picked, time(self._now_time.hour, self._now_time.minute), UTC)

    def update(self, change: Any = None) -> Packet:
        """Re-assemble with the current controls and refresh every view."""
        model = None if self.model.value == NO_MODEL else self.model.value
        self.budget.disabled = model is not None
        design = self.profile.value == "design"
        for control in (self.counter, self.focus, self.relevance):
            control.disabled = not design
        requested = None if self.counter.value == DEFAULT_COUNTER else self.counter.value
        assembler = self.assembler(requested if design else None, model)
        options: dict[str, Any] = (
            {"focus": self.focus.value or None, "relevance": self.relevance.value}
            if design
            else {"profile": self.profile.value}
        )
        packet = assembler.assemble(
            None if model else self.budget.value, self.now(), model, **options
        )
        self.packet = packet
        over = " — over budget: tier 1 only" if packet.over_budget else ""
        if not design and packet.tokens_used > packet.budget:
            over = (
                f' — <span class="ctx-bad" data-ctx-overshoot>over budget by '
                f"{packet.tokens_used - packet.budget}</span>"
            )
        cost = f", est. ${packet.est_cost_usd:.4f}" if packet.est_cost_usd is not None else ""
        if model is not None:  # the slider shows the budget the model sets
            self.budget.unobserve(self.update, names="value")
            self.budget.max = max(self.budget.max, packet.budget)
            self.budget.value = packet.budget
            self.budget.observe(self.update, names="value")
        self.status.value = (
            f"<b data-ctx-tokens-used>{packet.tokens_used}</b> of "
            f"<b data-ctx-budget>{packet.budget}</b> tokens ({escape(packet.counter)}){cost}{over}"
        )
        self.warnings.value = warnings_html(packet.warnings)
        self.plot.value = figure_png(packet.plot()) if packet.allocation_rows else b""
        frame = packet.ledger()[["section", "title", "score", "tokens", "action", "reason"]]
        styled = (
            frame.style.hide(axis="index")
            .format(
                {
                    "score": lambda v: "" if v != v or v is None else f"{v:.2f}",
                    "title": plain_title,
                }
            )
            .set_table_attributes('class="ctx-ledger" data-ctx-ledger')
            .set_properties(
                **{
                    "text-align": "left",
                    "vertical-align": "top",
                    "padding": "2px 8px",
                    "font-size": "12px",
                }
            )
            .set_properties(subset=["reason"], **{"min-width": "18em"})
            .to_html()
        )
        self.table.value = widget_html(
            f'<div style="max-height:420px;overflow:auto" data-ctx-ledger-scroll>{styled}</div>'
        )
        # the packet's own MIME bundle: the lab shows it with the native packet renderer
        bundle = packet._repr_mimebundle_()
        self.preview.outputs = ({"output_type": "display_data", "data": bundle, "metadata": {}},)
        return packet

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
