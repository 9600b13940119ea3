"""Conversation context management: append-only history, summaries, model limits, the working
context — and the crash-safe journals of the same design."""

from .history import FullHistory, HistoryCorrupted, HistoryEntry, Summary
from .journal import (
    ActiveJournal,
    Complete,
    Errored,
    Incomplete,
    JournalBusy,
    JournalError,
    JournalStats,
    StreamJournal,
)
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
from .recovery import RecoveryReport, recover_into, stream_into
from .summarizers import (
    AnthropicSummarizer,
    ChatCompletionsSummarizer,
    ExtractiveSummarizer,
    Summarizer,
    SummarizerError,
)
from .tool_journal import RecoveredToolBatch, ToolCall, ToolJournal, ToolResult
from .usage import ContextUsage

__all__ = [
    "SUMMARY_PREFIX",
    "ActiveJournal",
    "AnthropicSummarizer",
    "ChatCompletionsSummarizer",
    "Complete",
    "ContextBuildError",
    "ContextManager",
    "ContextUsage",
    "Errored",
    "Expanding",
    "ExtractiveSummarizer",
    "FullHistory",
    "HistoryCorrupted",
    "HistoryEntry",
    "Incomplete",
    "JournalBusy",
    "JournalError",
    "JournalStats",
    "Message",
    "NoChange",
    "PendingSummarization",
    "PreparedContext",
    "RecentMessagesTooLarge",
    "RecoveredToolBatch",
    "RecoveryReport",
    "Segment",
    "Shrinking",
    "StreamJournal",
    "SummarizationNeeded",
    "SummarizationScope",
    "Summarizer",
    "SummarizerError",
    "Summary",
    "ToolCall",
    "ToolJournal",
    "ToolResult",
    "UsageStatus",
    "recover_into",
    "stream_into",
]
