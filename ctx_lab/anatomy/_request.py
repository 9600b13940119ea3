"""The anatomy of one request: its tokens by category (and, for tools, tool calls and tool
results, by tool name), counted with the model's own counter where ctx_lab has it — each figure
saying whether it is exact — against the model's window, output reserve and free space, and
checked against the provider-reported input tokens where the recording has them."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from ..display import RichResult, escape, html_table, text_table
from ..errors import UsageError
from ..models import get_registry
from ..severity import severity
from ..tokens import CounterChoice, resolve_counter
from ..wire import to_wire
from ._claims import request_claim
from ._counting import counting_cache, input_cost
from ._piece import CATEGORIES, Piece

__all__ = ["AnatomyItem", "ItemMemo", "RequestAnatomy", "anatomize", "anatomy_counter"]


@dataclass(frozen=True)
class AnatomyItem:
    """One counted part of a request: its category and name, its tokens, whether that count
    is exact, the message it belongs to (-1: the system prompt and tools), whether an Anthropic
    cache breakpoint ends it, and a digest of its content (to follow it across calls)."""

    category: str
    name: str
    tokens: int
    exact: bool
    message: int
    breakpoint: bool = False
    note: str = ""
    digest: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The item as JSON (its fields, by the declaration: :func:`ctx_lab.wire.to_wire`)."""
        return to_wire(self)


def _digest(piece: Piece) -> str:
    return _digest_of(piece.category, piece.name, piece.fixed, piece.text)


@lru_cache(maxsize=4096)  # the pieces a call repeats from the call before: hashed once
def _digest_of(category: str, name: str, fixed: int | None, text: str) -> str:
    raw = f"{category}\0{name}\0{fixed}\0{text}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(raw, digest_size=8).hexdigest()


# per counter: each piece's item by the piece's identity (the piece kept, so an id is never reused)
ItemMemo = dict[str, dict[int, tuple[Piece, AnatomyItem]]]


@dataclass(frozen=True, kw_only=True)
class RequestAnatomy(RichResult):
    """What fills one request (see the module docstring). ``reported_input`` is what the
    provider billed as input (cached or not), ``difference`` the reported minus the counted;
    ``cache_read``/``cache_write`` what it reported as read from and written to its prompt
    cache."""

    source: str
    format: str
    model: str
    counter: str
    exact: bool
    items: tuple[AnatomyItem, ...]
    window: int
    output_reserve: int
    budget: int
    reported_input: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None
    autocompact_at: int | None = None
    warnings: tuple[str, ...] = field(default=())
    call: int | None = None
    cost_usd: float | None = None
    # the system prompt and tools the file does not hold, as the cache engine infers them from
    # the session's first call (ctx_lab.conversation.hidden_prefix); None where not inferred
    system_inferred: int | None = None
    # no registry knows the model: the window and budget are assumed, not the model's; findings
    # and advice that need them are not made (the warning says which limits were assumed)
    limits_assumed: bool = False

    payload_kind = "anatomy"

    @cached_property
    def total(self) -> int:
        """Every counted token of the request."""
        return sum(i.tokens for i in self.items)

    @property
    def hidden(self) -> int:
        """Reported input the file does not hold — a transcript's system prompt and tools —
        inferred from the report (0 without one)."""
        from ._window import hidden_tokens

        return hidden_tokens(self)

    @property
    def used(self) -> int:
        """What the request takes of the window: the counted tokens plus :attr:`hidden`."""
        return self.total + self.hidden

    @property
    def limit(self) -> int:
        """Where the request's room ends: the agent's autocompact point where it has one (as
        its own context view draws it), else the effective input budget."""
        return self.budget if self.autocompact_at is None else self.autocompact_at

    @property
    def free(self) -> int:
        """What is left up to :attr:`limit` after :attr:`used` (negative: over it)."""
        return self.limit - self.used

    def _limit_name(self) -> str:
        if self.autocompact_at is None:
            return "input budget"
        return f"where the agent compacts; input budget {self.budget:,}"

    def advice(self) -> list[Any]:
        """The avoidable costs, the largest saving first (:mod:`ctx_lab.anatomy._advice`)."""
        from ._advice import request_advice

        return request_advice(self)

    def window_view(self) -> list[Any]:
        """The whole window as blocks (:func:`ctx_lab.anatomy._window.window_blocks`)."""
        from ._window import window_blocks

        return window_blocks(self)

    @property
    def difference(self) -> int | None:
        """Reported input minus counted (None without a report)."""
        return None if self.reported_input is None else self.reported_input - self.total

    def categories(self) -> dict[str, int]:
        """Tokens per category, in :data:`CATEGORIES` order (empty ones left out)."""
        return dict(self._categories)

    @cached_property
    def _categories(self) -> dict[str, int]:
        found = dict.fromkeys(CATEGORIES, 0)
        for item in self.items:
            found[item.category] = found.get(item.category, 0) + item.tokens
        return {k: v for k, v in found.items() if v}

    def by_name(self, category: str) -> dict[str, int]:
        """Tokens per name within a category (tools, tool calls, tool results, memory)."""
        found: dict[str, int] = {}
        for item in self.items:
            if item.category == category:
                found[item.name] = found.get(item.name, 0) + item.tokens
        return dict(sorted(found.items(), key=lambda kv: -kv[1]))

    def largest(self, n: int = 5) -> list[AnatomyItem]:
        """The ``n`` largest single items."""
        return sorted(self.items, key=lambda i: -i.tokens)[:n]

    def to_dict(self) -> dict[str, Any]:
        """Totals, categories, per-name breakdowns, the items, and the report beside them.
        Hand-written: the totals and per-name breakdowns are computed from the pieces, and each item
        is written by its own form."""
        return {
            "source": self.source,
            "call": self.call,
            "format": self.format,
            "model": self.model,
            "counter": self.counter,
            "exact": self.exact,
            "total": self.total,
            "hidden": self.hidden,
            "used": self.used,
            "window": self.window,
            "output_reserve": self.output_reserve,
            "budget": self.budget,
            "limit": self.limit,
            "free": self.free,
            "autocompact_at": self.autocompact_at,
            "severity": severity(self.used, self.limit),
            "categories": self.categories(),
            "tools": self.by_name("tools"),
            "mcp_tools": self.by_name("mcp_tools"),
            "memory": self.by_name("memory"),
            "tool_calls": self.by_name("tool_call"),
            "tool_results": self.by_name("tool_result"),
            "reported_input": self.reported_input,
            "difference": self.difference,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "cost_usd": self.cost_usd,
            "system_inferred": self.system_inferred,
            "limits_assumed": self.limits_assumed,
            "breakpoints": sum(1 for i in self.items if i.breakpoint),
            "window_view": [block.to_dict() for block in self.window_view()],
            "advice": [a.to_dict() for a in self.advice()],
            "items": [i.to_dict() for i in self.items],
            "warnings": list(self.warnings),
            "claim": request_claim(self.reported_input),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RequestAnatomy:
        """The inverse of :meth:`to_dict`."""
        return cls(
            source=data["source"],
            format=data["format"],
            model=data["model"],
            counter=data["counter"],
            exact=bool(data["exact"]),
            items=tuple(AnatomyItem(**i) for i in data.get("items", ())),
            window=data["window"],
            output_reserve=data["output_reserve"],
            budget=data["budget"],
            reported_input=data.get("reported_input"),
            cache_read=data.get("cache_read"),
            cache_write=data.get("cache_write"),
            autocompact_at=data.get("autocompact_at"),
            warnings=tuple(data.get("warnings", ())),
            call=data.get("call"),
            cost_usd=data.get("cost_usd"),
            system_inferred=data.get("system_inferred"),
            limits_assumed=bool(data.get("limits_assumed", False)),
        )

    def _rows(self) -> list[list[object]]:
        total = max(self.total, 1)
        return [
            [name, tokens, f"{tokens / total:.1%}"] for name, tokens in self.categories().items()
        ]

    def render(self, fmt: str = "text") -> str:
        """``text``, ``json`` or ``csv`` (a row per item); ``otlp`` exports sessions
        (``--session``), this says so."""
        if fmt == "csv":
            from ..display import csv_text

            columns = ["category", "name", "tokens", "exact", "message", "breakpoint", "note"]
            return csv_text(columns, [[getattr(i, c) for c in columns] for i in self.items])
        if fmt == "otlp":
            raise UsageError(
                f"{self.source}: --format otlp writes a span per call: add --session (a request "
                "file of one call is a session of one)"
            )
        return super().render(fmt)

    def to_text(self) -> str:
        """Totals, the category table, per-tool figures and the largest items."""
        exact = "exact" if self.exact else "estimate"
        counted = f"{self.total:,} tokens ({self.counter}, {exact})"
        if self.hidden:
            counted += f" + {self.hidden:,} not in the file (inferred from the reported input)"
        head = (
            f"{self.source}{f' call {self.call}' if self.call is not None else ''} · "
            f"{self.model} · {counted} of {self.limit:,} ({self._limit_name()}; window "
            f"{self.window:,}, output reserve {self.output_reserve:,}) · free {self.free:,}"
        )
        if self.reported_input is not None:
            shown = f"{self.reported_input:,} [billed] · difference {self.difference:+,}"
            head += f"\nreported input {shown}"
            if self.cache_read is not None:
                head += f" · cache read {self.cache_read:,}, written {self.cache_write or 0:,}"
        if self.cost_usd is not None:
            head += f" · input ${self.cost_usd:.4f}"
        from ._window import share_text

        window = " · ".join(
            f"{b.label} {b.tokens:,} ({share_text(b.share)})" for b in self.window_view()
        )
        parts = [
            head,
            f"window: {window}",
            "",
            text_table(["category", "tokens", "share"], self._rows()),
        ]
        for label, category in (
            ("tool definitions", "tools"),
            ("MCP tools", "mcp_tools"),
            ("tool calls", "tool_call"),
            ("tool results", "tool_result"),
            ("memory", "memory"),
        ):
            named = self.by_name(category)
            if named:
                shown = ", ".join(f"{n or '?'} {t:,}" for n, t in list(named.items())[:8])
                parts.append(f"{label}: {shown}")
        advice = self.advice()
        if advice:
            parts.append(f"largest avoidable cost: {advice[0].line()}")
        return "\n".join(parts)

    def html_body(self) -> str:
        """The window view (every block of the model's window, labelled), and the category
        table."""
        from ._window import window_html

        head = f"<h4 data-ctx-anatomy>{escape(self.to_text().splitlines()[0])}</h4>"
        table = html_table(["category", "tokens", "share"], self._rows(), numeric=(1,))
        return head + window_html(self) + _advice_html(self.advice()) + table

    def ledger(self) -> Any:
        """A DataFrame: one row per item."""
        import pandas as pd

        columns = list(AnatomyItem.__dataclass_fields__)
        return pd.DataFrame([i.to_dict() for i in self.items], columns=columns)

    def plot(self, ax: Any = None) -> Any:
        """An icicle of the request: categories, then names within them. Returns the Figure."""
        from ._plots import plot_request

        return plot_request(self, ax=ax)


def _advice_html(advice: Sequence[Any]) -> str:
    if not advice:
        return ""
    rows = "".join(f"<li>{escape(a.line())}</li>" for a in advice)
    return f"<div data-ctx-advice><b>largest avoidable cost first</b><ul>{rows}</ul></div>"


def anatomy_counter(
    counter: str | None, model: str, known: dict[str, CounterChoice] | None = None
) -> CounterChoice:
    """What an anatomy of a ``model`` request counts with: ``counter`` as given, else the
    model's own tokenizer, else a named estimate (:func:`~ctx_lab.tokens.resolve_counter`);
    ``known``: a session's choices by model, so each model's is resolved once."""
    if known is None:
        return resolve_counter(counter, model, "bytes/4")
    if model not in known:
        known[model] = resolve_counter(counter, model, "bytes/4")
    return known[model]


def anatomize(
    pieces: Sequence[Piece],
    *,
    source: str,
    format: str,
    model: str,
    counter: str | None = None,
    registry: Any = None,
    reported: Any = None,
    output_reserve: int | None = None,
    autocompact: int | None = None,
    call: int | None = None,
    warnings: Iterable[str] = (),
    system_inferred: int | None = None,
    memo: ItemMemo | None = None,
    resolved: CounterChoice | None = None,
) -> RequestAnatomy:
    """Count ``pieces`` with ``counter`` (default: ``model``'s own tokenizer, else a named
    estimate) against ``model``'s limits; ``reported`` is the call's provider usage
    (:class:`~ctx_lab.recordings.transcripts.Usage`), if any; ``autocompact`` the tokens
    the agent keeps free of the window before it compacts (Claude Code's buffer), if it does;
    ``registry`` a name or a registry (an agent's view: ``ctx_lab.conversation.agent_registry``);
    ``memo`` the items of pieces an earlier call of the same session had (shared pieces:
    :class:`~._pieces.SessionPieces`), reused, not counted and hashed again; ``resolved``
    what :func:`anatomy_counter` made of ``counter`` and ``model`` (a session resolves it once
    per model, not once per call: a stored calibration is looked for on disk)."""
    choice = resolved or anatomy_counter(counter, model)
    counting = counting_cache(choice.use)
    known = memo.setdefault(choice.name, {}) if memo is not None else {}
    texts = [p.text for p in pieces if p.fixed is None and id(p) not in known]
    counts = iter(counting.count_many(texts))
    items = []
    for piece in pieces:
        hit = known.get(id(piece))
        if hit is not None and hit[0] is piece:
            items.append(hit[1])
            continue
        if piece.fixed is not None:
            tokens, exact = piece.fixed, False
        else:
            tokens = next(counts) + piece.extra
            exact = choice.exact and not piece.rendered
        item = AnatomyItem(
            category=piece.category, name=piece.name, tokens=tokens, exact=exact,
            message=piece.message, breakpoint=piece.breakpoint, note=piece.note,
            digest=_digest(piece),
        )  # fmt: skip
        items.append(item)
        if memo is not None:
            known[id(piece)] = (piece, item)
    limits = get_registry(registry).get(model)
    reserve = limits.limits.reserved(output_reserve)
    notes = [*warnings, *([choice.note] if choice.note else [])]
    notes += [limits.warning] if limits.warning and limits.warning not in notes else []
    window = limits.limits.context_window
    return RequestAnatomy(
        source=source,
        format=format,
        model=model,
        counter=choice.name,
        exact=choice.exact and all(i.exact for i in items),
        items=tuple(items),
        window=window,
        output_reserve=reserve,
        budget=limits.effective_input_budget(output_reserve),
        reported_input=reported.reported_input if reported is not None else None,
        cache_read=reported.cache_read_input_tokens if reported is not None else None,
        cache_write=reported.cache_creation_input_tokens if reported is not None else None,
        autocompact_at=window - autocompact if autocompact is not None else None,
        warnings=tuple(notes),
        call=call,
        cost_usd=input_cost(model, limits.prices, sum(i.tokens for i in items), reported),
        system_inferred=system_inferred,
        limits_assumed=limits.source == "default",
    )
