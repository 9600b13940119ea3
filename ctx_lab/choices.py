"""The fixed choices of ctx_lab's parameters, each a ``Literal`` type declared once: the engines
read their values from it (``typing.get_args``), a command's parameter annotated with it gets
them as its choices — the CLI's ``choices``, the REST and MCP schemas' ``enum``, the lab's
TypeScript union — and type checkers check callers against it."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = [
    "CACHE_CAUSES",
    "CACHE_READINGS",
    "CALIBRATION_METHODS",
    "CLAIMS",
    "CTX08_PROFILE",
    "OTLP_CONTENTS",
    "PACKET_PROFILES",
    "POLICY_KINDS",
    "POLICY_NAMES",
    "RELEVANCE_RULES",
    "ROWS_PER",
    "SHIP_MODES",
    "TRANSCRIPT_FORMATS",
    "CacheCause",
    "CacheReading",
    "CalibrationMethod",
    "Claim",
    "McpTransport",
    "OtlpContent",
    "PacketProfile",
    "PolicyKind",
    "PolicyName",
    "RelevanceRule",
    "RowsPer",
    "ShipMode",
    "TranscriptFormat",
]

# the design doc's packet, or what ctx 0.8.1 sends (packet/_ctx08.py)
PacketProfile = Literal["design", "ctx-0.8"]
# how decisions and learnings are ranked against the query (packet/_relevance.py)
RelevanceRule = Literal["auto", "keywords", "bm25"]
# what a corpus run sends its workers: each item's path, or its bytes
ShipMode = Literal["paths", "bytes"]
# a corpus replay's rows: one per session and model, or per call
RowsPer = Literal["session", "call"]
# how a calibration fits: per call, by growth between calls, or chosen per transcript
CalibrationMethod = Literal["auto", "ratio", "growth"]
# which cache entries a request can read (recordings/cache/_cache_engine.py): only whole entries
# that end at or within the lookback before one of its breakpoints, or any shared prefix
CacheReading = Literal["breakpoints", "prefix"]
# how a figure was made (ctx_lab/claims.py): from the recording's usage, by rules applied to
# billed sizes, counted or calibrated (with a band), or a counterfactual with the agent's actions
# held to the recorded ones
Claim = Literal["billed", "simulated", "estimated", "open-loop"]
# the recorded-session formats ctx_lab reads (recordings/transcripts: one reader each)
TranscriptFormat = Literal[
    "claude-code",
    "codex",
    "gemini-cli",
    "openai-chat",
    "openai-responses",
    "anthropic-messages",
    "cline",
    "pi",
    "otlp",
]
# why a call read less from the prompt cache than was cached before (the one cache engine,
# recordings/cache/_cache_engine.py, names each with a reason)
CacheCause = Literal[
    "model switched",
    "compaction",
    "lifetime expired",
    "prefix below the minimum",
    "tools changed",
    "system prompt changed",
    "message modified",
    "system-prompt tail re-rendered",
    "turn start",
    "beyond the lookback",
    "several entries",
    "routing (best effort)",
]
# the built-in context policies (recordings/policies/_policy_specs.POLICIES: one spec each) and the
# rules they apply (recordings/policies/_policy_kinds.KINDS: one row each)
PolicyName = Literal[
    "recorded",
    "none",
    "claude-code",
    "summary",
    "clear-tool-uses",
    "clear-thinking",
    "observation-masking",
    "sliding-window",
    "codex",
    "ctx-lab",
]
PolicyKind = Literal[
    "recorded", "none", "compact", "ctx-lab", "clear-tool-uses", "clear-thinking", "mask",
    "sliding-window",
]  # fmt: skip
# how the MCP server talks to its client
McpTransport = Literal["stdio", "http"]
# what each span of an OTLP export carries of the messages (anatomy/_otlp.py): only what is new
# since the span it links to (each message once), the GenAI conventions' whole input per span, or
# no content (usage and composition only)
OtlpContent = Literal["delta", "full", "none"]

PACKET_PROFILES: tuple[str, ...] = get_args(PacketProfile)
CTX08_PROFILE = PACKET_PROFILES[1]  # packet/_ctx08.py, imported only when asked for
RELEVANCE_RULES: tuple[str, ...] = get_args(RelevanceRule)
SHIP_MODES: tuple[str, ...] = get_args(ShipMode)
ROWS_PER: tuple[str, ...] = get_args(RowsPer)
CALIBRATION_METHODS: tuple[str, ...] = get_args(CalibrationMethod)
CACHE_READINGS: tuple[str, ...] = get_args(CacheReading)
CLAIMS: tuple[str, ...] = get_args(Claim)
TRANSCRIPT_FORMATS: tuple[str, ...] = get_args(TranscriptFormat)
CACHE_CAUSES: tuple[str, ...] = get_args(CacheCause)
OTLP_CONTENTS: tuple[str, ...] = get_args(OtlpContent)
POLICY_NAMES: tuple[str, ...] = get_args(PolicyName)
POLICY_KINDS: tuple[str, ...] = get_args(PolicyKind)
