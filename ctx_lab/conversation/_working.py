"""What a :class:`~ctx_lab.conversation.ContextManager` answers: the working context it
prepared, its usage status, a pending summarization, and how a model switch changed the
budget."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, overload

from ..errors import ContextBuildError
from ._messages import Message
from ._usage import ContextUsage

__all__ = [
    "MAX_SUMMARY_TOKENS",
    "MIN_SUMMARY_TOKENS",
    "SUMMARY_PREFIX",
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

    def __init__(
        self, messages: Sequence[Message], start: int = 0, stop: int | None = None
    ) -> None:
        # the history's own column (ids are positions): messages at these positions never change
        self._messages = messages
        self._range = range(start, len(messages) if stop is None else stop)

    def __len__(self) -> int:
        return len(self._range)

    @overload
    def __getitem__(self, index: int) -> tuple[int, Message]: ...

    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, Message]]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [(i, self._messages[i]) for i in self._range[index]]
        i = self._range[index]
        return i, self._messages[i]

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
