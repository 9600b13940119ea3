"""Paging: fetch line ranges of stored artifacts under a per-task page and token quota
(design: paging-tool.md, refined by the paging issue).

``Pager.page`` checks the budget, fetches, slices whole lines, counts and records. The token
quota is never overshot: a slice that costs more than what is left is cut to the longest run of
whole lines that fits (``truncated``, ``next_start_line``); invalid requests and unknown
artifacts cost nothing.
"""

from __future__ import annotations

import bisect
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .display import RichResult, escape, html_table
from .errors import CtxLabError, UsageError
from .textfile import decode_text, normalize_newlines
from .tokens import CounterLike, TokenCounter, get_counter

if TYPE_CHECKING:
    from .read import Reader

__all__ = [
    "ArtifactNotFound",
    "BudgetExhausted",
    "ContentStore",
    "DirectoryStore",
    "InvalidPageRequest",
    "LineIndex",
    "MemoryStore",
    "PageRequest",
    "PageResult",
    "Pager",
    "PagingBudget",
    "ReaderStore",
    "format_budget",
    "format_page_result",
]


class BudgetExhausted(CtxLabError):
    """The paging quota (pages or tokens) is used up, or not even one line fits."""


class ArtifactNotFound(CtxLabError):
    """The store has no artifact with this id."""


class InvalidPageRequest(UsageError):
    """A line range that can never be valid (start < 1, or start > end with end ≠ 0)."""


def _count(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(f"{name} must be a whole number ≥ 0, got {value!r}")
    return value


@dataclass
class PagingBudget(RichResult):
    """A per-task paging quota and what has been used of it."""

    max_pages: int = 10
    max_tokens: int = 8000
    pages_used: int = 0
    tokens_used: int = 0

    payload_kind = "budget"

    def __post_init__(self) -> None:
        for name in ("max_pages", "max_tokens", "pages_used", "tokens_used"):
            _count(getattr(self, name), name)

    def can_page(self) -> bool:
        """True while both pages and tokens remain."""
        return self.pages_used < self.max_pages and self.tokens_used < self.max_tokens

    def record(self, tokens: int) -> None:
        """Charge one page of ``tokens`` tokens."""
        self.pages_used += 1
        self.tokens_used += _count(tokens, "tokens")

    def remaining(self) -> tuple[int, int]:
        """``(pages, tokens)`` still available (never negative)."""
        return (
            max(self.max_pages - self.pages_used, 0),
            max(self.max_tokens - self.tokens_used, 0),
        )

    def to_dict(self) -> dict[str, Any]:
        """Limits, use and what remains."""
        pages, tokens = self.remaining()
        return {
            "max_pages": self.max_pages,
            "max_tokens": self.max_tokens,
            "pages_used": self.pages_used,
            "tokens_used": self.tokens_used,
            "pages_remaining": pages,
            "tokens_remaining": tokens,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PagingBudget:
        """Restore a budget saved with :meth:`to_dict` (remaining counts are derived)."""
        try:
            return cls(
                int(data["max_pages"]),
                int(data["max_tokens"]),
                int(data.get("pages_used", 0)),
                int(data.get("tokens_used", 0)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CtxLabError(f"not a paging budget: {exc}") from None

    def to_text(self) -> str:
        """:func:`format_budget`."""
        return format_budget(self)

    def html_body(self) -> str:
        """A table and a meter."""
        return _budget_html(self)


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


def _severity(used: int, limit: int) -> str:
    share = used / limit if limit else 1.0
    return "ok" if share < 0.7 else ("warn" if share < 0.9 else "bad")


def _budget_html(budget: PagingBudget) -> str:
    pages, tokens = budget.remaining()
    level = max(
        _severity(budget.pages_used, budget.max_pages),
        _severity(budget.tokens_used, budget.max_tokens),
        key=["ok", "warn", "bad"].index,
    )
    share = min(budget.tokens_used / budget.max_tokens, 1.0) if budget.max_tokens else 1.0
    color = {"ok": "#2e7d32", "warn": "#f59e0b", "bad": "#c62828"}[level]
    meter = (
        f'<div data-ctx-meter="{level}" style="width:240px;height:8px;background:'
        f'var(--jp-layout-color3,#e5e7eb);border-radius:4px"><div style="width:{share * 100:.1f}%;'
        f'height:8px;background:{color};border-radius:4px"></div></div>'
    )
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
                raise InvalidPageRequest(f"{name} must be a whole number, got {value!r}")
        if self.start_line < 1:
            raise InvalidPageRequest(f"start_line must be ≥ 1, got {self.start_line}")
        if self.end_line < 0:
            raise InvalidPageRequest(f"end_line must be ≥ 0 (0 = to the end), got {self.end_line}")
        if self.end_line and self.start_line > self.end_line:
            raise InvalidPageRequest(
                f"start_line {self.start_line} is after end_line {self.end_line}"
            )


@dataclass(frozen=True)
class PageResult(RichResult):
    """One page: the lines returned, their token cost and where they sit in the artifact."""

    artifact_id: str
    content: str
    lines: int
    tokens: int
    start_line: int
    end_line: int
    total_lines: int
    truncated: bool = False
    next_start_line: int | None = None
    budget: dict[str, Any] | None = None
    counter: str = "bytes/4"
    warnings: tuple[str, ...] = ()

    payload_kind = "page"

    def to_dict(self) -> dict[str, Any]:
        """The page JSON, with the budget after this page."""
        return {
            "artifact_id": self.artifact_id,
            "content": self.content,
            "lines": self.lines,
            "tokens": self.tokens,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "total_lines": self.total_lines,
            "truncated": self.truncated,
            "next_start_line": self.next_start_line,
            "counter": self.counter,
            "budget": self.budget,
        }

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
        head = (
            f"<h4 data-ctx-page>{escape(self.artifact_id)} — lines {self.start_line}–"
            f"{self.end_line} of {self.total_lines} ({self.tokens} tokens){more}</h4>"
        )
        budget = _budget_html(PagingBudget.from_dict(self.budget)) if self.budget else ""
        return head + view + budget


def format_page_result(result: PageResult) -> str:
    """Human-readable: artifact, line range, tokens, then the content."""
    head = (
        f"{result.artifact_id}: lines {result.start_line}-{result.end_line} of "
        f"{result.total_lines} ({result.lines} lines, {result.tokens} tokens)"
    )
    if result.truncated:
        head += f" — truncated by the token quota; next: --lines {result.next_start_line}-"
    if result.budget:
        head += (
            f"\nbudget: {result.budget['pages_remaining']} pages, "
            f"{result.budget['tokens_remaining']} tokens left"
        )
    return f"{head}\n\n{result.content}" if result.content else head


@runtime_checkable
class ContentStore(Protocol):
    """Where artifacts come from: ``get_content(artifact_id) -> str``."""

    def get_content(self, artifact_id: str) -> str:
        """The artifact's text; raise :class:`ArtifactNotFound` when there is none."""
        ...


class MemoryStore:
    """Artifacts held in a mapping of id → text."""

    def __init__(self, artifacts: Mapping[str, str] | None = None) -> None:
        self.artifacts: dict[str, str] = dict(artifacts or {})

    def get_content(self, artifact_id: str) -> str:
        """The text stored under ``artifact_id``."""
        try:
            return self.artifacts[artifact_id]
        except KeyError:
            raise ArtifactNotFound(f"no artifact {artifact_id!r}") from None


class DirectoryStore:
    """Files under ``root``; the id is the path relative to it.

    Ids that would resolve outside ``root`` — through ``..``, an absolute path or a symlink —
    are refused as not found.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()

    def resolve(self, artifact_id: str) -> Path:
        """The file for ``artifact_id``, inside the root, or :class:`ArtifactNotFound`."""
        if not artifact_id or Path(artifact_id).is_absolute() or "\x00" in artifact_id:
            raise ArtifactNotFound(f"{artifact_id!r}: not a path relative to {self.root}")
        candidate = (self.root / artifact_id).resolve()
        if candidate != self.root and self.root not in candidate.parents:
            raise ArtifactNotFound(f"{artifact_id!r} is outside {self.root}")
        if not candidate.is_file():
            raise ArtifactNotFound(f"no file {artifact_id!r} under {self.root}")
        return candidate

    def get_content(self, artifact_id: str) -> str:
        """The file's text (UTF-8, bad bytes replaced)."""
        path = self.resolve(artifact_id)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ArtifactNotFound(f"{artifact_id!r}: cannot read ({exc.strerror})") from None
        return normalize_newlines(decode_text(data, artifact_id, []))


class ReaderStore:
    """Anything a :class:`~ctx_lab.read.Reader` reads: files, web pages, PDFs (whole text)."""

    def __init__(self, reader: Reader | None = None) -> None:
        from .read import Reader

        self.reader = reader or Reader()

    def get_content(self, artifact_id: str) -> str:
        """The extracted text of ``artifact_id`` (pages joined with their markers for PDFs)."""
        from .read import ReadError

        try:
            return self.reader.full_text(artifact_id)
        except FileNotFoundError:
            raise ArtifactNotFound(f"no artifact {artifact_id!r}") from None
        except ReadError as exc:
            raise ArtifactNotFound(f"{artifact_id!r}: {exc}") from exc


@dataclass
class LineIndex:
    """Start offsets of every line of one text, so slicing costs only the slice."""

    text: str
    starts: list[int] = field(default_factory=list)

    @classmethod
    def build(cls, text: str) -> LineIndex:
        """Index ``text`` (a trailing newline does not start an extra line)."""
        starts = [0] if text else []
        position = text.find("\n")
        while position != -1 and position + 1 < len(text):
            starts.append(position + 1)
            position = text.find("\n", position + 1)
        return cls(text, starts)

    @property
    def total(self) -> int:
        """Number of lines."""
        return len(self.starts)

    def slice(self, start: int, end: int) -> str:
        """Lines ``start``…``end`` (1-based, inclusive) joined by newlines, no trailing one."""
        begin = self.starts[start - 1]
        stop = self.starts[end] - 1 if end < self.total else len(self.text)
        if end == self.total and self.text.endswith("\n"):
            stop -= 1
        return self.text[begin:stop]

    def line_at(self, offset: int) -> int:
        """The 1-based line holding character ``offset``."""
        return bisect.bisect_right(self.starts, offset)


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
        """The line index of this content, rebuilt only when the content changed."""
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
        content = self.store.get_content(request.artifact_id)
        index = self.index(request.artifact_id, content)
        total = index.total
        if request.start_line > total:
            return self._result(
                request, "", 0, 0, request.start_line, request.start_line - 1, total
            )
        end = total if request.end_line == 0 else min(request.end_line, total)
        text = index.slice(request.start_line, end)
        tokens = self.counter.count(text)
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
            request.artifact_id,
            content,
            lines,
            tokens,
            start,
            end,
            total,
            truncated,
            next_start,
            self.budget.to_dict(),
            self.counter.name,
        )
