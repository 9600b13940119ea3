"""The context packet engine: load ``.context/``, score entries, assemble within a budget.

>>> from ctx_lab.packet import load_context, assemble_packet
>>> packet = assemble_packet(load_context("."), budget=2000)      # doctest: +SKIP
"""

from .analysis import diff, sweep
from .assemble import PacketAssembler, assemble_packet, resolve_budget
from .context import ContextNotFound, ContextSettings, ProjectContext, load_context
from .entries import EntriesReport
from .packet import AllocationRow, LedgerRow, Packet, PacketEntry, Summary
from .plots import plot_allocation, plot_sweep
from .scoring import CTX_STOP_WORDS, DEFAULT_STOP_WORDS, extract_keywords, matched_keywords

__all__ = [
    "CTX_STOP_WORDS",
    "DEFAULT_STOP_WORDS",
    "AllocationRow",
    "ContextNotFound",
    "ContextSettings",
    "EntriesReport",
    "LedgerRow",
    "Packet",
    "PacketAssembler",
    "PacketEntry",
    "ProjectContext",
    "Summary",
    "assemble_packet",
    "diff",
    "extract_keywords",
    "load_context",
    "matched_keywords",
    "plot_allocation",
    "plot_sweep",
    "resolve_budget",
    "sweep",
]
