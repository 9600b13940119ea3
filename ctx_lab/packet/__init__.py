"""The context packet engine: load ``.context/``, score entries, assemble within a budget.

>>> from ctx_lab.packet import load_context, assemble_packet
>>> packet = assemble_packet(load_context("."), budget=2000)      # doctest: +SKIP
"""

from ._analysis import ProfileComparison, compare_profiles, diff, sweep, sweep_rows
from ._assemble import PROFILES, RELEVANCE_RULES, PacketAssembler, resolve_budget
from ._context import ContextSettings, ProjectContext, load_context
from ._counted import (
    CountedAssembler,
    assemble_packet,
    assembler_for,
    packet_counter,
    with_counter,
)
from ._ctx08 import RULES as CTX08_RULES
from ._ctx08 import CtxPacket
from ._entries import EntriesReport
from ._folder import context_files
from ._layout import SECTION_LABELS, SECTION_TITLES
from ._locate import ContextLocation, find_context
from ._markdown import Steering, strip_comments
from ._packet import AllocationRow, EntrySummary, LedgerRow, Packet, PacketEntry, PacketSteering
from ._plots import plot_allocation, plot_profiles, plot_sweep
from ._scoring import (
    CTX_STOP_WORDS,
    DEFAULT_STOP_WORDS,
    Bm25,
    extract_keywords,
    matched_keywords,
    term_counts,
    words,
)
from ._snapshot import context_snapshot

__all__ = [
    "CTX08_RULES",
    "CTX_STOP_WORDS",
    "DEFAULT_STOP_WORDS",
    "PROFILES",
    "RELEVANCE_RULES",
    "SECTION_LABELS",
    "SECTION_TITLES",
    "AllocationRow",
    "Bm25",
    "ContextLocation",
    "ContextSettings",
    "CountedAssembler",
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
    "context_files",
    "context_snapshot",
    "diff",
    "extract_keywords",
    "find_context",
    "load_context",
    "matched_keywords",
    "packet_counter",
    "plot_allocation",
    "plot_profiles",
    "plot_sweep",
    "resolve_budget",
    "strip_comments",
    "sweep",
    "sweep_rows",
    "term_counts",
    "with_counter",
    "words",
]
