"""A session's gap to ideal caching by what made it (:class:`GapLedger`), and what recovers
each part: one fix per cache cause (the
vocabulary of :data:`ctx_lab.choices.CacheCause`), and for the two parts that are not a miss —
writes at the 1-hour rate, and what no named miss explains. ``ctx-lab cache`` prints each with
the money it would recover; applying one is the user's act.

Prices and mechanics as Anthropic's prompt caching guide states them
(https://platform.claude.com/docs/en/build-with-claude/prompt-caching, read 2026-12-07): a read
refreshes an entry's lifetime; a 5-minute write costs 1.25× input and a 1-hour write 2×; entries
are found up to about 20 blocks before a breakpoint; a model's cache serves that model only.
"""

from __future__ import annotations

from ...choices import CACHE_CAUSES
from ._cache_report import Recoverable

__all__ = [
    "FIVE_MINUTES",
    "FIXES",
    "HOUR",
    "HOUR_BRIDGED",
    "HOUR_WRITES",
    "NO_MISS",
    "GapLedger",
]

HOUR_WRITES = "1-hour lifetime writes"
HOUR_BRIDGED = "1-hour lifetime that paid for itself"
NO_MISS = "no miss named"
FIVE_MINUTES = 300  # seconds: the default lifetime
HOUR = 3_600  # seconds: the longer one

FIXES: dict[str, str] = {
    "model switched": "stay on one model within a session: a model's cache serves that model "
    "only, so the switch back writes the whole prefix again",
    "compaction": "compact less often (a later point; try ctx-lab policies --policy "
    "'claude-code:pct=…'): each compaction writes the new context again",
    "lifetime expired": "a call within the cache's lifetime keeps it (every read refreshes it), "
    "or the 1-hour lifetime (cache_control ttl 1h, written at 2× input against 1.25×) for "
    "pauses under an hour",
    "prefix below the minimum": "none: the model caches a prefix only from its minimum length",
    "tools changed": "keep the tool list and its order the same across calls (choose the tools "
    "when the session starts)",
    "system prompt changed": "keep the system prompt fixed; put what changes (dates, status) "
    "after the last breakpoint",
    "message modified": "never edit an earlier message: append instead",
    "system-prompt tail re-rendered": "keep the system prompt's changing tail after the last "
    "breakpoint, out of the cached prefix",
    "turn start": "none in the agent: it sends its context again at a turn start, as the file "
    "shows",
    "beyond the lookback": "a breakpoint within 20 blocks of the last cached one (entries are "
    "found up to about 20 blocks before a breakpoint)",
    "several entries": "none: the provider read an older entry than the newest (best effort)",
    "routing (best effort)": "none: the provider's routing, which no documented rule predicts",
    HOUR_WRITES: "the 5-minute lifetime: the 1-hour writes' extra (2× input against 1.25×) is "
    "more than the rewrites the session's pauses of 5 minutes to an hour would cost (what it "
    "recovers is that difference, not all of this part)",
    HOUR_BRIDGED: "none: keep the 1-hour lifetime — the 5-minute one would rewrite the cache "
    "after the session's pauses of 5 minutes to an hour, which costs more than the extra",
    NO_MISS: "none named: the rest of the gap between what was read and every stable prefix read",
}

assert set(CACHE_CAUSES) <= set(FIXES)  # a new cause needs its fix (tests/recordings too)


class GapLedger:
    """Actual − ideal, call by call, counted against what made each call's share (its cause,
    or no miss named) and the 1-hour writes' extra, judged once the session's pauses are
    known: recoverable where the extra is more than the rewrites the 5-minute lifetime would
    have cost after each pause of 5 minutes to an hour, else the hour paid for itself."""

    def __init__(self) -> None:
        self.gaps: dict[str, list[float]] = {}  # cause → [USD, calls]
        self.hours = 0.0  # USD: the 1-hour writes' extra over the 5-minute rate
        self.hour_calls = 0  # … over this many calls
        self.hour_net = 0.0  # … less what the 5-minute lifetime would have rewritten
        self.times: list[float | None] = []  # every priced call's time, in order
        self.rewrites: list[float] = []  # per priced call: its read written again (USD)

    def add(self, cause: str, usd: float, calls: int = 1) -> None:
        """Count ``usd`` of the gap against ``cause``, over ``calls`` calls."""
        if usd:
            found = self.gaps.setdefault(cause, [0.0, 0])
            found[0] += usd
            found[1] += calls

    def _hours(self) -> None:
        if not self.hours:
            return
        times = self.times
        rewrites = sum(
            cost
            for before, at, cost in zip(times, times[1:], self.rewrites[1:], strict=False)
            if before is not None and at is not None and FIVE_MINUTES < at - before <= HOUR
        )
        self.hour_net = self.hours - rewrites
        self.add(HOUR_WRITES if self.hour_net > 0 else HOUR_BRIDGED, self.hours, self.hour_calls)
        self.hours, self.hour_calls = 0.0, 0

    def fix(self, cause: str) -> str:
        """The fix of ``cause``; the hour's with the net it would recover, or cost."""
        if cause == HOUR_WRITES:
            return f"{FIXES[cause]}: ${self.hour_net:.4f} net"
        if cause == HOUR_BRIDGED:
            return f"{FIXES[cause]}: ${-self.hour_net:.4f} more"
        return FIXES[cause]

    def recoverable(self) -> tuple[Recoverable, ...]:
        """The parts, the largest first, each with its calls, dollars and fix."""
        self._hours()
        found = [
            Recoverable(cause=cause, calls=int(calls), usd=round(usd, 4), fix=self.fix(cause))
            for cause, (usd, calls) in self.gaps.items()
        ]
        return tuple(sorted(found, key=lambda r: -r.usd))
