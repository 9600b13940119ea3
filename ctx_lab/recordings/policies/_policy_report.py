"""What ``ctx-lab policies`` reports: per policy the input of every call split as the cache
would serve it, its peak, mean, compactions and cost, and what it lost — open-loop."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...claims import ClaimValue, claim_of, claim_schema, claims
from ...display import RichResult, escape, html_table, text_table
from ...wire import wire
from ..cache import CAUSES
from ._front import Recommendation, Setting

__all__ = [
    "CostSplit",
    "PoliciesReport",
    "PolicyCall",
    "PolicyResult",
    "ProbeOutcome",
    "Refetch",
    "plot_policies",
    "recommendation_text",
]


@dataclass(frozen=True)
class PolicyCall:
    """One call as a policy would have sent it."""

    call: int = field(metadata=wire("1-based, as the session's calls", minimum=1))
    input: int = field(metadata=wire("tokens sent (the hidden prefix included)", minimum=0))
    cache_read: int = field(metadata=wire(minimum=0))
    cache_write: int = field(metadata=wire(minimum=0))
    fresh: int = field(metadata=wire("input neither read from nor written to the cache", minimum=0))
    compacted: bool = field(metadata=wire("the policy compacted before this call"))
    removed: int = field(
        default=0, metadata=wire("tokens the policy took out at this call (net of what it added)")
    )
    over_window: bool = field(default=False, metadata=wire("more than the model's window"))
    cost_usd: float | None = field(default=None, metadata=wire("the input's price"))
    miss_cause: str | None = field(
        default=None,
        metadata=wire("why less was read than the previous call left cached", enum=CAUSES),
    )
    billed: bool = field(
        default=False,
        metadata=wire("the input is the recording's usage (recorded) or anchored to it"),
    )
    claim: ClaimValue = field(
        default="open-loop",
        metadata=wire(
            "billed: the recorded policy on the recording's usage; estimated: the recorded "
            "policy on counted sizes; open-loop: any other policy",
            schema=claim_schema,
        ),
    )


@dataclass(frozen=True)
class ProbeOutcome:
    """Where the session's probes stand after the last call."""

    kept: int = field(metadata=wire("still verbatim in context", minimum=0))
    summarized: int = field(metadata=wire("only in a summary", minimum=0))
    lost: int = field(metadata=wire("gone", minimum=0))
    lost_constraints: tuple[str, ...] = field(
        default=(), metadata=wire("the user's constraints that are gone (listed first)")
    )
    lost_examples: tuple[str, ...] = field(default=(), metadata=wire("up to 50 lost probes"))


@dataclass(frozen=True)
class Refetch:
    """A lost probe the agent asked for again: the call that read it back, and its cost."""

    kind: str
    text: str
    call: int = field(metadata=wire("1-based: the first call sent the re-read", minimum=1))
    tokens: int = field(metadata=wire("tokens of what the re-read returned", minimum=0))


@dataclass(frozen=True)
class CostSplit:
    """A policy's input cost (USD) by how the cache served it."""

    read: float = field(metadata=wire("tokens read from the cache", minimum=0))
    write: float = field(metadata=wire("tokens written to the cache", minimum=0))
    fresh: float = field(metadata=wire("tokens neither read nor written", minimum=0))


@dataclass(frozen=True)
class PolicyResult:
    """One policy over the session."""

    name: str
    params: dict[str, Any]
    calls: tuple[PolicyCall, ...]
    peak: int = field(metadata=wire("the largest input of a call", minimum=0))
    mean: int = field(metadata=wire("the mean input of a call", minimum=0))
    compactions: tuple[int, ...] = field(metadata=wire("1-based calls the policy compacted before"))
    cost: float | None = field(metadata=wire("input cost (USD) with the cache model"))
    cache_hit_rate: float = field(metadata=wire("cache read ÷ input", minimum=0, maximum=1))
    probes: ProbeOutcome
    refetched: tuple[Refetch, ...] = ()
    over_window: int = field(default=0, metadata=wire("calls over the model's window", minimum=0))
    cost_split: CostSplit | None = field(
        default=None, metadata=wire("the cost by read, write and fresh input (USD)")
    )
    threshold: int | None = field(
        default=None, metadata=wire("the input at which the policy acts (null: every call)")
    )
    claim: ClaimValue = field(
        default="open-loop",
        metadata=wire(
            "the recorded policy's input and cost are billed where the recording has usage "
            "(what it lost is estimated from the probes); any other policy is open-loop",
            schema=claim_schema,
        ),
    )
    setting: str = field(
        default="",
        metadata=wire(
            "the policy and the parameters that differ from its defaults (a sweep's row)"
        ),
    )

    @property
    def label(self) -> str:
        """What the setting is called: ``setting``, or the policy's name."""
        return self.setting or self.name

    @property
    def refetch_tokens(self) -> int:
        """Tokens the re-reads of lost probes cost."""
        return sum(r.tokens for r in self.refetched)


@dataclass(frozen=True, kw_only=True)
class PoliciesReport(RichResult):
    """Every policy over one session, open-loop (see :func:`~ctx_lab.conversation.run_policies`)."""

    source: str
    model: str
    window: int = field(metadata=wire("the model's context window", minimum=0))
    counted_with: str = field(metadata=wire("the counter and the session's calibration"))
    policies: tuple[PolicyResult, ...]
    probes: int = field(metadata=wire("probes mined from the session", minimum=0))
    open_loop: str = field(metadata=wire("what an open-loop result is"))
    warnings: tuple[str, ...] = ()
    agent: str = field(default="", metadata=wire("the recording's format: the agent that made it"))
    baseline_cost: float | None = field(
        default=None,
        metadata=wire(
            "the recording's own sizes priced by the cache engine as every setting is (USD): "
            "what a setting's cost_ratio divides by"
        ),
    )
    settings: tuple[Setting, ...] = field(
        default=(), metadata=wire("each setting against the recording, with the front")
    )
    recommended: Recommendation | None = field(
        default=None, metadata=wire("the setting the rule picks, and the configuration to paste")
    )
    claim: ClaimValue = field(
        default_factory=lambda: claims("open-loop", probes="estimated"),
        metadata=wire(
            "the probes are mined from the session's text (estimated); each policy says its own",
            schema=claim_schema,
        ),
    )

    payload_kind = "policies"

    def policy(self, name: str) -> PolicyResult:
        """The result of the policy named ``name``."""
        for result in self.policies:
            if name in (result.label, result.name):
                return result
        raise KeyError(name)

    def frame(self) -> Any:
        """One row per policy and call (pandas)."""
        import pandas as pd

        return pd.DataFrame(
            [
                {"policy": p.label, **{k: getattr(c, k) for k in PolicyCall.__dataclass_fields__}}
                for p in self.policies
                for c in p.calls
            ]
        )

    def summary(self) -> Any:
        """One row per policy: peak, mean, compactions, cost, hit rate, probes (pandas)."""
        import pandas as pd

        return pd.DataFrame(self._summary_rows(), columns=list(self._COLUMNS))

    _COLUMNS = ("policy", "peak", "mean", "compactions", "over window", "cost USD",
                "hit rate", "kept", "summarized", "lost", "re-read tokens", "figures")  # fmt: skip

    def _summary_rows(self) -> list[list[object]]:
        return [
            [
                p.label,
                p.peak,
                p.mean,
                _calls(p.compactions),
                p.over_window,
                "" if p.cost is None else round(p.cost, 4),
                f"{p.cache_hit_rate:.1%}",
                p.probes.kept,
                p.probes.summarized,
                p.probes.lost,
                p.refetch_tokens,
                claim_of(p.claim, "cost"),
            ]
            for p in self.policies
        ]

    def _head(self) -> str:
        return (
            f"{self.source}: {len(self.policies)} policies on {self.model} (window "
            f"{self.window:,}), {self.probes} probes; {self.open_loop}; counted with "
            f"{self.counted_with}"
        )

    def to_text(self) -> str:
        """The summary line, one row per policy, then the lost constraints."""
        parts = [self._head(), "", text_table(list(self._COLUMNS), self._summary_rows())]
        for p in self.policies:
            if p.probes.lost_constraints:
                shown = "; ".join(p.probes.lost_constraints[:5])
                parts.append(f"{p.label} lost the user's constraints: {shown}")
        if self.recommended is not None:
            parts.append(recommendation_text(self.recommended))
        return "\n".join(parts)

    def html_body(self) -> str:
        """The summary line and the policies' table."""
        return f"<h4 data-ctx-policies>{escape(self._head())}</h4>" + html_table(
            list(self._COLUMNS), self._summary_rows(), numeric=(1, 2, 4, 7, 8, 9, 10)
        )

    def plot(self, ax: Any = None) -> Any:
        """:func:`plot_policies` of this report."""
        return plot_policies(self, ax)

    def front(self) -> Any:
        """One row per setting: cost × the recording, probes lost, on the front (pandas)."""
        from ._front_plot import front_frame

        return front_frame(self.settings, self.recommended)

    def plot_front(self, ax: Any = None) -> Any:
        """The settings on the cost–loss plane, the front and the recommendation."""
        from ._front_plot import plot_front

        return plot_front(self.settings, self.recommended, ax)


def recommendation_text(chosen: Recommendation) -> str:
    """The recommendation in lines: the setting, what it costs and loses, what to paste."""
    cost = chosen.cost_ratio
    spread = (
        ""
        if cost is None
        else f" ×{cost.median:.2f} the recording ({cost.low:.2f}–{cost.high:.2f})"
    )
    lost = f"probes lost {chosen.probes_lost.median:g}"
    if chosen.probes_lost_recorded is not None and chosen.label != "recorded":
        lost += f" (the recording: {chosen.probes_lost_recorded:g})"
    lines = [
        f"recommended: {chosen.label}:{spread}, {lost}"
        + (f", over the window on {chosen.broke} sessions" if chosen.broke else ""),
        f"  chosen as {chosen.rule}",
    ]
    if chosen.config is not None:
        lines.append(f"  paste ({chosen.config.setting}): {chosen.config.value}")
        lines.append(f"  source: {chosen.config.source}")
    else:
        lines.append(f"  no setting to paste: {chosen.reason}")
    lines.append(f"  {chosen.open_loop}")
    return "\n".join(lines)


def _calls(calls: tuple[int, ...]) -> str:
    """Call numbers, the first few of many and how many."""
    if len(calls) <= 4:
        return ", ".join(map(str, calls)) or "-"
    return f"{len(calls)}: {', '.join(map(str, calls[:3]))} … {calls[-1]}"


def plot_policies(report: PoliciesReport, ax: Any = None) -> Any:
    """Input over calls per policy, with the window and each policy's threshold (dotted, in
    its colour); the title says it is open-loop."""
    from ...plotting import ACCENT, figure_axes, series_style

    fig, ax = figure_axes(ax, (10, 4.2))
    for i, policy in enumerate(report.policies):
        color, dash = series_style(i)
        ax.plot(
            [c.call for c in policy.calls],
            [c.input for c in policy.calls],
            label=policy.label,
            color=color,
            linestyle=dash,
            linewidth=1.2,
        )
        if policy.threshold is not None and policy.threshold < report.window:
            ax.axhline(policy.threshold, color=color, linestyle=":", linewidth=0.8)
    ax.axhline(report.window, color=ACCENT["budget"], linestyle=":", linewidth=1, label="window")
    ax.set_xlabel("call")
    ax.set_ylabel("input tokens")
    ax.set_title(f"{report.open_loop}", fontsize=8)
    # beside the plot, never over the lines: one column, or two past twelve series
    columns = 1 if len(report.policies) <= 12 else 2
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False,
              ncol=columns)  # fmt: skip
    return fig
