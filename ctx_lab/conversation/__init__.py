"""Conversation context management: append-only history, summaries, model limits, the working
context — and the crash-safe journals of the same design. Recorded sessions (transcripts,
replay, the cache engine, policies, probes, calibration) are :mod:`ctx_lab.recordings`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import exports

if TYPE_CHECKING:
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

# where each public name lives: imported on first use (ctx_lab._lazy)
_WHERE = {
    "FullHistory": "._history",
    "HistoryEntry": "._history",
    "Summary": "._history",
    "ActiveJournal": "._journal",
    "Complete": "._journal",
    "Errored": "._journal",
    "Incomplete": "._journal",
    "JournalStats": "._journal",
    "StreamJournal": "._journal",
    "connect": "._journal",
    "connect_readonly": "._journal",
    "SUMMARY_PREFIX": "._manager",
    "ContextManager": "._manager",
    "Expanding": "._manager",
    "NoChange": "._manager",
    "PendingSummarization": "._manager",
    "PreparedContext": "._manager",
    "Segment": "._manager",
    "Shrinking": "._manager",
    "SummarizationScope": "._manager",
    "UsageStatus": "._manager",
    "Message": "._messages",
    "JournalReport": "._recovery",
    "RecoveryReport": "._recovery",
    "inspect_journal": "._recovery",
    "recover_into": "._recovery",
    "stream_into": "._recovery",
    "HistoryReport": "._report",
    "history_report": "._report",
    "SIMULATION_COLUMNS": "._simulate",
    "describe_adaptation": "._simulate",
    "plot_usage": "._simulate",
    "simulate": "._simulate",
    "step_clock": "._simulate",
    "summarize_now": "._simulate",
    "AnthropicSummarizer": "._summarizers",
    "ChatCompletionsSummarizer": "._summarizers",
    "ExtractiveSummarizer": "._summarizers",
    "Summarizer": "._summarizers",
    "RecoveredToolBatch": "._tool_journal",
    "ToolCall": "._tool_journal",
    "ToolJournal": "._tool_journal",
    "ToolResult": "._tool_journal",
    "ContextUsage": "._usage",
}
__getattr__, __dir__ = exports(__name__, _WHERE)

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
