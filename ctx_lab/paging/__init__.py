"""Paging: line ranges of stored artifacts under a per-task quota of pages and tokens.

:class:`Pager` pages a :class:`ContentStore` (:class:`MemoryStore`, :class:`DirectoryStore`,
:class:`ReaderStore` for anything the reader reads) under a :class:`PagingBudget`; budgets are
kept between calls in a state file (:func:`load_budget`/:func:`save_budget`) or a
:class:`BudgetTable`. Dependencies run one way: tools → paging → read.
"""

from __future__ import annotations

from ._budget import PagingBudget, format_budget
from ._pager import LineIndex, Pager, PageRequest, PageResult, format_page_result
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
    "format_budget",
    "format_page_result",
    "load_budget",
    "save_budget",
]
