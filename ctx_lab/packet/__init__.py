"""The context packet engine: load ``.context/``, score entries, assemble within a budget.

>>> from ctx_lab.packet import load_context, assemble_packet
>>> packet = assemble_packet(load_context("."), budget=2000)      # doctest: +SKIP
"""

from ._locate import ContextLocation, find_context
from .analysis import ProfileComparison, compare_profiles, diff, sweep
from .assemble import (
    PROFILES,
    RELEVANCE_RULES,
    PacketAssembler,
    assemble_packet,
    assembler_for,
    resolve_budget,
)
from .context import ContextSettings, ProjectContext, context_snapshot, load_context
from .ctx08 import CtxPacket
from .entries import EntriesReport
from .markdown import Steering
from .packet import AllocationRow, EntrySummary, LedgerRow, Packet, PacketEntry, PacketSteering
from .plots import plot_allocation, plot_profiles, plot_sweep
from .scoring import CTX_STOP_WORDS, DEFAULT_STOP_WORDS, Bm25, extract_keywords, matched_keywords

__all__ = [
    "CTX_STOP_WORDS",
    "DEFAULT_STOP_WORDS",
    "PROFILES",
    "RELEVANCE_RULES",
    "AllocationRow",
    "Bm25",
    "ContextLocation",
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
    "context_snapshot",
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
]
