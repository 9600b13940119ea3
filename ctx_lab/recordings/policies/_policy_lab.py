"""The policy lab: what another context policy would have sent, call by call, for a recorded
session — open-loop (the agent's actions are the recorded ones) — counted as ``ctx-lab cache
--sizes counts`` counts (the session's calibration plus what the file lacks, inferred from its
usage) and priced with the caching rules (:mod:`ctx_lab.models` ``cache_rule``).

Every policy keeps its context as a list of blocks it appends to; what it removes or replaces
(a compaction, a cleared or masked tool result, a dropped item) marks the first position that
changed, so the cache reads what stayed before it. Policies are data
(:data:`~ctx_lab.conversation.POLICIES`); a user's own implements :class:`ContextPolicy`.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from ...claims import ClaimValue, claims
from ...conversation import Message
from ...errors import UsageError
from ...models import ModelRegistry, cache_prices, get_registry
from ..cache import CacheEngine, Reading, Request, recorded_requests
from ..cache import seconds as _seconds
from ..probes import Probe, mine_probes
from ..transcripts import Transcript
from ._front import decide
from ._policy_kinds import BuiltinPolicy, ContextPolicy, CustomPolicy
from ._policy_report import (
    CostSplit,
    PoliciesReport,
    PolicyCall,
    PolicyResult,
    ProbeOutcome,
    Refetch,
)
from ._policy_session import PolicySession, Sent, main_model, policy_session
from ._policy_specs import POLICIES, PolicySpec
from ._sweep import BASELINE, MAX_SETTINGS, expand_policy, setting_label

__all__ = ["ContextPolicy", "run_policies"]

OPEN_LOOP = "open-loop: the agent's actions are the recorded ones"


class Pricer:
    """What a policy sends, stepped through the one cache engine (:mod:`._cache_engine`) and
    priced with the one pricing of the cache."""

    def __init__(self, registry: ModelRegistry, hour: bool, reading: Reading = "breakpoints"):
        self.registry, self.hour = registry, hour
        self.engine = CacheEngine(reading)
        self.priced = True
        self.split = [0.0, 0.0, 0.0]  # USD read, write, fresh
        self.prices: dict[str, Any] = {}  # model → its cache prices

    def _prices(self, model: str) -> Any:
        if model not in self.prices:
            prices = self.registry.get(model).prices if model != "unknown" else None
            self.prices[model] = cache_prices(model, prices)
        return self.prices[model]

    def price(
        self,
        number: int,
        model: str,
        stamp: str | None,
        sent: Sent,
        hidden: int = 0,
        recorded: Request | None = None,
        usage: Any = None,
    ) -> tuple[int, int, int, float | None, str | None]:
        """``(read, write, fresh, cost, cause)`` of call ``number`` (1-based); ``recorded``:
        the very request ``cache`` steps for it, with its ``usage`` — the recorded policy on a
        recording's usage is the bill: the reported split, priced as ``cache`` prices it, the
        cause the engine's."""
        request = recorded or Request(
            number=number,
            model=model,
            at=_seconds(stamp),
            total=sent.total,
            tail=0,
            stable=sent.stable,
            blocks=sent.blocks,
            anchors=((hidden,) if hidden else ()) + sent.anchors,
            hour=self.hour,
        )
        outcome = self.engine.step(request)
        read, write, fresh = outcome.read, outcome.write, outcome.fresh
        hour = write if self.hour and write else 0
        if usage is not None:  # billed
            fresh, read, write = (usage.input_tokens, usage.cache_read_input_tokens,
                                  usage.cache_creation_input_tokens)  # fmt: skip
            hour = usage.cache_write_1h
        known = self._prices(model)
        cost = known.cost(fresh, read, write, hour)
        if cost is None:
            self.priced = False
        else:  # each part as CachePrices.cost gives it alone (a known price: cost is not None)
            self.split[0] += read * (known.read or 0.0) / 1_000_000
            hourly = known.write_hour or known.write or 0.0
            self.split[1] += ((write - hour) * (known.write or 0.0) + hour * hourly) / 1_000_000
            self.split[2] += fresh * (known.input or 0.0) / 1_000_000
        return read, write, fresh, cost, outcome.cause


def run_policies(
    transcript: Transcript,
    policies: Sequence[str | PolicySpec | ContextPolicy] = (),
    *,
    model: str | None = None,
    counter: Any = None,
    registry: str | ModelRegistry | None = None,
    source: str | None = None,
    reading: Reading = "breakpoints",
    follow_probes: bool = True,
) -> PoliciesReport:
    """Each policy (default: every built-in one) over ``transcript``, open-loop, counted with
    the session's calibration and priced with the cache model (see the module docstring).
    ``follow_probes=False``: costs and sizes only — no probe mined or followed (what a caller
    that compares costs alone needs; every loss column is then 0)."""
    from ...tokens import get_counter

    transcript.require_model(model, source)
    counting = get_counter(counter or "bytes/4")
    chosen_registry = get_registry(registry)
    session = policy_session(transcript, counting, model, chosen_registry)
    probes = mine_probes(transcript.messages) if follow_probes else []
    uses = _tool_uses(transcript.messages, probes) if follow_probes else {}
    hour = any(c.usage is not None and c.usage.cache_write_1h for c in transcript.calls)
    recorded = recorded_requests(transcript, counting, model)
    results = []
    for given in _specs(policies):
        policy = (
            BuiltinPolicy(given, session)
            if isinstance(given, PolicySpec)
            else CustomPolicy(given, session)
        )
        mine = recorded if policy.spec.kind == "recorded" else {}
        results.append(
            _run_one(policy, session, chosen_registry, hour, probes, uses, reading, mine)
        )
    warnings = [  # what the registry said of each model (assumed limits, a fallback row)
        said
        for name in dict.fromkeys([model] if model else transcript.models)
        if (said := chosen_registry.get(name).warning)
    ]
    if any(r.cost is None for r in results):
        warnings.append(
            "a model's input or cached-input price is unknown here (try --registry "
            "models-dev): no costs"
        )
    shown = source or transcript.source or "<transcript>"
    # what every setting's cost is a ratio to: the recording's own sizes priced by the same
    # engine (its billed cost would fold the engine's error on this session into each ratio)
    baseline = _run_one(
        BuiltinPolicy(POLICIES[BASELINE], session), session, chosen_registry, hour, (), {}, reading
    ).cost
    settings, recommended = decide(
        (decision_row(shown, transcript.format, r, baseline) for r in results), session.window
    )
    return PoliciesReport(
        source=shown,
        model=model or main_model(transcript),
        window=session.window,
        counted_with=session.counted_with,
        policies=tuple(results),
        probes=len(probes),
        open_loop=OPEN_LOOP,
        warnings=tuple(warnings),
        agent=transcript.format,
        baseline_cost=baseline,
        settings=settings,
        recommended=recommended,
    )


def _specs(
    policies: Sequence[str | PolicySpec | ContextPolicy],
) -> list[PolicySpec | ContextPolicy]:
    """Every policy to run: texts expanded to their settings (``a|b``, ``a..b/step``), each
    setting once, the recording first whenever it is not named (what a cost is a ratio to);
    every built-in one when none is given."""
    if not policies:
        return list(POLICIES.values())
    found: dict[Any, PolicySpec | ContextPolicy] = {}
    for given in policies:
        for spec in expand_policy(given) if isinstance(given, str) else (given,):
            found.setdefault(
                setting_label(spec) if isinstance(spec, PolicySpec) else id(spec), spec
            )
    if len(found) > MAX_SETTINGS:
        raise UsageError(f"{len(found):,} settings in one run (at most {MAX_SETTINGS:,})")
    if BASELINE not in found:
        return [POLICIES[BASELINE], *found.values()]
    return list(found.values())


def decision_row(
    item: str, agent: str, result: PolicyResult, baseline: float | None
) -> dict[str, Any]:
    """What :func:`~._front.decide` reads of one setting on one session (a corpus row too);
    ``baseline``: the recording's sizes priced as every setting is."""
    return {
        "baseline_cost": baseline,
        "item": item,
        "setting": result.label,
        "policy": result.name,
        "params": result.params,
        "agent": agent,
        "cost_usd": result.cost,
        "peak": result.peak,
        "probes_lost": result.probes.lost,
        "constraints_lost": len(result.probes.lost_constraints),
        "over_window": result.over_window,
    }


def _tool_uses(messages: Sequence[Message], probes: Sequence[Probe]) -> dict[str, list[int]]:
    """Per probe text, the tool calls (message positions) that name it: a later re-read."""
    calls = [(at, m.counted_as()[1]) for at, m in enumerate(messages) if m.role == "tool_use"]
    found: dict[str, list[int]] = {}
    for probe in probes:
        if probe.kind in ("constraint", "decision"):
            continue
        hits = [at for at, text in calls if probe.text in text]
        if hits:
            found[probe.text] = hits
    return found


def _run_one(
    policy: BuiltinPolicy,
    session: PolicySession,
    registry: ModelRegistry,
    hour: bool,
    probes: Sequence[Probe],
    uses: dict[str, list[int]],
    reading: Reading = "breakpoints",
    recorded: dict[int, Request] | None = None,
) -> PolicyResult:
    pricer = Pricer(registry, hour, reading)
    recorded = recorded or {}
    calls = []
    transcript = session.transcript
    own = policy.spec.kind == "recorded"
    if not recorded:  # every call predicted: from the cache the recording found
        _seed(pricer, session)
    for index, call in enumerate(transcript.calls):
        sent = policy.advance(index, call)
        chosen_model = session.model or call.model or "unknown"
        mine = recorded.get(index)
        read, write, fresh, cost, cause = pricer.price(
            index + 1, chosen_model, call.timestamp, sent, session.hidden_for(chosen_model), mine,
            call.usage if mine is not None else None,
        )  # fmt: skip
        total = mine.total if mine is not None else sent.total
        calls.append(
            PolicyCall(
                call=index + 1,
                input=total,
                cache_read=read,
                cache_write=write,
                fresh=fresh,
                compacted=sent.compacted,
                removed=sent.removed,
                over_window=total > session.window,
                cost_usd=cost,
                miss_cause=cause,
                billed=index in session.offsets,
                claim=_call_claim(own, mine is not None and call.usage is not None),
            )
        )
    inputs = [c.input for c in calls] or [0]
    read_sum = sum(c.cache_read for c in calls)
    cost = round(sum(c.cost_usd or 0.0 for c in calls), 4) if pricer.priced and calls else None
    outcome, refetched = _probe_outcome(policy, transcript, probes, uses, session)
    spec = policy.spec
    return PolicyResult(
        name=spec.name,
        params={k: (list(v) if isinstance(v, tuple) else v) for k, v in spec.params.items()},
        calls=tuple(calls),
        peak=max(inputs),
        mean=round(sum(inputs) / len(inputs)),
        compactions=tuple(c + 1 for c in policy.compactions),
        cost=cost,
        cache_hit_rate=round(read_sum / max(sum(inputs), 1), 4),
        probes=outcome,
        refetched=tuple(refetched),
        over_window=sum(1 for c in calls if c.over_window),
        cost_split=CostSplit(*(round(v, 4) for v in pricer.split)) if cost is not None else None,
        threshold=policy.threshold(),
        claim=_result_claim(own, [c.claim for c in calls]),
        setting=setting_label(spec) if spec.kind != "custom" else spec.name,
    )


def _seed(pricer: Pricer, session: PolicySession) -> None:
    """The cache as the recording found it, for every policy alike: what its first call read
    was already cached (a policy changes nothing before its first call)."""
    calls = session.transcript.calls
    first = calls[0] if calls else None
    if first is None or first.usage is None or not first.usage.cache_read_input_tokens:
        return
    model = session.model or first.model or "unknown"
    pricer.engine.seed(model, first.usage.cache_read_input_tokens, _seconds(first.timestamp))


def _call_claim(own: bool, billed: bool) -> str:
    """The recorded policy's call on its usage is the bill; on counted sizes, an estimate;
    any other policy's call, open-loop."""
    return ("billed" if billed else "estimated") if own else "open-loop"


def _result_claim(own: bool, labels: list[Any]) -> ClaimValue:
    if not own:
        return "open-loop"
    lost = {"probes": "estimated", "refetched": "estimated"}
    if labels and all(label == "billed" for label in labels):
        return claims("billed", **lost)  # type: ignore[arg-type]
    return claims("estimated")


def _probe_outcome(
    policy: BuiltinPolicy,
    transcript: Transcript,
    probes: Sequence[Probe],
    uses: dict[str, list[int]],
    session: PolicySession,
) -> tuple[ProbeOutcome, list[Refetch]]:
    kept = summarized = 0
    lost: list[Probe] = []
    ends = [c.sent_end for c in transcript.calls]
    refetched = []
    for probe in probes:
        gone = policy.gone.get(probe.message)
        if gone is None:
            kept += 1
            continue
        call, summary = gone
        if summary is not None and probe.text in policy.summaries[summary]:
            summarized += 1
            continue
        lost.append(probe)
        after = transcript.calls[call].sent_end
        again = next((at for at in uses.get(probe.text, ()) if at >= after), None)
        if again is not None:
            asked = bisect.bisect_right(ends, again)  # the first call sent the re-read's result
            result = again + 1
            tokens = session.tokens[result] if result < len(session.tokens) else 0
            refetched.append(Refetch(probe.kind, probe.text[:200], asked + 1, tokens))
    constraints = tuple(p.text[:200] for p in lost if p.kind == "constraint")
    outcome = ProbeOutcome(kept, summarized, len(lost), constraints,
                           tuple(f"{p.kind}: {p.text[:120]}" for p in lost[:50]))  # fmt: skip
    return outcome, refetched
