"""``ctx-lab entries``: a packet's ledger as a table, CSV or JSON rows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..display import RichResult, csv_text, escape, html_table, plain_title, text_table
from ._packet import LEDGER_COLUMNS, Packet

__all__ = ["EntriesReport"]


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


@dataclass(frozen=True, kw_only=True)
class EntriesReport(RichResult):
    """The scored entries (the ledger) of one packet: all of them, or the window of ``limit``
    rows from ``offset`` (``rows_total`` says how many there are)."""

    packet: Packet
    offset: int = 0
    limit: int | None = None

    payload_kind = "entries"

    @property
    def rows(self) -> tuple[Any, ...]:
        """The ledger rows in the window."""
        rows = self.packet.ledger_rows
        end = None if self.limit is None else self.offset + self.limit
        return tuple(rows[self.offset : end])

    @property
    def warnings(self) -> tuple[str, ...]:  # type: ignore[override]
        """The packet's load warnings."""
        return self.packet.warnings

    def json_data(self) -> list[dict[str, Any]]:
        """A list of row objects with the ledger's columns."""
        return [r.to_dict() for r in self.rows]

    def to_dict(self) -> dict[str, Any]:
        """Budget, use and counter of the packet, the rows and the load warnings. Hand-written: a
        window (offset, limit) over the packet's ledger, which is made on first read."""
        p = self.packet
        return {
            "budget": p.budget,
            "tokens_used": p.tokens_used,
            "counter": p.counter,
            "generated": p.generated,
            "rows": self.json_data(),
            "warnings": list(p.warnings),
            "profile": p.profile,
            "rows_total": len(p.ledger_rows),
            "offset": self.offset,
            "limit": self.limit,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EntriesReport:
        """The inverse of :meth:`to_dict`: a packet holding the ledger rows."""
        return cls(
            packet=Packet.from_dict({**data, "ledger": data.get("rows", [])}),
            offset=0,
            limit=data.get("limit"),
        )

    def _columns(self) -> tuple[bool, bool, bool]:
        """Whether the table needs a source column (entries from theme folders), a warnings
        column (a row has one) and a rule column (the ctx-0.8 profile)."""
        rows = self.rows
        themed = any(r.source and r.source.count("/") > 1 for r in rows)
        return themed, any(r.warnings for r in rows), any(r.rule for r in rows)

    def _header(self) -> list[str]:
        themed, warned, ruled = self._columns()
        header = ["section", "title", "date", "score", "tokens", "action", "reason"]
        return header + ["rule"] * ruled + ["source"] * themed + ["warnings"] * warned

    def _rows(self, width: int) -> list[list[object]]:
        themed, warned, ruled = self._columns()
        rows: list[list[object]] = []
        for r in self.rows:
            row: list[object] = [
                r.section,
                _cut(plain_title(r.title), width),
                r.date or "",
                _number(r.score),
                r.tokens,
                r.action,
                r.reason,
            ]
            if ruled:
                row.append(r.rule or "")
            if themed:
                row.append((r.source or "").removeprefix(".context/"))
            if warned:
                row.append("; ".join(r.warnings))
            rows.append(row)
        return rows

    def to_text(self) -> str:
        """An aligned table: section, title, date, score, tokens, action, reason (and source,
        warnings when some row has them)."""
        p = self.packet
        summary = f"{p.tokens_used} of {p.budget} tokens ({p.counter}), generated {p.generated}"
        if p.focus:
            summary += f", focus {p.focus!r}"
        if p.relevance_reason:
            summary += f", {p.relevance_reason}"
        elif p.relevance != "keywords":
            summary += f", relevance {p.relevance}"
        if p.profile != "design":
            summary += f", profile {p.profile}"
            if p.tokens_used > p.budget:
                summary += f" — over budget by {p.tokens_used - p.budget} tokens"
        return f"{summary}\n\n{text_table(self._header(), self._rows(48))}"

    def to_csv(self) -> str:
        """CSV with the ledger's columns (keywords joined by spaces)."""
        rows = []
        for r in self.rows:
            d = r.to_dict()
            d["keywords"] = " ".join(r.keywords)
            d["warnings"] = "; ".join(r.warnings)
            rows.append([d[c] for c in LEDGER_COLUMNS])
        return csv_text(LEDGER_COLUMNS, rows)

    def render(self, fmt: str = "table") -> str:
        """``table`` (default), ``csv`` or ``json``."""
        if fmt == "csv":
            return self.to_csv()
        if fmt == "json":
            return self.to_json()
        return self.to_text() + "\n"

    def html_body(self) -> str:
        """The ledger as a table."""
        return f"<h4>Scored entries ({escape(self.packet.counter)})</h4>" + html_table(
            self._header(), self._rows(80), numeric=(3, 4)
        )
