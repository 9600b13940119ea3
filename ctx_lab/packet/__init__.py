"""The context packet engine: load ``.context/``, score entries, assemble within a budget.

>>> from ctx_lab.packet import load_context, assemble_packet
>>> packet = assemble_packet(load_context("."), budget=2000)      # doctest: +SKIP
"""

from typing import TYPE_CHECKING

from .._lazy import exports

if TYPE_CHECKING:
    from ._agents import kiro_specs
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

# where each public name lives: imported on first use (ctx_lab._lazy)
_WHERE = {
    "kiro_specs": "._agents",
    "ProfileComparison": "._analysis",
    "compare_profiles": "._analysis",
    "diff": "._analysis",
    "sweep": "._analysis",
    "sweep_rows": "._analysis",
    "PROFILES": "._assemble",
    "RELEVANCE_RULES": "._assemble",
    "PacketAssembler": "._assemble",
    "resolve_budget": "._assemble",
    "ContextSettings": "._context",
    "ProjectContext": "._context",
    "load_context": "._context",
    "CountedAssembler": "._counted",
    "assemble_packet": "._counted",
    "assembler_for": "._counted",
    "packet_counter": "._counted",
    "with_counter": "._counted",
    "CTX08_RULES": "._ctx08:RULES",
    "CtxPacket": "._ctx08",
    "EntriesReport": "._entries",
    "context_files": "._folder",
    "SECTION_LABELS": "._layout",
    "SECTION_TITLES": "._layout",
    "ContextLocation": "._locate",
    "find_context": "._locate",
    "Steering": "._markdown",
    "strip_comments": "._markdown",
    "AllocationRow": "._packet",
    "EntrySummary": "._packet",
    "LedgerRow": "._packet",
    "Packet": "._packet",
    "PacketEntry": "._packet",
    "PacketSteering": "._packet",
    "plot_allocation": "._plots",
    "plot_profiles": "._plots",
    "plot_sweep": "._plots",
    "CTX_STOP_WORDS": "._scoring",
    "DEFAULT_STOP_WORDS": "._scoring",
    "Bm25": "._scoring",
    "extract_keywords": "._scoring",
    "matched_keywords": "._scoring",
    "term_counts": "._scoring",
    "words": "._scoring",
    "context_snapshot": "._snapshot",
}
__getattr__, __dir__ = exports(__name__, _WHERE)

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
    "kiro_specs",
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
