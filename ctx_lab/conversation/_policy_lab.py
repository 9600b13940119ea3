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
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from ..models import ModelRegistry, cache_prices, cache_rule, get_registry
from ._cache_sizes import HIDDEN, REATTACHED, THINKING, counted_sizes, message_counts
from ._messages import Message
from ._policy_report import (
    CostSplit,
    PoliciesReport,
    PolicyCall,
    PolicyResult,
    ProbeOutcome,
    Refetch,
)
from ._policy_specs import POLICIES, PolicySpec
from ._probes import Probe, mine_probes
from .transcripts import Transcript

__all__ = ["ContextPolicy", "run_policies"]

# Claude Code runs a model in a 200,000-token window unless a [1m] model is chosen (its default
# window constant; CLAUDE_CODE_AUTO_COMPACT_WINDOW changes it): the window a recording ran in
CLAUDE_CODE_WINDOW = 200_000
FALLBACK_SUMMARY = 2_000  # tokens of a summary when neither the policy nor the session says
PLACEHOLDER = "[tool result cleared to save context]"
MASK = "[old tool output omitted]"
OPEN_LOOP = "open-loop: the agent's actions are the recorded ones"


@runtime_checkable
class ContextPolicy(Protocol):
    """A user's own policy: given the open-loop history at a call (message positions, oldest
    first), the positions to send — optionally with the tokens of a summary sent before them."""

    name: str

    def select(
        self, call: int, history: Sequence[int]
    ) -> Sequence[int] | tuple[Sequence[int], int]:
        """What call ``call`` (0-based) sends."""


@dataclass
class _Session:
    """What every policy reads: per message its provider tokens (calibrated counts, thinking
    inferred from usage added to the answer it belongs to), the hidden prefix per model, and
    what a recorded compaction sent beyond its summary."""

    transcript: Transcript
    model: str | None
    tokens: list[int]
    thinking: list[int]
    hidden: dict[str, int]
    reattached: dict[int, int]  # segment start → tokens
    recorded_summary: int | None
    window: int
    counter: Any
    skip: set[int] = field(default_factory=set)
    counted_with: str = ""
    main: str = "unknown"
    totals: dict[int, int] = field(default_factory=dict)

    def hidden_for(self, model: str) -> int:
        return self.hidden.get(model, next(iter(self.hidden.values()), 0))


def _session(transcript: Transcript, counter: Any, model: str | None, registry: Any) -> _Session:
    sizes = counted_sizes(transcript, counter, model=model)
    main = model or _main_model(transcript)
    ratio = sizes.ratios.get(main, next(iter(sizes.ratios.values()), 1.0))
    _, counts = message_counts(transcript, counter, main)
    tokens = [round(ratio * c) for c in counts]
    thinking = [0] * len(tokens)
    hidden: dict[str, int] = {}
    reattached: dict[int, int] = {}
    calls = transcript.calls
    for part in sizes.inferred:
        call = calls[part.call - 1]
        if part.what == HIDDEN:
            hidden.setdefault(model or call.model or "unknown", part.tokens)
        elif part.what == REATTACHED:
            reattached[transcript.sent_range(call)[0]] = part.tokens
        elif part.what == THINKING and part.call >= 2:
            before = calls[part.call - 2]  # the answer whose thinking this call was sent
            if before.sent_end < len(tokens):
                thinking[before.sent_end] += part.tokens
                tokens[before.sent_end] += part.tokens
    recorded = None
    if transcript.recorded_summaries:
        first = transcript.recorded_summaries[0]
        recorded = tokens[first] + reattached.get(first, 0)
    window = get_registry(registry).get(main).limits.context_window
    if transcript.format == "claude-code":  # the window the recording ran in: Claude Code's
        window = min(window, CLAUDE_CODE_WINDOW)
    return _Session(transcript, model, tokens, thinking, hidden, reattached, recorded, window,
                    counter, set(transcript.recorded_summaries), sizes.counted_with, main,
                    sizes.totals)  # fmt: skip


def _main_model(transcript: Transcript) -> str:
    models = [c.model for c in transcript.calls if c.model]
    return max(set(models), key=models.count) if models else "unknown"


@dataclass
class _Sent:
    """One call as a policy sends it: its input, how much of it is the previous call's prefix
    unchanged, and what happened."""

    total: int
    stable: int
    compacted: bool = False
    removed: int = 0


class _Context:
    """A policy's context: blocks ``(key, tokens, message)``, appended to and edited, with the
    first position changed since the last call."""

    def __init__(self) -> None:
        self.keys: list[Any] = []
        self.tokens: list[int] = []
        self.messages: list[int | None] = []
        self.changed: int | None = None
        self.previous_total = 0
        self.total = 0

    def append(self, key: Any, tokens: int, message: int | None) -> None:
        self.keys.append(key)
        self.tokens.append(tokens)
        self.messages.append(message)
        self.total += tokens

    def replace(self, at: int, key: Any, tokens: int) -> None:
        self.total += tokens - self.tokens[at]
        self.keys[at], self.tokens[at] = key, tokens
        self.mark(at)

    def cut(self, start: int, end: int, key: Any = None, tokens: int = 0) -> None:
        """Remove ``[start, end)``, with a block in its place when ``key`` is given."""
        middle = [(key, tokens, None)] if key is not None else []
        self.total += sum(m[1] for m in middle) - sum(self.tokens[start:end])
        self.keys[start:end] = [m[0] for m in middle]
        self.tokens[start:end] = [m[1] for m in middle]
        self.messages[start:end] = [m[2] for m in middle]
        self.mark(start)

    def mark(self, at: int) -> None:
        self.changed = at if self.changed is None else min(self.changed, at)

    def sent(self, compacted: bool = False, removed: int = 0) -> _Sent:
        total = self.total
        stable = self.previous_total if self.changed is None else sum(self.tokens[: self.changed])
        self.changed, self.previous_total = None, total
        return _Sent(total, min(stable, total), compacted, removed)


class _Policy:
    """A built-in policy over the session (see :data:`POLICIES` for what each kind does)."""

    def __init__(self, spec: PolicySpec, session: _Session) -> None:
        self.spec, self.session, self.params = spec, session, dict(spec.params)
        self.ctx = _Context()
        self.pushed = 0  # messages of the open-loop history pushed so far
        self.gone: dict[int, tuple[int, int | None]] = {}  # message → (call, summary)
        self.summaries: list[str] = []
        self.compactions: list[int] = []
        self.cleared_thinking: set[int] = set()
        counter = session.counter
        self.placeholder = counter.count(PLACEHOLDER) + 4
        self.mask_tokens = counter.count(MASK) + 4
        self.results: list[int] = []  # context positions of tool results, oldest first
        self.done = 0  # tool results (clear-tool-uses, masking) already handled
        self.thoughtful: list[int] = []  # context positions of answers with thinking
        self.names: dict[str, str] | None = None  # tool call id → tool name
        self.last_total = 0

    # the open-loop history: every recorded message up to the call, recorded summaries left out
    def _push(self, end: int) -> None:
        session = self.session
        while self.pushed < end:
            at = self.pushed
            self.pushed += 1
            if at in session.skip:
                continue
            if session.transcript.messages[at].role == "tool_result":
                self.results.append(len(self.ctx.keys))
            if session.thinking[at]:
                self.thoughtful.append(len(self.ctx.keys))
            self.ctx.append(("m", at), session.tokens[at], at)

    def _drop(self, positions: Sequence[int], call: int, summary: int | None = None) -> None:
        for position in positions:
            message = self.ctx.messages[position]
            if message is not None and message not in self.gone:
                self.gone[message] = (call, summary)

    def advance(self, index: int, call: Any) -> _Sent:
        kind = self.spec.kind
        if kind == "recorded":
            return self._recorded(index, call)
        self._push(call.sent_end)
        if kind == "compact" or kind == "ctx-lab":
            return self._compact(index, call)
        if kind == "clear-tool-uses":
            return self._clear_tools(index)
        if kind == "clear-thinking":
            return self._clear_thinking(index)
        if kind == "mask":
            return self._mask(index)
        if kind == "sliding-window":
            return self._slide(index)
        return self._finish(self._with_hidden(self.ctx.sent(), index))

    def _finish(self, sent: _Sent) -> _Sent:
        self.last_total = sent.total
        return sent

    def _hidden(self, call: Any) -> int:
        return self.session.hidden_for(self.session.model or call.model or "unknown")

    def _recorded(self, index: int, call: Any) -> _Sent:
        session, ctx = self.session, self.ctx
        begin, end = session.transcript.sent_range(call)
        first = not ctx.keys or ctx.keys[0] != ("segment", begin)
        if first:  # a new segment: the recorded compaction's summary and re-attachments
            if ctx.keys:
                self._drop(range(len(ctx.keys)), index, len(self.summaries))
                self.summaries.append(session.transcript.messages[begin].counted_as()[1])
                self.compactions.append(index)
            ctx.cut(0, len(ctx.keys))
            ctx.append(("segment", begin), session.reattached.get(begin, 0), None)
            self.pushed = begin
        while self.pushed < end:
            at = self.pushed
            self.pushed += 1
            ctx.append(("m", at), session.tokens[at], at)
        sent = ctx.sent(compacted=first and index > 0)
        # the recording's own sizes: each call counted with its model's calibration, what it was
        # sent beyond the file inferred from its usage (as ctx-lab cache --sizes counts)
        total = session.totals.get(index, sent.total)
        stable = self.last_total if not first else session.hidden_for(call.model or "unknown")
        return self._finish(_Sent(total, min(stable, total), sent.compacted))

    # compaction: the whole history before the newest messages summarized
    def _threshold(self) -> int:
        params, window = self.params, self.session.window
        if "reserve" in params:
            return window - params["reserve"]
        if "share" in params:
            return round(params["share"] * (window - params["output_reserve"]))
        if "threshold" in params:
            return params["threshold"]
        from ._manager import ContextManager

        session = self.session
        manager = ContextManager(session.main, counter=session.counter)
        reserve = manager.limits.limits.context_window - manager.effective_budget()
        return max(min(manager.effective_budget(), session.window - reserve), 1)

    def _summary_tokens(self) -> int:
        given = self.params.get("summary") or 0
        return given or self.session.recorded_summary or FALLBACK_SUMMARY

    def _compact(self, index: int, call: Any) -> _Sent:
        ctx = self.ctx
        threshold = self._threshold()
        keep = self.params.get("preserve_recent")
        if keep is not None:  # ctx-lab: before the call, once what it would send is too large
            due = ctx.total + self._hidden(call) > threshold
            cut = max(len(ctx.keys) - keep, 0)
        else:  # agents: after the response that passed the threshold
            due = self.last_total > threshold
            cut = self._answer_end(index) if due else 0
        start = 1 if ctx.keys and ctx.keys[0][0] == "summary" else 0
        removed = 0
        if due and cut > start:
            removed = sum(ctx.tokens[:cut])
            summary = self._summary_tokens()
            self._drop(range(start, cut), index, len(self.summaries))
            self.summaries.append(self._summary_text(start, cut, summary))
            ctx.cut(0, cut, ("summary", len(self.summaries)), summary)
            self.results = [p - cut + 1 for p in self.results if p >= cut]
            self.compactions.append(index)
            removed -= summary
        sent = ctx.sent(compacted=due and removed > 0, removed=max(removed, 0))
        sent.total += self._hidden(call)
        sent.stable += self._hidden(call)
        return self._finish(sent)

    def _answer_end(self, index: int) -> int:
        """Context positions up to the previous call's answer (what a compaction after that
        response summarizes)."""
        if index == 0:
            return 0
        before = self.session.transcript.calls[index - 1].context
        return sum(1 for m in self.ctx.messages if m is not None and m < before) + (
            1 if self.ctx.keys and self.ctx.keys[0][0] == "summary" else 0
        )

    def _summary_text(self, start: int, end: int, tokens: int) -> str:
        from ._summarizers import ExtractiveSummarizer

        messages = self.session.transcript.messages
        chosen = [messages[m] for m in self.ctx.messages[start:end] if m is not None]
        return ExtractiveSummarizer(self.session.counter).summarize(chosen[-400:], tokens)

    def _clear_tools(self, index: int) -> _Sent:
        params, ctx, session = self.params, self.ctx, self.session
        messages = session.transcript.messages
        total = ctx.total + self._hidden(session.transcript.calls[index])
        removed = 0
        upto = len(self.results) - params["keep"]
        if total > params["trigger"] and upto > self.done:
            if self.names is None:
                self.names = _tool_names(messages)
            names = self.names
            excluded = params["exclude_tools"]
            chosen = [
                p for p in self.results[self.done : upto]
                if names.get(messages[ctx.messages[p] or 0].call_id or "") not in excluded
            ]  # fmt: skip
            freed = sum(ctx.tokens[p] - self.placeholder for p in chosen)
            if freed >= params["clear_at_least"]:
                self._drop(chosen, index)
                for p in chosen:
                    ctx.replace(p, ("cleared", ctx.messages[p]), self.placeholder)
                    if params["clear_inputs"] and p > 0 and ctx.keys[p - 1][0] == "m":
                        used = ctx.messages[p - 1]
                        if used is not None and messages[used].role == "tool_use":
                            ctx.replace(p - 1, ("cleared", used), self.placeholder)
                removed = freed
                self.done = upto
        sent = ctx.sent(removed=max(removed, 0))
        return self._finish(self._with_hidden(sent, index))

    def _with_hidden(self, sent: _Sent, index: int) -> _Sent:
        hidden = self._hidden(self.session.transcript.calls[index])
        sent.total += hidden
        sent.stable += hidden
        return sent

    def _clear_thinking(self, index: int) -> _Sent:
        ctx, thinking = self.ctx, self.session.thinking
        upto = len(self.thoughtful) - self.params["keep"]
        removed = 0
        for p in self.thoughtful[self.done : max(upto, self.done)]:
            message = ctx.messages[p]
            assert message is not None
            ctx.replace(p, ("nothink", message), ctx.tokens[p] - thinking[message])
            removed += thinking[message]
        self.done = max(upto, self.done)
        return self._finish(self._with_hidden(ctx.sent(removed=removed), index))

    def _mask(self, index: int) -> _Sent:
        ctx, keep = self.ctx, self.params["keep"]
        removed = 0
        upto = len(self.results) - keep
        for p in self.results[self.done : max(upto, self.done)]:
            removed += ctx.tokens[p] - self.mask_tokens
            self._drop([p], index)
            ctx.replace(p, ("masked", ctx.messages[p]), self.mask_tokens)
        self.done = max(upto, self.done)
        return self._finish(self._with_hidden(ctx.sent(removed=max(removed, 0)), index))

    def _slide(self, index: int) -> _Sent:
        ctx = self.ctx
        hidden = self._hidden(self.session.transcript.calls[index])
        total = ctx.total + hidden
        cut = 0
        removed = 0
        while total > self.session.window and cut < len(ctx.keys) - 1:
            total -= ctx.tokens[cut]
            removed += ctx.tokens[cut]
            cut += 1
        if cut:
            self._drop(range(cut), index)
            ctx.cut(0, cut)
            self.results = [p - cut for p in self.results if p >= cut]
        return self._finish(self._with_hidden(ctx.sent(removed=removed), index))


def _tool_names(messages: Sequence[Message]) -> dict[str, str]:
    return {m.call_id: m.name or "" for m in messages if m.role == "tool_use" and m.call_id}


class _Custom(_Policy):
    """A user's :class:`ContextPolicy`: its selection each call, the stable prefix found by
    comparing it with the previous one."""

    def __init__(self, policy: ContextPolicy, session: _Session) -> None:
        super().__init__(PolicySpec(policy.name, "custom", "a user's own policy"), session)
        self.policy = policy
        self.previous: list[Any] = []
        self.history: list[int] = []

    def advance(self, index: int, call: Any) -> _Sent:
        session = self.session
        while self.pushed < call.sent_end:
            if self.pushed not in session.skip:
                self.history.append(self.pushed)
            self.pushed += 1
        chosen = self.policy.select(index, list(self.history))
        summary = 0
        if isinstance(chosen, tuple):
            chosen, summary = chosen
        keys: list[Any] = ([("summary", summary)] if summary else []) + [("m", m) for m in chosen]
        sizes = ([summary] if summary else []) + [session.tokens[m] for m in chosen]
        stable = 0
        for key, old, size in zip(keys, self.previous, sizes, strict=False):
            if key != old:
                break
            stable += size
        kept = set(chosen)
        for m in self.history:
            if m not in kept and m not in self.gone:
                self.gone[m] = (index, None)  # what a user's summary holds is not known
        self.previous = keys
        hidden = self._hidden(call)
        total = sum(sizes) + hidden
        removed = sum(session.tokens[m] for m in self.history) - sum(sizes)
        return self._finish(_Sent(total, stable + hidden, False, max(removed, 0)))


class _Pricer:
    """The caching rules applied to what a policy sends: per model the prefix still cached,
    its lifetime, the minimum and the step; priced with the one pricing of the cache."""

    def __init__(self, registry: ModelRegistry, hour: bool) -> None:
        self.registry, self.hour = registry, hour
        self.cached: dict[str, tuple[int, float | None, int]] = {}  # model → (size, at, life)
        self.last: str | None = None
        self.priced = True
        self.split = [0.0, 0.0, 0.0]  # USD read, write, fresh

    def price(
        self, model: str, stamp: str | None, sent: _Sent
    ) -> tuple[int, int, int, float | None]:
        """``(read, write, fresh, cost)`` of one call."""
        rule = cache_rule(model)
        now = _seconds(stamp)
        before = self.cached.get(model)
        read = 0
        if before is not None and rule is not None and self.last == model:
            size, at, life = before
            alive = now is None or at is None or now - at <= life
            if alive and size >= rule.minimum:
                read = min(sent.stable, size)
        step = rule.step if rule is not None else 1
        read -= read % step
        total = sent.total
        if rule is None or rule.breakpoints == 0:
            write, fresh = 0, total - read
            kept = total - total % step if rule is not None and total >= rule.minimum else 0
        else:
            write, fresh = total - read, 0
            kept = total
        life = (max(rule.lifetimes) if self.hour else rule.lifetimes[0]) if rule else 300
        self.cached[model] = (kept, now, life)
        self.last = model
        prices = self.registry.get(model).prices if model != "unknown" else None
        known = cache_prices(model, prices)
        hour = write if self.hour and write else 0
        cost = known.cost(fresh, read, write, hour)
        if cost is None:
            self.priced = False
        else:
            self.split[0] += known.cost(0, read) or 0.0
            self.split[1] += known.cost(0, 0, write, hour) or 0.0
            self.split[2] += known.cost(fresh) or 0.0
        return read, write, fresh, cost


def _seconds(stamp: str | None) -> float | None:
    if not stamp:
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def run_policies(
    transcript: Transcript,
    policies: Sequence[str | PolicySpec | ContextPolicy] = (),
    *,
    model: str | None = None,
    counter: Any = None,
    registry: str | ModelRegistry | None = None,
    source: str | None = None,
) -> PoliciesReport:
    """Each policy (default: every built-in one) over ``transcript``, open-loop, counted with
    the session's calibration and priced with the cache model (see the module docstring)."""
    from ..tokens import get_counter
    from ._policy_specs import parse_policy

    counting = get_counter(counter or "bytes/4")
    chosen_registry = get_registry(registry)
    session = _session(transcript, counting, model, chosen_registry)
    probes = mine_probes(transcript.messages)
    uses = _tool_uses(transcript.messages, probes)
    hour = any(c.usage is not None and c.usage.cache_write_1h for c in transcript.calls)
    results = []
    specs = list(policies) or list(POLICIES.values())
    for given in specs:
        if isinstance(given, str):
            given = parse_policy(given)
        policy = (
            _Policy(given, session) if isinstance(given, PolicySpec) else _Custom(given, session)
        )
        results.append(_run_one(policy, session, chosen_registry, hour, probes, uses))
    warnings = []
    if any(r.cost is None for r in results):
        warnings.append(
            "a model's input or cached-input price is unknown here (try --registry "
            "models-dev): no costs"
        )
    return PoliciesReport(
        source or transcript.source or "<transcript>",
        model or _main_model(transcript),
        session.window,
        session.counted_with,
        tuple(results),
        len(probes),
        OPEN_LOOP,
        tuple(warnings),
    )


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
    policy: _Policy,
    session: _Session,
    registry: ModelRegistry,
    hour: bool,
    probes: Sequence[Probe],
    uses: dict[str, list[int]],
) -> PolicyResult:
    pricer = _Pricer(registry, hour)
    calls = []
    transcript = session.transcript
    for index, call in enumerate(transcript.calls):
        sent = policy.advance(index, call)
        chosen_model = session.model or call.model or "unknown"
        read, write, fresh, cost = pricer.price(chosen_model, call.timestamp, sent)
        calls.append(
            PolicyCall(
                index + 1,
                sent.total,
                read,
                write,
                fresh,
                sent.compacted,
                sent.removed,
                sent.total > session.window,
                cost,
            )
        )
    inputs = [c.input for c in calls] or [0]
    read_sum = sum(c.cache_read for c in calls)
    cost = round(sum(c.cost_usd or 0.0 for c in calls), 4) if pricer.priced and calls else None
    outcome, refetched = _probe_outcome(policy, transcript, probes, uses, session)
    spec = policy.spec
    return PolicyResult(
        spec.name,
        {k: (list(v) if isinstance(v, tuple) else v) for k, v in spec.params.items()},
        tuple(calls),
        max(inputs),
        round(sum(inputs) / len(inputs)),
        tuple(c + 1 for c in policy.compactions),
        cost,
        round(read_sum / max(sum(inputs), 1), 4),
        outcome,
        tuple(refetched),
        sum(1 for c in calls if c.over_window),
        CostSplit(*(round(v, 4) for v in pricer.split)) if cost is not None else None,
    )


def _probe_outcome(
    policy: _Policy,
    transcript: Transcript,
    probes: Sequence[Probe],
    uses: dict[str, list[int]],
    session: _Session,
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
