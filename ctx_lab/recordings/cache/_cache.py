"""Prompt caching, simulated from the rules (:mod:`ctx_lab.models` ``cache_rule``): for every
call of a recorded session, the predicted fresh input, cache write and cache read; where a call
reads less than the previous call left cached, the cause; and the session's cost beside two
counterfactuals — no caching, and ideal caching.

Sizes come from the provider's reported usage (``sizes="usage"``: only the rules are tested —
the total each call sent and its uncached tail are the recording's) or from ctx_lab's counts of
what each call sent (``sizes="counts"``: what a counterfactual has; :mod:`._cache_sizes` — the
counts calibrated on the session, and what the file does not hold inferred from its usage and
listed: the hidden prefix, files re-attached after a compaction, thinking billed beyond its
summary). With usage sizes the hidden prefix (Claude Code and Gemini CLI leave out the system
prompt and tools) is inferred from the first call's usage and said to be inferred.

The calls are stepped through the one cache engine (:mod:`._cache_engine`: entries at the
request's breakpoints, the lookback, lifetimes refreshed by hits, several live entries per
model), told what the file shows of each request: a compaction (only the hidden prefix is the
same), a Codex turn start after reasoning (the previous turn's reasoning items are not sent
again: OpenAI's conversation-state guide,
https://developers.openai.com/api/docs/guides/conversation-state, "reasoning.context", read
2026-12-07), a Claude Code ``<task-notification>`` (the system prompt's tail is rendered
again), the blocks each call sent (for the lookback) and the hidden prefix as a breakpoint.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any, Literal

from ...choices import CacheCause
from ...claims import claims
from ...models import ModelRegistry, cache_prices, cache_rule, get_registry
from ..transcripts import NO_USAGE, Call, Transcript, images_cost
from ._cache_engine import CacheEngine, Reading, Request
from ._cache_fixes import NO_MISS, GapLedger
from ._cache_report import (
    CacheCall,
    CacheCost,
    CacheReport,
    InferredPart,
    Recoverable,
    ReportedCache,
    SubagentCost,
)
from ._cache_sizes import CountedSizes, counted_sizes
from ._cache_subagents import subagent_costs

__all__ = ["hidden_prefix", "simulate_cache"]

Sizes = Literal["usage", "counts"]
TASK_NOTIFICATION = "<task-notification>"  # Claude Code's note of a finished background task


@lru_cache(maxsize=4096)  # each call's stamp is read again by every policy the lab runs
def seconds(stamp: str | None) -> float | None:
    """An ISO 8601 timestamp as seconds since the epoch (None: missing or unreadable)."""
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def hidden_prefix(
    transcript: Transcript, counter: Any = None, model: str | None = None
) -> int | None:
    """The prefix a file does not hold, from the first call with usage (of ``model``, when
    given: Claude Code's system prompt differs by model): what it reported as input less
    ctx_lab's count of the messages it sent (None when the file holds the system prompt or
    tools, or no such call reports usage)."""
    if transcript.system or transcript.tools:
        return None
    if counter is None or isinstance(counter, str):
        from ...tokens import get_counter

        counter = get_counter(counter or "bytes/4")  # what ctx-lab cache counts with
    for call in transcript.calls:
        if call.usage is None or (model is not None and call.model != model):
            continue
        start, end = transcript.sent_range(call)
        counted = sum(_count(counter, m, call.model or "") for m in transcript.messages[start:end])
        return max(call.usage.reported_input - counted, 0)
    return None


def _count(counter: Any, message: Any, model: str) -> int:
    return counter.count(message.counted_as()[1]) + 4 + images_cost(message, model)


def simulate_cache(
    transcript: Transcript,
    *,
    sizes: Sizes = "usage",
    model: str | None = None,
    counter: Any = None,
    registry: str | ModelRegistry | None = None,
    source: str | None = None,
    reading: Reading = "breakpoints",
    changes: Mapping[int, tuple[float, CacheCause, str]] | None = None,
    subagents: bool = True,
) -> CacheReport:
    """The session's caching as the engine predicts it (see the module docstring); with
    ``model``, every call as if sent to that model (its rules and prices). A session without
    usage is counted whatever ``sizes`` asks, and says so. ``changes``: per call index, what
    its request body shows changed since the call before — ``(share of the request still
    the same, cause, reason)`` (the anatomy's diffs). ``subagents``: a Claude Code session's
    sub-agent files (``<id>/subagents/``) are read and attributed to it."""
    from ...tokens import get_counter

    counting = get_counter(counter or "bytes/4")
    warnings: list[str] = []
    if sizes == "usage" and not transcript.has_usage and transcript.calls:
        sizes = "counts"
        warnings.append(NO_USAGE)
    transcript.require_model(model, source)
    counted = counted_sizes(transcript, counting, model=model) if sizes == "counts" else None
    hidden = counted.hidden_prefix if counted else hidden_prefix(transcript, counting)
    run = _Run(
        transcript,
        counted,
        registry=get_registry(registry),
        hidden=hidden,
        model=model,
        reading=reading,
        changes=changes,
    )
    calls = tuple(run.call(call) for call in transcript.calls if sizes == "counts" or call.usage)
    for name in [model] if model else transcript.models:  # what the registry said of each model
        said = run.registry.get(name).warning
        if said and said not in warnings:
            warnings.append(said)
    found: tuple[SubagentCost, ...] = ()
    if subagents:  # a Claude Code session's sub-agent recordings, attributed to it
        registry_ = run.registry
        found, unread = subagent_costs(
            transcript,
            lambda t: simulate_cache(t, registry=registry_, reading=reading, subagents=False),
        )
        warnings += unread
    return CacheReport(
        source=source or transcript.source or "<transcript>",
        sizes=sizes,
        calls=calls,
        hidden_prefix=hidden,
        hidden_prefix_inferred=hidden is not None,
        cost=run.costs(),
        recoverable=run.recoverable(),
        subagents=found,
        warnings=tuple(warnings) + tuple(run.warnings) + tuple(counted.warnings if counted else ()),
        counted_with=counted.counted_with if counted else None,
        inferred=tuple(
            InferredPart(i.call, i.tokens, i.what) for i in (counted.inferred if counted else ())
        ),
        reading=reading,
    )


def usage_sizes(model: str | None) -> Any:
    """A call's ``(total input, uncached tail)`` as its usage reports them (None without
    usage): the tail is what follows the last breakpoint (Anthropic's uncached input)."""

    def sizes(call: Call) -> tuple[int, int] | None:
        if call.usage is None:
            return None
        rule = cache_rule(model or call.model or "unknown")
        tail = call.usage.input_tokens if rule is not None and rule.breakpoints else 0
        return call.usage.reported_input, tail

    return sizes


def recorded_requests(
    transcript: Transcript, counter: Any, model: str | None = None
) -> dict[int, Request]:
    """Per call index, the engine's request for every call with usage — what ``cache --sizes
    usage`` steps, and the ``recorded`` policy with it."""
    hidden = hidden_prefix(transcript, counter)
    return {c.index: r for c, r in requests(transcript, usage_sizes(model), hidden, model)}


def requests(
    transcript: Transcript,
    totals: Any,
    hidden: int | None,
    model: str | None = None,
    changes: Mapping[int, tuple[float, CacheCause, str]] | None = None,
) -> Iterator[tuple[Call, Request]]:
    """Each call of ``transcript`` as the engine's :class:`Request`: its sizes (``totals``:
    the call → ``(total, tail)``, None to leave it out), and what the file shows of it —
    ``changes`` adds what its request body shows (see :func:`simulate_cache`)."""
    compactions = set(transcript.compaction_calls())
    thought = {index for index, _ in transcript.thinking}
    previous_end = 0
    turn: list[Call] = []  # the calls of the current turn (a user message starts one)
    last_turn: list[Call] = []
    sized: dict[int, int] = {}
    for call in transcript.calls:
        begin, end = transcript.sent_range(call)
        added = transcript.messages[previous_end:end] if end >= previous_end else ()
        previous_end = max(previous_end, call.context)
        user = any(m.role == "user" for m in added)
        if user and turn:
            last_turn, turn = turn, []
        turn.append(call)
        found = totals(call)
        if found is None:
            continue
        total, tail = found
        sized[call.index] = total
        name = model or call.model or "unknown"
        stable: int | None = None
        change: CacheCause | None = None
        why = ""
        if call.index in compactions:
            stable, change = hidden or 0, "compaction"
            why = "the history was rewritten by a compaction: only the hidden prefix is the same"
        elif user and last_turn and any(c.index in thought for c in last_turn):
            first = sized.get(last_turn[0].index)
            rule = cache_rule(name)
            if first is not None and rule is not None and rule.provider == "openai":
                stable, change = first, "turn start"
                why = (
                    "a new turn: the previous turn's reasoning items are not sent again, so "
                    f"the prefix ends where that turn began ({first:,})"
                )
        elif changes and call.index in changes:  # what the request body shows
            share, change, why = changes[call.index]
            stable = round(share * total)
        elif any(TASK_NOTIFICATION in m.content for m in added if m.role == "user"):
            change = "system-prompt tail re-rendered"
            why = "after a <task-notification> Claude Code renders its system prompt's tail again"
        usage = call.usage
        yield (
            call,
            Request(
                number=call.index + 1,
                model=name,
                at=seconds(call.timestamp),
                total=total,
                tail=tail,
                stable=stable,
                blocks=end - begin + 2,  # the messages, after the tools and the system prompt
                anchors=(hidden,) if hidden else (),
                hour=bool(usage is not None and usage.cache_write_1h),
                change=change,
                why=why,
                reported=(
                    usage.input_tokens,
                    usage.cache_read_input_tokens,
                    usage.cache_creation_input_tokens,
                )
                if usage is not None
                else None,
            ),
        )


class _Run:
    """The engine stepped over the session, and the money so far."""

    def __init__(
        self,
        transcript: Transcript,
        counted: CountedSizes | None,
        registry: ModelRegistry,
        hidden: int | None,
        model: str | None,
        reading: Reading,
        changes: Mapping[int, tuple[float, CacheCause, str]] | None = None,
    ) -> None:
        self.transcript, self.counted, self.model = transcript, counted, model
        self.registry, self.hidden = registry, hidden
        self.engine = CacheEngine(reading)
        self.money = {"actual": 0.0, "no_cache": 0.0, "ideal": 0.0}
        self.gap = GapLedger()  # actual − ideal, by what made it
        self.cause: str | None = None  # the cause of the call being priced
        self.priced = True
        self.all_billed = True  # every call's actual cost from its usage
        self.previous_total: dict[str, int] = {}
        self.warnings: list[str] = []
        sizes = (lambda c: (counted.totals[c.index], 0)) if counted else usage_sizes(model)
        made = requests(transcript, sizes, hidden, model, changes)
        self.requests = {c.index: r for c, r in made}

    def call(self, call: Call) -> CacheCall:
        request = self.requests[call.index]
        model = request.model
        rule = cache_rule(model)
        outcome = self.engine.step(request)
        self.cause = outcome.cause
        self.gap.times.append(request.at)
        fresh, read, write = outcome.fresh, outcome.read, outcome.write
        reported = ReportedCache(*request.reported) if request.reported is not None else None
        cost = self._price(model, rule, fresh, read, write, request.total, call.usage)
        return CacheCall(
            call=call.index + 1,
            model=self.model or call.model,
            timestamp=call.timestamp,
            input=fresh,
            cache_read=read,
            cache_write=write,
            reported=reported,
            miss_cause=outcome.cause,
            cost_usd=cost,
            miss_reason=outcome.reason or None,
            claim="estimated" if self.counted else "simulated",
        )

    def _price(
        self, model: str, rule: Any, fresh: int, read: int, write: int, total: int, usage: Any
    ) -> float | None:
        """The predicted split's price; the session's money as recorded (the reported split
        where there is one), with no cache, and with every stable prefix read."""
        prices = self.registry.get(model).prices if model != "unknown" else None
        if prices is not None:  # a long-context tier prices the whole request past its size
            prices = prices.at(total)
        known = cache_prices(model, prices)
        if rule is None or None in (known.input, known.read, known.write):
            self.priced = False  # the model's input or cached-input price is not known here
            return None
        cost = known.cost(fresh, read, write) or 0.0
        hour_extra = 0.0
        if usage is not None:  # an hour's writes at the 1-hour rate (2× input for Claude)
            actual = (
                known.cost(
                    usage.input_tokens,
                    usage.cache_read_input_tokens,
                    usage.cache_creation_input_tokens,
                    usage.cache_write_1h,
                )
                or 0.0
            )
            if usage.cache_write_1h:
                hour = usage.cache_write_1h
                hour_extra = (known.cost(0, 0, hour, hour) or 0.0) - (known.cost(0, 0, hour) or 0.0)
            # what this call's read would cost written again at the 5-minute rate (a pause
            # under the hour that the 5-minute lifetime would not have bridged)
            kept = usage.cache_read_input_tokens
            self.gap.rewrites.append((known.cost(0, 0, kept) or 0.0) - (known.cost(0, kept) or 0.0))
        else:
            actual = cost
            self.all_billed = False
            self.gap.rewrites.append(0.0)
        previous = self.previous_total.get(model, 0)
        ideal_read = max(min(previous, max(total - fresh, 0)), read)  # never less than cached
        self.previous_total[model] = total
        ideal = known.cost(fresh, ideal_read, max(total - fresh - ideal_read, 0)) or 0.0
        self.money["actual"] += actual
        self.money["no_cache"] += known.cost(total) or 0.0
        self.money["ideal"] += ideal
        if hour_extra:  # judged against the pauses once all are known
            self.gap.hours += hour_extra
            self.gap.hour_calls += 1
        self.gap.add(self.cause or NO_MISS, actual - ideal - hour_extra)
        return round(cost, 6)

    def recoverable(self) -> tuple[Recoverable, ...]:
        """The gap between actual and ideal caching by what made it (:class:`GapLedger`)."""
        return self.gap.recoverable() if self.priced else ()

    def costs(self) -> CacheCost:
        if not self.priced:
            self.warnings.append(
                "a model's input or cached-input price is unknown here (try --registry "
                "models-dev): no costs"
            )
            return CacheCost(None, None, None)
        return CacheCost(
            round(self.money["actual"], 4),
            round(self.money["no_cache"], 4),
            round(self.money["ideal"], 4),
            claims("simulated", actual="billed" if self.all_billed else "simulated"),
        )
