"""Notebook adapters (need the ``notebook`` extra): the ``%ctx`` magic and the widgets.

``from ctx_lab.notebook import BudgetExplorer`` loads ipywidgets only when asked.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BudgetExplorer"]


def __getattr__(name: str) -> Any:
    if name == "BudgetExplorer":
        from .explorer import BudgetExplorer

        return BudgetExplorer
    raise AttributeError(f"module 'ctx_lab.notebook' has no attribute {name!r}")
