"""Conversation context management: append-only history, summaries, model limits, the working
context — and the crash-safe journals of the same design."""

from ._agents import AGENTS, GEMINI_CLI_COMPRESSION, AgentRule, agent_point, agent_rule
from ._cache import hidden_prefix, simulate_cache
from ._cache_engine import CAUSES as CACHE_CAUSES
from ._cache_engine import CacheEngine, CacheOutcome, CacheRequest
from ._cache_report import CacheReport, plot_cache
from ._calibrate import calibrate
from ._calibration_eval import CalibrationEvaluation, evaluate_calibration
from ._delta import content_class, mine_growth, thinking_sent
from ._growth_fit import fit_classes
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
from ._policy_lab import ContextPolicy, run_policies
from ._policy_report import PoliciesReport, PolicyResult, plot_policies
from ._policy_session import peak_input
from ._policy_specs import (
    POLICIES,
    PolicySpec,
    agent_registry,
    claude_code_registry,
    claude_code_reserve,
    claude_code_window,
    parse_policy,
)
from ._probes import Probe, mine_probes
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
    "AGENTS",
    "CACHE_CAUSES",
    "GEMINI_CLI_COMPRESSION",
    "POLICIES",
    "REPLAY_COLUMNS",
    "SIMULATION_COLUMNS",
    "SUMMARY_PREFIX",
    "ActiveJournal",
    "AgentRule",
    "AnthropicSummarizer",
    "CacheEngine",
    "CacheOutcome",
    "CacheReport",
    "CacheRequest",
    "CalibrationEvaluation",
    "Call",
    "ChatCompletionsSummarizer",
    "Complete",
    "ContextManager",
    "ContextPolicy",
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
    "PoliciesReport",
    "PolicyResult",
    "PolicySpec",
    "PreparedContext",
    "Probe",
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
    "agent_point",
    "agent_registry",
    "agent_rule",
    "calibrate",
    "claude_code_registry",
    "claude_code_reserve",
    "claude_code_window",
    "connect",
    "connect_readonly",
    "content_class",
    "describe_adaptation",
    "evaluate_calibration",
    "fit_classes",
    "hidden_prefix",
    "history_report",
    "inspect_journal",
    "load_transcript",
    "mine_growth",
    "mine_probes",
    "parse_policy",
    "peak_input",
    "plot_cache",
    "plot_policies",
    "plot_replay",
    "plot_usage",
    "recover_into",
    "replay",
    "replay_report",
    "run_policies",
    "simulate",
    "simulate_cache",
    "step_clock",
    "stream_into",
    "summarize_now",
    "thinking_sent",
]
