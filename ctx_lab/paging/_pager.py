"""Paging: fetch line ranges of stored artifacts under a per-task page and token quota
(design: paging-tool.md, refined by the paging issue).

``Pager.page`` checks the budget, fetches, slices whole lines, counts and records. The token
quota is never overshot: a slice that costs more than what is left is cut to the longest run of
whole lines that fits (``truncated``, ``next_start_line``); invalid requests and unknown
artifacts cost nothing.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from ..display import RichResult, escape
from ..errors import BudgetExhausted, InvalidPageRequest
from ..tokens import CounterLike, TokenCounter, get_counter
from ..wire import json_schema, nullable, wire
from ._budget import PagingBudget, budget_html
from ._lines import LineIndex
from ._stores import ContentStore

__all__ = ["LineIndex", "PageRequest", "PageResult", "Pager", "format_page_result"]


@dataclass(frozen=True)
class PageRequest:
    """Lines ``start_line``…``end_line`` (1-based, inclusive; ``end_line=0`` = to the end)."""

    artifact_id: str
    start_line: int = 1
    end_line: int = 0

    def __post_init__(self) -> None:
        for name in ("start_line", "end_line"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidPageRequest(f"{name} must be an integer, got {value!r}")
        if self.start_line < 1:
            raise InvalidPageRequest(f"start_line must be ≥ 1, got {self.start_line}")
        if self.end_line < 0:
            raise InvalidPageRequest(f"end_line must be ≥ 0 (0 = to the end), got {self.end_line}")
        if self.end_line and self.start_line > self.end_line:
            raise InvalidPageRequest(
                f"start_line {self.start_line} is after end_line {self.end_line}"
            )


@dataclass(frozen=True, kw_only=True)
class PageResult(RichResult):
    """One page: the lines returned, their token cost and where they sit in the artifact."""

    artifact_id: str
    content: str
    lines: int = field(metadata=wire(minimum=0))
    tokens: int = field(metadata=wire(minimum=0))
    start_line: int = field(metadata=wire(minimum=0))
    end_line: int = field(metadata=wire(minimum=0))
    total_lines: int = field(metadata=wire(minimum=0))
    truncated: bool = False
    next_start_line: int | None = None
    budget: dict[str, Any] | None = field(
        default=None,
        metadata=wire(
            "the quota after this page", schema=lambda: nullable(json_schema(PagingBudget))
        ),
    )
    counter: str = "bytes/4"
    warnings: tuple[str, ...] = field(default=(), metadata=wire(exclude=True))
    budget_id: str | None = field(
        default=None, metadata=wire("the server's paging budget id", omit_none=True)
    )
    counter_requested: str | None = field(
        default=None,
        metadata=wire("the counter asked for: a name, or model (the model's own tokenizer)"),
    )
    exact: bool | None = field(
        default=None, metadata=wire("whether counter is a real tokenizer (false: an estimate)")
    )

    payload_kind = "page"

    def __post_init__(self) -> None:
        if self.counter_requested is None:  # nothing asked for: the counter that counted
            object.__setattr__(self, "counter_requested", self.counter)

    def to_text(self) -> str:
        """:func:`format_page_result`."""
        return format_page_result(self)

    def html_body(self) -> str:
        """Line-numbered content, position in the artifact and the budget meter."""
        rows = "".join(
            f'<tr><td class="num ctx-muted">{number}</td><td><code>{escape(line)}</code></td></tr>'
            for number, line in enumerate(self.content.split("\n"), self.start_line)
        )
        view = (
            f'<table data-ctx-lines style="font-family:monospace">{rows}</table>'
            if self.lines
            else ""
        )
        more = (
            f' <span class="ctx-warn" data-ctx-truncated>truncated by the token quota; '
            f"continue at line {self.next_start_line}</span>"
            if self.truncated
            else ""
        )
        shown = page_range(self).replace("-", "–", 1) if self.lines else page_range(self)
        head = (
            f"<h4 data-ctx-page>{escape(self.artifact_id)} — {escape(shown)} "
            f"({self.tokens} tokens){more}</h4>"
        )
        budget = budget_html(PagingBudget.from_dict(self.budget)) if self.budget else ""
        return head + view + budget


def page_range(result: PageResult) -> str:
    """``lines A-B of N`` — or, for a request past the last line, that it is past the end
    (never a range that runs backwards)."""
    if result.start_line > result.total_lines:
        return f"nothing at line {result.start_line}: past the end ({result.total_lines} lines)"
    return f"lines {result.start_line}-{result.end_line} of {result.total_lines}"


def format_page_result(result: PageResult) -> str:
    """Human-readable: artifact, line range, tokens, then the content."""
    head = (
        f"{result.artifact_id}: {page_range(result)} ({result.lines} lines, {result.tokens} tokens)"
    )
    if result.truncated:
        head += f" — truncated by the token quota; next: --lines {result.next_start_line}-"
    if result.budget:
        head += (
            f"\nbudget: {result.budget['pages_remaining']} pages, "
            f"{result.budget['tokens_remaining']} tokens left"
        )
    return f"{head}\n\n{result.content}" if result.content else head


class Pager:
    """Pages artifacts of a store under a budget (``pager.budget`` is the live budget)."""

    def __init__(
        self,
        store: ContentStore,
        budget: PagingBudget | None = None,
        counter: CounterLike = "bytes/4",
    ) -> None:
        self.store = store
        self.budget = budget if budget is not None else PagingBudget()
        self.counter: TokenCounter = get_counter(counter)
        self._indexes: dict[str, LineIndex] = {}
        self._lock = threading.Lock()
        self.index_builds = 0

    def index(self, artifact_id: str, content: str) -> LineIndex:
        """The line index of this content, rebuilt only when the content changed (a store that
        indexes its files itself — :class:`DirectoryStore`, by file identity — has ``lines``,
        which :meth:`page` asks instead)."""
        with self._lock:
            known = self._indexes.get(artifact_id)
            if known is not None and (known.text is content or known.text == content):
                return known
            built = LineIndex.build(content)
            self.index_builds += 1
            self._indexes[artifact_id] = built
            return built

    def page(self, request: PageRequest | str) -> PageResult:
        """Check budget → fetch → slice → count → record. See the module docstring."""
        if isinstance(request, str):
            request = PageRequest(request)
        if not self.budget.can_page():
            raise BudgetExhausted(self._exhausted_message())
        lines = getattr(self.store, "lines", None)  # a store that indexes its files itself
        if lines is not None:
            index: LineIndex = lines(request.artifact_id)
        else:
            index = self.index(request.artifact_id, self.store.get_content(request.artifact_id))
        total = index.total
        if request.start_line > total:
            return self._result(
                request, "", 0, 0, request.start_line, request.start_line - 1, total
            )
        end = total if request.end_line == 0 else min(request.end_line, total)
        text = index.slice(request.start_line, end)
        tokens = self.counter.count(text)
        # Check and charge are one step: pagers (threads, REST requests) sharing a budget
        # never spend the same remaining tokens twice.
        with self.budget.lock:
            if not self.budget.can_page():
                raise BudgetExhausted(self._exhausted_message())
            _, tokens_left = self.budget.remaining()
            truncated = False
            if tokens > tokens_left:
                end, text, tokens = self._longest_fit(index, request.start_line, end, tokens_left)
                truncated = True
            self.budget.record(tokens)
            return self._result(
                request,
                text,
                end - request.start_line + 1,
                tokens,
                request.start_line,
                end,
                total,
                truncated,
                end + 1 if truncated else None,
            )

    def _longest_fit(
        self, index: LineIndex, start: int, end: int, limit: int
    ) -> tuple[int, str, int]:
        low, high = start - 1, end - 1  # the answer lies in [low, high]; low = nothing fits
        while low < high:
            middle = (low + high + 1) // 2
            if self.counter.count(index.slice(start, middle)) <= limit:
                low = middle
            else:
                high = middle - 1
        while low >= start:  # a real tokenizer may not be monotone: verify, step back if needed
            text = index.slice(start, low)
            tokens = self.counter.count(text)
            if tokens <= limit:
                return low, text, tokens
            low -= 1
        raise BudgetExhausted(
            f"line {start} alone costs more than the {limit} tokens left in the paging budget"
        )

    def _exhausted_message(self) -> str:
        b = self.budget
        used = (
            f"{b.pages_used} of {b.max_pages} pages"
            if b.pages_used >= b.max_pages
            else f"{b.tokens_used} of {b.max_tokens} tokens"
        )
        return f"paging budget exhausted: {used} used; start a new task or raise the limits"

    def _result(
        self,
        request: PageRequest,
        content: str,
        lines: int,
        tokens: int,
        start: int,
        end: int,
        total: int,
        truncated: bool = False,
        next_start: int | None = None,
    ) -> PageResult:
        return PageResult(
            artifact_id=request.artifact_id,
            content=content,
            lines=lines,
            tokens=tokens,
            start_line=start,
            end_line=end,
            total_lines=total,
            truncated=truncated,
            next_start_line=next_start,
            budget=self.budget.to_dict(),
            counter=self.counter.name,
        )
