"""Assembling a context packet within a token budget, tier by tier (design:
smart-retrieval-packet.md, refined by the packet issue).

Tier 1 (read order, constitution, instruction) always goes in full. Tasks get up to 40 % of the
budget, conventions up to 20 %, steering files up to 20 % (whole files, by priority), decisions
and learnings share what remains in proportion to their content. Every item lands in the
ledger with its action and the reason for it, and the rendered Markdown is counted once more at
the end: the packet never exceeds its budget when the budget covers tier 1.

The pipeline is here; its parts have a module each: what things cost (``_prices``), how
relevant each entry is (``_relevance``), fitting sections into their shares (``_fitting``, on
a ``_draft``), and the packet with its ledger (``_ledger``) — under one cache policy
(``_cache``).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..choices import CTX08_PROFILE, PACKET_PROFILES
from ..clock import utc_now
from ..collector import paused
from ..errors import UsageError
from ..token_budget import resolve_token_budget
from ..tokens import CounterLike, CountingCache
from ..validate import choice
from ._context import DEFAULT_TOKEN_BUDGET, ProjectContext
from ._draft import TRIMMED, Draft, Fate, Fates, Side, key
from ._fitting import STEERING_SHARE, Fitter
from ._layout import render_parts
from ._ledger import Outcome, make_packet
from ._packet import EntrySummary, Packet
from ._prices import Prices
from ._relevance import RELEVANCE_RULES, Relevance
from ._scoring import DEFAULT_STOP_WORDS, extract_keywords, local_date

if TYPE_CHECKING:
    from ..models import ModelRegistry

__all__ = [
    "PROFILES",
    "RELEVANCE_RULES",
    "PacketAssembler",
    "resolve_budget",
]

PROFILES = PACKET_PROFILES  # the design doc's packet; what ctx 0.8.1 sends (ctx08.py)


def resolve_budget(
    ctx: ProjectContext,
    budget: int | None = None,
    model: str | None = None,
    registry: str | ModelRegistry | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[int, str]:
    """The budget and where it came from: the argument, else the model's effective input
    budget, else ``CTX_TOKEN_BUDGET``, else the project's configuration, else 8000
    (:func:`ctx_lab.token_budget.resolve_token_budget`)."""
    if budget is not None or model is not None:
        return resolve_token_budget(
            budget, model, default=DEFAULT_TOKEN_BUDGET, registry=registry, environ=environ
        )
    return ctx.configured_budget(environ)


def _timestamp(now: datetime) -> str:
    aware = now if now.tzinfo is not None else now.astimezone()
    return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class _Request:
    """What one assembly was asked for, resolved: the budget and its source, the packet's
    timestamp and local day, the model and registry, the focus and its keywords."""

    size: int
    source: str
    generated: str
    today: Any
    model: str | None
    registry: str | ModelRegistry | None
    focus: str | None
    focus_keywords: list[str] | None
    warnings: list[str]

    def outcome(self, over: bool, keywords: list[str], rule: str, why: str = "") -> Outcome:
        """How the assembly went, for the packet and its ledger."""
        return Outcome(
            budget=self.size,
            source=self.source,
            generated=self.generated,
            model=self.model,
            registry=self.registry,
            over_budget=over,
            keywords=keywords,
            relevance=rule,
            focus=self.focus,
            warnings=self.warnings,
            relevance_reason=why,
        )


class PacketAssembler:
    """Assembles packets from one loaded context with one counter, caching token counts so
    re-assembly at other budgets or dates (sweeps, the explorer) costs little."""

    def __init__(
        self,
        ctx: ProjectContext,
        counter: CounterLike = "bytes/4",
        *,
        stop_words: Iterable[str] = DEFAULT_STOP_WORDS,
    ) -> None:
        self.ctx = ctx
        self.stop_words = frozenset(w.lower() for w in stop_words)
        self.prices = Prices(counter)
        self.counter = self.prices.counter
        self.relevance = Relevance(ctx.decisions, ctx.learnings, self.stop_words)
        self.fitter = Fitter(ctx, self.prices, self.stop_words)
        # one assembly at a time: the REST server and widgets share assemblers across threads
        self._lock = threading.RLock()

    @property
    def counts(self) -> CountingCache:
        """The memo of token counts."""
        return self.prices.counts

    @counts.setter
    def counts(self, cache: CountingCache) -> None:
        self.prices.counts = cache

    def caches(self) -> dict[str, object]:
        """Every cache the assembler keeps, by name: each bounded by the context (per entry,
        task or side) or by its own size (per keyword set, day or rule) — never by requests."""
        return {
            **self.prices.caches(),
            **self.relevance.caches(),
            **self.fitter.caches(),
        }

    def cost(self, text: str) -> int:
        """Tokens of ``text`` under this assembler's counter (memoized)."""
        return self.prices.cost(text)

    # -- the pipeline -----------------------------------------------------------------------

    def assemble(
        self,
        budget: int | None = None,
        now: datetime | None = None,
        model: str | None = None,
        *,
        focus: str | None = None,
        relevance: str = "auto",
        steering: Iterable[str] = (),
        registry: str | ModelRegistry | None = None,
        environ: Mapping[str, str] | None = None,
        profile: str = "design",
        display_dir: str | None = None,
    ) -> Packet:
        """Assemble a packet; see :func:`assemble_packet`."""
        choice(profile, PROFILES, "profile")
        if profile == CTX08_PROFILE:
            from . import _ctx08 as ctx08  # that profile's engine, imported when asked for

            ctx08.check_counter(self.counter.name)
            if focus or relevance not in ("auto", "keywords") or any(steering):
                raise UsageError(
                    f"the {ctx08.PROFILE} profile has no focus, relevance rule or steering: "
                    "ctx 0.8.1 has none"
                )
            size, source = resolve_budget(self.ctx, budget, model, registry, environ)
            return ctx08.assemble_ctx08(
                self.ctx, size, now, display_dir=display_dir, budget_source=source
            )
        choice(relevance, RELEVANCE_RULES, "relevance")
        with self._lock, paused():
            return self._assemble(budget, now, model, focus, relevance, steering, registry, environ)

    def _assemble(
        self,
        budget: int | None,
        now: datetime | None,
        model: str | None,
        focus: str | None,
        relevance: str,
        steering: Iterable[str],
        registry: str | ModelRegistry | None,
        environ: Mapping[str, str] | None,
    ) -> Packet:
        named = self.fitter.named_steering(steering)
        request = self._request(budget, now, model, focus, registry, environ)
        scores = dict(self.relevance.scores((), request.today))
        empty = Draft(
            tasks=[],
            tasks_counted=[],
            conventions=[],
            conventions_counted=[],
            decisions=Side("decisions", self.ctx.decisions, scores["decisions"]),
            learnings=Side("learnings", self.ctx.learnings, scores["learnings"]),
        )
        size = request.size
        tier1_cost = sum(self.prices.count_parts(self._parts(request, empty, size)).values())
        _, tier1_count, _ = self.prices.finalize(lambda used: self._parts(request, empty, used))
        fates: Fates = {}
        if tier1_count > size:
            self._tier1_only(empty, fates, size, tier1_count)
            rule = "keywords" if relevance == "auto" else relevance
            return self._made(empty, fates, {}, request.outcome(True, [], rule))
        return self._fill(request, size - tier1_cost, relevance, named, scores, fates)

    def _request(
        self,
        budget: int | None,
        now: datetime | None,
        model: str | None,
        focus: str | None,
        registry: str | ModelRegistry | None,
        environ: Mapping[str, str] | None,
    ) -> _Request:
        """The budget and where it came from, the dates, and the focus's keywords."""
        focus = focus.strip() if focus and focus.strip() else None
        focus_keywords = extract_keywords([focus], self.stop_words) if focus is not None else None
        size, source = resolve_budget(self.ctx, budget, model, registry, environ)
        now = now or utc_now()
        warnings: list[str] = []
        if focus is not None and not focus_keywords:
            warnings.append(
                f"focus {focus!r} has no keywords (words of 3 or more letters that are not "
                "stop words): the included tasks' keywords are used"
            )
            focus_keywords = None
        return _Request(
            size=size,
            source=source,
            generated=_timestamp(now),
            today=local_date(now),
            model=model,
            registry=registry,
            focus=focus,
            focus_keywords=focus_keywords,
            warnings=warnings,
        )

    def _parts(self, request: _Request, draft: Draft, used: int | None) -> list[tuple[str, str]]:
        """The packet's Markdown parts for ``draft`` (stating ``used`` tokens)."""
        ctx = self.ctx
        return render_parts(
            generated=request.generated,
            budget=request.size,
            used=used,
            counter=self.counter.name,
            read_order=ctx.read_order,
            constitution=tuple(r.text for r in ctx.rules),
            tasks=tuple(self.prices.task_text(t) for t in draft.tasks),
            conventions=tuple(c.text for c in draft.conventions),
            decisions=tuple(e.text for e in draft.decisions.full),
            learnings=tuple(e.text for e in draft.learnings.full),
            summaries=tuple(
                EntrySummary(side.name, e.title)
                for side in (draft.decisions, draft.learnings)
                for e in side.summary
            ),
            counted=draft.counted(),
            steering=tuple((s.name, s.body) for s in draft.steering),
        )

    def _fill(
        self,
        request: _Request,
        remaining: int,
        relevance: str,
        named: Any,
        scores: dict[str, Any],
        fates: Fates,
    ) -> Packet:
        """Tiers 2–5 into what tier 1 left, then the draft trimmed to the budget."""
        ctx, fitter, size = self.ctx, self.fitter, request.size
        caps: dict[str, int] = {}
        # Tier 2: tasks.
        caps["tasks"] = min(math.floor(size * ctx.settings.task_budget_pct + 1e-9), remaining)
        pending = list(ctx.pending_tasks)
        tasks_in, tasks_out, tasks_used = fitter.fit_tasks(pending, caps["tasks"], fates)
        remaining -= tasks_used
        # Tier 3: conventions.
        cap = min(math.floor(size * ctx.settings.convention_budget_pct + 1e-9), remaining)
        caps["conventions"] = cap
        conv_in, conv_out, conv_used = fitter.fit_conventions(list(ctx.conventions), cap, fates)
        remaining -= conv_used
        # The keywords: the focus's, else the included tasks'.
        keywords = (
            request.focus_keywords
            if request.focus_keywords is not None
            else fitter.task_keywords(tasks_in)
        )
        # Tier 3 too: steering files, whole, by priority — before history can starve them.
        caps["steering"] = min(math.floor(size * STEERING_SHARE + 1e-9), remaining)
        steer_in, steer_out, steer_used = fitter.fit_steering(
            caps["steering"], set(keywords), named, fates
        )
        remaining -= steer_used
        # Tiers 4–5: decisions and learnings, scored against the keywords.
        today = request.today
        rule, why = self.relevance.rule(relevance, tuple(keywords), today, request.focus)
        scores.update(self.relevance.scores(tuple(keywords), today, rule))
        decisions = Side("decisions", ctx.decisions, scores["decisions"])
        learnings = Side("learnings", ctx.learnings, scores["learnings"])
        fitter.fit_entries(decisions, learnings, max(remaining, 0), fates)
        caps["decisions"], caps["learnings"] = decisions.cap, learnings.cap
        draft = Draft(
            tasks=tasks_in,
            tasks_counted=tasks_out,
            conventions=conv_in,
            conventions_counted=conv_out,
            decisions=decisions,
            learnings=learnings,
            hidden_counts=set(),
            steering=steer_in,
            steering_counted=steer_out,
        )
        self._trim_to_budget(draft, size, fates, lambda d, u: self._parts(request, d, u))
        return self._made(draft, fates, caps, request.outcome(False, keywords, rule, why))

    def _tier1_only(self, empty: Draft, fates: Fates, size: int, tier1: int) -> None:
        """Every item counted, and no count line: tier 1 alone is over the budget."""
        reason = f"tier 1 alone costs {tier1} tokens, more than the budget {size}"
        ctx = self.ctx
        for t in ctx.pending_tasks:
            fates[key("tasks", t)] = Fate("counted", reason)
        for c in ctx.conventions:
            fates[key("conventions", c)] = Fate("counted", reason)
        for st in ctx.steering:
            fates[key("steering", st)] = Fate("counted", reason)
        for side in (empty.decisions, empty.learnings):
            for e in side.entries:
                fates[key(side.name, e)] = Fate("superseded" if e.superseded else "counted", reason)
        empty.hidden_counts.update(("tasks", "conventions", "steering", "decisions", "learnings"))

    def _trim_to_budget(
        self,
        draft: Draft,
        budget: int,
        fates: Fates,
        parts_for: Callable[[Draft, int | None], list[tuple[str, str]]],
    ) -> None:
        """Count the rendered packet; while it is over, give items back (``Draft.demote_one``)."""
        while True:
            _, count, _ = self.prices.finalize(lambda used: parts_for(draft, used))
            if count <= budget:
                return
            if not draft.demote_one(fates, TRIMMED.format(count=count, budget=budget)):
                return

    def _made(self, draft: Draft, fates: Fates, caps: dict[str, int], outcome: Outcome) -> Packet:
        return make_packet(
            self.ctx, self.prices, self.relevance, self._lock, draft, fates, caps, outcome
        )
