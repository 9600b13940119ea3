"""``ContextManager``: keep a long conversation inside a model's window without silently
dropping anything (design: conversation-context-manager.md, refined by its issue).

History is append-only. ``prepare()`` derives the working context — recent messages always,
older ones newest first while they fit, summaries standing in for ranges they replace — and
either proves it fits (:class:`PreparedContext`) or says what to summarize.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from cachetools import LRUCache

from ..clock import utc_now
from ..errors import (
    ContextBuildError,
    CtxLabError,
    HistoryCorrupted,
    RecentMessagesTooLarge,
    SummarizationNeeded,
    SummarizerError,
    UsageError,
)
from ..files import read_text, write_atomic
from ..models import ModelRegistry, ResolvedModelLimits, get_registry
from ..tokens import (
    MESSAGE_OVERHEAD,
    MODEL_COUNTER,
    CounterLike,
    count_message,
    get_counter,
    resolve_counter,
)
from ..validate import savable_data, savable_text, whole_number
from .history import FORMAT_VERSION, FullHistory, Summary
from .messages import Message
from .units import IdRuns, UnitIndex
from .usage import ContextUsage

if TYPE_CHECKING:
    from .summarizers import Summarizer

__all__ = [
    "SUMMARY_PREFIX",
    "ContextManager",
    "Expanding",
    "NoChange",
    "PendingSummarization",
    "PreparedContext",
    "Segment",
    "Shrinking",
    "SummarizationScope",
    "UsageStatus",
]

SUMMARY_PREFIX = "[Earlier conversation summary]"
MIN_SUMMARY_TOKENS = 64
MAX_SUMMARY_TOKENS = 2048


@dataclass(frozen=True)
class NoChange:
    """Switching models did not change the budget."""

    budget: int


@dataclass(frozen=True)
class Shrinking:
    """The new model's budget is smaller; ``needs_summarization`` if the context no longer fits."""

    old_budget: int
    new_budget: int
    needs_summarization: bool


@dataclass(frozen=True)
class Expanding:
    """The new budget is larger; ``can_restore`` summarized messages can use their originals."""

    old_budget: int
    new_budget: int
    can_restore: int


@dataclass(frozen=True, slots=True)
class Segment:
    """One piece of the working context: an original message or a summary of a range."""

    kind: str  # "original" or "summary"
    ids: tuple[int, ...]
    tokens: int
    summary_id: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "kind": self.kind,
            "ids": list(self.ids),
            "tokens": self.tokens,
            "summary_id": self.summary_id,
        }


@dataclass(frozen=True)
class SummarizationScope:
    """The half-open message range ``[start, end)`` a summary will replace."""

    start: int
    end: int
    requested: Sequence[int] = ()

    @property
    def ids(self) -> list[int]:
        """Every message id in the range."""
        return list(range(self.start, self.end))


class _EntryMessages(Sequence[tuple[int, Message]]):
    """``(id, message)`` of history entries, made on access (a scope can span the history)."""

    def __init__(self, entries: Sequence[Any], start: int = 0, stop: int | None = None) -> None:
        # the history's own list: ids and messages at these positions never change
        self._entries = entries
        self._range = range(start, len(entries) if stop is None else stop)

    def __len__(self) -> int:
        return len(self._range)

    @overload
    def __getitem__(self, index: int) -> tuple[int, Message]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, Message]]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [(self._entries[i].id, self._entries[i].message) for i in self._range[index]]
        entry = self._entries[self._range[index]]
        return entry.id, entry.message

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


@dataclass(frozen=True)
class PendingSummarization:
    """What to summarize: the scope, its messages, their tokens and the target size."""

    scope: SummarizationScope
    messages: Sequence[tuple[int, Message]]
    original_tokens: int
    target_tokens: int


@dataclass(frozen=True)
class PreparedContext:
    """Proof that the working context fits: its segments in chronological order."""

    segments: tuple[Segment, ...]
    messages: tuple[tuple[int, Message], ...]
    summaries: dict[int, str]
    budget_tokens: int
    overhead_tokens: int
    system_prompt: str | None
    usage_value: ContextUsage

    def api_messages(self, include_system: bool = True) -> list[Message]:
        """Messages for an API call; a summary becomes a system message with the prefix."""
        by_id = dict(self.messages)
        out: list[Message] = []
        if include_system and self.system_prompt:
            out.append(Message.system(self.system_prompt))
        for segment in self.segments:
            if segment.kind == "summary" and segment.summary_id is not None:
                out.append(
                    Message.system(f"{SUMMARY_PREFIX}\n{self.summaries[segment.summary_id]}")
                )
            else:
                out.extend(by_id[i] for i in segment.ids)
        return out

    def usage(self) -> ContextUsage:
        """Tokens used (system prompt and tools included) against the model's budget."""
        return self.usage_value

    @property
    def tokens(self) -> int:
        """Tokens of the conversation segments (without system prompt and tools)."""
        return sum(s.tokens for s in self.segments)


@dataclass(frozen=True)
class UsageStatus:
    """``ready``, ``needs_summarization`` or ``recent_too_large``, with the usage."""

    state: str
    usage: ContextUsage
    needed: ContextBuildError | None = None


@dataclass
class _Selection:
    segments: list[Segment]
    marked: IdRuns
    used: int
    recent_start: int
    error: ContextBuildError | None = None


@dataclass
class _Block:
    ids: range
    summary_id: int | None = None


@dataclass
class _Settings:
    preserve_recent: int
    target_ratio: float
    output_limit: int | None = None
    system_prompt: str | None = None
    tools: list[Any] | None = field(default=None)


class ContextManager:
    """Conversation history and its working context for one (switchable) model."""

    def __init__(
        self,
        model: str,
        registry: str | ModelRegistry | None = None,
        counter: CounterLike = "cl100k",
        preserve_recent: int = 4,
        target_ratio: float = 0.15,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        whole_number(preserve_recent, "preserve_recent")
        if (
            isinstance(target_ratio, bool)
            or not isinstance(target_ratio, int | float)
            or not 0 < target_ratio <= 1
        ):
            raise UsageError(f"target_ratio must be in (0, 1], got {target_ratio!r}")
        self.registry = get_registry(registry)
        if counter == MODEL_COUNTER:  # the model's own tokenizer, or a named estimate
            choice = resolve_counter(MODEL_COUNTER, model, "cl100k")
            self.counter = get_counter(choice.name)
            self.counter_note = choice.note
        else:
            self.counter = get_counter(counter)
            self.counter_note = ""
        self._role_tokens: dict[str, int] = {}
        self._unit_index = UnitIndex()
        self._prefix: list[int] = [0]
        self._prefix_last: Any = None  # the message the running totals end with
        self._summary_ids: LRUCache[tuple[int, int, int], tuple[int, ...]] = LRUCache(8)
        self._id_pool: list[int] = []
        self.clock = clock or utc_now
        self.history = FullHistory()
        self._settings = _Settings(preserve_recent, target_ratio)
        self._model = model
        self._limits = self.registry.get(model)
        self._overhead_cache: tuple[tuple[Any, ...], int] | None = None

    # -- configuration ----------------------------------------------------------------------

    @property
    def model(self) -> str:
        """The current model."""
        return self._model

    @property
    def limits(self) -> ResolvedModelLimits:
        """The current model's resolved limits."""
        return self._limits

    @property
    def preserve_recent(self) -> int:
        """How many newest messages are always kept as originals."""
        return self._settings.preserve_recent

    @property
    def target_ratio(self) -> float:
        """A summary's target size as a share of what it replaces."""
        return self._settings.target_ratio

    def set_output_limit(self, limit: int | None) -> None:
        """Reserve ``limit`` output tokens instead of the model's maximum (None: the maximum)."""
        if limit is not None:
            whole_number(limit, "output limit")
        self._settings.output_limit = limit

    def set_system_prompt(self, text: str | None) -> None:
        """The system prompt every call carries (counted in every context, never evicted)."""
        self._settings.system_prompt = savable_text(text, "the system prompt") if text else None

    def set_tools(self, definitions: Sequence[Any] | None) -> None:
        """The tool definitions every call carries (counted in every context, never evicted)."""
        tools = list(definitions) if definitions else None
        self._settings.tools = savable_data(tools, "the tool definitions") if tools else None

    def effective_budget(self) -> int:
        """The model's effective input budget, honouring the output limit."""
        return self._limits.effective_input_budget(self._settings.output_limit)

    def overhead_tokens(self) -> int:
        """Tokens of the system prompt (as a system message) plus the tool definitions."""
        key = (self._settings.system_prompt, json.dumps(self._settings.tools, sort_keys=True))
        if self._overhead_cache is None or self._overhead_cache[0] != key:
            tokens = 0
            if self._settings.system_prompt:
                tokens += count_message("system", self._settings.system_prompt, self.counter)
            if self._settings.tools:
                tokens += self.counter.count(
                    json.dumps(
                        self._settings.tools,
                        sort_keys=True,
                        separators=(",", ":"),
                        ensure_ascii=False,
                    )
                )
            self._overhead_cache = (key, tokens)
        return self._overhead_cache[1]

    def message_budget(self) -> int:
        """B: the effective budget minus the system prompt and tools."""
        return max(self.effective_budget() - self.overhead_tokens(), 0)

    # -- history ----------------------------------------------------------------------------

    def count(self, message: Message) -> int:
        """A message's tokens: content + role + 4 (tool calls as assistant, results as user)."""
        role, content = message.counted_as()
        roles = self._role_tokens
        if role not in roles:
            roles[role] = count_message(role, "", self.counter) - MESSAGE_OVERHEAD
        return self.counter.count(content) + roles[role] + MESSAGE_OVERHEAD

    def summary_tokens(self, content: str) -> int:
        """Tokens of a summary as it is sent: a system message with the summary prefix."""
        return count_message("system", f"{SUMMARY_PREFIX}\n{content}", self.counter)

    def _token_count(self, message: Message, token_count: int | None) -> int:
        if token_count is None:
            return self.count(message)
        whole_number(token_count, "token_count")
        return token_count

    def push_message(self, message: Message, token_count: int | None = None) -> int:
        """Append a message (``token_count`` injects its full count); returns its id."""
        return self.history.push(message, self._token_count(message, token_count), self.clock())

    def push_message_with_step_id(
        self, message: Message, step_id: int, token_count: int | None = None
    ) -> int:
        """Append a message linked to a stream journal step (for idempotent recovery)."""
        return self.history.push(
            message, self._token_count(message, token_count), self.clock(), step_id
        )

    def has_step_id(self, step_id: int) -> bool:
        """True when a message of this stream step is already in history."""
        return self.history.has_step_id(step_id)

    def rollback_last_message(self, message_id: int) -> Message | None:
        """Remove the last message if it is ``message_id`` (and not summarized)."""
        return self.history.pop_if_last(message_id)

    # -- tool units -------------------------------------------------------------------------

    def tool_units(self) -> list[tuple[int, int]]:
        """Inclusive id ranges from a tool_use to the last result answering it, merged when
        they overlap (parallel calls). A call still waiting for its result reaches to the end
        of the history: it cannot be summarized before it is answered. Kept up to date as the
        history grows (summaries change no role)."""
        return self._units().units()

    def _units(self) -> UnitIndex:
        self._unit_index.update(self.history.entries)
        return self._unit_index

    def _prefix_tokens(self) -> list[int]:
        """Running totals of the messages' token counts (``[0, t0, t0+t1, …]``), extended as
        the history grows — counts never change, summaries only point at messages."""
        entries = self.history.entries
        prefix = self._prefix
        known = len(prefix) - 1
        if known > len(entries) or (known and entries[known - 1].message is not self._prefix_last):
            prefix = self._prefix = [0]
            known = 0
        for e in entries[known:]:
            prefix.append(prefix[-1] + e.token_count)
        self._prefix_last = entries[-1].message if entries else None
        return prefix

    # -- the working context ----------------------------------------------------------------

    def _blocks(self, end: int, units: UnitIndex) -> list[_Block]:
        """Runs of messages before ``end`` that share a summary (or none). A summary whose range
        cuts through a tool unit (one made before a result arrived, or a hand-edited history)
        is not used: its messages count as originals, so no tool pair is ever split."""
        if not self.history.summaries:  # nothing summarized yet: one run of originals
            return [_Block(range(end), None)] if end else []
        out: list[_Block] = []
        for low, high, summary_id in self.history.runs():
            if low >= end:
                break
            block = _Block(range(low, min(high, end)), summary_id)
            if summary_id is not None:
                first, last = block.ids[0], block.ids[-1]
                cut_low = units.containing(first)
                cut_high = units.containing(last)
                if (cut_low is not None and cut_low[0] < first) or (
                    cut_high is not None and cut_high[1] > last
                ):
                    block = _Block(block.ids, None)
            if out and out[-1].summary_id is None and block.summary_id is None:
                out[-1].ids = range(out[-1].ids.start, block.ids.stop)
            else:
                out.append(block)
        return out

    def _summary_segment(self, ids: range, summary_id: int, tokens: int) -> Segment:
        key = (summary_id, ids.start, ids.stop)
        found = self._summary_ids.get(key)
        if found is None:
            pool = self._id_pool  # slices share its int objects instead of making new ones
            if len(pool) < ids.stop:
                pool.extend(range(len(pool), ids.stop))
            found = self._summary_ids[key] = tuple(pool[ids.start : ids.stop])
        return Segment("summary", found, tokens, summary_id)

    def _select(self, budget: int) -> _Selection:
        entries = self.history.entries
        n = len(entries)
        units = self._units()
        prefix = self._prefix_tokens()
        recent_start = max(n - self._settings.preserve_recent, 0)
        newest_user = units.newest_user
        if newest_user is not None:  # the newest user turn is never summarized away
            recent_start = min(recent_start, newest_user)
        holding = units.containing(recent_start)
        while holding is not None and holding[0] < recent_start:
            recent_start = holding[0]
            holding = units.containing(recent_start)
        recent = [Segment("original", (i,), entries[i].token_count) for i in range(recent_start, n)]
        used = sum(s.tokens for s in recent)
        if used > budget:
            too_large = RecentMessagesTooLarge(used, budget, n - recent_start)
            return _Selection(recent, IdRuns(), used, recent_start, too_large)
        chosen: list[Segment] = []  # newest first
        marked_runs: list[tuple[int, int]] = []  # newest first
        for block in reversed(self._blocks(recent_start, units)):
            if block.summary_id is not None:
                originals = prefix[block.ids.stop] - prefix[block.ids.start]
                summary = self.history.summaries[block.summary_id]
                if used + originals <= budget:
                    chosen += [
                        Segment("original", (i,), entries[i].token_count)
                        for i in reversed(block.ids)
                    ]
                    used += originals
                elif used + summary.token_count <= budget:
                    chosen.append(self._summary_segment(block.ids, summary.id, summary.token_count))
                    used += summary.token_count
                else:
                    marked_runs.append((block.ids.start, block.ids.stop))
                continue
            # atomic items — single messages or whole tool units — taken newest first until
            # one does not fit; everything older in the block is then marked in one slice
            ids = block.ids
            position = len(ids)
            while position > 0:
                last = ids[position - 1]
                unit = units.containing(last)
                first = position - 1
                if unit is not None:
                    while first > 0 and ids[first - 1] >= unit[0]:
                        first -= 1
                item = ids[first:position]
                tokens = sum(entries[i].token_count for i in item)
                if used + tokens > budget:
                    marked_runs.append((ids.start, ids[position - 1] + 1))
                    break
                chosen += [
                    Segment("original", (i,), entries[i].token_count) for i in reversed(item)
                ]
                used += tokens
                position = first
        segments = list(reversed(chosen)) + recent
        marked = IdRuns(marked_runs[::-1])
        error: ContextBuildError | None = None
        if marked:
            marked_tokens = sum(prefix[stop] - prefix[start] for start, stop in marked.runs)
            excess = used + marked_tokens - budget
            error = SummarizationNeeded(
                excess,
                marked,
                f"{len(marked)} older messages ({marked[0]}…{marked[-1]}) do not fit: summarize "
                f"them (prepare_summarization → summarize → complete_summarization) to free "
                f"at least {excess} tokens",
            )
        return _Selection(segments, marked, used, recent_start, error)

    def _usage(self, used: int, summaries: int) -> ContextUsage:
        prices = self._limits.prices
        return ContextUsage(
            used + self.overhead_tokens(),
            self.effective_budget(),
            summaries,
            prices.input_per_mtok if prices else None,
            self._model,
        )

    def prepare(self) -> PreparedContext:
        """The working context; raises :class:`SummarizationNeeded` or
        :class:`RecentMessagesTooLarge` when it does not fit."""
        selection = self._select(self.message_budget())
        if selection.error is not None:
            raise selection.error
        summaries = {
            s.summary_id: self.history.summaries[s.summary_id].content
            for s in selection.segments
            if s.summary_id is not None
        }
        used_ids = {i for s in selection.segments if s.kind == "original" for i in s.ids}
        return PreparedContext(
            tuple(selection.segments),
            tuple((e.id, e.message) for e in self.history.entries if e.id in used_ids),
            summaries,
            self.message_budget(),
            self.overhead_tokens(),
            self._settings.system_prompt,
            self._usage(selection.used, len(summaries)),
        )

    def usage_status(self) -> UsageStatus:
        """Usage for a UI even when the context does not fit."""
        selection = self._select(self.message_budget())
        summaries = sum(1 for s in selection.segments if s.kind == "summary")
        usage = self._usage(selection.used, summaries)
        if isinstance(selection.error, RecentMessagesTooLarge):
            return UsageStatus("recent_too_large", usage, selection.error)
        if isinstance(selection.error, SummarizationNeeded):
            return UsageStatus("needs_summarization", usage, selection.error)
        return UsageStatus("ready", usage)

    def in_context(self) -> set[int]:
        """Ids of the messages whose originals the working context uses (best effort when it
        does not fit)."""
        selection = self._select(self.message_budget())
        return {i for s in selection.segments if s.kind == "original" for i in s.ids}

    # -- models -----------------------------------------------------------------------------

    def switch_model(self, name: str) -> NoChange | Shrinking | Expanding:
        """Switch to ``name`` and say how the budget changed."""
        old = self.effective_budget()
        self._limits = self.registry.get(name)
        self._model = name
        new = self.effective_budget()
        if new == old:
            return NoChange(new)
        selection = self._select(self.message_budget())
        if new < old:
            return Shrinking(old, new, selection.error is not None)
        restored = sum(
            1
            for s in selection.segments
            if s.kind == "original" and self.history.entries[s.ids[0]].is_summarized
        )
        return Expanding(old, new, restored)

    # -- summarization ----------------------------------------------------------------------

    def prepare_summarization(self, ids: Iterable[int]) -> PendingSummarization | None:
        """The first contiguous run of ``ids``, widened so it never splits a tool unit or cuts
        an existing summary's range; None when there is nothing to summarize."""
        return self._prepare(sorted(set(ids)))

    def _prepare(self, wanted: Sequence[int]) -> PendingSummarization | None:
        """:meth:`prepare_summarization` of ids already sorted and unique (as a selection
        marks them: sorting a history's worth of ids again would cost more than the rest)."""
        if not wanted:
            return None
        n = len(self.history)
        if not (wanted[0] >= 0 and wanted[-1] < n):
            bad = [i for i in wanted if not 0 <= i < n]
            raise UsageError(f"no messages with ids {bad} (history has {n})")
        start = wanted[0]
        # the first run: the longest prefix with wanted[i] == start + i (a monotone test)
        low, high = 0, len(wanted) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if wanted[middle] == start + middle:
                low = middle
            else:
                high = middle - 1
        end = wanted[low]
        units = self._units()
        summaries = self.history.summaries
        ranges = [
            (summaries[i].start, summaries[i].end - 1) for i in self.history.active_summaries()
        ]
        changed = True
        while changed:  # the smallest range that cuts no tool unit and no live summary
            changed = False
            for point in (start, end):
                unit = units.containing(point)
                if unit is not None and (unit[0] < start or unit[1] > end):
                    start, end = min(start, unit[0]), max(end, unit[1])
                    changed = True
            for low, high in ranges:
                if low <= end and high >= start and (low < start or high > end):
                    start, end = min(start, low), max(end, high)
                    changed = True
        prefix = self._prefix_tokens()
        original = prefix[end + 1] - prefix[start]
        target = min(
            max(round(original * self._settings.target_ratio), MIN_SUMMARY_TOKENS),
            MAX_SUMMARY_TOKENS,
        )
        return PendingSummarization(
            SummarizationScope(
                start, end + 1, wanted if isinstance(wanted, (IdRuns, range)) else tuple(wanted)
            ),
            _EntryMessages(self.history.entries, start, end + 1),
            original,
            target,
        )

    def complete_summarization(
        self,
        scope: SummarizationScope,
        content: str,
        generated_by: str,
        token_count: int | None = None,
    ) -> int:
        """Store the summary of ``scope`` and point its messages at it; returns its id."""
        if not isinstance(content, str) or not content.strip():
            raise UsageError("an empty summary never replaces history")
        savable_text(content, "the summary")
        savable_text(generated_by, "the summary's author")
        if not 0 <= scope.start < scope.end <= len(self.history):
            raise UsageError(f"scope [{scope.start}, {scope.end}) no longer matches the history")
        tokens = (
            self.summary_tokens(content)
            if token_count is None
            else self._token_count(Message.system(content), token_count)
        )
        prefix = self._prefix_tokens()
        original = prefix[scope.end] - prefix[scope.start]
        summary = Summary(
            self.history.next_summary_id,
            scope.start,
            scope.end,
            content,
            tokens,
            original,
            self.clock(),
            generated_by,
        )
        return self.history.add_summary(summary)

    def summarize_pending(
        self,
        summarizer: Summarizer,
        generated_by: str | None = None,
        token_count: Callable[[PendingSummarization, str], int] | None = None,
    ) -> list[int]:
        """prepare → summarize → complete until :meth:`prepare` succeeds; returns the new
        summary ids. Raises if a pass makes no progress (or the recent messages do not fit).
        ``token_count(pending, text)`` injects summary sizes (simulations).

        All or nothing: when it raises — no progress, a summarizer that fails or returns
        something other than text — the history is exactly as it was before the call.
        """
        checkpoint = self.history.checkpoint()
        try:
            return self._summarize_pending(summarizer, generated_by, token_count)
        except BaseException:
            self.history.rollback(checkpoint)
            raise
        finally:
            self.history.release(checkpoint)

    def _summarize_pending(
        self,
        summarizer: Summarizer,
        generated_by: str | None,
        token_count: Callable[[PendingSummarization, str], int] | None,
    ) -> list[int]:
        created: list[int] = []
        author = generated_by or str(getattr(summarizer, "name", "summarizer"))
        widen = (
            False  # after a pass without progress: one summary of everything before the recent set
        )
        last_scope: tuple[int, int] | None = None
        for _ in range(len(self.history) + 2):
            selection = self._select(self.message_budget())
            needed = selection.error
            if needed is None:
                return created
            if not isinstance(needed, SummarizationNeeded):
                raise needed
            ids = needed.messages_to_summarize
            pending = self._prepare(range(selection.recent_start) if widen else ids)
            if pending is None:
                raise needed
            scope = (pending.scope.start, pending.scope.end)
            if scope == last_scope or self._already_summarized(pending):
                if widen:
                    raise CtxLabError(
                        f"summarization made no progress ({needed.excess_tokens} tokens over); "
                        "use a smaller target_ratio or a model with a larger window"
                    )
                widen = True
                continue
            try:
                text = summarizer.summarize(
                    self._summary_input(pending.scope.start, pending.scope.end),
                    pending.target_tokens,
                )
            except CtxLabError:
                raise
            except Exception as exc:  # a user's summarizer may fail in any way
                raise SummarizerError(
                    f"the summarizer failed ({type(exc).__name__}: {exc}); history unchanged"
                ) from exc
            if not isinstance(text, str):
                raise SummarizerError(
                    f"the summarizer returned {type(text).__name__}, not text; history unchanged"
                )
            if not text.strip():
                raise SummarizerError("the summarizer returned an empty summary; history unchanged")
            injected = token_count(pending, text) if token_count else None
            created.append(self.complete_summarization(pending.scope, text, author, injected))
            after = self._select(self.message_budget()).error
            progress = not isinstance(after, SummarizationNeeded) or (
                after.excess_tokens < needed.excess_tokens
                or len(after.messages_to_summarize) < len(ids)
            )
            widen = not progress
            last_scope = scope
        raise CtxLabError("summarization did not converge; use a model with a larger window")

    def _summary_input(self, start: int, end: int) -> list[Message]:
        """What a summarizer reads for ``[start, end)``: each live summary inside it as its
        summary (hierarchical re-summarization: a summary folds in the summaries it replaces,
        so its input stays about one window however long the history), the rest as originals."""
        out: list[Message] = []
        entries = self.history.entries
        shown: set[int] = set()
        for low, high, summary_id in self.history.runs():
            if high <= start:
                continue
            if low >= end:
                break
            low, high = max(low, start), min(high, end)
            summary = self.history.summaries[summary_id] if summary_id is not None else None
            if summary is not None and start <= summary.start and summary.end <= end:
                if summary_id not in shown:
                    shown.add(summary.id)
                    out.append(Message.system(f"{SUMMARY_PREFIX}\n{summary.content}"))
            else:
                out.extend(e.message for e in entries[low:high])
        return out

    def _already_summarized(self, pending: PendingSummarization) -> bool:
        """True when one live summary already covers exactly this scope at or below target."""
        covering = {
            run[2]
            for run in self.history.runs()
            if run[0] < pending.scope.end and run[1] > pending.scope.start
        }
        if len(covering) != 1 or None in covering:
            return False
        summary = self.history.summaries[covering.pop() or 0]
        return (summary.start, summary.end) == (pending.scope.start, pending.scope.end) and (
            summary.token_count <= pending.target_tokens
        )

    # -- persistence ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The design's history JSON plus format_version, model and context settings."""
        return {
            "format_version": FORMAT_VERSION,
            "model": self._model,
            **self.history.to_dict(),
            "context": {
                "preserve_recent": self._settings.preserve_recent,
                "target_ratio": self._settings.target_ratio,
                "output_limit": self._settings.output_limit,
                "system_prompt": self._settings.system_prompt,
                "tools": self._settings.tools,
                "counter": self.counter.name,
            },
        }

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the history atomically (temporary file, fsync, rename, fsync the directory)."""
        return write_atomic(path, json.dumps(self.to_dict(), indent=1, ensure_ascii=False) + "\n")

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        model: str | None = None,
        *,
        registry: str | ModelRegistry | None = None,
        counter: CounterLike | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> ContextManager:
        """Load and validate a saved history (:class:`HistoryCorrupted` names the first
        violation); ``model`` overrides the saved model."""
        try:
            data = json.loads(read_text(Path(path), []))
        except (ValueError, RecursionError) as exc:
            raise HistoryCorrupted(f"{path}: not JSON ({type(exc).__name__})") from None
        if not isinstance(data, dict):
            raise HistoryCorrupted(f"{path}: not a history object")
        version = data.get("format_version", FORMAT_VERSION)
        if version != FORMAT_VERSION:
            raise HistoryCorrupted(f"{path}: format_version {version!r} is not supported")
        history = FullHistory.from_dict(data)
        settings = data.get("context", {})
        if not isinstance(settings, dict):
            raise HistoryCorrupted(f"{path}: context must be an object")
        chosen = model or data.get("model")
        if not isinstance(chosen, str) or not chosen:
            raise HistoryCorrupted(f"{path}: no model saved; pass one")
        saved_counter = settings.get("counter")
        if saved_counter is not None and not isinstance(saved_counter, str):
            raise HistoryCorrupted(f"{path}: context.counter must be a counter's name")
        try:  # the settings were validated when saved: anything else is a damaged file
            manager = cls(
                chosen,
                registry,
                counter or saved_counter or "cl100k",
                settings.get("preserve_recent", 4),
                settings.get("target_ratio", 0.15),
                clock,
            )
            manager.history = history
            manager.set_output_limit(settings.get("output_limit"))
            manager.set_system_prompt(settings.get("system_prompt"))
            tools = settings.get("tools")
            if tools is not None and not isinstance(tools, list):
                raise UsageError("the tool definitions must be a list")
            manager.set_tools(tools)
        except UsageError as exc:
            raise HistoryCorrupted(f"{path}: {exc}") from None
        return manager

    # -- notebook surface -------------------------------------------------------------------

    def ledger(self) -> Any:
        """A DataFrame of the history: id, role, tokens, summary_id, in_context."""
        import pandas as pd

        used = self.in_context()
        rows = [
            {
                "id": e.id,
                "role": e.message.role,
                "tokens": e.token_count,
                "summary_id": e.summary_id,
                "in_context": e.id in used,
            }
            for e in self.history.entries
        ]
        frame = pd.DataFrame(rows, columns=["id", "role", "tokens", "summary_id", "in_context"])
        return frame.astype({"summary_id": "Int64"})

    def usage(self) -> ContextUsage:
        """The current usage (displays as a gauge coloured by severity)."""
        return self.usage_status().usage
