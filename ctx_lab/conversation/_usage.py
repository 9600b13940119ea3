"""Context usage for status bars and gauges: ``950 / 3.9k (24%)``, severity ok/warn/bad."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..display import RichResult, escape
from ..severity import SEVERITIES, Severity, severity
from ..severity import SEVERITY_COLORS as _COLORS
from ..wire import derived, wire

__all__ = ["SEVERITY_COLORS", "ContextUsage", "compact_number"]

SEVERITY_COLORS = tuple(_COLORS[level] for level in SEVERITIES)  # by severity level 0/1/2


def compact_number(value: int) -> str:
    """``950``, ``3.9k``, ``200k``, ``1.5M``: one decimal, a trailing ``.0`` dropped."""
    for limit, suffix in ((1_000_000, "M"), (1_000, "k")):
        if abs(value) >= limit:
            text = f"{value / limit:.1f}"
            return (text[:-2] if text.endswith(".0") else text) + suffix
    return str(value)


@dataclass(frozen=True, kw_only=True)
class ContextUsage(RichResult):
    """Tokens in the working context against the budget, and how many summaries are in it."""

    used_tokens: int = field(metadata=wire(minimum=0))
    budget_tokens: int = field(metadata=wire(minimum=0))
    summarized_segments: int = field(default=0, metadata=wire(minimum=0))
    input_price_per_mtok: float | None = field(
        default=None, metadata=wire("USD per million input tokens, when known", minimum=0)
    )
    model: str | None = None

    payload_kind = "usage"

    def percentage(self) -> float:
        """Used as a percentage of the budget (0–100+; 100 for a zero budget with use)."""
        if self.budget_tokens <= 0:
            return 100.0 if self.used_tokens else 0.0
        return self.used_tokens * 100.0 / self.budget_tokens

    def _fraction(self) -> str:
        """``"50k / 200k (25%)"``."""
        return (
            f"{compact_number(self.used_tokens)} / {compact_number(self.budget_tokens)} "
            f"({int(self.percentage() + 0.5)}%)"
        )

    def format_compact(self) -> str:
        """``"50k / 200k (25%) [2S]"`` — ``[nS]`` only with summaries in context."""
        text = self._fraction()
        return f"{text} [{self.summarized_segments}S]" if self.summarized_segments else text

    def describe(self) -> str:
        """The compact form with its marker spelled out: ``"50k / 200k (25%), 2 summarized
        segments in context"`` (what views show; ``[nS]`` is the design's terse form)."""
        text = self._fraction()
        n = self.summarized_segments
        if not n:
            return text
        return f"{text}, {n} summarized segment{'' if n == 1 else 's'} in context"

    def level(self) -> Severity:
        """``ok`` below 70 %, ``warn`` below 90 %, ``bad`` from 90 % (:func:`ctx_lab.severity`)."""
        return severity(self.used_tokens, self.budget_tokens)

    def severity(self) -> int:
        """The design's number for :meth:`level`: 0 (green), 1 (yellow), 2 (red)."""
        return SEVERITIES.index(self.level())

    def estimated_cost(self) -> float | None:
        """USD for sending ``used_tokens`` as input, when the model's price is known."""
        if self.input_price_per_mtok is None:
            return None
        return round(self.used_tokens * self.input_price_per_mtok / 1_000_000, 6)

    # the derived values of the JSON form (ctx_lab.wire), after the fields
    @derived({"type": "number"}, name="percentage")
    def _percentage_shown(self) -> float:
        return round(self.percentage(), 2)

    @derived(
        {"type": "string", "enum": list(SEVERITIES)},
        "how full the meter is (ctx_lab.severity): renderers only read this",
        name="severity",
    )
    def _level(self) -> Severity:
        return self.level()

    @derived({"type": "string"}, name="compact")
    def _compact(self) -> str:
        return self.format_compact()

    @derived(
        {"type": "string"}, "the compact form with its [nS] marker spelled out", name="described"
    )
    def _described(self) -> str:
        return self.describe()

    @derived({"type": ["number", "null"]}, name="estimated_cost_usd")
    def _cost(self) -> float | None:
        return self.estimated_cost()

    def to_text(self) -> str:
        """The usage in words, plus the cost when known."""
        cost = self.estimated_cost()
        return self.describe() + (f"  ~${cost:.4f} per call" if cost is not None else "")

    def html_body(self) -> str:
        """A gauge coloured by severity."""
        pct = min(self.percentage(), 100.0)
        color = _COLORS[self.level()]
        return (
            f'<div data-ctx-usage data-ctx-severity="{self.level()}">'
            f'<div style="width:260px;height:12px;border-radius:6px;'
            f'background:var(--jp-layout-color3,#e5e7eb)"><div style="width:{pct:.1f}%;'
            f'height:12px;border-radius:6px;background:{color}"></div></div>'
            f"<span>{escape(self.to_text())}</span></div>"
        )
