"""A fitted draft as a :class:`Packet`: its sections, the token count its own text states, the
allocation per section, and the ledger — one row per item with its action and why (made when
first read: on a large project most packets are never asked for theirs)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ._context import ProjectContext
from ._draft import OMITTED, Draft, Fate, Fates, Side, key
from ._layout import (
    SECTION_TIERS,
    convention_line,
    noted_line,
    rule_line,
    steering_block,
    task_line,
    task_text,
)
from ._markdown import Convention, Entry, Steering, Task
from ._packet import (
    AllocationRow,
    EntrySummary,
    LazyRows,
    LedgerRow,
    Packet,
    PacketEntry,
    PacketSteering,
)
from ._prices import Prices
from ._relevance import Relevance

if TYPE_CHECKING:
    from ..models import ModelRegistry

__all__ = ["Outcome", "make_packet"]


@dataclass(frozen=True)
class Outcome:
    """How one assembly went, beyond its draft: the budget and where it came from, the keywords
    and rule that ranked, the focus, and what to warn about."""

    budget: int
    source: str
    generated: str
    model: str | None
    registry: str | ModelRegistry | None
    over_budget: bool
    keywords: Sequence[str]
    relevance: str
    focus: str | None
    warnings: Sequence[str]
    relevance_reason: str = ""


def _ordered(hits: tuple[str, ...], position: dict[str, int]) -> tuple[str, ...]:
    """The ``hits`` that are keywords now, in keyword order."""
    found = [k for k in hits if k in position]
    if len(found) > 1:
        found.sort(key=position.__getitem__)
    return tuple(found)


def _entry_warnings(entry: Entry) -> tuple[str, ...]:
    found = []
    if entry.in_comment:
        found.append("inside an HTML comment: move it below the comment's closing -->")
    if entry.timestamp is None:
        found.append(f"no such date [{entry.stamp}]: scored as undated")
    return tuple(found)


def _packet_entry(side: Side, e: Entry) -> PacketEntry:
    return PacketEntry(e.title, e.day_text, e.text, side.scores[e.key].score)


def make_packet(
    ctx: ProjectContext,
    prices: Prices,
    relevance: Relevance,
    lock: threading.RLock,
    draft: Draft,
    fates: Fates,
    caps: dict[str, int],
    outcome: Outcome,
) -> Packet:
    """The packet of a fitted draft (its ledger read lazily, under ``lock``)."""
    probe = Packet(
        generated=outcome.generated,
        budget=outcome.budget,
        tokens_used=0,
        counter=prices.counter.name,
        over_budget=outcome.over_budget,
        model=outcome.model,
        est_cost_usd=None,
        read_order=ctx.read_order,
        constitution=tuple(r.text for r in ctx.rules),
        tasks=tuple(prices.task_text(t) for t in draft.tasks),
        conventions=tuple(c.text for c in draft.conventions),
        steering=tuple(PacketSteering(st.name, st.source, st.body) for st in draft.steering),
        decisions=tuple(_packet_entry(draft.decisions, e) for e in draft.decisions.full),
        learnings=tuple(_packet_entry(draft.learnings, e) for e in draft.learnings.full),
        summaries=tuple(
            EntrySummary(side.name, e.title)
            for side in (draft.decisions, draft.learnings)
            for e in side.summary
        ),
        counted=draft.counted(),
    )

    def with_used(used: int | None) -> list[tuple[str, str]]:
        return replace(probe, tokens_used=used or 0, states_tokens_used=used is not None).parts()

    _, tokens_used, states = prices.finalize(with_used)
    used_by = prices.count_parts(with_used(tokens_used if states else None))
    est_cost = None
    if outcome.model is not None:
        from ..models import get_registry

        est_cost = get_registry(outcome.registry).get(outcome.model).input_cost(tokens_used)

    def ledger() -> list[LedgerRow]:
        with lock:
            return ledger_rows(ctx, prices, relevance, draft, fates, outcome)

    def window(start: int, stop: int) -> list[LedgerRow]:
        with lock:
            return ledger_rows(ctx, prices, relevance, draft, fates, outcome, (start, stop))

    def size() -> int:
        entries = len(draft.decisions.entries) + len(draft.learnings.entries)
        whole = len(ctx.pending_tasks) + len(ctx.conventions) + len(ctx.steering)
        return len(ctx.rules) + whole + entries

    return replace(
        probe,
        tokens_used=tokens_used,
        states_tokens_used=states,
        est_cost_usd=est_cost,
        ledger_rows=LazyRows(ledger, window, size),
        allocation_rows=tuple(allocation(draft, caps, used_by)),
        budget_source=outcome.source,
        warnings=(*ctx.warnings, *outcome.warnings),
        layout=ctx.layout,
        relevance=outcome.relevance,
        relevance_reason=outcome.relevance_reason,
        focus=outcome.focus,
    )


def ledger_rows(
    ctx: ProjectContext,
    prices: Prices,
    relevance: Relevance,
    draft: Draft,
    fates: Fates,
    outcome: Outcome,
    window: tuple[int, int] | None = None,
) -> list[LedgerRow]:
    """One row per item of the context, in section order, with its action and why; only the
    rows ``window`` (start, stop) covers where given (the entries' rows are most of the cost)."""
    cost = prices.cost
    rows = [
        LedgerRow(
            "constitution",
            1,
            r.text,
            tokens=cost(rule_line(r.text)),
            reason="tier 1: always included",
            source=".context/CONSTITUTION.md",
            line=r.line,
        )
        for r in ctx.rules
    ]
    rows += _whole_rows(ctx, prices, fates)
    if window is None:
        rows += _entry_rows(prices, relevance, draft, fates, outcome)
    else:
        start, stop = window
        before = len(rows)  # the entries' rows follow the small sections'
        span = (max(0, start - before), max(0, stop - before))
        rows = rows[start:stop] + _entry_rows(prices, relevance, draft, fates, outcome, span)
    if draft.hidden_counts:  # no line counts them: say so rather than "counted"
        rows = [
            replace(r, action="omitted", reason=f"{r.reason}; {OMITTED}")
            if r.action == "counted" and r.section in draft.hidden_counts
            else r
            for r in rows
        ]
    return rows


def _whole_rows(ctx: ProjectContext, prices: Prices, fates: Fates) -> list[LedgerRow]:
    """Pending tasks, conventions and steering files: each in whole or not."""
    cost = prices.cost

    def whole(
        section: str,
        item: Task | Convention | Steering,
        title: str,
        tokens: int,
        date: str | None = None,
        suffix: str = "",
    ) -> LedgerRow:
        fate = fates.get(key(section, item), Fate("counted", f"no room for {section}"))
        return LedgerRow(
            section,
            SECTION_TIERS[section],
            title,
            date=date,
            tokens=tokens,
            action=fate.action,
            reason=fate.reason + suffix,
            source=item.source or None,
            line=item.line,
        )

    rows = [
        whole(
            "tasks",
            t,
            t.text,
            cost(task_line(task_text(t))),
            date=t.added.date().isoformat() if t.added else None,
        )
        for t in ctx.pending_tasks
    ]
    rows += [
        whole("conventions", c, c.title, cost(convention_line(c.text))) for c in ctx.conventions
    ]
    rows += [
        whole(
            "steering",
            st,
            st.name,
            cost(steering_block(st.name, st.body)),
            suffix=f" ({st.inclusion}, priority {st.priority})",
        )
        for st in ctx.steering
    ]
    return rows


def _entry_rows(
    prices: Prices,
    relevance: Relevance,
    draft: Draft,
    fates: Fates,
    outcome: Outcome,
    span: tuple[int, int] | None = None,
) -> list[LedgerRow]:
    """Decisions and learnings with their scores, keywords and fates (the ``span`` of them,
    counted over decisions then learnings, where given)."""
    keywords = list(outcome.keywords)
    position = {k: i for i, k in enumerate(keywords)}
    hits = relevance.matched(keywords, outcome.relevance)
    no_room = Fate("counted", "no room left")
    rows = []
    first, last = span if span is not None else (0, len(draft.decisions.entries)
                                                 + len(draft.learnings.entries))  # fmt: skip
    offset = 0
    for side, tier in ((draft.decisions, 4), (draft.learnings, 5)):
        chosen = side.entries[max(0, first - offset) : max(0, last - offset)]
        offset += len(side.entries)
        for e in chosen:
            s = side.scores[e.key]
            fate = fates.get(key(side.name, e)) or side.counted_fate or no_room
            if fate is side.counted_fate:  # say why this one: its title against what was left
                fate = Fate(
                    "counted",
                    f"{side.name} share of {side.cap} used up: its title needs "
                    f"{prices.cost(noted_line(e.title))} and the line counting the rest "
                    f"{side.count_reserve}, {side.count_left} left; counted in one line",
                )
            reason = (
                fate.reason if not s.note or s.note == "superseded" else f"{fate.reason}; {s.note}"
            )
            if e.in_comment:
                reason += "; inside an HTML comment"
            rows.append(
                LedgerRow(
                    side.name,
                    tier,
                    e.title,
                    date=e.day_text,
                    age_days=s.age_days,
                    recency=s.recency,
                    relevance=round(s.relevance, 4),
                    keywords=s.keywords or _ordered(hits.get(id(e), ()), position),
                    score=round(s.score, 4),
                    tokens=prices.entry_cost(e),
                    action=fate.action,
                    reason=reason,
                    source=e.source or None,
                    warnings=_entry_warnings(e),
                    line=e.line,
                )
            )
    return rows


def allocation(draft: Draft, caps: dict[str, int], used_by: dict[str, int]) -> list[AllocationRow]:
    """Per section: its cap, what it used, and how many items it keeps, summarizes, counts."""
    rows = [
        AllocationRow(name, SECTION_TIERS[name], None, used_by.get(name, 0))
        for name in ("header", "read_order", "constitution", "instruction")
    ]
    whole: list[tuple[str, Sequence[object], Sequence[object]]] = [
        ("tasks", draft.tasks, draft.tasks_counted),
        ("conventions", draft.conventions, draft.conventions_counted),
    ]
    if draft.steering or draft.steering_counted:
        whole.append(("steering", draft.steering, draft.steering_counted))
    for name, kept, counted in whole:
        rows.append(
            AllocationRow(
                section=name,
                tier=SECTION_TIERS[name],
                cap=caps.get(name),
                used=used_by.get(name, 0),
                full=len(kept),
                summary=0,
                counted=len(counted),
            )
        )
    for side, tier in ((draft.decisions, 4), (draft.learnings, 5)):
        rows.append(
            AllocationRow(
                section=side.name,
                tier=tier,
                cap=caps.get(side.name),
                used=used_by.get(side.name, 0),
                full=len(side.full),
                summary=len(side.summary),
                counted=len(side.counted),
            )
        )
    return rows
