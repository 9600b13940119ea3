"""The built-in policies' rules (compaction, tool-result and thinking clearing, observation
masking, a sliding window, the recording itself) and the protocol of a user's own, each over a
:class:`~ctx_lab.recordings.policies._policy_session.Context` it appends to and edits."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast, runtime_checkable

from ...choices import PolicyKind
from ...conversation import Message
from ._policy_session import Context, PolicySession, Sent
from ._policy_specs import PolicySpec, claude_code_reserve

__all__ = ["KINDS", "BuiltinPolicy", "ContextPolicy", "CustomPolicy", "Kind"]

FALLBACK_SUMMARY = 2_000  # tokens of a summary when neither the policy nor the session says
PLACEHOLDER = "[tool result cleared to save context]"
MASK = "[old tool output omitted]"


@runtime_checkable
class ContextPolicy(Protocol):
    """A user's own policy: given the open-loop history at a call (message positions, oldest
    first), the positions to send — optionally with the tokens of a summary sent before them."""

    name: str

    def select(
        self, call: int, history: Sequence[int]
    ) -> Sequence[int] | tuple[Sequence[int], int]:
        """What call ``call`` (0-based) sends."""


class Summaries:
    """A policy's summaries: a recorded one's text, or what a simulated one is written from —
    written (ctx_lab's extractive summary) when first read, since only a lost probe's check
    reads one."""

    def __init__(self, session: PolicySession) -> None:
        self.session = session
        self.items: list[str | tuple[tuple[int, ...], int]] = []

    def __len__(self) -> int:
        return len(self.items)

    def append(self, item: str | tuple[tuple[int, ...], int]) -> None:
        self.items.append(item)

    def __getitem__(self, index: int) -> str:
        item = self.items[index]
        if isinstance(item, str):
            return item
        from ...conversation import ExtractiveSummarizer

        positions, tokens = item
        messages = self.session.transcript.messages
        text = ExtractiveSummarizer(self.session.counter).summarize(
            [messages[m] for m in positions], tokens
        )
        self.items[index] = text
        return text


class BuiltinPolicy:
    """A built-in policy over the session (see :data:`POLICIES` for what each kind does)."""

    def __init__(self, spec: PolicySpec, session: PolicySession) -> None:
        self.spec, self.session, self.params = spec, session, dict(spec.params)
        self.ctx = Context()
        self.pushed = 0  # messages of the open-loop history pushed so far
        self.gone: dict[int, tuple[int, int | None]] = {}  # message → (call, summary)
        self.summaries = Summaries(session)
        self.compactions: list[int] = []
        self.cleared_thinking: set[int] = set()
        counter = session.counter
        self.placeholder = counter.count(PLACEHOLDER) + 4
        self.mask_tokens = counter.count(MASK) + 4
        self.results: list[int] = []  # context positions of tool results, oldest first
        self.done = 0  # tool results (clear-tool-uses, masking) already handled
        self.thoughtful: list[int] = []  # context positions of answers with thinking
        self.names: dict[str, str] | None = None  # tool call id → tool name
        self._limit: int | None = None
        self.last_total = 0  # the previous call's size (anchored to its usage)
        self.last_counted = 0  # … and as counted
        self.index = 0  # the call being made
        self.boundary = 0  # masking: the counted tokens up to the last masked result

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

    def advance(self, index: int, call: Any) -> Sent:
        """What the policy sends at call ``index``: its kind's rule (:data:`KINDS`)."""
        kind = KINDS[cast(PolicyKind, self.spec.kind)]  # a custom one steps itself
        self.index = index
        if kind.pushes:
            self._push(call.sent_end)
        return kind.step(self, index, call)

    def _whole(self, index: int, call: Any) -> Sent:
        """Everything recorded up to the call (the ``none`` policy)."""
        return self._finish(self._with_hidden(self.ctx.sent(), index))

    def _anchor(self) -> int:
        """What the recording's usage adds to the counted size of this call: its reported
        input less the count of what it sent (0 where it reports none)."""
        return self.session.offsets.get(self.index, 0)

    def _finish(self, sent: Sent, anchored: bool = False) -> Sent:
        offset = 0 if anchored else self._anchor()
        counted = sent.total
        if offset:  # the reported size − what the policy removed + what it added
            sent.total = max(counted + offset, 0)
            # the prefix still the same: the previous call's size less what changed after it
            # (counted), so that an unchanged history reads the previous entry whole
            sent.stable = min(max(self.last_total - (self.last_counted - sent.stable), 0),
                              sent.total)  # fmt: skip
        self.last_counted = counted
        self.last_total = sent.total
        if not sent.blocks:
            sent.blocks = len(self.ctx.keys) + 2
        return sent

    def _hidden(self, call: Any) -> int:
        return self.session.hidden_for(self.session.model or call.model or "unknown")

    def _recorded(self, index: int, call: Any) -> Sent:
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
        if index in session.offsets:  # the reported
            total = sent.total + self._hidden(call) + session.offsets[index]
        else:  # counted as ctx-lab cache --sizes counts does
            total = session.totals.get(index, sent.total)
        stable = self.last_total if not first else session.hidden_for(call.model or "unknown")
        return self._finish(Sent(total, min(stable, total), sent.compacted), anchored=True)

    # compaction: the whole history before the newest messages summarized
    def threshold(self) -> int | None:
        """The input at which the policy acts (None: a rule of every call, or none)."""
        return KINDS[cast(PolicyKind, self.spec.kind)].threshold(self)

    def _computed_threshold(self) -> int:
        if self._limit is None:
            self._limit = self._threshold()
        return self._limit

    def _threshold(self) -> int:
        params, window = self.params, self.session.window
        if "reserve" in params:
            reserve = params["reserve"]
            if reserve is None:  # Claude Code's own, by the version that recorded the session
                reserve = claude_code_reserve(self.session.transcript.agent_version)
            if params.get("pct"):  # a percentage of the window, never above the default
                return min(window - reserve, params["pct"] * window // 100)
            return window - reserve
        if params.get("limit"):  # Codex's model_auto_compact_token_limit
            return int(params["limit"])
        if "share" in params:
            if self.session.transcript.agent_window:  # Codex said its window: share of it
                return round(params["share"] * window)
            return round(params["share"] * (window - params["output_reserve"]))
        if "threshold" in params:
            return params["threshold"]
        from ...conversation import ContextManager

        session = self.session
        manager = ContextManager(session.main, counter=session.counter)
        reserve = manager.limits.limits.context_window - manager.effective_budget()
        return max(min(manager.effective_budget(), session.window - reserve), 1)

    def _summary_tokens(self) -> int:
        given = self.params.get("summary") or 0
        return given or self.session.recorded_summary or FALLBACK_SUMMARY

    def _compact(self, index: int, call: Any) -> Sent:
        ctx = self.ctx
        threshold = self.threshold() or 0
        keep = self.params.get("preserve_recent")
        if keep is not None:  # ctx-lab: before the call, once what it would send is too large
            due = ctx.total + self._hidden(call) + self._anchor() > threshold
            cut = max(len(ctx.keys) - keep, 0)
        else:  # agents: before the call once the previous response's reported size and what
            # was counted since pass the threshold (Claude Code's compact_boundary preTokens are
            # that sum: 4d5611e5 of marot/spotter reports 164,831 + 1 output, then compacts at
            # preTokens 170,251 once a 5,400-token tool result came back)
            since = max(ctx.total + self._hidden(call) - self.last_counted, 0)
            due = self.index > 0 and self.last_total + since > threshold
            cut = self._answer_end(index) if due else 0
        start = 1 if ctx.keys and ctx.keys[0][0] == "summary" else 0
        removed = 0
        if due and cut > start:
            removed = sum(ctx.tokens[:cut])
            summary = self._summary_tokens()
            self._drop(range(start, cut), index, len(self.summaries))
            self.summaries.append(self._summarized(start, cut, summary))
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

    def _summarized(self, start: int, end: int, tokens: int) -> tuple[tuple[int, ...], int]:
        """What a summary of context positions ``[start, end)`` is written from: the last 400
        messages there (a summary before them is not summarized again), and its size."""
        chosen = [m for m in self.ctx.messages[start:end] if m is not None]
        return tuple(chosen[-400:]), tokens

    def _clear_tools(self, index: int) -> Sent:
        params, ctx, session = self.params, self.ctx, self.session
        messages = session.transcript.messages
        total = ctx.total + self._hidden(session.transcript.calls[index]) + self._anchor()
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

    def _with_hidden(self, sent: Sent, index: int) -> Sent:
        hidden = self._hidden(self.session.transcript.calls[index])
        sent.total += hidden
        sent.stable += hidden
        return sent

    def _clear_thinking(self, index: int) -> Sent:
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

    def _mask(self, index: int) -> Sent:
        """All but the last ``keep`` tool results masked, the boundary moved once ``batch``
        results are due (1: every call, the rolling mask); with ``breakpoint``, a cache
        breakpoint at the boundary, so the prefix before it stays readable when it moves."""
        ctx, keep = self.ctx, self.params["keep"]
        removed = 0
        upto = len(self.results) - keep
        if upto - self.done >= self.params.get("batch", 1):
            for p in self.results[self.done : upto]:
                removed += ctx.tokens[p] - self.mask_tokens
                self._drop([p], index)
                ctx.replace(p, ("masked", ctx.messages[p]), self.mask_tokens)
            self.done = upto
            self.boundary = sum(ctx.tokens[: self.results[upto - 1] + 1])
        sent = self._with_hidden(ctx.sent(removed=max(removed, 0)), index)
        counted = sent.total
        sent = self._finish(sent)
        if self.params.get("breakpoint") and self.boundary:
            at = self.boundary + self._hidden(self.session.transcript.calls[index])
            at += sent.total - counted  # the recording's usage, as the call's size has it
            if 0 < at < sent.total:
                sent.anchors = (at,)
        return sent

    def _slide(self, index: int) -> Sent:
        ctx = self.ctx
        hidden = self._hidden(self.session.transcript.calls[index])
        total = ctx.total + hidden + self._anchor()
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


@dataclass(frozen=True)
class Kind:
    """One rule a policy can apply — a row of :data:`KINDS`: how it steps a call, the input at
    which it acts, and whether the open-loop history is brought up to the call first."""

    step: Callable[[BuiltinPolicy, int, Any], Sent]
    threshold: Callable[[BuiltinPolicy], int | None] = lambda policy: None
    pushes: bool = True


# every rule a policy applies, one row each (the kinds are ctx_lab.choices.PolicyKind)
KINDS: dict[PolicyKind, Kind] = {
    "recorded": Kind(BuiltinPolicy._recorded, pushes=False),
    "none": Kind(BuiltinPolicy._whole),
    "compact": Kind(BuiltinPolicy._compact, BuiltinPolicy._computed_threshold),
    "ctx-lab": Kind(BuiltinPolicy._compact, BuiltinPolicy._computed_threshold),
    "clear-tool-uses": Kind(
        lambda policy, index, call: policy._clear_tools(index),
        lambda policy: int(policy.params["trigger"]),
    ),
    "clear-thinking": Kind(lambda policy, index, call: policy._clear_thinking(index)),
    "mask": Kind(lambda policy, index, call: policy._mask(index)),
    "sliding-window": Kind(
        lambda policy, index, call: policy._slide(index), lambda policy: policy.session.window
    ),
}


def _tool_names(messages: Sequence[Message]) -> dict[str, str]:
    return {m.call_id: m.name or "" for m in messages if m.role == "tool_use" and m.call_id}


class CustomPolicy(BuiltinPolicy):
    """A user's :class:`ContextPolicy`: its selection each call, the stable prefix found by
    comparing it with the previous one."""

    def __init__(self, policy: ContextPolicy, session: PolicySession) -> None:
        super().__init__(PolicySpec(policy.name, "custom", "a user's own policy"), session)
        self.policy = policy
        self.previous: list[Any] = []
        self.history: list[int] = []

    def threshold(self) -> int | None:
        """A user's policy says no threshold: it selects every call."""
        return None

    def advance(self, index: int, call: Any) -> Sent:
        session = self.session
        self.index = index
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
        return self._finish(Sent(total, stable + hidden, False, max(removed, 0), len(keys) + 2))
