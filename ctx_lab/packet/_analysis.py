"""Comparing packets: budget sweeps, diffs between two packets, and the design profile against
``ctx-0.8`` (pandas on use)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..display import RichResult, escape, html_table, text_table
from ..tokens import CounterLike
from ._assemble import PacketAssembler
from ._context import ProjectContext
from ._counted import assemble_packet
from ._packet import LedgerRow, Packet

__all__ = [
    "COMPARE_COLUMNS",
    "SWEEP_COLUMNS",
    "ProfileComparison",
    "compare_profiles",
    "diff",
    "profile_differences",
    "sweep",
]

SWEEP_COLUMNS = ["budget", "section", "tokens", "full", "summary", "counted"]
TIER1 = {"header", "read_order", "constitution", "instruction"}


def sweep_rows(packet: Packet) -> list[dict[str, Any]]:
    """One packet's allocation folded to tier 1, tasks, conventions, decisions, learnings."""
    rows: dict[str, dict[str, Any]] = {}
    for r in packet.allocation_rows:
        name = "tier 1" if r.section in TIER1 else r.section
        row = rows.setdefault(
            name,
            {
                "budget": packet.budget,
                "section": name,
                "tokens": 0,
                "full": 0,
                "summary": 0,
                "counted": 0,
            },
        )
        row["tokens"] += r.used
        row["full"] += r.full
        row["summary"] += r.summary
        row["counted"] += r.counted
    return list(rows.values())


def sweep(
    ctx: ProjectContext | PacketAssembler,
    budgets: Iterable[int],
    now: datetime | None = None,
    counter: CounterLike = "bytes/4",
) -> Any:
    """Assemble at each budget; a DataFrame ``budget, section, tokens, full, summary, counted``.

    Token counts are cached across budgets (one assembler does all the work).
    """
    import pandas as pd

    assembler = ctx if isinstance(ctx, PacketAssembler) else PacketAssembler(ctx, counter)
    rows: list[dict[str, Any]] = []
    for budget in budgets:
        rows += sweep_rows(assembler.assemble(int(budget), now))
    return pd.DataFrame(rows, columns=SWEEP_COLUMNS)


def diff(a: Packet, b: Packet) -> Any:
    """The items whose action changed between two packets: ``section, title, action_a,
    action_b`` (items present in only one packet show ``None`` on the other side)."""
    import pandas as pd

    def actions(p: Packet) -> dict[tuple[str, str], str]:
        return {(r.section, r.title): r.action for r in p.ledger_rows}

    left, right = actions(a), actions(b)
    keys = list(left) + [k for k in right if k not in left]
    rows = [
        {"section": s, "title": t, "action_a": left.get((s, t)), "action_b": right.get((s, t))}
        for s, t in keys
        if left.get((s, t)) != right.get((s, t))
    ]
    return pd.DataFrame(rows, columns=["section", "title", "action_a", "action_b"])


COMPARE_COLUMNS = ["section", "title", "source", "line", "design", "ctx-0.8", "rule"]


def _unseen_by_ctx(row: LedgerRow) -> str:
    """The ctx rule that keeps ctx 0.8.1 from seeing an item the design profile has."""
    if row.section == "constitution":
        return "constitution-regex"
    if row.section == "steering" or (row.source or "").count("/") > 1:
        return "no-theme-folders"
    if row.section == "tasks":
        return "task-regex"
    if row.section == "conventions":
        return "dash-lines-anywhere"
    return "header-needs-time"


def _unseen_by_design(row: LedgerRow) -> str:
    """The ctx rule that makes ctx 0.8.1 see an item the design profile does not."""
    if row.section == "conventions":
        return "dash-lines-anywhere"
    if row.section == "tasks":
        return "task-regex"
    if row.section in ("decisions", "learnings"):
        return "unanchored-header"
    return row.rule or "tier-1"


def profile_differences(design: Packet, ctx08: Packet) -> list[dict[str, Any]]:
    """Every item of either packet with its action under each profile and, where the
    actions differ, the ctx rule that makes them differ (None where they agree)."""
    key = lambda r: (r.section, r.source, r.line)  # noqa: E731
    left = {key(r): r for r in design.ledger_rows}
    right = {key(r): r for r in ctx08.ledger_rows}
    rows = []
    for k in [*left, *(k for k in right if k not in left)]:
        a, b = left.get(k), right.get(k)
        action_a = a.action if a else None
        action_b = b.action if b else None
        rule = None
        if action_a != action_b:
            if b is None:
                assert a is not None
                rule = _unseen_by_ctx(a)
            elif a is None:
                rule = _unseen_by_design(b)
            elif action_a == "superseded":
                rule = "strikethrough-only-superseded"
            elif action_b == "summary" and action_a in ("counted", "superseded"):
                rule = "uncapped-summaries"
            else:
                rule = b.rule
        shown = a or b
        assert shown is not None
        rows.append(
            {
                "section": k[0],
                "title": shown.title,
                "source": k[1],
                "line": k[2],
                "design": action_a,
                "ctx-0.8": action_b,
                "rule": rule,
            }
        )
    return rows


def compare_profiles(
    ctx: ProjectContext,
    budget: int,
    now: datetime | None = None,
    *,
    display_dir: str | None = None,
) -> Any:
    """A DataFrame of every item with its action under the design profile and under
    ``ctx-0.8``, and in ``rule`` the ctx rule (:data:`ctx_lab.packet._ctx08.RULES`) that makes
    them differ (None where they agree). Both packets are counted with ``bytes/4``."""
    return ProfileComparison.of(ctx, budget, now, display_dir=display_dir).frame()


@dataclass(frozen=True, kw_only=True)
class ProfileComparison(RichResult):
    """The design profile's packet against ``ctx-0.8``'s for one directory and budget: every
    item's action under each, and the ctx rule that makes them differ."""

    budget: int
    generated: str
    design_tokens: int
    ctx_tokens: int
    rows: tuple[dict[str, Any], ...]

    payload_kind = "profiles"

    @classmethod
    def of(
        cls,
        ctx: ProjectContext,
        budget: int,
        now: datetime | None = None,
        *,
        display_dir: str | None = None,
    ) -> ProfileComparison:
        """Assemble both packets and compare them."""
        design = assemble_packet(ctx, budget, now)
        ctx08 = assemble_packet(ctx, budget, now, profile="ctx-0.8", display_dir=display_dir)
        return cls(
            budget=budget,
            generated=design.generated,
            design_tokens=design.tokens_used,
            ctx_tokens=ctx08.tokens_used,
            rows=tuple(profile_differences(design, ctx08)),
        )

    @property
    def differing(self) -> list[dict[str, Any]]:
        """The rows whose actions differ."""
        return [r for r in self.rows if r["rule"] is not None]

    def to_dict(self) -> dict[str, Any]:
        """Budget, both token counts and the rows (every item). Hand-written: the rows compare two
        packets item by item, keyed by profile name."""
        return {
            "budget": self.budget,
            "generated": self.generated,
            "design_tokens": self.design_tokens,
            "ctx_tokens": self.ctx_tokens,
            "rows": [dict(r) for r in self.rows],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ProfileComparison:
        """The inverse of :meth:`to_dict`."""
        return cls(
            budget=data["budget"],
            generated=data["generated"],
            design_tokens=data["design_tokens"],
            ctx_tokens=data["ctx_tokens"],
            rows=tuple(dict(r) for r in data.get("rows") or ()),
        )

    def _summary(self) -> str:
        over = self.ctx_tokens - self.budget
        flag = f" — ctx-0.8 over budget by {over}" if over > 0 else ""
        return (
            f"budget {self.budget}: design {self.design_tokens} tokens, "
            f"ctx-0.8 {self.ctx_tokens} tokens{flag}; {len(self.differing)} of "
            f"{len(self.rows)} items differ"
        )

    def _table(self, width: int) -> list[list[object]]:
        def cut(text: str) -> str:
            return text if len(text) <= width else text[: width - 1] + "…"

        return [
            [r["section"], cut(r["title"]), r["design"] or "—", r["ctx-0.8"] or "—", r["rule"]]
            for r in self.differing
        ]

    def to_text(self) -> str:
        """The rows that differ, then the summary line."""
        header = ["section", "title", "design", "ctx-0.8", "rule"]
        return f"{text_table(header, self._table(56))}\n\n{self._summary()}"

    def html_body(self) -> str:
        """The summary and the differing rows."""
        header = ["section", "title", "design", "ctx-0.8", "rule"]
        return f"<h4>{escape(self._summary())}</h4>" + html_table(header, self._table(90))

    def frame(self) -> Any:
        """Every row as a DataFrame (pandas imported on use)."""
        import pandas as pd

        return pd.DataFrame(list(self.rows), columns=COMPARE_COLUMNS)

    def plot(self, ax: Any = None) -> Any:
        """:func:`plot_profiles` of the rows."""
        from ._plots import plot_profiles

        return plot_profiles(self.frame(), ax=ax)
