"""The paging quota: pages and tokens per task, and what has been used of them."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..display import RichResult, html_table, meter_html
from ..errors import CtxLabError, UsageError
from ..limits import DEFAULT_MAX_PAGES, DEFAULT_MAX_TOKENS
from ..severity import SEVERITIES, Severity, severity, worst
from ..validate import whole_number
from ..wire import derived, from_wire, wire

__all__ = ["PagingBudget", "budget_html", "format_budget"]


@dataclass(kw_only=True)
class PagingBudget(RichResult):
    """A per-task paging quota and what has been used of it."""

    max_pages: int = field(default=DEFAULT_MAX_PAGES, metadata=wire(minimum=0))
    max_tokens: int = field(default=DEFAULT_MAX_TOKENS, metadata=wire(minimum=0))
    pages_used: int = field(default=0, metadata=wire(minimum=0))
    tokens_used: int = field(default=0, metadata=wire(minimum=0))
    budget_id: str | None = field(
        default=None,
        compare=False,
        metadata=wire("the quota's id on a server (pass it back to spend from it)", omit_none=True),
    )
    lock: threading.RLock = field(
        default_factory=threading.RLock,
        init=False,
        repr=False,
        compare=False,
        metadata=wire(exclude=True),
    )

    payload_kind = "budget"

    def __post_init__(self) -> None:
        for name in ("max_pages", "max_tokens", "pages_used", "tokens_used"):
            whole_number(getattr(self, name), name)

    @classmethod
    def create(cls, max_pages: int | None = None, max_tokens: int | None = None) -> PagingBudget:
        """A fresh budget; a limit left ``None`` takes its default (10 pages, 8000 tokens)."""
        return cls(
            max_pages=DEFAULT_MAX_PAGES if max_pages is None else max_pages,
            max_tokens=DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens,
        )

    def can_page(self) -> bool:
        """True while both pages and tokens remain."""
        return self.pages_used < self.max_pages and self.tokens_used < self.max_tokens

    def record(self, tokens: int) -> None:
        """Charge one page of ``tokens`` tokens."""
        with self.lock:
            self.pages_used += 1
            self.tokens_used += whole_number(tokens, "tokens")

    def remaining(self) -> tuple[int, int]:
        """``(pages, tokens)`` still available (never negative)."""
        return (
            max(self.max_pages - self.pages_used, 0),
            max(self.max_tokens - self.tokens_used, 0),
        )

    @derived({"type": "integer", "minimum": 0})
    def pages_remaining(self) -> int:
        """Pages still available (never negative)."""
        return self.remaining()[0]

    @derived({"type": "integer", "minimum": 0})
    def tokens_remaining(self) -> int:
        """Tokens still available (never negative)."""
        return self.remaining()[1]

    @derived(
        {"type": "string", "enum": list(SEVERITIES)},
        "how full the meter is (ctx_lab.severity): renderers only read this",
    )
    def severity(self) -> Severity:
        """How full the quota is: the worse of pages and tokens (:func:`ctx_lab.severity`)."""
        return worst(
            severity(self.pages_used, self.max_pages), severity(self.tokens_used, self.max_tokens)
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PagingBudget:
        """Restore a budget saved with :meth:`to_dict` (remaining counts are derived)."""
        if not isinstance(data, Mapping):
            raise CtxLabError(f"not a paging budget: expected an object, got {type(data).__name__}")
        # the declaration's decoding, with its refusals said as a paging budget's
        for required in ("max_pages", "max_tokens"):
            if required not in data:
                raise CtxLabError(f"not a paging budget: {required!r} is missing")
        try:
            return from_wire(cls, data)
        except UsageError as exc:  # Infinity, 1e999, "10", -1 …
            raise CtxLabError(f"not a paging budget: {exc}") from None

    def to_text(self) -> str:
        """:func:`format_budget`."""
        return format_budget(self)

    def html_body(self) -> str:
        """A table and a meter."""
        return budget_html(self)


def format_budget(budget: PagingBudget) -> str:
    """A small table: max pages and tokens, used, remaining."""
    pages, tokens = budget.remaining()
    return "\n".join(
        [
            "            pages  tokens",
            f"max         {budget.max_pages:5}  {budget.max_tokens:6}",
            f"used        {budget.pages_used:5}  {budget.tokens_used:6}",
            f"remaining   {pages:5}  {tokens:6}",
        ]
    )


def budget_html(budget: PagingBudget) -> str:
    """The budget as HTML: a meter coloured by its severity and a table."""
    pages, tokens = budget.remaining()
    meter = meter_html(budget.tokens_used, budget.max_tokens, budget.severity())
    table = html_table(
        ["", "pages", "tokens"],
        [
            ["max", budget.max_pages, budget.max_tokens],
            ["used", budget.pages_used, budget.tokens_used],
            ["remaining", pages, tokens],
        ],
        numeric=(1, 2),
    )
    return f"<h4>Paging budget</h4>{meter}{table}"
