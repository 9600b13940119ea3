"""Where one page's paging budget comes from, chosen once (:func:`budget_source`)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from ._budget import PagingBudget
from ._stores import BudgetTable

__all__ = ["BROWSE_PAGES", "BROWSE_TOKENS", "BudgetSource", "budget_source"]

BROWSE_PAGES = 10**9  # browse mode: a person reads, the agent quota does not apply
BROWSE_TOKENS = 10**12


@dataclass(frozen=True)
class BudgetSource:
    """Where one page's paging budget comes from: ``browse`` (a person reading: nothing is
    charged or kept), ``kept`` (the caller's), ``server`` (a server's, by id), ``state`` (the
    file of ``--state``, loaded when the page runs) or ``fresh``."""

    kind: Literal["browse", "kept", "server", "state", "fresh"]
    budget: PagingBudget | None = None
    budget_id: str | None = None


def budget_source(
    browse: bool,
    kept: PagingBudget | None,
    budgets: BudgetTable | None,
    budget_id: str | None,
    state: str | os.PathLike[str] | None,
    max_pages: int | None,
    max_tokens: int | None,
) -> BudgetSource:
    """The paging budget a page spends from, chosen once."""
    if browse:
        return BudgetSource("browse", PagingBudget.create(BROWSE_PAGES, BROWSE_TOKENS))
    if kept is not None:
        return BudgetSource("kept", kept, budget_id)
    if budgets is not None:
        found_id, found = budgets.obtain(budget_id, max_pages, max_tokens)
        return BudgetSource("server", found, found_id)
    if state:
        return BudgetSource("state", None, budget_id)
    return BudgetSource("fresh", None, budget_id)
