"""Conversation context management: append-only history, summaries, model limits, the working
context — and the crash-safe journals of the same design. Recorded sessions (transcripts,
replay, the cache engine, policies, probes, calibration) are :mod:`ctx_lab.recordings`."""

from ._history import FullHistory, HistoryEntry, Summary
from ._journal import (
    ActiveJournal,
    Complete,
    Errored,
    Incomplete,
    JournalStats,
    StreamJournal,
    connect,
    connect_readonly,
)
from ._manager import (
    SUMMARY_PREFIX,
    ContextManager,
    Expanding,
    NoChange,
    PendingSummarization,
    PreparedContext,
    Segment,
    Shrinking,
    SummarizationScope,
    UsageStatus,
)
from ._messages import Message
from ._recovery import JournalReport, RecoveryReport, inspect_journal, recover_into, stream_into
from ._report import HistoryReport, history_report
from ._simulate import (
    SIMULATION_COLUMNS,
    describe_adaptation,
    plot_usage,
    simulate,
    step_clock,
    summarize_now,
)
from ._summarizers import (
    AnthropicSummarizer,
    ChatCompletionsSummarizer,
    ExtractiveSummarizer,
    Summarizer,
)
from ._tool_journal import RecoveredToolBatch, ToolCall, ToolJournal, ToolResult
from ._usage import ContextUsage

__all__ = [
    "SIMULATION_COLUMNS",
    "SUMMARY_PREFIX",
    "ActiveJournal",
    "AnthropicSummarizer",
    "ChatCompletionsSummarizer",
    "Complete",
    "ContextManager",
    "ContextUsage",
    "Errored",
    "Expanding",
    "ExtractiveSummarizer",
    "FullHistory",
    "HistoryEntry",
    "HistoryReport",
    "Incomplete",
    "JournalReport",
    "JournalStats",
    "Message",
    "NoChange",
    "PendingSummarization",
    "PreparedContext",
    "RecoveredToolBatch",
    "RecoveryReport",
    "Segment",
    "Shrinking",
    "StreamJournal",
    "SummarizationScope",
    "Summarizer",
    "Summary",
    "ToolCall",
    "ToolJournal",
    "ToolResult",
    "UsageStatus",
    "connect",
    "connect_readonly",
    "describe_adaptation",
    "history_report",
    "inspect_journal",
    "plot_usage",
    "recover_into",
    "simulate",
    "step_clock",
    "stream_into",
    "summarize_now",
]
