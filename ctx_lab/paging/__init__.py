"""Paging: line ranges of stored artifacts under a per-task paging budget of pages and tokens.

:class:`Pager` pages a :class:`ContentStore` (:class:`MemoryStore`, :class:`DirectoryStore`,
:class:`ReaderStore` for anything the reader reads) under a :class:`PagingBudget`; budgets are
kept between calls in a state file (:func:`load_budget`/:func:`save_budget`) or a
:class:`BudgetTable`; :func:`budget_source` chooses a page's budget once. Dependencies run
one way: paging → read.
"""

from __future__ import annotations

from ._budget import PagingBudget, format_budget
from ._pager import LineIndex, Pager, PageRequest, PageResult, format_page_result
from ._source import BROWSE_PAGES, BROWSE_TOKENS, BudgetSource, budget_source
from ._stores import (
    BudgetTable,
    ContentStore,
    DirectoryStore,
    MemoryStore,
    ReaderStore,
    load_budget,
    save_budget,
)

__all__ = [
    "BROWSE_PAGES",
    "BROWSE_TOKENS",
    "BudgetSource",
    "BudgetTable",
    "ContentStore",
    "DirectoryStore",
    "LineIndex",
    "MemoryStore",
    "PageRequest",
    "PageResult",
    "Pager",
    "PagingBudget",
    "ReaderStore",
    "budget_source",
    "format_budget",
    "format_page_result",
    "load_budget",
    "save_budget",
]
