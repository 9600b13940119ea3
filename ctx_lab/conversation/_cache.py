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

The rules applied, in order, for a call of model ``m``: a model's cache serves that model only
(``model changed``); a compaction rewrites the history, leaving only the hidden prefix cached
(``history rewritten by compaction``); a prefix idle longer than its lifetime is gone
(``lifetime expired``); a prefix shorter than the rule's minimum is never cached (``prefix below
the minimum``); otherwise everything the previous call of ``m`` cached is read (cut to the
rule's step) and the rest up to the uncached tail written. A read that falls short with none of
these is named: inside the hidden prefix (``hidden prefix changed``), OpenAI's best-effort
routing (``cache routing (best effort)``), else ``unexplained``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from ..models import ModelRegistry, cache_prices, cache_rule, get_registry
from ._cache_report import CacheCall, CacheCost, CacheReport, InferredPart, ReportedCache
from ._cache_sizes import CountedSizes, counted_sizes
from .transcripts import Transcript, images_cost

__all__ = ["simulate_cache"]

Sizes = Literal["usage", "counts"]
_NOTHING_READ = ("model changed", "lifetime expired", "prefix below the minimum")
# OpenAI routes a request to a machine by a hash of its prompt's first tokens (and
# prompt_cache_key) and overflows busy prefixes to other machines: a read is best effort, and a
# request may land where the prefix is not, or is only partly, cached (the guide's "Cache
# routing", https://platform.openai.com/docs/guides/prompt-caching)
ROUTING = "cache routing (best effort)"
DROP = 0.10  # a read this far below what the previous call left cached is a miss to explain


def seconds(stamp: str | None) -> float | None:
    """An ISO 8601 timestamp as seconds since the epoch (None: missing or unreadable)."""
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


@dataclass
class _Cached:
    size: int
    at: float | None
    lifetime: int


def _hidden_prefix(transcript: Transcript, counter: Any) -> int | None:
    """The prefix a file does not hold, from the first call with usage: what it reported as
    input less ctx_lab's count of the messages it sent (None when the file holds the system
    prompt or tools, or no call reports usage)."""
    if transcript.system or transcript.tools:
        return None
    for call in transcript.calls:
        if call.usage is None:
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
) -> CacheReport:
    """The session's caching as the rules predict it (see the module docstring); with
    ``model``, every call as if sent to that model (its rules and prices)."""
    from ..tokens import get_counter

    counting = get_counter(counter or "bytes/4")
    counted = counted_sizes(transcript, counting, model=model) if sizes == "counts" else None
    hidden = counted.hidden_prefix if counted else _hidden_prefix(transcript, counting)
    run = _Run(transcript, counted, counting, get_registry(registry), hidden, model)
    calls = tuple(run.call(call) for call in transcript.calls if sizes == "counts" or call.usage)
    return CacheReport(
        source or transcript.source or "<transcript>",
        sizes,
        calls,
        hidden,
        hidden is not None,
        run.costs(),
        tuple(run.warnings) + tuple(counted.warnings if counted else ()),
        counted.counted_with if counted else None,
        tuple(
            InferredPart(i.call, i.tokens, i.what) for i in (counted.inferred if counted else ())
        ),
    )


class _Run:
    """The simulation's state: each model's cached prefix, and the money so far."""

    def __init__(
        self,
        transcript: Transcript,
        counted: CountedSizes | None,
        counter: Any,
        registry: ModelRegistry,
        hidden: int | None,
        model: str | None = None,
    ) -> None:
        self.transcript, self.counted, self.counter = transcript, counted, counter
        self.model = model
        self.registry, self.hidden = registry, hidden
        self.cached: dict[str, _Cached] = {}
        self.last_model: str | None = None
        self.compactions = set(transcript.compaction_calls())
        self.money = {"actual": 0.0, "no_cache": 0.0, "ideal": 0.0}
        self.priced = True
        self.previous_total: dict[str, int] = {}
        self.warnings: list[str] = []

    def _sizes(self, call: Any) -> tuple[int, int]:
        """``(total input, uncached tail)`` of a call."""
        if self.counted is None and call.usage is not None:
            return call.usage.reported_input, call.usage.input_tokens
        assert self.counted is not None
        return self.counted.totals[call.index], 0

    def _cause(self, call: Any, model: str, now: float | None) -> str | None:
        """Why the cache of ``model`` cannot serve this call, or None."""
        rule = cache_rule(model)
        if model not in self.cached:
            return "model changed" if self.last_model not in (None, model) else None
        before = self.cached[model]
        if call.index in self.compactions:
            return "history rewritten by compaction"
        if now is not None and before.at is not None and now - before.at > before.lifetime:
            return "lifetime expired"
        if rule is not None and before.size < rule.minimum:
            return "prefix below the minimum"
        return None

    def call(self, call: Any) -> CacheCall:
        model = self.model or call.model or "unknown"
        rule = cache_rule(model)
        now = seconds(call.timestamp)
        total, fresh = self._sizes(call)
        cause = self._cause(call, model, now)
        before = self.cached.get(model)
        if before is None and self.last_model is None and call.usage is not None:
            read = call.usage.cache_read_input_tokens  # the cache as the recording found it
        elif before is None or cause in _NOTHING_READ:
            read = 0
        elif cause is not None:  # compaction: only the hidden prefix is still the same
            read = min(self.hidden or 0, before.size)
        else:
            read = before.size
        step = rule.step if rule is not None else 1
        automatic = rule is not None and rule.breakpoints == 0
        if automatic:  # no breakpoints, no writes billed: what is not read is fresh input
            read = min(read - read % step, total)
            fresh, write = total - read, 0
            kept = total - total % step if rule is not None and total >= rule.minimum else 0
        else:
            read = min(read - read % step, max(total - fresh, 0))
            write = max(total - fresh - read, 0)
            kept = read + write
        lifetime = rule.lifetimes[0] if rule is not None else 300
        if rule is not None and call.usage is not None and call.usage.cache_write_1h:
            lifetime = max(rule.lifetimes)  # written for an hour (Anthropic's 1h TTL)
        self.cached[model] = _Cached(kept, now, lifetime)
        self.last_model = model
        reported = None
        if call.usage is not None:
            usage = call.usage
            reported = ReportedCache(
                usage.input_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens
            )
            read_now = usage.cache_read_input_tokens
            dropped = before is not None and read_now < (1 - DROP) * before.size
            if cause is None and dropped:
                # read stopped inside the prefix the file does not hold: that is what changed
                inside = self.hidden is not None and read_now <= self.hidden
                routed = rule is not None and rule.provider == "openai"
                cause = (
                    "hidden prefix changed"
                    if inside
                    else ROUTING
                    if routed  # OpenAI routes by a hash of the prefix: a hit is best effort
                    else "unexplained"
                )
        cost = self._price(model, rule, fresh, read, write, total, call.usage)
        return CacheCall(
            call.index + 1, self.model or call.model, call.timestamp, fresh, read, write, reported,
            cause, cost,
        )  # fmt: skip

    def _price(
        self, model: str, rule: Any, fresh: int, read: int, write: int, total: int, usage: Any
    ) -> float | None:
        """The predicted split's price; the session's money as recorded (the reported split
        where there is one), with no cache, and with every stable prefix read."""
        prices = self.registry.get(model).prices if model != "unknown" else None
        known = cache_prices(model, prices)
        if rule is None or None in (known.input, known.read, known.write):
            self.priced = False  # the model's input or cached-input price is not known here
            return None
        cost = known.cost(fresh, read, write) or 0.0
        if usage is not None:  # an hour's writes at the 1-hour rate (2× input for Claude)
            self.money["actual"] += (
                known.cost(
                    usage.input_tokens,
                    usage.cache_read_input_tokens,
                    usage.cache_creation_input_tokens,
                    usage.cache_write_1h,
                )
                or 0.0
            )
        else:
            self.money["actual"] += cost
        previous = self.previous_total.get(model, 0)
        ideal_read = max(min(previous, max(total - fresh, 0)), read)  # never less than cached
        self.previous_total[model] = total
        self.money["no_cache"] += known.cost(total) or 0.0
        self.money["ideal"] += (
            known.cost(fresh, ideal_read, max(total - fresh - ideal_read, 0)) or 0.0
        )
        return round(cost, 6)

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
        )
