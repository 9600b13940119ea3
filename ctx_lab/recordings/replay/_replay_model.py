"""One model's replay of a recorded session, call by call (see :mod:`._replay`): push what each
call was sent, select the working context (reusing the last selection while only appends
happened that cannot change it), summarize when the model's budget asks for it, price the
call, and write its row."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

from ...conversation import ContextManager, ExtractiveSummarizer, Summarizer, step_clock
from ...errors import CtxLabError
from ...models import ModelRegistry, cache_prices
from ...validate import whole_number
from ..transcripts import Transcript, images_cost
from ._replay_report import _sum, _usd
from ._rows import RowTable

__all__ = ["RECORDED", "ReplaySettings", "replay_model"]


@dataclass(frozen=True)
class ReplaySettings:
    """How a recorded session is replayed — declared once, built once by each caller (the
    CLI's flags, a corpus task, a notebook): the ``preserve_recent`` newest messages always
    kept, the summary's ``target_ratio`` of what it replaces, the ``output_limit`` reserved
    (default: the model's), whether cache reads are priced (``caching``), and the
    ``summarizer`` (default: extractive)."""

    preserve_recent: int = 4
    target_ratio: float = 0.15
    output_limit: int | None = None
    caching: bool = True
    summarizer: Summarizer | None = None

    def __post_init__(self) -> None:
        whole_number(self.preserve_recent, "preserve_recent")
        if self.output_limit is not None:
            whole_number(self.output_limit, "output_limit")


def replay_model(
    transcript: Transcript,
    model: str,
    registry: ModelRegistry,
    counter: Any,
    settings: ReplaySettings,
    into: RowTable,
) -> None:
    """The rows of ``transcript`` replayed on ``model``, added to ``into``."""
    manager = ContextManager(
        model,
        registry,
        counter=counter,
        preserve_recent=settings.preserve_recent,
        target_ratio=settings.target_ratio,
        clock=step_clock(),
    )
    manager.set_system_prompt(transcript.system or None)
    manager.set_tools(list(transcript.tools) or None)
    manager.set_output_limit(settings.output_limit)
    run = _ModelReplay(transcript, model, manager, settings.summarizer, settings.caching)
    for call in transcript.calls:
        into.append(run.call(call))  # kept as columns: the row's dict is not


_DATED = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")  # a snapshot's date after its alias
RECORDED = "the recorded compaction"  # the author of a summary the agent itself wrote


def _install_recorded_summary(manager: ContextManager, message: Any) -> bool:
    """Make the summary an agent wrote when it compacted (a message of the recording) the
    summary of every message before it, as the agent's next request had it; False when there
    is nothing before it or the summary is empty."""
    from ...conversation import SummarizationScope

    text = message.counted_as()[1]
    end = len(manager.history)
    if not end or not text.strip():
        return False
    manager.complete_summarization(SummarizationScope(0, end), text, RECORDED)
    return True


def _active_summaries(manager: ContextManager) -> int:
    """How many summaries stand for some message (a newer summary may cover an older one)."""
    return len(manager.history.active_summaries())


def _still_holds(known: tuple[str, int, int, int], history: int, budget: int) -> bool:
    """Whether the last exact selection still decides the state after appends alone.

    With the recent messages over budget and no new user turn, the recent span only grows:
    still over. With everything fitting and every summary shown as a summary, the greedy
    newest-first selection takes every new message as long as the total fits — the same
    selection plus the new messages (a new user turn only moves which of them are forced,
    and every one of them is taken anyway)."""
    state, context, then, _ = known
    grown = context + history - then
    if state == "recent_too_large":
        return True
    return state == "ready" and grown <= budget


@dataclass
class _Selected:
    """Where one call's context stands before it is sent."""

    state: str
    context: int
    budget: int
    excess: int | None = None
    events: list[str] = field(default_factory=list)
    summarized: int = 0  # tokens of history summarized for this call


class _ModelReplay:
    """One model's replay of a transcript, call by call: push what each call was sent, select
    the working context (or reuse the last selection while only appends happened that cannot
    change it), summarize when the model's budget asks for it, and price the call."""

    def __init__(
        self,
        transcript: Transcript,
        model: str,
        manager: ContextManager,
        summarizer: Summarizer | None,
        caching: bool,
    ) -> None:
        self.transcript, self.model, self.manager = transcript, model, manager
        self.summarize = summarizer or ExtractiveSummarizer(manager.counter)
        self.overhead = manager.overhead_tokens()
        self.message_budget = manager.message_budget()
        self.effective_budget = manager.effective_budget()
        self.prices = manager.limits.prices
        # the one pricing of the cache (ctx_lab.models.cache_prices), as ctx-lab cache uses it
        self.cached_prices = cache_prices(model, self.prices)
        self.cache_read = self.cached_prices.read if caching else None
        self.skip = set(transcript.recorded_summaries)
        self.compactions = set(transcript.compaction_calls())
        self.counts = [manager.count(m) + images_cost(m, model) for m in transcript.messages]
        self.prefix = [0, *accumulate(self.counts)]
        self.pushed = 0
        self.history = self.overhead
        self.previous_context: int | None = None
        # The last exact selection, reused while only appends happened that cannot change it:
        # (state, context, history then, pushed then). See _still_holds.
        self.known: tuple[str, int, int, int] | None = None
        self.use_at: dict[str, int] = {}  # tool call id → message position
        # where summarized history ends: a result for a call after it closes a tool unit that
        # no summary can cut, so it changes nothing a selection decided
        self.summarized_end = 0
        self.made_count = 0  # summaries the replay made (a recorded compaction's is not one)

    def call(self, call: Any) -> dict[str, Any]:
        """The row of one call."""
        invalidated = self._push_until(call.sent_end)
        selected = self._select(invalidated)
        if selected.state == "needs_summarization":
            self._summarize(selected)
        row = self._row(call, selected)
        self.previous_context = selected.context
        return row

    def _push_until(self, end: int) -> bool:
        """Push the messages up to ``end``; whether the last selection no longer holds."""
        invalidated = False
        manager, known = self.manager, self.known
        while self.pushed < end:
            at = self.pushed
            message = self.transcript.messages[at]
            if at in self.skip:
                # the agent compacted here: its summary stands for everything before it
                if _install_recorded_summary(manager, message):
                    self.known = known = None
                    invalidated = True
                    self.summarized_end = len(manager.history)
            else:
                manager.push_message(message, self.counts[at])
                self.history += self.counts[at]
                if message.role == "tool_use" and message.call_id:
                    self.use_at[message.call_id] = at
                elif known is not None and (
                    (message.role == "user" and known[0] == "recent_too_large")
                    or (
                        message.role == "tool_result"
                        and self.use_at.get(message.call_id or "", at)
                        < min(known[3], self.summarized_end)
                    )
                ):
                    # a new user turn shrinks the span always kept; a result for an older call
                    # changes which summaries cut a tool unit: select again
                    invalidated = True
            self.pushed += 1
        return invalidated

    def _select(self, invalidated: bool) -> _Selected:
        manager, known, history = self.manager, self.known, self.history
        if not manager.history.summaries and history - self.overhead <= self.message_budget:
            # everything fits and nothing was summarized: the context is the whole history
            return _Selected("ready", history, self.effective_budget)
        if (
            known is not None
            and not invalidated
            and _still_holds(known, history, self.effective_budget)
        ):
            chosen = _Selected(known[0], known[1] + history - known[2], self.effective_budget)
        else:
            status = manager.usage_status()
            excess = getattr(status.needed, "excess_tokens", None) if status.needed else None
            chosen = _Selected(
                status.state, status.usage.used_tokens, status.usage.budget_tokens, excess
            )
            self.known = None
            if chosen.state == "recent_too_large" or (
                chosen.state == "ready"
                and status.usage.summarized_segments == _active_summaries(manager)
            ):
                self.known = (chosen.state, chosen.context, history, self.pushed)
        if chosen.state == "recent_too_large":
            chosen.events.append("the recent messages alone exceed the budget")
        return chosen

    def _summarize(self, selected: _Selected) -> None:
        manager = self.manager
        before = len(manager.history.summaries)
        try:
            manager.summarize_pending(self.summarize)
        except CtxLabError as exc:
            selected.events.append(f"cannot fit: {exc}")
        made = manager.history.summaries[before:]
        self.made_count += len(made)
        self.summarized_end = max([self.summarized_end, *(s.end for s in made)])
        selected.summarized = sum(s.original_tokens for s in made)
        if made:
            selected.events.append(
                "; ".join(
                    f"summarized {s.start}–{s.end - 1} ({s.original_tokens} → "
                    f"{s.token_count} tokens)"
                    for s in made
                )
            )
        after = manager.usage_status()
        selected.context = after.usage.used_tokens
        if after.state == "ready" and after.usage.summarized_segments == _active_summaries(manager):
            self.known = ("ready", selected.context, self.history, self.pushed)

    def _costs(self, call: Any, selected: _Selected) -> dict[str, Any]:
        """What the call sent new and from the cache, what it answered, and their prices."""
        context, prices, cache_read = selected.context, self.prices, self.cache_read
        if cache_read is None or self.previous_context is None:
            cached = 0
        elif selected.summarized:
            cached = min(self.overhead, context)
        else:
            cached = min(self.previous_context, context)
        new = context - cached
        answer = [
            self.transcript.messages[i]
            for i in range(call.sent_end, call.context)
            if i not in self.skip
        ]
        output = sum(self.manager.counter.count(m.counted_as()[1]) for m in answer)
        write_price = self.cached_prices.write
        input_price = self.cached_prices.input
        input_cost = _usd(
            new, write_price if cache_read is not None and write_price else input_price
        )
        cached_cost = _usd(cached, input_price if cache_read is None else cache_read)
        output_cost = _usd(output, prices.output_per_mtok if prices else None)
        return {
            "cached_tokens": cached,
            "new_tokens": new,
            "output_tokens": output,
            "input_cost_usd": input_cost,
            "cached_cost_usd": cached_cost,
            "output_cost_usd": output_cost,
            "cost_usd": _sum(input_cost, cached_cost, output_cost),
        }

    def _same(self, recorded: str | None) -> bool:
        """Whether the recorded call's model is the one replayed: the same name, or a dated
        snapshot and its alias (``claude-sonnet-4-5-20250929`` and ``claude-sonnet-4-5``, as
        Anthropic names them; ``gpt-4o-2024-08-06`` and ``gpt-4o``)."""
        if recorded is None:
            return False
        return _DATED.sub("", recorded.lower()) == _DATED.sub("", self.model.lower())

    def _row(self, call: Any, selected: _Selected) -> dict[str, Any]:
        start, end = self.transcript.sent_range(call)
        reported = call.usage
        context, budget = selected.context, selected.budget
        # the bill: what the recorded call was sent, where it was sent to this model (a dated
        # name and its alias are one model: the registry's match)
        billed = reported.reported_input if reported and self._same(call.model) else None
        return {
            "call": call.index + 1,  # calls count from 1, as every command counts them
            "model": self.model,
            "recorded_model": call.model,
            "timestamp": call.timestamp,
            "messages": self.pushed,
            "history_tokens": self.history,
            "context_tokens": context,
            "budget": budget,
            "headroom": budget - context,
            "over_budget": context > budget,
            "needed_summarization": selected.state != "ready",
            "excess_tokens": selected.excess,
            "summarized_tokens": selected.summarized,
            "summaries": len(self.manager.history.summaries),
            "summaries_made": self.made_count,
            "recorded_compaction": call.index in self.compactions,
            **self._costs(call, selected),
            "reported_input": reported.reported_input if reported else None,
            "reported_cached": reported.cache_read_input_tokens if reported else None,
            "reported_output": reported.output_tokens if reported else None,
            "counted_input": self.overhead + self.prefix[end] - self.prefix[start],
            "billed_input": billed,
            "over_budget_billed": billed > budget if billed is not None else None,
            "event": "; ".join(selected.events),
        }
