"""The public surface of ctx_lab and each engine package, frozen: adding, removing or renaming a
public name fails here until this file is changed with it — drift is a reviewed change (the way
httpx freezes its API). Every public name also has a docstring."""

from __future__ import annotations

import importlib
import typing
import warnings

import pytest

SURFACE: dict[str, list[str]] = {
    "ctx_lab": [
        "CounterUnavailableError",
        "CtxLabError",
        "ModelLimits",
        "ModelRegistry",
        "ResolvedModelLimits",
        "TokenCounter",
        "UnknownCounterError",
        "UsageError",
        "__version__",
        "count_message",
        "count_tokens",
        "get_counter",
        "get_registry",
        "load_ipython_extension",
        "register_counter",
        "unload_ipython_extension",
    ],
    "ctx_lab.commands": [
        "Command",
        "CounterList",
        "Invocation",
        "Outcome",
        "ParserExit",
        "budget",
        "build",
        "build_parser",
        "command",
        "commands",
        "compress",
        "context",
        "counters",
        "doctor",
        "entries",
        "history",
        "invoke",
        "journal",
        "models",
        "packet",
        "page",
        "read",
        "tokens",
    ],
    "ctx_lab.tokens": [
        "COUNTER_ENTRY_POINTS",
        "DATA_SOURCES",
        "MESSAGE_OVERHEAD",
        "MODEL_COUNTER",
        "MODEL_ESTIMATE",
        "ByteEstimateCounter",
        "CharEstimateCounter",
        "CounterChoice",
        "CounterInfo",
        "CounterList",
        "CounterLike",
        "CountingCache",
        "FileCount",
        "FunctionCounter",
        "TextInput",
        "TiktokenCounter",
        "TokenCounter",
        "TokenReport",
        "available_counters",
        "count_message",
        "count_texts",
        "count_tokens",
        "counter_info",
        "counter_names",
        "counter_status",
        "discover_counters",
        "get_counter",
        "read_text_file",
        "register_counter",
        "resolve_counter",
        "tiktoken_cache_path",
    ],
    "ctx_lab.models": [
        "BUILTIN_MODELS",
        "DEFAULT_LIMITS",
        "MODEL_SOURCE_ENTRY_POINTS",
        "REGISTRY_NAMES",
        "TOKENIZERS",
        "KnownModel",
        "ModelInfo",
        "ModelLimits",
        "ModelList",
        "ModelPrices",
        "ModelRegistry",
        "ModelsDevRegistry",
        "ResolvedModelLimits",
        "describe_model",
        "get_registry",
        "list_models",
        "registry_names",
        "tokenizer_for",
    ],
    "ctx_lab.packet": [
        "CTX_STOP_WORDS",
        "DEFAULT_STOP_WORDS",
        "PROFILES",
        "RELEVANCE_RULES",
        "AllocationRow",
        "Bm25",
        "ContextLocation",
        "ContextNotFound",
        "ContextSettings",
        "CtxPacket",
        "EntriesReport",
        "EntrySummary",
        "LedgerRow",
        "Packet",
        "PacketAssembler",
        "PacketEntry",
        "PacketSteering",
        "ProfileComparison",
        "ProjectContext",
        "Steering",
        "assemble_packet",
        "assembler_for",
        "compare_profiles",
        "diff",
        "extract_keywords",
        "find_context",
        "load_context",
        "matched_keywords",
        "plot_allocation",
        "plot_profiles",
        "plot_sweep",
        "resolve_budget",
        "sweep",
    ],
    "ctx_lab.paging": [
        "ArtifactNotFound",
        "BudgetExhausted",
        "BudgetTable",
        "ContentStore",
        "DirectoryStore",
        "InvalidPageRequest",
        "LineIndex",
        "MemoryStore",
        "PageRequest",
        "PageResult",
        "Pager",
        "PagingBudget",
        "ReaderStore",
        "format_budget",
        "format_page_result",
        "load_budget",
        "save_budget",
    ],
    "ctx_lab.read": [
        "DEFAULT_MAX_CHARS",
        "MAX_CHARS_LIMIT",
        "AccessDenied",
        "CorruptDocument",
        "FetchError",
        "LimitExceeded",
        "ReadError",
        "ReadResult",
        "Reader",
        "UnsupportedContent",
        "read",
    ],
    "ctx_lab.builder": [
        "DEFAULT_BUILD_BUDGET",
        "POLICIES",
        "BlockOutcome",
        "BuildResult",
        "CompressPreview",
        "Compressed",
        "ContentBlock",
        "ContextMemory",
        "ExactContentTooLarge",
        "MemorySource",
        "SkeletonError",
        "apply_policy",
        "build_context",
        "data_skeleton",
        "default_policy",
        "default_priority",
        "plot_blocks",
        "plot_policy_sweep",
        "policy_sweep",
        "preview_compression",
        "python_skeleton",
        "reference",
        "render_prompt",
        "resolve_build_budget",
        "structural",
        "summarize",
        "treesitter_skeleton",
    ],
    "ctx_lab.conversation": [
        "SIMULATION_COLUMNS",
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
        "HistoryReport",
        "Incomplete",
        "JournalBusy",
        "JournalError",
        "JournalReport",
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
        "history_report",
        "inspect_journal",
        "plot_usage",
        "recover_into",
        "simulate",
        "step_clock",
        "stream_into",
    ],
    "ctx_lab.tools": [
        "PAGE_INSTRUCTIONS",
        "READ_INSTRUCTIONS",
        "Toolbox",
        "page_tool",
        "read_tool",
    ],
    "ctx_lab.errors": [
        "HTTP_STATUS",
        "AccessDenied",
        "ArtifactNotFound",
        "BudgetExhausted",
        "ContextBuildError",
        "ContextNotFound",
        "CorruptDocument",
        "CounterUnavailableError",
        "CtxLabError",
        "CursorInvalid",
        "ExactContentTooLarge",
        "FetchError",
        "FileTooLarge",
        "HistoryCorrupted",
        "InputFileError",
        "InvalidPageRequest",
        "JournalBusy",
        "JournalError",
        "LimitExceeded",
        "ModelSourceError",
        "ParserExit",
        "PathOutsideRoot",
        "ReadError",
        "RecentMessagesTooLarge",
        "SkeletonError",
        "SummarizationNeeded",
        "SummarizerError",
        "UnknownCounterError",
        "UnknownRegistryError",
        "UnsupportedContent",
        "UsageError",
        "http_status",
    ],
    "ctx_lab.files": [
        "DEFAULT_MAX_FILE_BYTES",
        "MAX_FILE_BYTES_ENV",
        "SNIFF_BYTES",
        "confine",
        "create_exclusive",
        "decode_text",
        "display_path",
        "entry_kind",
        "is_binary",
        "max_file_bytes",
        "normalize_newlines",
        "read_bytes",
        "read_text",
        "real_path",
        "resolve_root",
        "write_atomic",
    ],
    "ctx_lab.severity": [
        "BAD_AT",
        "SEVERITIES",
        "SEVERITY_COLORS",
        "WARN_AT",
        "Severity",
        "fit_severity",
        "severity",
        "worst",
    ],
    "ctx_lab.validate": [
        "choice",
        "parse_whole_number",
        "savable_text",
        "shown",
        "whole_number",
    ],
    "ctx_lab.token_budget": [
        "BUDGET_ENV",
        "CONFIG_FILES",
        "CTXRC",
        "config_budget",
        "read_ctxrc",
        "resolve_token_budget",
    ],
    "ctx_lab.display": [
        "MIME_PREFIX",
        "PAYLOAD_VERSION",
        "RichResult",
        "escape",
        "html_table",
        "meter_html",
        "mime_type",
        "text_table",
        "warnings_html",
    ],
    "ctx_lab.notebook": [
        "BudgetExplorer",
        "ConversationSimulator",
        "PagerWidget",
        "ReaderWidget",
    ],
}


DEPRECATED = {
    "ctx_lab.read": ["Toolbox", "page_tool", "read_tool"],
    "ctx_lab.token_report": ["TokenReport", "count_texts"],
    "ctx_lab.model_report": ["ModelInfo", "describe_model"],
    "ctx_lab.fileio": ["write_atomic"],
    "ctx_lab.textfile": ["read_text", "decode_text"],
    "ctx_lab.packet": ["Summary"],
}


@pytest.mark.parametrize("module", sorted(SURFACE))
def test_the_public_surface_is_frozen(module: str) -> None:
    assert sorted(importlib.import_module(module).__all__) == sorted(SURFACE[module])


@pytest.mark.parametrize("module", sorted(SURFACE))
def test_every_public_name_exists_and_says_what_it_is(module: str) -> None:
    mod = importlib.import_module(module)
    assert (mod.__doc__ or "").strip(), module
    for name in mod.__all__:
        value = getattr(mod, name)
        if isinstance(value, type) or callable(value):
            if typing.get_origin(value) is not None or type(value).__module__ == "typing":
                continue  # a type alias
            assert (getattr(value, "__doc__", None) or "").strip(), f"{module}.{name}"


@pytest.mark.parametrize(("module", "names"), sorted(DEPRECATED.items()))
def test_moved_names_still_work_and_warn(module: str, names: list[str]) -> None:
    mod = importlib.import_module(module)
    for name in names:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = getattr(mod, name)
        assert value is not None
        assert any(issubclass(w.category, DeprecationWarning) for w in caught), f"{module}.{name}"
        assert name not in getattr(mod, "__all__", ())


def test_history_frame_is_ledger() -> None:
    from ctx_lab.conversation import ContextManager, Message

    manager = ContextManager("gpt-4o", counter="bytes/4")
    manager.push_message(Message.user("hello"))
    with pytest.warns(DeprecationWarning, match="ledger"):
        old = manager.history_frame()
    assert old.equals(manager.ledger())


def test_a_package_is_typed() -> None:
    from pathlib import Path

    import ctx_lab

    assert (Path(ctx_lab.__file__).parent / "py.typed").is_file()
