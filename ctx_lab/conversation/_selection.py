"""The working context: recent messages always, older ones newest first while they fit (whole
tool units at a time), summaries standing in for the ranges they replace — and, when that does
not fit, which messages to summarize."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ContextBuildError, RecentMessagesTooLarge, SummarizationNeeded
from ._base import ManagerBase
from ._units import IdRuns, UnitIndex
from ._usage import ContextUsage
from ._working import PreparedContext, Segment, UsageStatus

__all__ = ["Selecting"]


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


class Selecting(ManagerBase):
    """Selection of the working context (a ContextManager layer)."""

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

    def _summarized(self, message_id: int) -> bool:
        """Whether a live summary stands for ``message_id``."""
        summaries = self.history.summaries
        return any(
            summaries[i].start <= message_id < summaries[i].end
            for i in self.history.active_summaries()
        )

    def _select(self, budget: int) -> _Selection:
        tokens_of = self.history.entries.tokens
        n = len(tokens_of)
        units = self._units()
        prefix = self._prefix_tokens()
        recent_start = max(n - self._settings.preserve_recent, 0)
        newest_user = units.newest_user
        if newest_user is not None and not self._summarized(newest_user):
            # the newest user turn is never summarized away (unless it already was: a summary
            # the agent wrote when it compacted stands for it)
            recent_start = min(recent_start, newest_user)
        holding = units.containing(recent_start)
        while holding is not None and holding[0] < recent_start:
            recent_start = holding[0]
            holding = units.containing(recent_start)
        recent = [Segment("original", (i,), tokens_of[i]) for i in range(recent_start, n)]
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
                    chosen += [Segment("original", (i,), tokens_of[i]) for i in reversed(block.ids)]
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
                tokens = prefix[item.stop] - prefix[item.start]
                if used + tokens > budget:
                    marked_runs.append((ids.start, ids[position - 1] + 1))
                    break
                chosen += [Segment("original", (i,), tokens_of[i]) for i in reversed(item)]
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
            used_tokens=used + self.overhead_tokens(),
            budget_tokens=self.effective_budget(),
            summarized_segments=summaries,
            input_price_per_mtok=prices.input_per_mtok if prices else None,
            model=self._model,
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
        messages = self.history.entries.messages
        return PreparedContext(
            segments=tuple(selection.segments),
            messages=tuple((i, messages[i]) for i in sorted(used_ids)),
            summaries=summaries,
            budget_tokens=self.message_budget(),
            overhead_tokens=self.overhead_tokens(),
            system_prompt=self._settings.system_prompt,
            usage_value=self._usage(selection.used, len(summaries)),
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
