"""The fixed choices of ctx_lab's parameters, each a ``Literal`` type declared once: the engines
read their values from it (``typing.get_args``), a command's parameter annotated with it gets
them as its choices — the CLI's ``choices``, the REST and MCP schemas' ``enum``, the lab's
TypeScript union — and type checkers check callers against it."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = [
    "CACHE_READINGS",
    "CALIBRATION_METHODS",
    "CLAIMS",
    "CTX08_PROFILE",
    "PACKET_PROFILES",
    "RELEVANCE_RULES",
    "ROWS_PER",
    "SHIP_MODES",
    "CacheReading",
    "CalibrationMethod",
    "Claim",
    "McpTransport",
    "PacketProfile",
    "RelevanceRule",
    "RowsPer",
    "ShipMode",
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
# which cache entries a request can read (conversation/_cache_engine.py): only whole entries
# that end at or within the lookback before one of its breakpoints, or any shared prefix
CacheReading = Literal["breakpoints", "prefix"]
# how a figure was made (ctx_lab/claims.py): from the recording's usage, by rules applied to
# billed sizes, counted or calibrated (with a band), or a counterfactual with the agent's actions
# held to the recorded ones
Claim = Literal["billed", "simulated", "estimated", "open-loop"]
# how the MCP server talks to its client
McpTransport = Literal["stdio", "http"]

PACKET_PROFILES: tuple[str, ...] = get_args(PacketProfile)
CTX08_PROFILE = PACKET_PROFILES[1]  # packet/_ctx08.py, imported only when asked for
RELEVANCE_RULES: tuple[str, ...] = get_args(RelevanceRule)
SHIP_MODES: tuple[str, ...] = get_args(ShipMode)
ROWS_PER: tuple[str, ...] = get_args(RowsPer)
CALIBRATION_METHODS: tuple[str, ...] = get_args(CalibrationMethod)
CACHE_READINGS: tuple[str, ...] = get_args(CacheReading)
CLAIMS: tuple[str, ...] = get_args(Claim)
