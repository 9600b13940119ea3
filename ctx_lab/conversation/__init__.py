"""Conversation context management: append-only history, summaries, model limits, the working
context — and the crash-safe journals of the same design."""

from ._cache import simulate_cache
from ._cache_report import CacheReport, plot_cache
from ._calibrate import calibrate
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
from ._replay import REPLAY_COLUMNS, ReplayReport, plot_replay, replay, replay_report
from ._replay_model import ReplaySettings
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
from .transcripts import Call, Transcript, Usage, load_transcript

__all__ = [
    "REPLAY_COLUMNS",
    "SIMULATION_COLUMNS",
    "SUMMARY_PREFIX",
    "ActiveJournal",
    "AnthropicSummarizer",
    "CacheReport",
    "Call",
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
    "ReplayReport",
    "ReplaySettings",
    "Segment",
    "Shrinking",
    "StreamJournal",
    "SummarizationScope",
    "Summarizer",
    "Summary",
    "ToolCall",
    "ToolJournal",
    "ToolResult",
    "Transcript",
    "Usage",
    "UsageStatus",
    "calibrate",
    "connect",
    "connect_readonly",
    "describe_adaptation",
    "history_report",
    "inspect_journal",
    "load_transcript",
    "plot_cache",
    "plot_replay",
    "plot_usage",
    "recover_into",
    "replay",
    "replay_report",
    "simulate",
    "simulate_cache",
    "step_clock",
    "stream_into",
    "summarize_now",
]
