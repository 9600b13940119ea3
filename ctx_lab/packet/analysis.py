"""Comparing packets: budget sweeps and diffs between two packets (pandas on use)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from ..tokens import CounterLike
from .assemble import PacketAssembler
from .context import ProjectContext
from .packet import Packet

__all__ = ["SWEEP_COLUMNS", "diff", "sweep"]

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
