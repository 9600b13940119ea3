"""The assembled context packet: its Markdown and JSON forms, its ledger and allocation, plots.

A :class:`Packet` is frozen data. Its Markdown is a pure function of its fields, so a packet
restored with :meth:`Packet.from_dict` renders byte-identically.

Why one module over ~400 lines: a packet's forms (Markdown parts, JSON, text, HTML, the ledger frame
and plots) render the same frozen fields and must agree byte for byte; kept together so a change
to one form is seen beside the others.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, overload

from ..choices import CTX08_PROFILE
from ..display import RichResult, escape, html_table, plain_title
from ..severity import fit_severity
from ._layout import INSTRUCTION, SECTION_TITLES, counted_line, render_parts
from ._layout_map import LayoutReport

__all__ = [
    "INSTRUCTION",
    "PROFILE_CLASSES",
    "SECTION_TITLES",
    "AllocationRow",
    "EntrySummary",
    "LedgerRow",
    "Packet",
    "PacketEntry",
    "PacketSteering",
    "counted_line",
    "render_parts",
]


# The packet class of each profile but the design one, by the module that declares it: a saved
# packet is restored as its profile's class, which is imported then (as a command's module is,
# commands/_index.py), so a design packet never loads ctx-0.8's code and this module imports
# none of its subclasses.
PROFILE_CLASSES: dict[str, tuple[str, str]] = {CTX08_PROFILE: ("._ctx08", "CtxPacket")}


def _profile_class(profile: str) -> type[Packet]:
    """The packet class of ``profile`` (a key of ``PROFILE_CLASSES``), imported on first use."""
    module, name = PROFILE_CLASSES[profile]
    found: type[Packet] = getattr(import_module(module, __package__), name)
    return found


@dataclass(frozen=True)
class PacketEntry:
    """A decision or learning included in full."""

    title: str
    date: str | None
    text: str
    score: float

    def to_dict(self) -> dict[str, Any]:
        """``{title, date, text, score}``."""
        return {"title": self.title, "date": self.date, "text": self.text, "score": self.score}


@dataclass(frozen=True)
class PacketSteering:
    """A steering file included whole: its name, where it came from, its body."""

    name: str
    source: str
    text: str

    def to_dict(self) -> dict[str, str]:
        """``{name, source, text}``."""
        return {"name": self.name, "source": self.source, "text": self.text}


@dataclass(frozen=True)
class EntrySummary:
    """An entry shown by its title only, under Also Noted."""

    section: str
    title: str

    def to_dict(self) -> dict[str, str]:
        """``{section, title}``."""
        return {"section": self.section, "title": self.title}


@dataclass(frozen=True)
class LedgerRow:
    """One item's fate: what it is, how it scored, what it costs, and what happened to it."""

    section: str
    tier: int
    title: str
    date: str | None = None
    age_days: int | None = None
    recency: float | None = None
    relevance: float | None = None
    keywords: tuple[str, ...] = ()
    score: float | None = None
    tokens: int = 0
    action: str = "full"
    reason: str = ""
    source: str | None = None
    warnings: tuple[str, ...] = ()
    line: int | None = None
    rule: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ledger row as JSON (keywords and warnings as lists). ``line`` is where the item
        starts in ``source``; ``rule`` names the profile rule that decided its fate (the
        ``ctx-0.8`` profile's vocabulary; None for the design profile)."""
        return {
            "section": self.section,
            "tier": self.tier,
            "title": self.title,
            "date": self.date,
            "age_days": self.age_days,
            "recency": self.recency,
            "relevance": self.relevance,
            "keywords": list(self.keywords),
            "score": self.score,
            "tokens": self.tokens,
            "action": self.action,
            "reason": self.reason,
            "source": self.source,
            "warnings": list(self.warnings),
            "line": self.line,
            "rule": self.rule,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LedgerRow:
        """Inverse of :meth:`to_dict`."""
        return cls(
            **{
                **data,
                "keywords": tuple(data.get("keywords") or ()),
                "warnings": tuple(data.get("warnings") or ()),
            }
        )


LEDGER_COLUMNS = tuple(LedgerRow.__dataclass_fields__)


@dataclass(frozen=True)
class AllocationRow:
    """Tokens per section: the cap it had, what it used, and how many items went which way."""

    section: str
    tier: int
    cap: int | None
    used: int
    full: int = 0
    summary: int = 0
    counted: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The allocation row as JSON."""
        return {
            "section": self.section,
            "tier": self.tier,
            "cap": self.cap,
            "used": self.used,
            "full": self.full,
            "summary": self.summary,
            "counted": self.counted,
        }


ALLOCATION_COLUMNS = tuple(AllocationRow.__dataclass_fields__)


class LazyRows(Sequence[LedgerRow]):
    """Ledger rows made on first use: moving a budget slider assembles packets whose ledger
    nobody reads, and a row per entry is most of an assembly's cost. Compares equal to the
    tuple of its rows."""

    def __init__(
        self,
        build: Callable[[], Iterable[LedgerRow]],
        window: Callable[[int, int], Iterable[LedgerRow]] | None = None,
        size: Callable[[], int] | None = None,
    ) -> None:
        self._build: Callable[[], Iterable[LedgerRow]] | None = build
        self._rows: tuple[LedgerRow, ...] = ()
        self._lock = threading.Lock()
        # a page of rows made alone (``/entries?offset=…&limit=100`` of 200,000 entries)
        self._window, self._size = window, size

    def _all(self) -> tuple[LedgerRow, ...]:
        if self._build is not None:
            with self._lock:
                if self._build is not None:
                    self._rows = tuple(self._build())
                    self._build = None
        return self._rows

    def __len__(self) -> int:
        if self._build is not None and self._size is not None:
            return self._size()
        return len(self._all())

    @overload
    def __getitem__(self, index: int) -> LedgerRow: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[LedgerRow, ...]: ...

    def __getitem__(self, index: int | slice) -> LedgerRow | tuple[LedgerRow, ...]:
        plain = isinstance(index, slice) and index.step in (None, 1)
        if plain and self._build is not None and self._window is not None:
            start, stop, _ = index.indices(len(self))  # type: ignore[union-attr]
            return tuple(self._window(start, stop)) if start < stop else ()
        return self._all()[index]

    def __iter__(self) -> Iterator[LedgerRow]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return self._all() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._all())

    def __repr__(self) -> str:
        return f"LazyRows({len(self)} rows)"


@dataclass(frozen=True, kw_only=True)
class Packet(RichResult):
    """A context packet: what went in, what it cost, and the ledger of every decision."""

    generated: str
    budget: int
    tokens_used: int
    counter: str
    over_budget: bool
    model: str | None
    est_cost_usd: float | None
    read_order: tuple[str, ...]
    constitution: tuple[str, ...]
    tasks: tuple[str, ...]
    conventions: tuple[str, ...]
    decisions: tuple[PacketEntry, ...]
    learnings: tuple[PacketEntry, ...]
    summaries: tuple[EntrySummary, ...]
    steering: tuple[PacketSteering, ...] = ()
    instruction: str = INSTRUCTION
    counted: dict[str, int] = field(default_factory=dict)
    ledger_rows: Sequence[LedgerRow] = ()
    allocation_rows: tuple[AllocationRow, ...] = ()
    budget_source: str = "argument"
    states_tokens_used: bool = True
    warnings: tuple[str, ...] = ()
    relevance: str = "keywords"  # the rule that ranked (``auto`` resolved)
    focus: str | None = None
    profile: str = "design"
    relevance_reason: str = ""  # why that rule, when ``auto`` chose it
    counter_requested: str | None = None  # what was asked for (``model``, a name, or default)
    exact: bool | None = None  # whether ``counter`` is the model's real tokenizer
    layout: LayoutReport = field(default_factory=LayoutReport)  # the memory layout read

    payload_kind = "packet"

    # -- text forms -------------------------------------------------------------------------

    def parts(self) -> list[tuple[str, str]]:
        """The Markdown as ``(section, text)`` parts."""
        return render_parts(
            generated=self.generated,
            budget=self.budget,
            used=self.tokens_used if self.states_tokens_used else None,
            counter=self.counter,
            read_order=self.read_order,
            constitution=self.constitution,
            tasks=self.tasks,
            conventions=self.conventions,
            decisions=tuple(e.text for e in self.decisions),
            learnings=tuple(e.text for e in self.learnings),
            summaries=self.summaries,
            counted=self.counted,
            instruction=self.instruction,
            steering=tuple((s.name, s.text) for s in self.steering),
        )

    def to_markdown(self) -> str:
        """The packet as Markdown, exactly as counted."""
        return "".join(text for _, text in self.parts())

    def to_text(self) -> str:
        """Plain text is the Markdown."""
        return self.to_markdown()

    def render(self, fmt: str = "md") -> str:
        """``md`` (default), ``text`` or ``json``."""
        if fmt == "json":
            return self.to_json()
        return self.to_markdown()

    # -- data forms -------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The packet JSON shared by the CLI, the REST API and the renderers. Hand-written: the
        Markdown is rendered, the severity computed and the ledger made when first read."""
        data: dict[str, Any] = {
            "generated": self.generated,
            "budget": self.budget,
            "tokens_used": self.tokens_used,
            "counter": self.counter,
            "over_budget": self.over_budget,
            "model": self.model,
        }
        if self.est_cost_usd is not None:
            data["est_cost_usd"] = self.est_cost_usd
        data.update(
            {
                "read_order": list(self.read_order),
                "constitution": list(self.constitution),
                "tasks": list(self.tasks),
                "conventions": list(self.conventions),
                "steering": [s.to_dict() for s in self.steering],
                "decisions": [e.to_dict() for e in self.decisions],
                "learnings": [e.to_dict() for e in self.learnings],
                "summaries": [s.to_dict() for s in self.summaries],
                "instruction": self.instruction,
                "counted": dict(self.counted),
                "budget_source": self.budget_source,
                "states_tokens_used": self.states_tokens_used,
                "ledger": [r.to_dict() for r in self.ledger_rows],
                "allocation": [r.to_dict() for r in self.allocation_rows],
                "warnings": list(self.warnings),
                "relevance": self.relevance,
                "relevance_reason": self.relevance_reason,
                "focus": self.focus,
                "profile": self.profile,
                "counter_requested": self.counter_requested or self.counter,
                "exact": self.exact,
                "severity": fit_severity(self.tokens_used, self.budget),
                "layout": self.layout.to_dict(),
                "markdown": self.to_markdown(),
            }
        )
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Packet:
        """Restore a packet saved with :meth:`to_dict` (or its JSON); a ``ctx-0.8`` packet
        comes back as a :class:`~ctx_lab.packet._ctx08.CtxPacket` (``PROFILE_CLASSES``)."""
        profile = data.get("profile", "design")
        if cls is Packet and profile in PROFILE_CLASSES:
            return _profile_class(profile).from_dict(data)

        def entries(key: str) -> tuple[PacketEntry, ...]:
            return tuple(PacketEntry(**e) for e in data.get(key) or ())

        return cls(
            generated=data["generated"],
            budget=data["budget"],
            tokens_used=data["tokens_used"],
            counter=data["counter"],
            over_budget=data.get("over_budget", False),
            model=data.get("model"),
            est_cost_usd=data.get("est_cost_usd"),
            read_order=tuple(data.get("read_order") or ()),
            constitution=tuple(data.get("constitution") or ()),
            tasks=tuple(data.get("tasks") or ()),
            conventions=tuple(data.get("conventions") or ()),
            steering=tuple(PacketSteering(**s) for s in data.get("steering") or ()),
            decisions=entries("decisions"),
            learnings=entries("learnings"),
            summaries=tuple(EntrySummary(**s) for s in data.get("summaries") or ()),
            instruction=data.get("instruction", INSTRUCTION),
            counted=dict(data.get("counted") or {}),
            ledger_rows=tuple(LedgerRow.from_dict(r) for r in data.get("ledger") or ()),
            allocation_rows=tuple(AllocationRow(**r) for r in data.get("allocation") or ()),
            budget_source=data.get("budget_source", "argument"),
            states_tokens_used=data.get("states_tokens_used", True),
            warnings=tuple(data.get("warnings") or ()),
            relevance=data.get("relevance", "keywords"),
            relevance_reason=data.get("relevance_reason", ""),
            focus=data.get("focus"),
            profile=data.get("profile", "design"),
            counter_requested=data.get("counter_requested"),
            exact=data.get("exact"),
            layout=LayoutReport.from_dict(data.get("layout")),
        )

    @classmethod
    def from_json(cls, text: str) -> Packet:
        """Restore a packet from its JSON text."""
        return cls.from_dict(json.loads(text))

    # -- notebook surface (pandas / matplotlib imported on use) -----------------------------

    def ledger(self) -> Any:
        """A DataFrame with one row per item and why it was kept, summarized or left out."""
        import pandas as pd

        frame = pd.DataFrame(
            [
                {
                    **r.to_dict(),
                    "keywords": ", ".join(r.keywords),
                    "warnings": "; ".join(r.warnings),
                }
                for r in self.ledger_rows
            ],
            columns=list(LEDGER_COLUMNS),
        )
        # whole days and line numbers stay whole where some rows have none
        return frame.astype({"age_days": "Int64", "line": "Int64"})

    def allocation(self) -> Any:
        """A DataFrame of tokens per section: cap, used, and item counts by action."""
        import pandas as pd

        return pd.DataFrame(
            [r.to_dict() for r in self.allocation_rows], columns=list(ALLOCATION_COLUMNS)
        )

    def plot(self, ax: Any = None) -> Any:
        """A matplotlib Figure of token allocation by section: cap vs used, the budget line."""
        from ._plots import plot_allocation

        return plot_allocation(self, ax=ax)

    # -- rich display -----------------------------------------------------------------------

    def html_body(self) -> str:
        """Summary line, allocation table, the ledger, and the Markdown in a details block."""
        flag = ""
        if self.over_budget:
            flag = (
                ' <span class="ctx-bad" data-ctx-over-budget>'
                "over budget: tier 1 alone does not fit</span>"
            )
        cost = f", ~${self.est_cost_usd:.4f} to send" if self.est_cost_usd is not None else ""
        head = (
            f"<h4 data-ctx-packet>Context packet: <span data-ctx-tokens-used>{self.tokens_used:,}"
            f"</span> / <span data-ctx-budget>{self.budget:,}</span> tokens "
            f'<span class="ctx-muted">({escape(self.counter)}, generated {escape(self.generated)}'
            f"{cost})</span>{flag}</h4>"
        )
        allocation = html_table(
            ["section", "tier", "cap", "used", "full", "summary", "counted"],
            [
                [
                    r.section,
                    r.tier,
                    "" if r.cap is None else r.cap,
                    r.used,
                    r.full,
                    r.summary,
                    r.counted,
                ]
                for r in self.allocation_rows
            ],
            numeric=range(1, 7),
        )
        ledger = html_table(
            ["section", "title", "score", "tokens", "action", "reason"],
            [
                [
                    r.section,
                    plain_title(r.title),
                    "" if r.score is None else f"{r.score:.2f}",
                    r.tokens,
                    r.action,
                    r.reason,
                ]
                for r in self.ledger_rows
            ],
            numeric=(2, 3),
        )
        return (
            f"{head}{allocation}"
            f"<details><summary>Ledger ({len(self.ledger_rows)} items)</summary>{ledger}</details>"
            f"<details><summary>Markdown</summary><pre>{escape(self.to_markdown())}</pre></details>"
        )
