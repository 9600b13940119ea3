"""What ``ctx-lab cache`` reports: per call the predicted split of the input beside the reported
one and the cause of a miss; the session's cost beside no caching and ideal caching."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...choices import CACHE_READINGS
from ...claims import ClaimValue, claim_schema, claims, tag
from ...display import RichResult, escape, html_table, text_table
from ...wire import derived, wire
from ._cache_engine import CAUSES

__all__ = [
    "MISS_CAUSES",
    "CacheCall",
    "CacheCost",
    "CacheReport",
    "InferredPart",
    "ReportedCache",
    "plot_cache",
]

MISS_CAUSES = CAUSES  # the one cache engine's vocabulary
CLOSE = 0.02  # predicted within this share of the reported: a match (sizes from usage)
COUNTED_CLOSE = 0.10  # the read within this share: a match when the sizes are counted


@dataclass(frozen=True)
class ReportedCache:
    """What the provider reported for one call."""

    input: int = field(metadata=wire("fresh input: not read from, nor written to, the cache"))
    cache_read: int = field(metadata=wire(minimum=0))
    cache_write: int = field(metadata=wire(minimum=0))

    @derived(claim_schema(), name="claim")
    def claim(self) -> ClaimValue:
        """The recording's own usage."""
        return claims("billed")


@dataclass(frozen=True)
class CacheCall:
    """One call: the predicted split of its input, the reported one, and why it missed."""

    call: int = field(metadata=wire("1-based, as the session's calls", minimum=1))
    model: str | None
    timestamp: str | None
    input: int = field(metadata=wire("predicted fresh input", minimum=0))
    cache_read: int = field(metadata=wire("predicted cache read", minimum=0))
    cache_write: int = field(metadata=wire("predicted cache write", minimum=0))
    reported: ReportedCache | None
    miss_cause: str | None = field(
        default=None, metadata=wire("why less was read than was cached before", enum=MISS_CAUSES)
    )
    cost_usd: float | None = field(default=None, metadata=wire("the predicted input's price"))
    miss_reason: str | None = field(
        default=None, metadata=wire("the cause in one line: what the file shows of it")
    )
    claim: ClaimValue = field(
        default="simulated",
        metadata=wire(
            "the predicted split: the cache's rules on billed sizes (simulated), or on counted "
            "ones (estimated)",
            schema=claim_schema,
        ),
    )


@dataclass(frozen=True)
class CacheCost:
    """The session's input cost as recorded, with no cache, and with ideal caching."""

    actual: float | None = field(
        metadata=wire("as recorded: the reported split priced (predicted where unreported)")
    )
    no_cache: float | None = field(metadata=wire("every token at the input price (USD)"))
    ideal: float | None = field(metadata=wire("every stable prefix read (USD)"))
    claim: ClaimValue = field(
        default_factory=lambda: claims("simulated", actual="billed"),
        metadata=wire(
            "actual is billed when every call carries usage (simulated where one does not); "
            "no cache and ideal apply the cache's prices to billed sizes",
            schema=claim_schema,
        ),
    )


@dataclass(frozen=True)
class InferredPart:
    """Tokens a call was billed for that the file does not hold, inferred from its usage."""

    call: int = field(
        metadata=wire("1-based: the call whose usage it was inferred from", minimum=1)
    )
    tokens: int = field(metadata=wire(minimum=0))
    what: str = field(
        metadata=wire(
            "what the file lacks",
            enum=("hidden prefix", "re-attached after compaction", "thinking beyond its summary"),
        )
    )

    @derived(claim_schema(), name="claim")
    def claim(self) -> ClaimValue:
        """Billed input less what the file holds, counted."""
        return claims("estimated")


@dataclass(frozen=True, kw_only=True)
class Recoverable:
    """A part of the gap between the session's actual cost and ideal caching: what made it,
    on how many calls, the money it would recover and the fix."""

    cause: str = field(metadata=wire("a cache cause, or 1-hour lifetime writes, or no miss named"))
    calls: int = field(metadata=wire("calls whose gap it is", minimum=0))
    usd: float = field(metadata=wire("actual − ideal on those calls (USD)"))
    fix: str = field(metadata=wire("what would recover it"))

    @derived(claim_schema(), name="claim")
    def claim(self) -> ClaimValue:
        """The bill less ideal caching, which is simulated."""
        return claims("simulated")


@dataclass(frozen=True, kw_only=True)
class SubagentCost:
    """A sub-agent's recording of the session (Claude Code's ``<id>/subagents/``): its calls,
    cost and cache misses, attributed to the parent session."""

    file: str
    calls: int = field(metadata=wire(minimum=0))
    cost: float | None = field(metadata=wire("its input cost as recorded (USD)"))
    ideal: float | None = field(metadata=wire("its input cost with every stable prefix read"))
    misses: int = field(metadata=wire("calls the cache engine names a miss for", minimum=0))
    claim: ClaimValue = field(
        default="simulated",
        metadata=wire(
            "its cost billed where it reports usage; ideal simulated", schema=claim_schema
        ),
    )


@dataclass(frozen=True, kw_only=True)
class CacheReport(RichResult):
    """A session's prompt caching, call by call (see the module docstring)."""

    source: str
    sizes: str = field(metadata=wire("where the sizes came from", enum=("usage", "counts")))
    calls: tuple[CacheCall, ...]
    hidden_prefix: int | None = field(
        metadata=wire("tokens of the prefix the file does not hold (system prompt, tools)")
    )
    hidden_prefix_inferred: bool = field(
        metadata=wire("the hidden prefix was inferred from the first call's usage")
    )
    cost: CacheCost
    warnings: tuple[str, ...] = ()
    counted_with: str | None = field(
        default=None,
        metadata=wire("sizes counts: the counter and the session's calibration applied"),
    )
    inferred: tuple[InferredPart, ...] = field(
        default=(),
        metadata=wire("sizes counts: what the file lacks, inferred from usage, call by call"),
    )
    recoverable: tuple[Recoverable, ...] = field(
        default=(),
        metadata=wire(
            "the gap between actual and ideal by what made it, each with its fix; the parts "
            "sum to actual − ideal"
        ),
    )
    subagents: tuple[SubagentCost, ...] = field(
        default=(), metadata=wire("the session's sub-agent recordings, attributed to it")
    )
    reading: str = field(
        default="breakpoints",
        metadata=wire(
            "which entries a request can read: whole ones at or within the lookback before a "
            "breakpoint (breakpoints), or any shared prefix (prefix)",
            enum=CACHE_READINGS,
        ),
    )

    payload_kind = "cache"

    @derived(claim_schema(), "how the figures were made", name="claim")
    def claim(self) -> ClaimValue:
        """The hidden prefix is billed input less the count of what the file holds; the match
        share compares the simulated split with the billed one."""
        return claims(hidden_prefix="estimated", matched="simulated")

    @derived(
        {"type": ["number", "null"]},
        "share of reported calls predicted within ±2 % (read and write; sizes usage) or ±10 % "
        "(read; sizes counts)",
    )
    def matched(self) -> float | None:
        """Share of calls with reported usage predicted close: read and write within 2 % when
        the sizes are the reported ones (the rules alone), the read within 10 % when they are
        counted."""
        judged = [c for c in self.calls if c.reported is not None]
        if not judged:
            return None
        if self.sizes == "counts":
            close = sum(
                _close(c.cache_read, c.reported.cache_read, COUNTED_CLOSE)
                for c in judged
                if c.reported
            )
        else:
            close = sum(
                _close(c.cache_read, c.reported.cache_read)
                and _close(c.cache_write, c.reported.cache_write)
                for c in judged
                if c.reported
            )
        return round(close / len(judged), 4)

    def frame(self) -> Any:
        """The calls as a pandas DataFrame (the reported split in ``reported_*`` columns)."""
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "call": c.call,
                    "model": c.model,
                    "input": c.input,
                    "cache_read": c.cache_read,
                    "cache_write": c.cache_write,
                    "reported_input": c.reported.input if c.reported else None,
                    "reported_cache_read": c.reported.cache_read if c.reported else None,
                    "reported_cache_write": c.reported.cache_write if c.reported else None,
                    "miss_cause": c.miss_cause,
                    "cost_usd": c.cost_usd,
                }
                for c in self.calls
            ]
        )

    def plot(self, ax: Any = None) -> Any:
        """:func:`plot_cache` of these calls."""
        return plot_cache(self, ax)

    def _head(self) -> str:
        hidden = (
            f"; hidden prefix {self.hidden_prefix:,} tokens (inferred)"
            if self.hidden_prefix_inferred and self.hidden_prefix is not None
            else ""
        )
        matched = self.matched()
        shown = f"{matched:.1%}" if matched is not None else "no usage to compare"
        cost = self.cost
        money = (
            f"; input cost ${cost.actual:.4f} {tag(cost.claim, 'actual')} (no cache "
            f"${cost.no_cache:.4f}, ideal ${cost.ideal:.4f} {tag(cost.claim, 'ideal')})"
            if None not in (cost.actual, cost.no_cache, cost.ideal)
            else ""
        )
        counted = f"; counted with {self.counted_with}" if self.counted_with else ""
        extra = [p for p in self.inferred if p.what != "hidden prefix"]
        if extra:
            counted += "; inferred from usage: " + ", ".join(
                f"{sum(p.tokens for p in extra if p.what == what):,} tokens {what}"
                for what in dict.fromkeys(p.what for p in extra)
            )
        return (
            f"{self.source}: {len(self.calls)} calls, sizes from {self.sizes}; predicted "
            f"{tag('estimated' if self.sizes == 'counts' else 'simulated')} within "
            f"{_within(self.sizes)} of the reported on {shown}{hidden}{counted}{money}"
        )

    def _rows(self) -> list[list[object]]:
        return [
            [
                c.call,
                c.cache_read,
                c.cache_write,
                c.input,
                c.reported.cache_read if c.reported else "",
                c.reported.cache_write if c.reported else "",
                c.miss_cause or "",
            ]
            for c in self.calls
        ]

    _COLUMNS = ("call", "read", "write", "fresh", "reported read", "reported write", "miss")

    def to_text(self) -> str:
        """The summary line, one row per call, then each miss's reason in one line."""
        why = [f"call {c.call}: {c.miss_cause} — {c.miss_reason}" for c in self.calls
               if c.miss_cause and c.miss_reason]  # fmt: skip
        table = self._head() + "\n\n" + text_table(list(self._COLUMNS), self._rows())
        return table + ("\n\nwhy:\n" + "\n".join(why) if why else "") + self._money_text()

    def _money_text(self) -> str:
        """The gap to ideal caching by what made it, with its fix; the sub-agents' share."""
        parts = []
        if self.recoverable:
            rows = [[r.cause, r.calls, f"{r.usd:.4f}", r.fix] for r in self.recoverable]
            parts.append(
                "recoverable (actual − ideal, by what made it):\n"
                + text_table(["cause", "calls", "USD", "fix"], rows)
            )
        if self.subagents:
            rows = [
                [a.file, a.calls, "?" if a.cost is None else f"{a.cost:.4f}", a.misses]
                for a in self.subagents
            ]
            parts.append(
                "sub-agents (their own calls, not in the table above):\n"
                + text_table(["file", "calls", "cost USD", "misses"], rows)
            )
        return "".join("\n\n" + p for p in parts)

    def html_body(self) -> str:
        """The summary line and the calls' table."""
        return f"<h4 data-ctx-cache>{escape(self._head())}</h4>" + html_table(
            list(self._COLUMNS), self._rows(), numeric=range(0, 6)
        )


def _close(predicted: int, reported: int, share: float = CLOSE) -> bool:
    return abs(predicted - reported) <= max(share * reported, 1)


def _within(sizes: str) -> str:
    return f"{COUNTED_CLOSE:.0%}" if sizes == "counts" else f"{CLOSE:.0%}"


def plot_cache(report: CacheReport, ax: Any = None) -> Any:
    """Per call, the input as read, written and fresh (stacked: the reported split where the
    recording has one, else the predicted), each miss a dotted line labelled with its cause."""
    from ...plotting import ACCENT, CACHE_COLORS, figure_axes

    fig, ax = figure_axes(ax, (8.5, 3.8))
    calls = [c.call for c in report.calls]
    shown = [
        c.reported or ReportedCache(c.input, c.cache_read, c.cache_write) for c in report.calls
    ]
    ax.stackplot(
        calls,
        [s.cache_read for s in shown],
        [s.cache_write for s in shown],
        [s.input for s in shown],
        labels=["read", "write", "fresh"],
        colors=[CACHE_COLORS["read"], CACHE_COLORS["write"], CACHE_COLORS["fresh"]],
    )
    top = max((s.cache_read + s.cache_write + s.input for s in shown), default=1)
    for c in report.calls:
        if c.miss_cause:
            ax.axvline(c.call, color=ACCENT["outline"], linestyle=":", linewidth=1)
            ax.annotate(c.miss_cause, (c.call, top * 0.95), fontsize=7, rotation=90, va="top")
    ax.set_xlabel("call")
    ax.set_ylabel(
        f"input tokens ({'reported' if any(c.reported for c in report.calls) else 'predicted'})"
    )
    ax.legend(loc="lower right", fontsize=8)
    return fig
