"""Notebook adapters (need the ``notebook`` extra): the ``%ctx`` magic and the widgets.

``from ctx_lab.notebook import BudgetExplorer`` (or ``PagerWidget``, ``ReaderWidget``) loads
ipywidgets only when asked.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "BudgetExplorer",
    "ConversationSimulator",
    "PagerWidget",
    "ReaderWidget",
    "load_ipython_extension",
]


def __getattr__(name: str) -> Any:
    if name == "load_ipython_extension":  # %load_ext ctx_lab: the %ctx magic
        from ._magics import load_ipython_extension

        return load_ipython_extension
    if name == "BudgetExplorer":
        from ._explorer import BudgetExplorer

        return BudgetExplorer
    if name == "ConversationSimulator":
        from ._conversation_widgets import ConversationSimulator

        return ConversationSimulator
    if name in ("PagerWidget", "ReaderWidget"):
        from . import _paging_widgets as paging_widgets

        return getattr(paging_widgets, name)
    raise AttributeError(f"module 'ctx_lab.notebook' has no attribute {name!r}")
