"""The decision a sweep asks for: per setting, across the sessions, what it costs (× the
recording, bootstrapped over sessions) and loses; the settings on the cost–loss Pareto front;
and one recommended setting with the configuration that runs it in the recording's agent
(:mod:`._agents`) — every figure open-loop.

Rows in, as :func:`~._policy_lab.run_policies` and the corpus runner make them: one per session
and setting, with ``item``, ``setting``, ``policy``, ``params``, ``agent``, ``cost_usd``, ``peak``,
``probes_lost``, ``constraints_lost``, ``over_window`` and ``baseline_cost`` — the recording's
own sizes priced by the cache engine as every setting is, which a cost is a ratio to (its
billed cost would fold the engine's error on that session into every ratio). The recording's
own row is 1.
"""

from __future__ import annotations

import json
import random
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...wire import wire
from ._agents import AgentConfig, agent_config
from ._sweep import BASELINE

__all__ = [
    "OPEN_LOOP_NOTE",
    "RULE",
    "Recommendation",
    "SessionOutcome",
    "Setting",
    "Spread",
    "decide",
    "pareto_front",
]

RESAMPLES = 1_000  # bootstrap resamples of the sessions
SEED = 20_261_207  # the same spread on every run and every day
LOW, HIGH = 0.05, 0.95  # the spread's percentiles: a 90 % interval
RULE = (
    "of the settings that ran every session inside the window and lost no more of the user's "
    "constraints than the recording (medians over sessions), the cheapest (median × the "
    "recording); it is on the cost–loss front of those settings"
)
OPEN_LOOP_NOTE = (
    "open-loop: the agent's recorded actions replayed under each setting; an agent that saw "
    "less context might have acted otherwise"
)


@dataclass(frozen=True, kw_only=True)
class Spread:
    """A figure across sessions: its median and a 90 % bootstrap interval of that median."""

    median: float = field(metadata=wire("the median over the sessions"))
    low: float = field(metadata=wire("5th percentile of the bootstrapped median"))
    high: float = field(metadata=wire("95th percentile of the bootstrapped median"))


@dataclass(frozen=True, kw_only=True)
class SessionOutcome:
    """One setting on one session."""

    source: str
    cost: float | None = field(metadata=wire("input cost (USD) under the cache"))
    cost_ratio: float | None = field(
        metadata=wire("cost ÷ the recording's own cost on this session", minimum=0)
    )
    peak: int = field(metadata=wire("the largest input of a call", minimum=0))
    probes_lost: int = field(metadata=wire(minimum=0))
    constraints_lost: int = field(metadata=wire(minimum=0))
    over_window: int = field(metadata=wire("calls over the window", minimum=0))


@dataclass(frozen=True, kw_only=True)
class Setting:
    """One expanded setting across the sessions."""

    policy: str
    params: dict[str, Any]
    label: str = field(metadata=wire("the policy and the parameters that differ from its defaults"))
    sessions: tuple[SessionOutcome, ...]
    cost_ratio: Spread | None = field(
        default=None, metadata=wire("× the recording (null: a cost unknown on some session)")
    )
    probes_lost: Spread
    constraints_lost: Spread
    peak: int = field(metadata=wire("the median peak over the sessions", minimum=0))
    broke: int = field(default=0, metadata=wire("sessions with a call over the window", minimum=0))
    on_front: bool = field(
        default=False,
        metadata=wire("no other setting costs less and loses no more, or the reverse"),
    )


@dataclass(frozen=True, kw_only=True)
class Recommendation:
    """The setting the rule picks, why, and the configuration that runs it."""

    policy: str
    params: dict[str, Any]
    label: str
    cost_ratio: Spread | None = None
    probes_lost: Spread
    probes_lost_recorded: float | None = field(
        default=None, metadata=wire("the recording's own median, for comparison")
    )
    broke: int = 0
    rule: str = field(default=RULE, metadata=wire("how the setting was chosen"))
    open_loop: str = field(default=OPEN_LOOP_NOTE, metadata=wire("what the figures assume"))
    config: AgentConfig | None = field(
        default=None, metadata=wire("the recording's agent's setting that runs it (null: none)")
    )
    reason: str = field(default="", metadata=wire("why there is no config, where there is none"))


def decide(
    rows: Iterable[Mapping[str, Any]], window: int | None = None
) -> tuple[tuple[Setting, ...], Recommendation | None]:
    """The settings of ``rows`` across their sessions, the front, and the recommendation
    (None without a row that has a cost ratio)."""
    ok = [r for r in rows if not r.get("error_type") and r.get("setting")]
    baseline = {r["item"]: r.get("baseline_cost") for r in ok}
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for row in ok:
        groups.setdefault(row["setting"], []).append(row)
    settings = [_setting(label, group, baseline) for label, group in groups.items()]
    front = pareto_front([_point(s) for s in settings])
    settings = [_on_front(s, i in front) for i, s in enumerate(settings)]
    agents = [str(r.get("agent") or "") for r in ok]
    agent = max(set(agents), key=agents.count) if agents else ""
    return tuple(settings), _recommend(settings, agent, window)


def pareto_front(points: Sequence[tuple[float, float] | None]) -> set[int]:
    """The indices of the points no other point dominates (at most as costly and as lossy,
    and less in one); None: a point with no cost, never on the front. One sort, then a sweep."""
    ranked = sorted((p[0], p[1], i) for i, p in enumerate(points) if p is not None)
    front: set[int] = set()
    best_loss = float("inf")
    at = 0
    while at < len(ranked):
        cost = ranked[at][0]
        same = [r for r in ranked[at:] if r[0] == cost]  # equal costs: the least loss among them
        least = min(r[1] for r in same)
        if least < best_loss:
            front |= {r[2] for r in same if r[1] == least}
            best_loss = least
        at += len(same)
    return front


def _point(setting: Setting) -> tuple[float, float] | None:
    if setting.cost_ratio is None:
        return None
    return (setting.cost_ratio.median, setting.probes_lost.median)


def _setting(
    label: str, group: list[Mapping[str, Any]], baseline: Mapping[str, float | None]
) -> Setting:
    sessions = tuple(_outcome(r, baseline.get(r["item"]), label == BASELINE) for r in group)
    ratios = [s.cost_ratio for s in sessions]
    first = group[0]
    return Setting(
        policy=str(first["policy"]),
        params=_params(first.get("params")),
        label=label,
        sessions=sessions,
        cost_ratio=None if None in ratios else _spread([r for r in ratios if r is not None]),
        probes_lost=_spread([s.probes_lost for s in sessions]),
        constraints_lost=_spread([s.constraints_lost for s in sessions]),
        peak=round(statistics.median(s.peak for s in sessions)),
        broke=sum(1 for s in sessions if s.over_window),
    )


def _params(given: Any) -> dict[str, Any]:
    """A row's parameters: a dict, or its JSON text (a corpus table's cell)."""
    if isinstance(given, str):
        try:
            given = json.loads(given)
        except ValueError:
            return {}
    return dict(given) if isinstance(given, Mapping) else {}


def _outcome(row: Mapping[str, Any], base: float | None, own: bool) -> SessionOutcome:
    """One session's row; its cost ÷ the recording priced the same way (the recording: 1)."""
    cost = row.get("cost_usd")
    ratio = 1.0 if own and cost is not None else None
    if not own and cost is not None and base:
        ratio = round(cost / base, 4)
    return SessionOutcome(
        source=str(row["item"]),
        cost=cost,
        cost_ratio=ratio,
        peak=int(row.get("peak") or 0),
        probes_lost=int(row.get("probes_lost") or 0),
        constraints_lost=int(row.get("constraints_lost") or 0),
        over_window=int(row.get("over_window") or 0),
    )


def _spread(values: Sequence[float]) -> Spread:
    """The median of ``values`` and the 90 % interval of medians of sessions drawn again."""
    median = statistics.median(values)
    if len(values) < 2:
        return Spread(median=round(median, 4), low=round(median, 4), high=round(median, 4))
    draw = random.Random(SEED)
    medians = sorted(
        statistics.median(draw.choices(values, k=len(values))) for _ in range(RESAMPLES)
    )
    low = medians[int(LOW * (RESAMPLES - 1))]
    high = medians[int(HIGH * (RESAMPLES - 1))]
    return Spread(median=round(median, 4), low=round(low, 4), high=round(high, 4))


def _on_front(setting: Setting, on: bool) -> Setting:
    from dataclasses import replace

    return replace(setting, on_front=on)


def _recommend(
    settings: Sequence[Setting], agent: str, window: int | None
) -> Recommendation | None:
    whole = [s for s in settings if s.cost_ratio is not None and not s.broke]
    if not whole:
        return None
    recorded = next((s for s in settings if s.label == BASELINE), None)
    allowed = recorded.constraints_lost.median if recorded is not None else 0.0
    keeps = [s for s in whole if s.constraints_lost.median <= allowed]
    chosen = min(keeps or whole, key=lambda s: (_cost(s), s.probes_lost.median))
    config, reason = agent_config(chosen.policy, chosen.params, agent, window, chosen.label)
    return Recommendation(
        policy=chosen.policy,
        params=chosen.params,
        label=chosen.label,
        cost_ratio=chosen.cost_ratio,
        probes_lost=chosen.probes_lost,
        probes_lost_recorded=None if recorded is None else recorded.probes_lost.median,
        broke=chosen.broke,
        config=config,
        reason=reason,
    )


def _cost(setting: Setting) -> float:
    return setting.cost_ratio.median if setting.cost_ratio is not None else float("inf")
