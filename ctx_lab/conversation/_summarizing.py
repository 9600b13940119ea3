"""Summarization: which run of messages to summarize (never splitting a tool unit or cutting a
live summary), storing a summary, and summarizing until the working context fits — all or
nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from ..errors import CtxLabError, SummarizationNeeded, SummarizerError, UsageError
from ..validate import savable_text
from ._history import Summary
from ._messages import Message
from ._selection import Selecting
from ._units import IdRuns
from ._working import (
    MAX_SUMMARY_TOKENS,
    MIN_SUMMARY_TOKENS,
    SUMMARY_PREFIX,
    PendingSummarization,
    SummarizationScope,
    _EntryMessages,
)

if TYPE_CHECKING:
    from ._summarizers import Summarizer

__all__ = ["Summarizing"]


class Summarizing(Selecting):
    """Summarization of older messages (a ContextManager layer)."""

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
            _EntryMessages(self.history.entries.messages, start, end + 1),
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
            id=self.history.next_summary_id,
            start=scope.start,
            end=scope.end,
            content=content,
            token_count=tokens,
            original_tokens=original,
            created_at=self.clock(),
            generated_by=generated_by,
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
        messages = self.history.entries.messages
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
                out.extend(messages[low:high])
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
