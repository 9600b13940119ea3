"""The context packet engine: load ``.context/``, score entries, assemble within a budget.

>>> from ctx_lab.packet import load_context, assemble_packet
>>> packet = assemble_packet(load_context("."), budget=2000)      # doctest: +SKIP
"""

from ._analysis import ProfileComparison, compare_profiles, diff, sweep
from ._assemble import (
    PROFILES,
    RELEVANCE_RULES,
    PacketAssembler,
    assemble_packet,
    assembler_for,
    resolve_budget,
)
from ._context import ContextSettings, ProjectContext, load_context
from ._ctx08 import RULES as CTX08_RULES
from ._ctx08 import CtxPacket
from ._entries import EntriesReport
from ._locate import ContextLocation, find_context
from ._markdown import Steering
from ._packet import AllocationRow, EntrySummary, LedgerRow, Packet, PacketEntry, PacketSteering
from ._plots import plot_allocation, plot_profiles, plot_sweep
from ._scoring import CTX_STOP_WORDS, DEFAULT_STOP_WORDS, Bm25, extract_keywords, matched_keywords
from ._snapshot import context_snapshot

__all__ = [
    "CTX08_RULES",
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
