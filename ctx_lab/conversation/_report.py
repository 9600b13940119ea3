"""``ctx-lab history``: a saved conversation's usage, working context and what to summarize."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..display import RichResult, escape, html_table
from ..errors import RecentMessagesTooLarge, SummarizationNeeded
from ._manager import ContextManager
from ._usage import ContextUsage

__all__ = ["HistoryReport", "history_report"]


def _ranges(ids: list[int]) -> str:
    if not ids:
        return ""
    runs: list[list[int]] = []
    for i in ids:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return ", ".join(f"{r[0]}" if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)


@dataclass(frozen=True, kw_only=True)
class HistoryReport(RichResult):
    """Usage, segments, and what needs summarizing; ``exit_code`` 1 under ``--check`` when the
    context does not fit."""

    path: str
    model: str
    state: str
    usage: ContextUsage
    segments: list[dict[str, Any]]
    messages: int
    summaries: int
    orphaned_summaries: list[int]
    to_summarize: list[int] = field(default_factory=list)
    excess_tokens: int | None = None
    detail: str = ""
    check: bool = False

    payload_kind = "history"

    @property
    def exit_code(self) -> int:  # type: ignore[override]
        """1 when ``--check`` was asked and the context does not fit."""
        return 1 if self.check and self.state != "ready" else 0

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON. Hand-written: each segment's ids are also written as ranges (``0–75,
        80``), inside the list."""
        return {
            "path": self.path,
            "model": self.model,
            "state": self.state,
            "usage": self.usage.to_dict(),
            # each segment's ids also as ranges ("0–75, 80"), as the CLI prints them
            "segments": [{**s, "range": _ranges(s["ids"])} for s in self.segments],
            "messages": self.messages,
            "summaries": self.summaries,
            "orphaned_summaries": self.orphaned_summaries,
            "to_summarize": self.to_summarize,
            "to_summarize_range": _ranges(self.to_summarize),
            "excess_tokens": self.excess_tokens,
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HistoryReport:
        """The inverse of :meth:`to_dict` (``check`` is the CLI's, not part of the JSON)."""
        usage = data["usage"]
        fields = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        fields["usage"] = ContextUsage.from_dict(usage)
        fields["segments"] = [
            {k: v for k, v in s.items() if k != "range"} for s in data.get("segments", [])
        ]
        return cls(**fields)

    def _segment_lines(self) -> list[str]:
        lines = []
        for s in self.segments:
            if s["kind"] == "summary":
                lines.append(
                    f"summary #{s['summary_id']} of {_ranges(s['ids'])}: {s['tokens']} tokens"
                )
            else:
                lines.append(f"message {s['ids'][0]}: {s['tokens']} tokens")
        return lines

    def to_text(self) -> str:
        """Usage line, state, segments (runs of originals folded), what to summarize."""
        head = [
            f"{self.path}: {self.messages} messages, {self.summaries} summaries ({self.model})",
            f"usage: {self.usage.to_text()}",
            f"state: {self.state}",
        ]
        originals = [s["ids"][0] for s in self.segments if s["kind"] == "original"]
        summaries = [line for line in self._segment_lines() if line.startswith("summary")]
        head.append(f"in context: {len(self.segments)} segments")
        head += [f"  {line}" for line in summaries]
        if originals:
            head.append(f"  originals: {_ranges(originals)}")
        if self.to_summarize:
            head.append(
                f"to summarize: {_ranges(self.to_summarize)} ({self.excess_tokens} tokens over)"
            )
        if self.detail:
            head.append(self.detail)
        if self.orphaned_summaries:
            head.append(f"orphaned summaries: {self.orphaned_summaries}")
        return "\n".join(head)

    def html_body(self) -> str:
        """The usage gauge and the segments."""
        rows = [[s["kind"], _ranges(s["ids"]), s["tokens"]] for s in self.segments]
        extra = (
            f"<div class='ctx-warn' data-ctx-to-summarize>to summarize: "
            f"{escape(_ranges(self.to_summarize))} ({self.excess_tokens} tokens over)</div>"
            if self.to_summarize
            else ""
        )
        return (
            f"<h4 data-ctx-history='{escape(self.state)}'>{escape(self.path)} — "
            f"{escape(self.state)}</h4>{self.usage.html_body()}{extra}"
            + html_table(["segment", "messages", "tokens"], rows, numeric=(2,))
        )


def history_report(manager: ContextManager, path: str, check: bool = False) -> HistoryReport:
    """The report for a loaded manager."""
    status = manager.usage_status()
    selection = manager._select(manager.message_budget())
    needed = status.needed
    return HistoryReport(
        path=path,
        model=manager.model,
        state=status.state,
        usage=status.usage,
        segments=[s.to_dict() for s in selection.segments],
        messages=len(manager.history),
        summaries=len(manager.history.summaries),
        orphaned_summaries=manager.history.orphaned_summaries(),
        to_summarize=list(needed.messages_to_summarize)
        if isinstance(needed, SummarizationNeeded)
        else [],
        excess_tokens=needed.excess_tokens if isinstance(needed, SummarizationNeeded) else None,
        detail=str(needed) if isinstance(needed, RecentMessagesTooLarge) else "",
        check=check,
    )
