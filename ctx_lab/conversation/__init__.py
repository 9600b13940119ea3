"""Conversation context management: append-only history, summaries, model limits, the working
context — and the crash-safe journals of the same design."""

from .history import FullHistory, HistoryCorrupted, HistoryEntry, Summary
from .manager import (
    SUMMARY_PREFIX,
    ContextBuildError,
    ContextManager,
    Expanding,
    NoChange,
    PendingSummarization,
    PreparedContext,
    RecentMessagesTooLarge,
    Segment,
    Shrinking,
    SummarizationNeeded,
    SummarizationScope,
    UsageStatus,
)
from .messages import Message
from .summarizers import (
    AnthropicSummarizer,
    ChatCompletionsSummarizer,
    ExtractiveSummarizer,
    Summarizer,
    SummarizerError,
)
from .usage import ContextUsage

__all__ = [
    "SUMMARY_PREFIX",
    "AnthropicSummarizer",
    "ChatCompletionsSummarizer",
    "ContextBuildError",
    "ContextManager",
    "ContextUsage",
    "Expanding",
    "ExtractiveSummarizer",
    "FullHistory",
    "HistoryCorrupted",
    "HistoryEntry",
    "Message",
    "NoChange",
    "PendingSummarization",
    "PreparedContext",
    "RecentMessagesTooLarge",
    "Segment",
    "Shrinking",
    "SummarizationNeeded",
    "SummarizationScope",
    "Summarizer",
    "SummarizerError",
    "Summary",
    "UsageStatus",
]
